"""One results type for eval-c, eval-p, the demo and the report (schema ``corruptbench.results/1``).

* :mod:`~corruptbench.results.core` — :class:`Results`: ``to_json`` / ``from_json``, validated.
* :mod:`~corruptbench.results.cbar_part` — the ImageNet-C-bar / CIFAR-10-C-bar part, read back
  checked.
* :mod:`~corruptbench.results.parts` — its parts :class:`CResults`, :class:`CBarResults`, :class:`PResults`,
  :class:`ScoreResults`, :class:`DatasetInfo`, and ``ResultsLike``, what its views read of it.
* :mod:`~corruptbench.results.calibration` — the calibration part (NLL, Brier, ECE per cell):
  :func:`make_calibration_part`, reading it back checked.
* :mod:`~corruptbench.results.scores` — the task-score part: :func:`make_score_part`, reading it
  back checked; :mod:`~corruptbench.results.score_table` — a toolkit's score table as results.
* :mod:`~corruptbench.results.stream_part` — the test-time-adaptation stream part
  (``kind="stream"``, eval-stream): :class:`StreamPart`, reading it back checked;
  :mod:`~corruptbench.results.stream_views` — its TTA table, summary, figure and reports.
* :mod:`~corruptbench.results.export` — the one CSV format (one number per row):
  :func:`to_csv` of one result (eval-c / eval-p ``--csv``), :func:`render_csv` of several.
* :mod:`~corruptbench.results.provenance` — library versions and timestamps.
* :mod:`~corruptbench.results.reader` — the typed, message-naming readers behind ``from_json``.

What a result shows of itself (imported on call, not here: they load rich and matplotlib), which
the report (:mod:`corruptbench.report`) builds on:

* :mod:`~corruptbench.results.text` — the terminal summary (``Results.summary()``).
* :mod:`~corruptbench.results.markdown` — the Markdown report of one or more results.
* :mod:`~corruptbench.results.page` — the HTML page (``Results.to_html()``), its tables in
  :mod:`~corruptbench.results.html_tables`.
* :mod:`~corruptbench.results.card` — summary card and notebook fragment (``_repr_html_``), the
  report's stylesheet.
* :mod:`~corruptbench.results.plots` — the figures; :mod:`~corruptbench.results.format` — display
  strings (percentages, names, families).
"""

from __future__ import annotations

from .baselines import BUILT_IN_BASELINES, Baseline, MeasuredOn, resolve_baseline
from .calibration import make_calibration_part
from .core import KINDS, SCHEMA, SCHEMA_MAJOR, SCHEMA_PREFIX, Results, summarize_errors
from .export import to_csv
from .parts import (
    CalibrationResults,
    CBarResults,
    CResults,
    DatasetInfo,
    PResults,
    ScoreResults,
)
from .provenance import library_versions, model_key, now
from .scores import make_score_part

__all__ = [
    "Baseline",
    "MeasuredOn",
    "BUILT_IN_BASELINES",
    "resolve_baseline",
    "SCHEMA",
    "SCHEMA_PREFIX",
    "SCHEMA_MAJOR",
    "KINDS",
    "Results",
    "CResults",
    "CBarResults",
    "PResults",
    "ScoreResults",
    "CalibrationResults",
    "DatasetInfo",
    "make_score_part",
    "make_calibration_part",
    "summarize_errors",
    "to_csv",
    "library_versions",
    "model_key",
    "now",
]

"""One results type for eval-c, eval-p, the demo and the report (schema ``corruptbench.results/1``).

* :mod:`~corruptbench.results.core` — :class:`Results` (with :class:`CResults`,
  :class:`PResults`, :class:`DatasetInfo`): ``to_json`` / ``from_json``, validated.
* :mod:`~corruptbench.results.export` — :func:`to_csv`, the eval-c / eval-p CSV table.
* :mod:`~corruptbench.results.provenance` — library versions and timestamps.
* :mod:`~corruptbench.results.reader` — the typed, message-naming readers behind ``from_json``.
"""

from __future__ import annotations

from .core import (
    KINDS,
    SCHEMA,
    SCHEMA_MAJOR,
    SCHEMA_PREFIX,
    CResults,
    DatasetInfo,
    PResults,
    Results,
    summarize_errors,
)
from .export import to_csv
from .provenance import library_versions, now

__all__ = [
    "SCHEMA",
    "SCHEMA_PREFIX",
    "SCHEMA_MAJOR",
    "KINDS",
    "Results",
    "CResults",
    "PResults",
    "DatasetInfo",
    "summarize_errors",
    "to_csv",
    "library_versions",
    "now",
]

"""A score table a toolkit already wrote (mmdetection, detectron2, a spreadsheet) as results.

The table is CSV (or tab- / semicolon-separated) with a header naming at least the columns
``corruption``, ``severity`` and ``score`` (any case; another score column with ``column=``; other
columns are ignored), one row per cell::

    corruption,severity,score
    clean,0,0.363
    gaussian_noise,1,0.271
    ...

Severity 0 is the clean score (its corruption may be ``clean``, empty, or repeated under every
corruption with the same value, as mmdetection's ``test_robustness.py`` does). Every row is
checked (:func:`~corruptbench.metrics.grid_from_cells`) and the grid summarised
(:func:`~corruptbench.metrics.summarize_scores`): each problem is one ``ValueError`` line that
starts with the file name (and the line number, where a line is at fault).
"""

from __future__ import annotations

import csv
import os
import platform
from pathlib import Path

from ..errors import ArgumentError
from ..metrics import grid_from_cells, summarize_scores
from ..version import __version__
from .core import Results
from .parts import DatasetInfo
from .provenance import now
from .scores import make_score_part

__all__ = ["read_score_table", "results_from_table"]

_DELIMITERS = ",\t;"


def _rows(path: Path) -> list[list[str]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the table ({exc})") from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise ValueError(f"{path}: empty table; expected a header 'corruption,severity,score'")
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(
            lines[0], delimiters=_DELIMITERS
        )
    except csv.Error:
        dialect = csv.excel
    return list(csv.reader(lines, dialect))


def read_score_table(
    path: str | os.PathLike[str], *, column: str = "score"
) -> tuple[float | None, dict[str, list[float | None]]]:
    """The clean score and the grid of one table (cells not in the table stay ``None``).

    Args:
        path: The table.
        column: The header of the score column (case-insensitive).

    Raises:
        ValueError: ``"<path>: ..."``: unreadable, no header with the columns, a short row, or a
            bad cell (``"<path>, line 7: ..."``).
    """
    p = Path(path)
    rows = _rows(p)
    header = [h.strip().lower() for h in rows[0]]
    wanted = ("corruption", "severity", column.strip().lower())
    absent = [w for w in wanted if w not in header]
    if absent:
        raise ValueError(
            f"{p}: the header has no column {', '.join(map(repr, absent))} (it has "
            f"{', '.join(map(repr, header))}); expected 'corruption,severity,{column}'"
        )
    index = [header.index(w) for w in wanted]
    cells = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(field.strip() for field in row):
            continue
        where = f"{p}, line {number}"
        if len(row) <= max(index):
            raise ValueError(f"{where}: {len(row)} fields, the header has {len(header)}")
        cells.append((row[index[0]], row[index[1]], row[index[2]], where))
    if not cells:
        raise ValueError(f"{p}: the table has a header but no rows")
    return grid_from_cells(cells)


def results_from_table(
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    metric: str = "score",
    column: str = "score",
    partial: bool = False,
) -> Results:
    """A complete ``kind="score"`` :class:`~corruptbench.results.Results` from one table.

    Args:
        path: The table (see the module docstring).
        name: The model's id (default: the file name without its extension).
        metric: What the score is (``"box AP"``), for display.
        column: The score column's header.
        partial: Allow benchmark corruptions to be absent (mPC over those given).

    Raises:
        ValueError: one line starting with ``path``: a bad row, a missing cell, no clean score, a
            clean score of 0, missing benchmark corruptions without ``partial``.
    """
    p = Path(path)
    clean, grid = read_score_table(p, column=column)
    try:
        summarize_scores(grid, clean, partial=partial)
    except ArgumentError as exc:
        raise ArgumentError(f"{p}: ", *exc.parts) from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{p}: {exc}") from None
    model_id = name if name is not None else p.stem
    if not model_id.strip():
        raise ValueError(f"{p}: the model name is empty")
    return Results(
        kind="score",
        model={"id": model_id, "source": f"table:{p.name}"},
        dataset=DatasetInfo(path=str(p), layout="score table"),
        score=make_score_part(grid, clean, metric=metric, partial=partial),
        # the numbers come from the table: no library of this process changed them
        versions={"corruptbench": __version__, "python": platform.python_version()},
        created=now(),
        source=str(p),
    )

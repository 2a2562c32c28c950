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

Reading follows Python's :mod:`csv` module (the ``excel`` dialect: RFC 4180 quoting, a ``"``
inside a quoted field doubled), as Python's csv, Excel and pandas write it; the separator is the
one of ``,`` tab ``;`` that splits the header into the wanted columns. The table is streamed
row by row, so memory stays constant in its length (the grid holds at most 20 x 5 cells); a line
over :data:`MAX_LINE` characters (or a quoted field over the :mod:`csv` module's field limit) or
text that is not UTF-8 ends the read with one line. Scores are plain ASCII decimal numbers on one scale per table
(:func:`~corruptbench.metrics.check_scale`: fractions 0..1 or percentages 0..100, detected or
given with ``scale=``); -1, COCOeval's "undefined", is refused like NaN.
"""

from __future__ import annotations

import csv
import os
import platform
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ..errors import ArgumentError
from ..metrics import check_scale, grid_from_cells, summarize_scores
from ..version import __version__
from .core import Results
from .parts import DatasetInfo
from .provenance import now
from .scores import make_score_part

__all__ = ["MAX_LINE", "read_score_table", "results_from_table"]

_DELIMITERS = ",\t;"

#: the longest line a score table may have, in characters (a row is a few dozen; this bounds the
#: memory one line can take, whatever the file holds)
MAX_LINE = 1 << 16


def _lines(fh: IO[str], path: Path) -> Iterator[str]:
    """The file's lines (ends kept, as :mod:`csv` wants them), each at most :data:`MAX_LINE`."""
    number = 0
    while True:
        try:
            line = fh.readline(MAX_LINE + 1)
        except UnicodeDecodeError as exc:
            # the decoder reads ahead of the line: no line number to give
            raise ValueError(f"{path}: not UTF-8 text ({exc.reason}): not a score table") from None
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE:
            raise ValueError(
                f"{path}, line {number}: longer than {MAX_LINE} characters: not a score table "
                "(one row per cell: corruption, severity, score)"
            )
        yield line


def _dialect(header: str, wanted: tuple[str, ...]) -> tuple[str, list[str]]:
    """The separator that splits ``header`` into the wanted columns (else the one giving the
    most columns, for the message) and the header's cells, stripped and lower-cased."""
    best: tuple[str, list[str]] | None = None
    for sep in _DELIMITERS:
        cells = [h.strip().lower() for h in next(csv.reader([header], delimiter=sep), [])]
        if all(w in cells for w in wanted):
            return sep, cells
        if best is None or len(cells) > len(best[1]):
            best = (sep, cells)
    assert best is not None
    return best


def _cells(fh: IO[str], path: Path, column: str) -> Iterator[tuple[str, str, str, str]]:
    """``(corruption, severity, score, where)`` of each non-blank row, streamed."""
    lines = _lines(fh, path)
    header = next(lines, "")
    if not header.strip():
        raise ValueError(f"{path}: empty table; expected a header 'corruption,severity,score'")
    wanted = ("corruption", "severity", column.strip().lower())
    sep, names = _dialect(header, wanted)
    absent = [w for w in wanted if w not in names]
    if absent:
        raise ValueError(
            f"{path}: the header has no column {', '.join(map(repr, absent))} (it has "
            f"{', '.join(map(repr, names))}); expected 'corruption,severity,{column}'"
        )
    index = [names.index(w) for w in wanted]
    reader = csv.reader(lines, delimiter=sep)  # the excel dialect: "" inside quotes is one "
    rows = 0
    while True:
        try:
            row = next(reader, None)
        except csv.Error as exc:
            raise ValueError(f"{path}, line {reader.line_num + 1}: {exc}") from None
        if row is None:
            break
        if not any(field.strip() for field in row):
            continue
        where = f"{path}, line {reader.line_num + 1}"
        if len(row) <= max(index):
            raise ValueError(f"{where}: {len(row)} fields, the header has {len(names)}")
        rows += 1
        yield row[index[0]], row[index[1]], row[index[2]], where
    if not rows:
        raise ValueError(f"{path}: the table has a header but no rows")


def read_score_table(
    path: str | os.PathLike[str], *, column: str = "score"
) -> tuple[float | None, dict[str, list[float | None]]]:
    """The clean score and the grid of one table (cells not in the table stay ``None``), read
    row by row (see the module docstring).

    Args:
        path: The table.
        column: The header of the score column (case-insensitive).

    Raises:
        ValueError: ``"<path>: ..."``: unreadable, no header with the columns, a short row, a
            line too long, not UTF-8, or a bad cell (``"<path>, line 7: ..."``).
    """
    p = Path(path)
    try:
        # newline="": the csv module reads quoted line breaks itself
        with open(p, encoding="utf-8-sig", newline="") as fh:
            return grid_from_cells(_cells(fh, p, column))
    except FileNotFoundError:
        raise ValueError(f"{p}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{p}: cannot read the table ({exc})") from None


def results_from_table(
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    metric: str = "score",
    column: str = "score",
    partial: bool = False,
    scale: str | None = None,
) -> Results:
    """A complete ``kind="score"`` :class:`~corruptbench.results.Results` from one table.

    Args:
        path: The table (see the module docstring).
        name: The model's id (default: the file name without its extension).
        metric: What the score is (``"box AP"``), for display.
        column: The score column's header.
        partial: Allow benchmark corruptions to be absent (mPC over those given).
        scale: ``"fraction"`` (0..1) or ``"percent"`` (0..100); None: detected
            (:func:`~corruptbench.metrics.check_scale`).

    Raises:
        ValueError: one line starting with ``path``: a bad row, a missing cell, no clean score, a
            clean score of 0, missing benchmark corruptions without ``partial``, scores off the
            scale or on two scales.
    """
    p = Path(path)
    clean, grid = read_score_table(p, column=column)
    try:
        check_scale(clean, grid, scale)
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

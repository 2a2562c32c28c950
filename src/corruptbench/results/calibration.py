"""The ``calibration`` object of a results file: making it, and reading it back checked.

eval-c and eval-p measure, per cell, how well the model's softmax is calibrated
(:class:`~corruptbench.metrics.calibration.CalibrationStats`: NLL, Brier score, ECE, top-1 and
top-5 error, mean confidence) and write::

    "calibration": {
     "ece_bins": 15,         # the bins of every "ece" below (eval-c --ece-bins)
     "bins": 30,             # the bins the statistics keep: ece_bins * 2**k, at least 30
     "cells": {"clean": {"n": 40, "nll": .., "brier": .., "ece": .., "top1_error": ..,
                         "top5_error": .., "mean_confidence": ..},
               "fog/3": {..}, ..},
     "severity_means": {"benchmark": {"corruptions": [5 counts], "nll": [5 means], "brier": [5],
                                      "ece": [5], "top1_error": [5], "top5_error": [5],
                                      "mean_confidence": [5]},
                        "all": {..}},        # null without corrupted cells (eval-p)
     "stats": {"clean": {CalibrationStats.to_dict()}, "fog/3": {..}, ..}
    }

``stats`` holds what was measured: per cell, integer sums that merge exactly, so a resumed run,
WebDataset shards, loader workers and data built by Ray give the very numbers of one pass. eval-c's
keys are ``"clean"`` and the cells' keys (``"fog/3"``); eval-p's are ``"<perturbation>/0"``: frame
0 of that perturbation's sequences, which is the clean image for the perturbations of
:data:`~corruptbench.perturbations.CLEAN_FIRST_FRAME` only (MP4 data: after the video encoding),
labelled by the sequences' class folders. Everything else is derived from ``stats``:

* ``cells``: each cell's numbers, the ECE with ``ece_bins`` bins; eval-p adds ``"clean"``, its
  clean frames pooled (an image present in several perturbations counts once per perturbation).
* ``severity_means``: per severity 1..5 the mean of each number over the benchmark corruptions
  (``"benchmark"``, the 15) or all 19 (``"all"``) measured at that severity, every corruption
  weighted alike (as the mean error); ``corruptions`` counts them (fewer than 15 / 19: a partial
  mean, shown as such).

:func:`parse_calibration` rebuilds the statistics (:meth:`CalibrationStats.from_dict` checks each),
recomputes the derived numbers and refuses a file whose stored ones disagree, naming the key, or
whose statistics contradict the file's own counts and errors (``n`` = the cell's image count,
``top1_correct`` = (1 - error) x n; eval-p: ``n`` = the perturbation's sequences). A file without
``calibration`` (written before it existed, or by the demo) has none: ``Results.calibration`` is
``None``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..grid import CLEAN, SEVERITIES, Cell, parse_cell_key, reference_order, suite_of
from ..metrics.calibration import CalibrationStats
from ..perturbations import ALL_PERTURBATIONS
from ..registry import corruption_specs
from .parts import CalibrationResults, CBarResults, CResults, PResults
from .reader import Reader, short_repr

__all__ = ["make_calibration_part", "parse_calibration"]

_REL_TOL = 1e-9  # another writer may sum in another order; a real disagreement is far larger


#: every registered corruption, suite by suite (ImageNet-C's 19, then C-bar's 30), in order
_CORRUPTIONS = reference_order([s.name for s in corruption_specs(None)])


def _order(cell: Cell) -> tuple[int, int, int]:
    """Clean first, then the corruptions' cells in the grid's order (ImageNet-C's, then
    C-bar's), then eval-p's frames."""
    if cell == CLEAN:
        return (0, 0, 0)
    if cell.level == 0:
        return (2, ALL_PERTURBATIONS.index(cell.name), 0)
    return (1, _CORRUPTIONS.index(cell.name), cell.level)


def _readable(bins: int, ece_bins: int) -> bool:
    """Whether statistics of ``bins`` bins give the ECE of ``ece_bins`` exactly."""
    ratio, rest = divmod(bins, ece_bins)
    return rest == 0 and ratio >= 1 and ratio & (ratio - 1) == 0


def make_calibration_part(
    stats: Mapping[str, CalibrationStats], ece_bins: int
) -> CalibrationResults:
    """The :class:`~corruptbench.results.CalibrationResults` of measured cells (keys ``"clean"``,
    ``"fog/3"``, or eval-p's ``"gaussian_noise/0"``), in file order; cells without samples are
    left out.

    Raises:
        ValueError: an unknown cell, statistics of different bins, or bins that do not give the
            ECE of ``ece_bins`` exactly.
    """
    if isinstance(ece_bins, bool) or not isinstance(ece_bins, int) or ece_bins < 1:
        raise ValueError(f"'ece_bins' must be a positive integer, got {short_repr(ece_bins)}")
    cells = {key: _cell(key) for key in stats}
    kept = sorted((k for k in stats if stats[k].n), key=lambda k: _order(cells[k]))
    bins = {stats[k].bins for k in kept}
    if len(bins) > 1:
        raise ValueError(f"the cells' statistics keep different bins ({sorted(bins)})")
    if bins and not _readable(next(iter(bins)), ece_bins):
        raise ValueError(
            f"statistics of {next(iter(bins))} bins do not give the ECE of {ece_bins} bins "
            "exactly (it needs the same number times a power of two)"
        )
    return CalibrationResults(ece_bins=ece_bins, stats={k: stats[k] for k in kept})


def _cell(key: str) -> Cell:
    """The cell of a ``stats`` key: clean, a corruption at severity 1..5, or a perturbation's
    clean frames (level 0)."""
    cell = parse_cell_key(key)
    known = (
        cell == CLEAN
        or (cell.name in _CORRUPTIONS and cell.level in SEVERITIES)
        or (cell.name in ALL_PERTURBATIONS and cell.level == 0)
    )
    if not known:
        raise ValueError(
            f"unknown cell {key!r} (expected 'clean', '<corruption>/<1..5>' or '<perturbation>/0')"
        )
    return cell


# ------------------------------------------------------------------------------------------------
# reading
# ------------------------------------------------------------------------------------------------
def parse_calibration(
    r: Reader,
    data: Mapping[str, Any],
    *,
    c: CResults | None,
    p: PResults | None,
    cbar: CBarResults | None = None,
) -> CalibrationResults | None:
    """The checked ``calibration`` object of a results file (``None`` when it has none).

    Raises:
        ValueError: ``"<file>: ..."`` naming the key that is malformed, disagrees with the
            statistics or contradicts the file's counts and errors.
    """
    obj = r.obj(data, "calibration", "", required=False)
    if obj is None:
        return None
    raw = r.obj(obj, "stats", "calibration.")
    assert raw is not None
    stats: dict[str, CalibrationStats] = {}
    for key, value in raw.items():
        try:
            _cell(key)
        except ValueError as exc:
            raise r.fail(f"'calibration.stats' names an {exc}") from None
        try:
            stats[key] = CalibrationStats.from_dict(value, f"'calibration.stats[{key!r}]'")
        except ValueError as exc:
            raise r.fail(str(exc)) from None
        if not stats[key].n:
            raise r.fail(f"calibration.stats[{key!r}] has no samples")
    try:
        part = make_calibration_part(stats, obj.get("ece_bins"))  # type: ignore[arg-type]
    except ValueError as exc:
        raise r.fail(f"calibration: {exc}") from None
    if c is not None or cbar is not None:  # eval-c, or a demo: its cells are ImageNet-C's
        _check_c(r, part, c, cbar)
    elif p is not None:
        _check_p(r, part, p)
    if c is None and p is None and cbar is None and part.stats:
        raise r.fail("'calibration' is given but the file has no ImageNet-C or -P part")
    _check_derived(r, obj, part)
    return part


def _close(a: Any, b: Any) -> bool:
    if isinstance(b, bool) or b is None or isinstance(b, int):
        return a == b and type(a) is type(b)
    return (
        isinstance(a, (int, float))
        and not isinstance(a, bool)
        and math.isclose(float(a), b, rel_tol=_REL_TOL, abs_tol=1e-15)
    )


def _first_difference(stored: Any, derived: Any, where: str) -> tuple[str, Any, Any] | None:
    """Where ``stored`` (from the file) first differs from ``derived``, up to summation order."""
    if isinstance(derived, dict):
        if not isinstance(stored, dict) or set(stored) != set(derived):
            return (where, stored, derived)
        for k, v in derived.items():
            found = _first_difference(stored[k], v, f"{where}[{k!r}]")
            if found:
                return found
        return None
    if isinstance(derived, list):
        if not isinstance(stored, list) or len(stored) != len(derived):
            return (where, stored, derived)
        for i, v in enumerate(derived):
            found = _first_difference(stored[i], v, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if _close(stored, derived) else (where, stored, derived)


def _check_derived(r: Reader, obj: Mapping[str, Any], part: CalibrationResults) -> None:
    """The stored derived numbers must be those of the statistics (absent ones are recomputed)."""
    derived = part.to_dict()
    for key in ("bins", "cells", "severity_means"):
        if key not in obj:
            continue
        found = _first_difference(obj[key], derived[key], f"calibration.{key}")
        if found:
            where, stored, value = found
            raise r.fail(
                f"'{where}' = {short_repr(stored)} disagrees with the stored statistics, which "
                f"give {short_repr(value)}"
            )


def _check_cell(r: Reader, key: str, s: CalibrationStats, n: int | None, err: float | None) -> None:
    """A cell's statistics against the file's count and top-1 error of that cell."""
    if n is None or err is None:
        raise r.fail(f"'calibration.stats[{key!r}]' is given but the file has no error for {key}")
    if s.n != n:
        raise r.fail(
            f"'calibration.stats[{key!r}].n' = {s.n} but the file counts {n} images in {key}"
        )
    if not math.isclose(1.0 - s.top1_correct / s.n, err, rel_tol=0.0, abs_tol=1e-9):
        raise r.fail(
            f"'calibration.stats[{key!r}].top1_correct' = {s.top1_correct} of {s.n} disagrees "
            f"with the file's error {err!r} for {key}"
        )


def _check_c(
    r: Reader, part: CalibrationResults, c: CResults | None, cbar: CBarResults | None
) -> None:
    """eval-c's cells against the part holding each: a C-bar corruption's against the ``cbar``
    part, the others (and the clean cell, when the file has them) against the ImageNet-C part."""
    for key, s in part.stats.items():
        cell = parse_cell_key(key)
        if cell.level == 0 and cell != CLEAN:
            raise r.fail(
                f"'calibration.stats' has {key!r}, a perturbation's cell, in eval-c results"
            )
        holder: CResults | CBarResults | None
        if cell == CLEAN:
            holder = c if c is not None else cbar
        else:
            holder = cbar if suite_of(cell.name) == "cbar" else c
        if holder is None:
            _check_cell(r, key, s, None, None)
        elif cell == CLEAN:
            _check_cell(r, key, s, holder.clean_count, holder.clean_error)
        else:
            pos = SEVERITIES.index(cell.level)
            counts = holder.counts.get(cell.name) or [None] * len(SEVERITIES)
            errors = holder.errors.get(cell.name) or [None] * len(SEVERITIES)
            _check_cell(r, key, s, counts[pos], errors[pos])


def _check_p(r: Reader, part: CalibrationResults, p: PResults) -> None:
    for key, s in part.stats.items():
        cell = parse_cell_key(key)
        if cell.level != 0 or cell == CLEAN:
            raise r.fail(
                f"'calibration.stats' has {key!r} in eval-p results (expected '<perturbation>/0')"
            )
        n = p.num_sequences.get(cell.name)
        if n != s.n:
            raise r.fail(
                f"'calibration.stats[{key!r}].n' = {s.n} but the file has {n} {cell.name} sequences"
            )

"""CCC's calibrated walk: the path over the 21 x 21 severity-pair grid that holds a target accuracy.

CCC (Press et al., "RDumb", NeurIPS 2023; github.com/oripress/CCC, ``generate.py``
``find_path`` / ``traverse_graph``) mixes two corruptions at severities ``s1 = i / 4`` and
``s2 = j / 4`` (``i, j`` in 0..20). ``matrix[i, j]`` is a model's accuracy (percent) on the pair at
those severities. A walk starts at ``(i, 0)`` for some ``i >= 1`` (corruption 1 only) and moves
one cell at a time, either ``i -> i - 1`` or ``j -> j + 1``, until ``i == 0`` (corruption 2 only).

The reference chooses greedily, by dynamic programming from the end: the best path from a cell
is the cell plus the better of the two continuations, "better" meaning the running mean of its
accuracies is closer to the target; a tie goes to ``j + 1``. Columns beyond 20 cost
``9999999999999`` (a sentinel that is never chosen for finite accuracies). The start row is the
one whose whole path's mean is closest to the target; a tie keeps the smaller ``i``.

:func:`find_walk` runs the same recursion iteratively, with the same arithmetic on the same
elements in the same order (sums built from the path's end, divisions by the path's length), so
its result equals ``find_path``'s for any finite matrix (tests/ccc/test_walk.py runs the
original on random matrices).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import Arg, ArgumentError

__all__ = ["GRID", "SEVERITY_STEP", "Walk", "find_walk", "check_matrix", "walk_severities"]

#: severity levels per corruption in CCC's grid: 0, 0.25, ..., 5
GRID = 21
#: the grid's step in severity
SEVERITY_STEP = 0.25
#: the reference's cost of a cell beyond the last column
_BEYOND = 9999999999999

#: how far (accuracy points) a walk's mean may sit from the baseline before find_walk refuses
DEFAULT_TOLERANCE = 5.0


def check_matrix(matrix: Any, name: str = "matrix") -> np.ndarray:
    """``matrix`` as a 21 x 21 float array of accuracies in percent, or one clear
    :class:`~corruptbench.errors.ArgumentError` (wrong shape, NaN or infinite cells, cells outside
    0..100, not numbers)."""
    try:
        arr = np.asarray(matrix, dtype=np.float64)
    except (TypeError, ValueError):
        raise ArgumentError(
            Arg(name),
            f" must be a {GRID} x {GRID} array of accuracies, got {type(matrix).__name__}",
        ) from None
    if arr.shape != (GRID, GRID):
        raise ArgumentError(
            Arg(name),
            f" must be {GRID} x {GRID} (severities 0, 0.25, ..., 5 of each corruption), "
            f"got shape {arr.shape}",
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise ArgumentError(
            Arg(name),
            f" has {int(bad.sum())} NaN or infinite cell(s), the first at [{i}, {j}] "
            f"(severities {i * SEVERITY_STEP:g} + {j * SEVERITY_STEP:g})",
        )
    out = (arr < 0) | (arr > 100)
    if out.any():
        i, j = (int(v) for v in np.argwhere(out)[0])
        raise ArgumentError(
            Arg(name),
            f" has {int(out.sum())} cell(s) outside 0..100 (accuracies in percent), the first "
            f"{arr[i, j]:g} at [{i}, {j}]",
        )
    return arr


@dataclass(frozen=True)
class Walk:
    """A walk and what it holds: ``cells`` (``(i, j)`` index pairs in order), its mean accuracy."""

    cells: tuple[tuple[int, int], ...]
    mean: float

    @property
    def severities(self) -> list[tuple[float, float]]:
        """The cells as ``(s1, s2)`` severities (``float(i) / 4``, as the reference's names)."""
        return walk_severities(self.cells)


def walk_severities(cells: Any) -> list[tuple[float, float]]:
    """``(float(i) / 4, float(j) / 4)`` per cell: the severities ``generate.py`` gives each step."""
    return [(float(i) / 4, float(j) / 4) for i, j in cells]


def _paths(arr: Any, target: float) -> tuple[dict, dict]:
    """The reference's ``cost_dict`` / ``path_dict`` for every cell, filled column by column
    from the right and row by row from the top (each cell needs ``(i - 1, j)`` and ``(i, j + 1)``).
    """
    rows, cols = len(arr), len(arr[0])
    cost: dict[tuple[int, int], Any] = {}
    path: dict[tuple[int, int], list] = {}
    for i in range(rows):
        cost[(i, cols)] = _BEYOND
        path[(i, cols)] = [_BEYOND]
    for j in range(cols - 1, -1, -1):
        cost[(0, j)] = arr[0][j]
        path[(0, j)] = [(0, j)]
        for i in range(1, rows):
            here = arr[i][j]
            up, right = (i - 1, j), (i, j + 1)
            # the reference's test, operation for operation (a tie goes to the right)
            if abs((cost[up] + here) / (len(path[up]) + 1) - target) < abs(
                (cost[right] + here) / (len(path[right]) + 1) - target
            ):
                nxt = up
            else:
                nxt = right
            cost[(i, j)] = cost[nxt] + here
            path[(i, j)] = [(i, j), *path[nxt]]
    return cost, path


def find_walk(matrix: Any, baseline: float, *, tolerance: float | None = DEFAULT_TOLERANCE) -> Walk:
    """The severity-pair walk of ``generate.py``'s ``find_path(matrix, baseline)``.

    Args:
        matrix: 21 x 21 accuracies in percent, ``matrix[i, j]`` at severities ``(i / 4, j / 4)``
            (a NumPy array or nested lists; the reference's pickle holds one per ordered pair).
        baseline: the target accuracy in percent (CCC-Easy 40, -Medium 20, -Hard 0).
        tolerance: refuse when the best walk's mean accuracy is further than this from
            ``baseline`` (accuracy points); None accepts any walk, as the reference does.

    Returns:
        :class:`Walk`: the cells from ``(i, 0)`` to ``(0, j)`` and their mean accuracy.

    Raises:
        ArgumentError: a matrix that is not 21 x 21 or holds NaN / infinite cells, a
            non-finite baseline, or (with ``tolerance``) a baseline no walk holds, naming how
            close the best one gets.
    """
    check_matrix(matrix)
    # the reference reads the cells as they are stored (a float32 pickle sums in float32)
    arr = np.asarray(matrix)
    if arr.dtype.kind != "f":
        arr = arr.astype(np.float64)
    try:
        target = float(baseline)
    except (TypeError, ValueError):
        raise ArgumentError(Arg("baseline"), f" must be a number, got {baseline!r}") from None
    if not np.isfinite(target):
        raise ArgumentError(Arg("baseline"), f" must be finite, got {baseline!r}")
    if tolerance is not None and not (isinstance(tolerance, (int, float)) and tolerance >= 0):
        raise ArgumentError(
            Arg("tolerance"),
            f" must be a number of accuracy points >= 0 (or None: any walk), got {tolerance!r}",
        )
    if target > 1 and float(arr.max()) <= 1:  # even with tolerance None: never a plausible walk
        raise ArgumentError(
            Arg("matrix"),
            f" holds accuracies of at most {float(arr.max()):g}: fractions, not percent? "
            f"(--baseline {target:g} is in percent; multiply the matrix by 100)",
        )
    # the reference indexes its (float64) array element by element: the same scalars here
    cost, path = _paths(arr, target)
    best_gap, best, mean = float("inf"), [], float("nan")
    for i in range(1, GRID):
        here = cost[(i, 0)] / len(path[(i, 0)])
        gap = abs(here - target)
        if gap < best_gap:
            best_gap, best, mean = gap, path[(i, 0)], float(here)
    cells = tuple((int(i), int(j)) for i, j in best)
    if tolerance is not None and abs(mean - target) > tolerance:
        raise ArgumentError(
            Arg("baseline"),
            f" {target:g} cannot be held with this matrix: the closest walk averages "
            f"{mean:.2f} % ({abs(mean - target):.2f} points away; accuracies range "
            f"{arr.min():.2f}..{arr.max():.2f}; tolerance {tolerance:g})",
        )
    return Walk(cells, mean)

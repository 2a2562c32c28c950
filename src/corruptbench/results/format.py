"""Formatting helpers of the views of results and of the report (fractions in, display strings out)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

from ..corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS, FAMILIES
from ..registry import corruption_registry
from .parts import ResultsLike

_R = TypeVar("_R", bound=ResultsLike)

_PRETTY = {
    "jpeg_compression": "JPEG",
    "elastic_transform": "Elastic",
    "gaussian_noise": "Gaussian noise",
    "gaussian_blur": "Gaussian blur",
}

DASH = "\u2014"


def family_of(name: str) -> str | None:
    """The corruption's family in the registry: ``noise``, ``blur``, ``weather`` or ``digital``;
    ``None`` for the 4 extra corruptions (in no family) and for a name it does not know."""
    info = corruption_registry().get(name)
    return info.family if info is not None else None


def pretty(name: str) -> str:
    """``"motion_blur"`` -> ``"Motion blur"``."""
    return _PRETTY.get(name, name.replace("_", " ").capitalize())


def pct(value: float | None, digits: int = 1) -> str:
    """A fraction as a percentage string; ``None``/NaN as an em dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return DASH
    return f"{100.0 * value:.{digits}f}%"


def num(value: float | None, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return DASH
    return f"{value:.{digits}f}"


def score_num(value: float | None) -> str:
    """A task score as measured (AP 0.3631 or 36.31 alike): 4 significant digits; em dash if
    missing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return DASH
    return f"{value:.4g}" if abs(value) < 1e4 else f"{value:.0f}"


def summary_cells(r: ResultsLike, with_p: bool) -> list[str]:
    """A comparison-table row's figures: clean error, mCE, relative mCE, mean error, extra mean
    error (then mFR and mT5D when ``with_p``), as percentages; em dashes where missing."""
    c, p = r.c, r.p
    cells = (
        [
            pct(c.clean_error),
            pct(c.mce),
            pct(c.relative_mce),
            pct(c.mean_error),
            pct(c.extra_mean_error),
        ]
        if c
        else [DASH] * 5
    )
    if with_p:
        cells += [pct(p.mfr), pct(p.mt5d)] if p else [DASH, DASH]
    return cells


__all__ = [
    "ALL_CORRUPTIONS",
    "BENCHMARK_CORRUPTIONS",
    "EXTRA_CORRUPTIONS",
    "FAMILIES",
    "DASH",
    "family_of",
    "pretty",
    "pct",
    "num",
    "score_num",
    "summary_cells",
    "leaderboard_rows",
    "sort_by_mce",
]


def leaderboard_rows(r: ResultsLike) -> list[tuple[str, str]]:
    """(label, value) pairs of the figures the leaderboard of the result's protocol lists
    (:attr:`~corruptbench.results.Results.leaderboard`), as it shows them (percent, 2 decimals);
    none for the ``full`` protocol."""
    lb = r.leaderboard
    if lb is None:
        return []
    who = lb["leaderboard"]
    acc = f"Corruption accuracy, {lb['of_cells']} cells ({who} corruptions_acc)"
    if lb["cells"] < lb["of_cells"]:
        acc += f" [{lb['cells']}/{lb['of_cells']} cells]"
    return [
        (f"Clean accuracy ({who} clean_acc)", pct(lb["clean_acc"], 2)),
        (acc, pct(lb["corruptions_acc"], 2)),
    ]


def sort_by_mce(results: Sequence[_R]) -> list[_R]:
    """Models with an mCE first, best (lowest) first; then task-score grids with an mPC, best
    (highest) first; then the rest in the given order."""

    def key(r: _R) -> tuple[int, float]:
        if r.c is not None and r.c.mce is not None:
            return (0, r.c.mce)
        if r.score is not None and r.score.mpc is not None:
            return (1, -r.score.mpc)
        return (2, 0.0)

    return sorted(results, key=key)

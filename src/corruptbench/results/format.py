"""Formatting helpers of the views of results and of the report (fractions in, display strings out)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

from ..corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS, FAMILIES
from ..registry import corruption_registry
from .parts import CBarResults, CResults, ResultsLike

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


#: the C-bar benchmarks as the views name them
CBAR_TITLES = {"imagenet_c_bar": "ImageNet-C-bar", "cifar10_c_bar": "CIFAR-10-C-bar"}


def cbar_title(cbar: CBarResults) -> str:
    """``"ImageNet-C-bar"`` or ``"CIFAR-10-C-bar"``: the benchmark whose levels the part holds."""
    return CBAR_TITLES.get(cbar.benchmark, cbar.benchmark)


def cbar_partial_tag(cbar: CBarResults) -> str:
    """``"partial: 7/10"`` when the C-bar mean covers fewer than the benchmark's ten corruptions
    at all five levels, else ``""``."""
    return f"partial: {cbar.covered}/{len(cbar.corruptions)}" if cbar.partial else ""


def cbar_mean_cell(cbar: CBarResults) -> str:
    """The C-bar mean error as a percentage, labelled ``"(partial: 7/10)"`` when partial."""
    tag = cbar_partial_tag(cbar)
    return pct(cbar.mean_error) + (f" ({tag})" if tag and cbar.mean_error is not None else "")


def partial_tag(c: CResults) -> str:
    """``"partial: 2/15"`` for a result whose mCE covers fewer than the 15 benchmark corruptions,
    else ``""``: what every view puts next to a partial mean."""
    return f"partial: {c.covered}/{len(BENCHMARK_CORRUPTIONS)}" if c.partial else ""


def mce_cell(c: CResults, relative: bool = False) -> str:
    """mCE (or relative mCE) as a percentage; for a partial result the mean over the corruptions
    present, labelled ``"65.8% (partial: 2/15)"``: it is not the benchmark's mCE."""
    full, part = (c.relative_mce, c.partial_relative_mce) if relative else (c.mce, c.partial_mce)
    if full is not None or part is None:
        return pct(full)
    return f"{pct(part)} ({partial_tag(c)})"


def summary_cells(r: ResultsLike, with_p: bool) -> list[str]:
    """A comparison-table row's figures: clean error, mCE, relative mCE, mean error, extra mean
    error (then mFR and mT5D when ``with_p``), as percentages; em dashes where missing; a
    partial mean labelled (:func:`mce_cell`)."""
    c, p = r.c, r.p
    cells = (
        [
            pct(c.clean_error),
            mce_cell(c),
            mce_cell(c, relative=True),
            pct(c.mean_error)
            + (f" ({partial_tag(c)})" if c.partial and c.mean_error is not None else ""),
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
    "layout_label",
    "missing_text",
    "partial_tag",
    "mce_cell",
    "CBAR_TITLES",
    "cbar_title",
    "cbar_partial_tag",
    "cbar_mean_cell",
    "sort_by_mce",
]


#: the data a C-bar-only result read through a layout it shares with ImageNet-C / CIFAR-10-C
#: holds: the views name it so, not by that layout (``imagenet-c``)
_CBAR_DATA = {
    ("imagenet-c", "imagenet_c_bar"): "imagenet-c-bar",
    ("imagenet-c", "cifar10_c_bar"): "cifar-10-c-bar",
    ("cifar-c", "cifar10_c_bar"): "cifar-10-c-bar",
}


def layout_label(r: ResultsLike) -> str | None:
    """The data's layout as the views show it: ``dataset.layout``, except that the C-bar data of
    a result without ImageNet-C numbers, read through ImageNet-C's folder layout (or CIFAR-10-C's
    arrays), is named for what it holds (``imagenet-c-bar``, ``cifar-10-c-bar``)."""
    layout = r.dataset.layout
    if r.cbar is None or r.c is not None or layout is None:
        return layout
    return _CBAR_DATA.get((layout, r.cbar.benchmark), layout)


def missing_text(part: CResults | CBarResults) -> str:
    """The corruptions a partial mean (mCE, C-bar's) lacks, those evaluated at some severities
    told apart from those not evaluated at all: ``"gaussian_noise (severity 1 only); not
    evaluated: shot_noise, ..."``."""
    some, absent = [], []
    for name in part.missing:
        done = [str(s) for s, v in enumerate(part.errors.get(name) or [], 1) if v is not None]
        if done:
            word = "severity" if len(done) == 1 else "severities"
            some.append(f"{name} ({word} {', '.join(done)} only)")
        else:
            absent.append(name)
    not_run = "not evaluated: " + ", ".join(absent) if absent else ""
    return "; ".join(x for x in (", ".join(some), not_run) if x)


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
    """Models with an mCE first, best (lowest) first; then those with a partial mCE (over fewer
    than the 15 corruptions: not comparable with an mCE), lowest first; then task-score grids
    with an mPC, best (highest) first; then C-bar results by their mean error, lowest first;
    then the rest in the given order."""

    def key(r: _R) -> tuple[int, float]:
        if r.c is not None and r.c.mce is not None:
            return (0, r.c.mce)
        if r.c is not None and r.c.partial_mce is not None:
            return (1, r.c.partial_mce)
        if r.score is not None and r.score.mpc is not None:
            return (2, -r.score.mpc)
        if r.cbar is not None and r.cbar.mean_error is not None:
            return (3, r.cbar.mean_error)
        return (4, 0.0)

    return sorted(results, key=key)

"""The parts of a :class:`~corruptbench.results.Results`, and what the views of one read of it.

:class:`CResults` (ImageNet-C), :class:`CBarResults` (ImageNet-C-bar / CIFAR-10-C-bar),
:class:`PResults` (ImageNet-P), :class:`ScoreResults` (a task-score
grid: P, mPC, rPC), :class:`CalibrationResults` (NLL, Brier, ECE, top-5 per cell) and
:class:`DatasetInfo` are the typed sections of a results file. :class:`ResultsLike` is the face a ``Results`` shows to its views
(text.py, card.py, plots.py, format.py): typed against it, they sit below ``core.py``, which calls
them from ``Results.summary()`` and ``Results._repr_html_()``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS
from ..grid import CLEAN, SEVERITIES, cell_key, parse_cell_key, subsets
from ..metrics.calibration import CalibrationStats, stored_bins
from ..metrics.task import ScoreSummary, cell_name
from ..tables.cbar import BENCHMARK_TABLES, benchmark_levels

__all__ = [
    "CResults",
    "CBarResults",
    "CBAR_BENCHMARKS",
    "PResults",
    "ScoreResults",
    "CalibrationResults",
    "CALIBRATION_METRICS",
    "CALIBRATION_GROUPS",
    "DatasetInfo",
    "ResultsLike",
]


@dataclass(frozen=True)
class CResults:
    """The ImageNet-C part of a results file (fractions; ``None`` = not available).

    ``mce`` / ``relative_mce`` are the mCE and relative mCE over the 15 benchmark corruptions, or
    ``None`` when fewer have a CE (``partial``): a mean over fewer is not the benchmark's mCE and
    is kept apart as ``partial_mce`` / ``partial_relative_mce`` (with ``missing`` naming what it
    leaves out). Constructed with ``partial=True`` and an ``mce`` (the mean over the corruptions
    present, as :func:`~corruptbench.metrics.summarize_c` reports it), the value moves to
    ``partial_mce``; with ``partial=False`` the partial means are None.
    """

    errors: dict[str, list[float | None]]
    clean_error: float | None
    ce: dict[str, float | None]
    relative_ce: dict[str, float | None]
    mce: float | None
    relative_mce: float | None
    mean_error: float | None
    extra_mean_error: float | None
    baseline: str
    partial: bool
    missing: list[str]
    counts: dict[str, list[int | None]] = field(default_factory=dict)
    clean_count: int | None = None
    partial_mce: float | None = None  #: mean CE over the benchmark corruptions present (partial)
    partial_relative_mce: float | None = None  #: ... and of their relative CE

    def __post_init__(self) -> None:
        if not self.partial:
            object.__setattr__(self, "partial_mce", None)
            object.__setattr__(self, "partial_relative_mce", None)
            return
        for full, part in (("mce", "partial_mce"), ("relative_mce", "partial_relative_mce")):
            if getattr(self, full) is not None:
                object.__setattr__(self, part, getattr(self, full))
                object.__setattr__(self, full, None)

    @property
    def covered(self) -> int:
        """How many of the 15 benchmark corruptions mCE (or the partial mean) covers."""
        return len(BENCHMARK_CORRUPTIONS) - len(self.missing)

    @property
    def extra_ce(self) -> dict[str, float | None]:
        """CE of the extra corruptions present (never part of mCE)."""
        return {n: self.ce.get(n) for n in EXTRA_CORRUPTIONS if n in self.errors}

    def mean_errors(self) -> dict[str, float | None]:
        """Corruption -> mean error over the five severities (``None`` if one is missing)."""
        out: dict[str, float | None] = {}
        for name, values in self.errors.items():
            present = [v for v in values if v is not None]
            out[name] = math.fsum(present) / len(present) if len(present) == len(values) else None
        return out

    def to_dict(self) -> dict[str, Any]:
        """The file's ImageNet-C keys, in file order (``partial_mce`` and
        ``partial_relative_mce`` only in a partial file, after ``relative_mce``)."""
        partial = (
            {"partial_mce": self.partial_mce, "partial_relative_mce": self.partial_relative_mce}
            if self.partial
            else {}
        )
        return {
            "errors": self.errors,
            "counts": self.counts,
            "clean_error": self.clean_error,
            "clean_count": self.clean_count,
            "baseline": self.baseline,
            "ce": self.ce,
            "relative_ce": self.relative_ce,
            "mce": self.mce,
            "relative_mce": self.relative_mce,
            **partial,
            "mean_error": self.mean_error,
            "extra_mean_error": self.extra_mean_error,
            "extra_ce": self.extra_ce,
            "partial": self.partial,
            "missing": self.missing,
        }


#: the C-bar benchmarks, each named by its level table: ``imagenet_c_bar`` (ImageNet-C-bar: every
#: profile but ``cifar``, Tiny-ImageNet-C-bar included) and ``cifar10_c_bar`` (CIFAR-10-C-bar)
CBAR_BENCHMARKS: tuple[str, ...] = tuple(BENCHMARK_TABLES)


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


@dataclass(frozen=True)
class CBarResults:
    """The ImageNet-C-bar / CIFAR-10-C-bar part of a results file (corruptions of suite ``cbar``;
    :mod:`corruptbench.results.cbar_part` reads it back checked).

    The metric is that of ``test_c_bar.py`` (facebookresearch/augmentation-corruption, commit
    ba4d5a5, ``imagenet_c_bar/``; Mintun, Kirillov, Xie, NeurIPS 2021): the top-1 error of each
    corruption and level, its mean per corruption over the levels evaluated (the script's
    ``<name>-avg``) and the mean over every cell evaluated (``overall-avg``); no baseline, no
    normalisation. Everything but the measurements is derived (properties), so it cannot
    disagree with them. Fractions here; the script prints percentages.

    Attributes:
        benchmark: The level table the cells were corrupted with (:data:`CBAR_BENCHMARKS`:
            ``imagenet_c_bar`` or ``cifar10_c_bar``); its ten corruptions are the benchmark.
        errors: Corruption -> its errors at severities 1..5 (``None``: not evaluated).
        counts: Corruption -> the images of each of those cells.
        clean_error: The error on the clean images (when measured; not part of the metric).
        clean_count: Their number.
    """

    benchmark: str
    errors: dict[str, list[float | None]]
    counts: dict[str, list[int | None]] = field(default_factory=dict)
    clean_error: float | None = None
    clean_count: int | None = None

    @property
    def corruptions(self) -> tuple[str, ...]:
        """The benchmark's ten corruptions (the suite's subset named after it)."""
        return subsets("c", "cbar")[self.benchmark]

    @property
    def levels(self) -> dict[str, list[float]]:
        """Corruption -> the original levels of severities 1..5 (``2.35``, ...:
        :func:`~corruptbench.tables.cbar.benchmark_levels`)."""
        return {n: list(benchmark_levels(n, self.benchmark)) for n in self.errors}

    def level_key(self, name: str, severity: int) -> str:
        """test_c_bar.py's key of a cell: ``"caustic_refraction-2.35"``."""
        return f"{name}-{benchmark_levels(name, self.benchmark)[severity - 1]:.2f}"

    def corruption_errors(self) -> dict[str, float | None]:
        """Corruption -> the mean of its errors over the levels evaluated (test_c_bar.py's
        ``<name>-avg``; ``None`` where none was)."""
        return {n: _mean([v for v in row if v is not None]) for n, row in self.errors.items()}

    def _cells(self, benchmark: bool) -> list[float]:
        inside = set(self.corruptions)
        return [
            v
            for n, row in self.errors.items()
            if (n in inside) == benchmark
            for v in row
            if v is not None
        ]

    @property
    def mean_error(self) -> float | None:
        """The mean error over every cell of the benchmark's corruptions evaluated: test_c_bar.py's
        ``overall-avg`` (with all 10 x 5 cells, also the mean of the ten corruption means)."""
        return _mean(self._cells(benchmark=True))

    @property
    def extra_mean_error(self) -> float | None:
        """The mean error over the cells of the other corruptions evaluated (outside the
        benchmark: never in :attr:`mean_error`)."""
        return _mean(self._cells(benchmark=False))

    @property
    def missing(self) -> list[str]:
        """The benchmark's corruptions not evaluated at all five levels."""
        return [
            n
            for n in self.corruptions
            if n not in self.errors or any(v is None for v in self.errors[n])
        ]

    @property
    def partial(self) -> bool:
        """Whether :attr:`mean_error` covers fewer than the benchmark's 10 x 5 cells."""
        return bool(self.missing)

    @property
    def covered(self) -> int:
        """How many of the benchmark's corruptions have all five levels."""
        return len(self.corruptions) - len(self.missing)

    def to_dict(self) -> dict[str, Any]:
        """The file's ``cbar`` object, keys in file order (the derived ones after the measured)."""
        return {
            "benchmark": self.benchmark,
            "errors": self.errors,
            "counts": self.counts,
            "clean_error": self.clean_error,
            "clean_count": self.clean_count,
            "levels": self.levels,
            "corruption_errors": self.corruption_errors(),
            "mean_error": self.mean_error,
            "extra_mean_error": self.extra_mean_error,
            "partial": self.partial,
            "missing": self.missing,
        }


@dataclass(frozen=True)
class PResults:
    """The ImageNet-P part of a results file."""

    flip_probability: dict[str, float]
    top5_distance: dict[str, float]
    zipf_distance: dict[str, float]
    num_sequences: dict[str, int]
    difficulty: int
    baseline: str | None
    flip_rate: dict[str, float] | None
    t5d_ratio: dict[str, float] | None
    mfr: float | None
    mt5d: float | None
    notes: list[str]

    def to_dict(self) -> dict[str, Any]:
        """The file's ImageNet-P keys, in file order."""
        return {
            "difficulty": self.difficulty,
            "flip_probability": self.flip_probability,
            "top5_distance": self.top5_distance,
            "zipf_distance": self.zipf_distance,
            "num_sequences": self.num_sequences,
            "baseline": self.baseline,
            "flip_rate": self.flip_rate,
            "t5d_ratio": self.t5d_ratio,
            "mfr": self.mfr,
            "mt5d": self.mt5d,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class ScoreResults:
    """A task-score grid (``kind="score"``): a higher-is-better score per corruption and severity
    and the clean score; P, mPC and rPC (:func:`~corruptbench.metrics.summarize_scores`) once every
    cell is scored.

    Attributes:
        metric: What the score is (``"box AP"``, ``"mIoU"``; display only).
        scores: Corruption -> the scores of severities 1..5 (``None``: not scored yet).
        clean: The clean score P (``None``: not scored yet).
        partial: mPC may cover fewer than the 15 benchmark corruptions (asked for with
            ``partial=True``; in a complete file, true exactly when some are absent).
        summary: P, mPC, rPC and the means; ``None`` while the grid is incomplete (an
            evaluation's file between two cells).
    """

    metric: str
    scores: dict[str, list[float | None]]
    clean: float | None
    partial: bool = False
    summary: ScoreSummary | None = None

    @property
    def complete(self) -> bool:
        return self.summary is not None

    @property
    def mpc(self) -> float | None:
        return None if self.summary is None else self.summary.mpc

    @property
    def rpc(self) -> float | None:
        return None if self.summary is None else self.summary.rpc

    @property
    def missing(self) -> list[str]:
        """Benchmark corruptions without scores (what a partial mPC leaves out)."""
        return [n for n in BENCHMARK_CORRUPTIONS if n not in self.scores]

    def missing_cells(self) -> list[str]:
        """The cells not scored yet (``"clean"``, ``"fog/3"``), clean first."""
        out = ["clean"] if self.clean is None else []
        for name, values in self.scores.items():
            out += [cell_name(name, s) for s, v in enumerate(values, 1) if v is None]
        return out

    def corruption_means(self) -> dict[str, float | None]:
        """Corruption -> mean score over the 5 severities (``None`` while one is missing)."""
        if self.summary is not None:
            return dict(self.summary.corruption_means)
        return {n: None for n in self.scores}

    def to_dict(self) -> dict[str, Any]:
        """The file's ``score`` object, keys in file order (derived numbers null until complete)."""
        s = self.summary
        return {
            "metric": self.metric,
            "clean": self.clean,
            "scores": self.scores,
            "complete": self.complete,
            "partial": self.partial,
            "mpc": None if s is None else s.mpc,
            "rpc": None if s is None else s.rpc,
            "corruption_means": None if s is None else s.corruption_means,
            "relative": None if s is None else s.relative,
            "severity_means": None if s is None else list(s.severity_means),
            "mpc_corruptions": None if s is None else list(s.mpc_corruptions),
            "missing": self.missing,
        }


#: the numbers of one cell's calibration, in file order (:meth:`CalibrationStats.summary`)
CALIBRATION_METRICS = ("n", "nll", "brier", "ece", "top1_error", "top5_error", "mean_confidence")
#: the corruptions the per-severity means are taken over: the 15 benchmark ones, all 19, the 30
#: of C-bar (a file has the C-bar group when it measured C-bar cells, the others when it measured
#: ImageNet-C cells or no C-bar cell: :meth:`CalibrationResults.groups`)
CALIBRATION_GROUPS: dict[str, tuple[str, ...]] = {
    "benchmark": BENCHMARK_CORRUPTIONS,
    "all": ALL_CORRUPTIONS,
    "cbar": subsets("c", "cbar")["all"],
}
_IMAGENET_C_GROUPS = ("benchmark", "all")


@dataclass(frozen=True)
class CalibrationResults:
    """Calibration of a classifier per cell (:mod:`corruptbench.results.calibration` says what a
    results file stores and how it is checked).

    Attributes:
        ece_bins: The equal-width bins of the ECE in every summary (15 by default).
        stats: Cell key -> its mergeable statistics: eval-c ``"clean"`` and ``"fog/3"``; eval-p
            ``"gaussian_noise/0"``, the clean frames 0 of that perturbation's sequences.

    Examples:
        >>> cal = Results.from_json("lite0-c.json").calibration  # doctest: +SKIP
        >>> cal.clean["ece"], cal.cell("fog", 3)["nll"], cal.ece_by_severity()  # doctest: +SKIP
        >>> cal.stats["fog/3"].ece(bins=30)  # Ovadia et al.'s 30 bins  # doctest: +SKIP
    """

    ece_bins: int
    stats: dict[str, CalibrationStats]

    @property
    def bins(self) -> int:
        """The bins the statistics keep (a power-of-two multiple of :attr:`ece_bins`)."""
        first = next(iter(self.stats.values()), None)
        return first.bins if first is not None else stored_bins(self.ece_bins)

    def cell_stats(self, name: str, severity: int | None = None) -> CalibrationStats | None:
        """The statistics of ``cell_stats("clean")``, ``("fog", 3)`` or ``("fog/3")``; eval-p's
        clean cell pools the clean frames of every perturbation measured. ``None``: not measured."""
        key = name if severity is None else cell_key((name, severity))
        if key == CLEAN.key and key not in self.stats:
            frames = [s for k, s in self.stats.items() if parse_cell_key(k).level == 0]
            if frames:
                pooled = CalibrationStats(frames[0].bins)
                for s in frames:
                    pooled.merge(s)
                return pooled
        return self.stats.get(key)

    def cell(self, name: str, severity: int | None = None) -> dict[str, Any] | None:
        """The numbers of one cell (:data:`CALIBRATION_METRICS`; ECE with :attr:`ece_bins`), as
        :meth:`cell_stats` finds it; ``None`` where not measured."""
        s = self.cell_stats(name, severity)
        return s.summary(self.ece_bins) if s is not None and s.n else None

    @property
    def clean(self) -> dict[str, Any] | None:
        """The numbers of the clean images."""
        return self.cell(CLEAN.key)

    def cells(self) -> dict[str, dict[str, Any]]:
        """Every cell's numbers: ``"clean"`` first (eval-p: the pooled clean frames), then the
        stored cells in their order."""
        clean = self.clean
        out = {CLEAN.key: clean} if clean is not None else {}
        for key in self.stats:
            summary = self.cell(key)
            if summary is not None:
                out[key] = summary
        return out

    def _measured(self, group: str) -> bool:
        names = set(CALIBRATION_GROUPS[group])
        return any(parse_cell_key(k).name in names for k in self.stats)

    def groups(self) -> tuple[str, ...]:
        """The groups of :data:`CALIBRATION_GROUPS` the severity means are given for: ImageNet-C's
        (``benchmark``, ``all``) when an ImageNet-C cell was measured or no C-bar cell was, and
        ``cbar`` when a C-bar cell was."""
        cbar = self._measured("cbar")
        ours = _IMAGENET_C_GROUPS if self._measured("all") or not cbar else ()
        return (*ours, *(("cbar",) if cbar else ()))

    def main_group(self) -> str:
        """The group the views show the severity means of: the 15 benchmark corruptions when any
        was measured, else all 19 when any was, else C-bar's when any was."""
        for group in ("benchmark", "all", "cbar"):
            if self._measured(group):
                return group
        return "all"

    def _severity_cells(self, severity: int, group: str) -> list[CalibrationStats]:
        names = CALIBRATION_GROUPS[group]
        return [
            s for n in names if (s := self.stats.get(cell_key((n, severity)))) is not None and s.n
        ]

    def severity_means(self, group: str = "benchmark") -> dict[str, list[Any]]:
        """Per severity 1..5, the mean of each number over the corruptions of ``group``
        (``"benchmark"``: the 15, ``"all"``: the 19, ``"cbar"``: C-bar's 30;
        :data:`CALIBRATION_GROUPS`) measured at that
        severity, every corruption weighted alike (as the mean error); ``"corruptions"`` says how
        many were (fewer than the group's size: a partial mean). ``None`` where none was."""
        out: dict[str, list[Any]] = {"corruptions": []}
        out.update({m: [] for m in CALIBRATION_METRICS if m != "n"})
        for sev in SEVERITIES:
            cells = [s.summary(self.ece_bins) for s in self._severity_cells(sev, group)]
            out["corruptions"].append(len(cells))
            for m in CALIBRATION_METRICS[1:]:
                values = [c[m] for c in cells]
                out[m].append(math.fsum(values) / len(values) if values else None)
        return out

    def by_severity(self, metric: str = "ece", group: str = "benchmark") -> list[float | None]:
        """One number (``"nll"``, ``"brier"``, ``"ece"``, ...) at severities 1..5: its mean over
        ``group`` (:meth:`severity_means`)."""
        if metric not in CALIBRATION_METRICS[1:]:
            raise ValueError(f"metric must be one of {', '.join(CALIBRATION_METRICS[1:])}")
        return list(self.severity_means(group)[metric])

    def ece_by_severity(self, group: str = "benchmark") -> list[float | None]:
        """The ECE at severities 1..5, mean over ``group``'s corruptions."""
        return self.by_severity("ece", group)

    def nll_by_severity(self, group: str = "benchmark") -> list[float | None]:
        """The NLL at severities 1..5, mean over ``group``'s corruptions."""
        return self.by_severity("nll", group)

    @property
    def has_severities(self) -> bool:
        """Whether any corrupted cell (severity 1..5) was measured (eval-c)."""
        return any(parse_cell_key(k).level in SEVERITIES for k in self.stats)

    @property
    def worst_severity(self) -> int | None:
        """The highest severity measured, ``None`` without corrupted cells."""
        levels = [parse_cell_key(k).level for k in self.stats]
        return max((v for v in levels if v in SEVERITIES), default=None)

    def pooled(self, severity: int, group: str = "all") -> CalibrationStats | None:
        """The statistics of every cell of ``group`` at ``severity`` merged (their samples pooled:
        what a reliability diagram of that severity shows); ``None`` where none was measured."""
        cells = self._severity_cells(severity, group)
        if not cells:
            return None
        out = CalibrationStats(cells[0].bins)
        for s in cells:
            out.merge(s)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The file's ``calibration`` object, keys in file order."""
        return {
            "ece_bins": self.ece_bins,
            "bins": self.bins,
            "cells": self.cells(),
            "severity_means": (
                {g: self.severity_means(g) for g in self.groups()} if self.has_severities else None
            ),
            "stats": {k: s.to_dict() for k, s in self.stats.items()},
        }


@dataclass(frozen=True)
class DatasetInfo:
    """What was evaluated: location, layout, profile, fingerprint, images per cell, notes, and the
    evaluation protocol.

    ``fingerprint`` identifies the data in its container (files, shards, arrays: what a resume
    must match); ``content_fingerprint`` identifies the images whatever holds them (equal for a
    folder build and its WebDataset shards; see
    :meth:`~corruptbench.evaluation.layouts.Layout.content_fingerprint`), None where a layout has
    none. Written only when known. ``protocol``: :mod:`corruptbench.protocols`; eval-c files
    always name one, an eval-c file written before protocols existed reads as ``"full"``;
    ``None`` for other kinds.
    """

    path: str | None = None
    layout: str | None = None
    profile: str | None = None
    fingerprint: str | None = None
    num_images: Any = None
    notes: list[str] = field(default_factory=list)
    protocol: str | None = None
    content_fingerprint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        protocol = {} if self.protocol is None else {"protocol": self.protocol}
        content = (
            {}
            if self.content_fingerprint is None
            else {"content_fingerprint": self.content_fingerprint}
        )
        return {
            "path": self.path,
            "layout": self.layout,
            **protocol,
            "profile": self.profile,
            "fingerprint": self.fingerprint,
            **content,
            "num_images": self.num_images,
            "notes": self.notes,
        }


class ResultsLike(Protocol):
    """What the views read of a result (a :class:`~corruptbench.results.Results` is one)."""

    @property
    def label(self) -> str: ...

    @property
    def model_id(self) -> str: ...

    @property
    def dataset(self) -> DatasetInfo: ...

    @property
    def c(self) -> CResults | None: ...

    @property
    def cbar(self) -> CBarResults | None: ...

    @property
    def p(self) -> PResults | None: ...

    @property
    def score(self) -> ScoreResults | None: ...

    @property
    def leaderboard(self) -> dict[str, Any] | None: ...

    @property
    def calibration(self) -> CalibrationResults | None: ...

    @property
    def stream(self) -> Any: ...  # a StreamPart (stream_part.py imports nothing of this module)

    # what the report page's provenance shows
    @property
    def kind(self) -> str: ...

    @property
    def model(self) -> dict[str, Any]: ...

    @property
    def versions(self) -> dict[str, Any]: ...

    @property
    def demo(self) -> dict[str, Any] | None: ...

    @property
    def source(self) -> str: ...

    @property
    def suites(self) -> tuple[str, ...]: ...

"""The parts of a :class:`~corruptbench.results.Results`, and what the views of one read of it.

:class:`CResults` (ImageNet-C), :class:`PResults` (ImageNet-P), :class:`ScoreResults` (a task-score
grid: P, mPC, rPC) and :class:`DatasetInfo` are the typed sections of a results file. :class:`ResultsLike` is the face a ``Results`` shows to its views
(text.py, card.py, plots.py, format.py): typed against it, they sit below ``core.py``, which calls
them from ``Results.summary()`` and ``Results._repr_html_()``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..corruptions import BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS
from ..metrics.task import ScoreSummary, cell_name

__all__ = ["CResults", "PResults", "ScoreResults", "DatasetInfo", "ResultsLike"]


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


@dataclass(frozen=True)
class DatasetInfo:
    """What was evaluated: location, layout, profile, fingerprint, images per cell, notes.

    ``fingerprint`` identifies the data in its container (files, shards, arrays: what a resume
    must match); ``content_fingerprint`` identifies the images whatever holds them (equal for a
    folder build and its WebDataset shards; see
    :meth:`~corruptbench.evaluation.layouts.Layout.content_fingerprint`), None where a layout has
    none. Written only when known.
    """

    path: str | None = None
    layout: str | None = None
    profile: str | None = None
    fingerprint: str | None = None
    num_images: Any = None
    notes: list[str] = field(default_factory=list)
    content_fingerprint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        content = (
            {}
            if self.content_fingerprint is None
            else {"content_fingerprint": self.content_fingerprint}
        )
        return {
            "path": self.path,
            "layout": self.layout,
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
    def p(self) -> PResults | None: ...

    @property
    def score(self) -> ScoreResults | None: ...

"""ImageNet-C and ImageNet-P metrics: CE / mCE / relative mCE, flip probability, top-5 distance.

All rates are **fractions** (an mCE of 76.7 % is ``0.767``); multiply by 100 only for display.

ImageNet-C (Hendrycks & Dietterich 2019, §3; reference-spec.md §4.1), with ``E[f, s, c]`` the top-1
error of model ``f`` on corruption ``c`` at severity ``s`` and ``A`` the baseline model::

    CE[f, c]          = sum_s E[f, s, c] / sum_s E[A, s, c]
    relative CE[f, c] = sum_s (E[f, s, c] - E[f, clean]) / sum_s (E[A, s, c] - E[A, clean])
    mCE               = mean of CE[f, c] over the 15 benchmark corruptions

ImageNet-P (reference-spec.md §4.2): flip probability (FP), top-5 distance (T5D) and the Zipf
distance are computed from per-frame predictions / rankings exactly as ``ImageNet-P/test.py`` does;
``mFR`` and ``mT5D`` are means over the 10 test perturbations of FP and T5D divided by a baseline's.

Examples:
    >>> from corruptbench.tables.alexnet import ALEXNET_C_ERRORS, ALEXNET_CLEAN_ERROR
    >>> s = summarize_c(dict(ALEXNET_C_ERRORS), clean_error=ALEXNET_CLEAN_ERROR)
    >>> s.mce, s.relative_mce, s.partial
    (1.0, 1.0, False)
    >>> flip_probability([[3, 3, 5, 5]], noise=False)  # one flip in three comparisons
    0.3333333333333333
"""

from __future__ import annotations

import csv
import difflib
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from corruptbench.corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS
from corruptbench.perturbations import (
    ALL_PERTURBATIONS,
    NOISE_PERTURBATIONS,
    TEST_PERTURBATIONS,
    VALIDATION_PERTURBATIONS,
)
from corruptbench.tables.alexnet import ALEXNET_C_ERRORS, ALEXNET_CLEAN_ERROR

__all__ = [
    "CSummary",
    "PSummary",
    "flip_probability",
    "is_noise_perturbation",
    "load_p_baseline",
    "ranks_from_logits",
    "summarize_c",
    "summarize_p",
    "top5_distance",
    "zipf_distance",
]

PathLike = str | os.PathLike[str]
NUM_SEVERITIES = 5
_TOP5_MAX = 15.0  # largest possible top-5 distance: 5 + 4 + 3 + 2 + 1
_CHUNK_ELEMENTS = 1 << 22  # sequences are processed in chunks of about this many scores


# ================================================================================================
# input checking helpers
# ================================================================================================
def _canonical(name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"names must be strings, got {name!r} ({type(name).__name__})")
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def _resolve_name(name: object, allowed: Sequence[str], what: str) -> str:
    """Map ``name`` (case/space/hyphen-insensitive) to one of ``allowed`` or raise a helpful error."""
    key = _canonical(name)
    if key in allowed:
        return key
    hints = difflib.get_close_matches(key, allowed, n=3, cutoff=0.5)
    hints += [a for a in allowed if key and a.startswith(key) and a not in hints]
    if hints:
        raise ValueError(f"unknown {what} {name!r}; did you mean {' or '.join(map(repr, hints))}?")
    raise ValueError(f"unknown {what} {name!r}; known {what}s: {', '.join(allowed)}")


def _check_rate(value: object, where: str, *, allow_missing: bool) -> float | None:
    """Validate one rate in [0, 1]; ``None``/NaN mean "missing" when ``allow_missing``."""
    if value is None:
        if allow_missing:
            return None
        raise ValueError(f"{where} is missing (None); a value in [0, 1] is required")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{where} must be a number in [0, 1], got {value!r}")
    v = float(value)
    if math.isnan(v):
        if allow_missing:
            return None
        raise ValueError(f"{where} is NaN; a value in [0, 1] is required")
    if 1.0 < v <= 100.0:
        raise ValueError(
            f"{where} = {v!r} is above 1: it looks like a percentage. Pass fractions "
            f"(e.g. {v / 100:.4g} instead of {v:g})."
        )
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{where} = {v!r} is outside [0, 1]; pass error rates as fractions")
    return v


def _parse_c_errors(
    errors: object, arg: str, *, allow_missing: bool
) -> dict[str, tuple[float | None, ...]]:
    """Validate a ``{corruption: 5 per-severity errors}`` mapping; keys canonical, reference order."""
    if not isinstance(errors, Mapping):
        raise TypeError(
            f"{arg} must be a mapping corruption name -> 5 per-severity errors, "
            f"got {type(errors).__name__}"
        )
    if not errors:
        raise ValueError(f"{arg} is empty; give at least one corruption")
    parsed: dict[str, tuple[float | None, ...]] = {}
    for raw_name, values in errors.items():
        name = _resolve_name(raw_name, ALL_CORRUPTIONS, "corruption")
        if name in parsed:
            raise ValueError(f"{arg} names corruption {name!r} twice (as {raw_name!r})")
        where = f"{arg}[{raw_name!r}]"
        if isinstance(values, (str, bytes)) or not isinstance(values, (Iterable, np.ndarray)):
            raise TypeError(
                f"{where} must be a sequence of {NUM_SEVERITIES} per-severity errors "
                f"(severity 1..5), got {values!r}"
            )
        seq = (
            list(np.asarray(values, dtype=object).ravel())
            if isinstance(values, np.ndarray)
            else list(values)
        )
        if len(seq) != NUM_SEVERITIES:
            raise ValueError(
                f"{where} has {len(seq)} values; expected {NUM_SEVERITIES} (severities 1..5, "
                "None for a severity that was not measured)"
            )
        parsed[name] = tuple(
            _check_rate(v, f"{where}[severity {s}]", allow_missing=allow_missing)
            for s, v in enumerate(seq, start=1)
        )
    return {name: parsed[name] for name in ALL_CORRUPTIONS if name in parsed}


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return math.fsum(present) / len(present) if present else None


# ================================================================================================
# ImageNet-C
# ================================================================================================
@dataclass(frozen=True)
class CSummary:
    """ImageNet-C summary returned by :func:`summarize_c` (all values fractions).

    Attributes:
        errors: Validated input, corruption -> 5 per-severity errors (``None`` = not measured).
        mean_errors: Corruption -> mean error over the 5 severities (``None`` if incomplete).
        ce: Corruption -> corruption error ``sum_s E / sum_s E_baseline`` (``None`` if it cannot be
            computed: missing severity, corruption absent from the baseline).
        relative_ce: Corruption -> relative CE (``None`` without ``clean_error`` / baseline clean
            error, or when undefined).
        mce: Mean CE over the benchmark corruptions whose CE is known (15 when complete).
        relative_mce: Mean relative CE over the benchmark corruptions (``None`` without clean error).
        mean_error: Mean over benchmark corruptions of the mean severity error (unnormalised).
        extra_ce: Mean CE over the 4 extra (validation) corruptions present - never part of mCE.
        extra_relative_ce: Mean relative CE over the extra corruptions present.
        extra_mean_error: Mean over the extra corruptions of the mean severity error.
        clean_error: The model's clean error, if given.
        baseline: Human-readable description of the normalisation.
        baseline_clean_error: The baseline's clean error used for relative CE (``None`` if none).
        partial: ``True`` when mCE does not cover all 15 benchmark corruptions.
        missing: Benchmark corruptions left out of mCE (absent, incomplete or without baseline).
        extra_missing: Extra corruptions without a CE.
        incomplete: Corruptions given with at least one missing severity.
        notes: Plain-text remarks (why something is ``None``), ``""`` when there is nothing to say.
    """

    errors: dict[str, tuple[float | None, ...]]
    mean_errors: dict[str, float | None]
    ce: dict[str, float | None]
    relative_ce: dict[str, float | None]
    mce: float | None
    relative_mce: float | None
    mean_error: float | None
    extra_ce: float | None
    extra_relative_ce: float | None
    extra_mean_error: float | None
    clean_error: float | None
    baseline: str
    baseline_clean_error: float | None
    partial: bool
    missing: list[str] = field(default_factory=list)
    extra_missing: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    notes: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable plain-dict view (lists instead of tuples, fractions as floats)."""
        return {
            "mce": self.mce,
            "relative_mce": self.relative_mce,
            "mean_error": self.mean_error,
            "extra_ce": self.extra_ce,
            "extra_relative_ce": self.extra_relative_ce,
            "extra_mean_error": self.extra_mean_error,
            "clean_error": self.clean_error,
            "baseline": self.baseline,
            "baseline_clean_error": self.baseline_clean_error,
            "partial": self.partial,
            "missing": list(self.missing),
            "extra_missing": list(self.extra_missing),
            "incomplete": list(self.incomplete),
            "notes": self.notes,
            "ce": dict(self.ce),
            "relative_ce": dict(self.relative_ce),
            "mean_errors": dict(self.mean_errors),
            "errors": {k: list(v) for k, v in self.errors.items()},
        }


BaselineC = Literal["alexnet", "uniform"] | Mapping[str, Sequence[float]]


def summarize_c(
    errors: Mapping[str, Sequence[float | None]],
    clean_error: float | None = None,
    baseline: BaselineC = "alexnet",
    baseline_clean_error: float | None = None,
) -> CSummary:
    """Summarise per-severity ImageNet-C errors into CE, mCE and relative mCE.

    With ``E[s, c]`` the model's top-1 error at severity ``s`` of corruption ``c`` and ``B`` the
    baseline's::

        CE[c]          = sum_{s=1..5} E[s, c] / sum_{s=1..5} B[s, c]
        relative CE[c] = sum_s (E[s, c] - E_clean) / sum_s (B[s, c] - B_clean)
        mCE            = mean of CE[c] over the 15 benchmark corruptions

    The four extra corruptions (speckle_noise, gaussian_blur, spatter, saturate) are never part of
    mCE; their mean CE is reported as ``extra_ce``. CE needs all five severities: a corruption with
    a missing severity (``None`` or NaN) gets ``ce=None``, is listed in ``incomplete`` and, if it is a
    benchmark corruption, in ``missing``. mCE is then the mean over the benchmark corruptions whose
    CE is known and ``partial`` is ``True`` (likewise when benchmark corruptions are absent).

    Args:
        errors: Corruption name -> 5 top-1 error rates (fractions, severity 1..5). Names are
            case/space/hyphen-insensitive (``"Gaussian Noise"`` works).
        clean_error: The model's clean top-1 error; needed for relative CE.
        baseline: ``"alexnet"`` (default): the published AlexNet per-severity errors
            (:data:`corruptbench.tables.alexnet.ALEXNET_C_ERRORS`, clean error 0.43478) - the paper's
            mCE. ``"uniform"``: no normalisation, CE = mean error over severities (the CIFAR-10-C
            convention) and relative CE = mean error - clean error. A mapping of the same shape
            as ``errors``: normalise by a model you measured yourself (e.g. AlexNet on your own
            subset); give ``baseline_clean_error`` for relative CE.
        baseline_clean_error: Baseline clean error; overrides 0.43478 for ``"alexnet"``; not
            allowed with ``"uniform"``.

    Returns:
        A :class:`CSummary`.

    Raises:
        ValueError: Unknown corruption name (with a suggestion), wrong number of severities, a
            rate outside [0, 1] (values in (1, 100] are reported as probable percentages), an
            unknown baseline name.
        TypeError: Non-numeric values or a non-mapping ``errors``.

    Examples:
        >>> s = summarize_c({"fog": [0.3, 0.35, 0.4, 0.45, 0.6]}, clean_error=0.24)
        >>> round(s.ce["fog"], 4), s.partial, len(s.missing)
        (0.5126, True, 14)
        >>> round(summarize_c({"fog": [0.3, 0.35, 0.4, 0.45, 0.6]}, baseline="uniform").mce, 6)
        0.42
    """
    errs = _parse_c_errors(errors, "errors", allow_missing=True)
    clean = (
        None
        if clean_error is None
        else _check_rate(clean_error, "clean_error", allow_missing=False)
    )
    notes: list[str] = []

    base: Mapping[str, Sequence[float | None]] | None
    base_clean: float | None
    if isinstance(baseline, str):
        key = baseline.strip().lower()
        if key == "alexnet":
            base = ALEXNET_C_ERRORS
            if baseline_clean_error is None:
                base_clean = ALEXNET_CLEAN_ERROR
            else:
                base_clean = _check_rate(
                    baseline_clean_error, "baseline_clean_error", allow_missing=False
                )
            desc = (
                "AlexNet (published ImageNet-C per-severity errors, hendrycks/robustness README "
                f"PR #20 / issue #10; clean error {base_clean:g})"
            )
        elif key == "uniform":
            if baseline_clean_error is not None:
                raise ValueError("baseline_clean_error has no meaning with baseline='uniform'")
            base, base_clean = None, None
            desc = "uniform (unnormalised: CE = mean error over severities; relative CE = CE - clean error)"
        else:
            raise ValueError(
                f"unknown baseline {baseline!r}; use 'alexnet', 'uniform' or a mapping "
                "corruption -> 5 per-severity errors of the baseline model"
            )
    elif isinstance(baseline, Mapping):
        base = _parse_c_errors(baseline, "baseline", allow_missing=False)
        base_clean = (
            None
            if baseline_clean_error is None
            else _check_rate(baseline_clean_error, "baseline_clean_error", allow_missing=False)
        )
        desc = f"user-supplied baseline ({len(base)} corruptions"
        desc += f"; clean error {base_clean:g})" if base_clean is not None else ")"
    else:
        raise TypeError(
            f"baseline must be 'alexnet', 'uniform' or a mapping, got {type(baseline).__name__}"
        )

    mean_errors: dict[str, float | None] = {}
    ce: dict[str, float | None] = {}
    rel: dict[str, float | None] = {}
    incomplete: list[str] = []
    for name, values in errs.items():
        complete = all(v is not None for v in values)
        mean_err = math.fsum(values) / NUM_SEVERITIES if complete else None  # type: ignore[arg-type]
        mean_errors[name] = mean_err
        ce[name] = rel[name] = None
        if mean_err is None:
            incomplete.append(name)
            continue
        if base is None:  # uniform
            ce[name] = mean_err
            if clean is not None:
                rel[name] = mean_err - clean
            continue
        base_values = base.get(name)
        if base_values is None:
            notes.append(f"{name}: the baseline has no errors for it, so CE is undefined.")
            continue
        base_sum = math.fsum(base_values)  # type: ignore[arg-type]
        if base_sum <= 0.0:
            notes.append(f"{name}: the baseline's errors sum to 0, so CE is undefined.")
            continue
        ce[name] = math.fsum(values) / base_sum  # type: ignore[arg-type]
        if clean is not None and base_clean is not None:
            base_gap = base_sum / NUM_SEVERITIES - base_clean
            if base_gap <= 0.0:
                notes.append(
                    f"{name}: the baseline's mean corruption error does not exceed its clean "
                    "error, so relative CE is undefined."
                )
            else:
                rel[name] = (mean_err - clean) / base_gap

    if incomplete:
        notes.append(f"Missing severities (no CE): {', '.join(incomplete)}.")
    if clean is None:
        notes.append("No clean_error given: relative CE not computed.")
    elif base is not None and base_clean is None:
        notes.append("No baseline_clean_error given: relative CE not computed.")

    def over(group: Sequence[str], table: Mapping[str, float | None]) -> float | None:
        return _mean(table.get(n) for n in group if n in table)

    missing = [n for n in BENCHMARK_CORRUPTIONS if ce.get(n) is None]
    extra_missing = [n for n in EXTRA_CORRUPTIONS if ce.get(n) is None]
    if missing and len(missing) < len(BENCHMARK_CORRUPTIONS):
        notes.append(
            f"mCE is partial: {len(BENCHMARK_CORRUPTIONS) - len(missing)} of "
            f"{len(BENCHMARK_CORRUPTIONS)} benchmark corruptions."
        )
    relative_mce = over(BENCHMARK_CORRUPTIONS, rel)
    if relative_mce is not None and any(
        rel.get(n) is None for n in BENCHMARK_CORRUPTIONS if ce.get(n) is not None
    ):
        notes.append("relative mCE covers fewer corruptions than mCE.")

    return CSummary(
        errors=errs,
        mean_errors=mean_errors,
        ce=ce,
        relative_ce=rel,
        mce=over(BENCHMARK_CORRUPTIONS, ce),
        relative_mce=relative_mce,
        mean_error=over([n for n in BENCHMARK_CORRUPTIONS if ce.get(n) is not None], mean_errors),
        extra_ce=over(EXTRA_CORRUPTIONS, ce),
        extra_relative_ce=over(EXTRA_CORRUPTIONS, rel),
        extra_mean_error=over([n for n in EXTRA_CORRUPTIONS if ce.get(n) is not None], mean_errors),
        clean_error=clean,
        baseline=desc,
        baseline_clean_error=base_clean,
        partial=bool(missing),
        missing=missing,
        extra_missing=extra_missing,
        incomplete=incomplete,
        notes=" ".join(notes),
    )


# ================================================================================================
# ImageNet-P: per-sequence stability metrics
# ================================================================================================
def is_noise_perturbation(name: str) -> bool:
    """``True`` for perturbations the reference treats as noise ('noise' in the name).

    Noise sequences compare every frame with the clean frame 0; the others compare consecutive
    frames (``ImageNet-P/test.py:234,257``).

    Examples:
        >>> is_noise_perturbation("shot_noise"), is_noise_perturbation("rotate")
        (True, False)
    """
    return _resolve_name(name, ALL_PERTURBATIONS, "perturbation") in NOISE_PERTURBATIONS


def _frame_pairs(n_frames: int, noise: bool, difficulty: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (reference frame, compared frame) of every comparison the reference makes.

    Non-noise: for each start offset ``o in 0..step-1`` the sub-sequence ``o, o+step, ...`` is walked
    comparing consecutive members, i.e. every pair ``(j - step, j)`` for ``j = step..T-1``
    (``T - step`` comparisons). Noise: step 1 and every frame ``j >= 1`` against frame 0.
    Each record weighs the same in the per-sequence mean, so the pair set is all that matters.
    """
    if not isinstance(noise, (bool, np.bool_)):
        raise TypeError(f"noise must be True or False, got {noise!r}")
    if isinstance(difficulty, (bool, np.bool_)) or not isinstance(difficulty, (int, np.integer)):
        raise TypeError(f"difficulty must be a positive integer (1, 2 or 3), got {difficulty!r}")
    if difficulty < 1:
        raise ValueError(f"difficulty must be >= 1 (reference uses 1, 2 or 3), got {difficulty}")
    step = 1 if noise else int(difficulty)
    if n_frames <= step:
        raise ValueError(
            f"sequences have {n_frames} frame(s); at least {step + 1} are needed for "
            f"{'noise' if noise else f'difficulty {difficulty}'} comparisons"
        )
    cur = np.arange(step, n_frames)
    ref = np.zeros_like(cur) if noise else cur - step
    return ref, cur


def flip_probability(predictions: ArrayLike, *, noise: bool, difficulty: int = 1) -> float:
    """Flip probability (FP) of top-1 predictions over perturbation sequences.

    For each sequence the records are ``1(pred[j] != pred[ref(j)])`` with (reference-spec.md §4.2)

    - non-noise: ``ref(j) = j - d`` for ``j = d..T-1`` where ``d = difficulty`` (consecutive frames of
      every stride-``d`` sub-sequence, all start offsets ``0..d-1``): ``T - d`` records;
    - noise (``noise=True``): ``ref(j) = 0`` for ``j = 1..T-1`` (each noisy frame against the clean
      frame; difficulty is a separate dataset, not a stride): ``T - 1`` records.

    ``FP = mean over sequences of (mean of the sequence's records)``.

    Args:
        predictions: Integer class predictions (argmax of the logits), shape ``(n_sequences, T)``.
        noise: Whether the perturbation is a noise one (see :func:`is_noise_perturbation`).
        difficulty: Frame stride for non-noise perturbations (reference: 1, 2 or 3).

    Returns:
        FP as a fraction in [0, 1].

    Examples:
        >>> flip_probability([[0, 1, 1, 0]], noise=False)  # pairs (0,1) (1,2) (2,3)
        0.6666666666666666
        >>> flip_probability([[0, 1, 1, 0]], noise=True)  # pairs (0,1) (0,2) (0,3)
        0.6666666666666666
        >>> flip_probability([[0, 1, 1, 0]], noise=False, difficulty=2)  # pairs (0,2) (1,3)
        1.0
    """
    preds = np.asarray(predictions)
    if preds.ndim == 3:
        raise ValueError(
            "predictions has 3 dimensions; pass top-1 class indices of shape (n_sequences, T), "
            "e.g. logits.argmax(-1)"
        )
    if preds.ndim != 2 or preds.shape[0] == 0:
        raise ValueError(f"predictions must have shape (n_sequences >= 1, T), got {preds.shape}")
    if not np.issubdtype(preds.dtype, np.integer):
        raise ValueError(
            f"predictions must be integer class indices, got dtype {preds.dtype}; "
            "pass logits.argmax(-1)"
        )
    ref, cur = _frame_pairs(preds.shape[1], noise, difficulty)
    flips = preds[:, cur] != preds[:, ref]
    return float(flips.mean(axis=1).mean())


def _check_scores(scores: ArrayLike, kind: str, min_classes: int) -> np.ndarray:
    if kind not in ("logits", "ranks"):
        raise ValueError(f"kind must be 'logits' or 'ranks', got {kind!r}")
    arr = np.asarray(scores)
    if arr.ndim != 3 or arr.shape[0] == 0:
        raise ValueError(
            f"{kind} must have shape (n_sequences >= 1, T, n_classes), got {arr.shape}"
        )
    if arr.shape[2] < min_classes:
        raise ValueError(f"need at least {min_classes} classes, got {arr.shape[2]}")
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"{kind} must be numeric, got dtype {arr.dtype}")
    if kind == "ranks":
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"ranks must be integers 1..n_classes, got dtype {arr.dtype}")
        if arr.min() < 1 or arr.max() > arr.shape[2]:
            raise ValueError(f"ranks must lie in 1..{arr.shape[2]} (1 = top class)")
    elif np.issubdtype(arr.dtype, np.complexfloating):
        raise ValueError("logits must be real numbers")
    elif np.issubdtype(arr.dtype, np.floating) and np.isnan(arr).any():
        raise ValueError("logits contain NaN")
    return arr


def _order_from_ranks(ranks: np.ndarray) -> np.ndarray:
    """Inverse permutation: ``order[..., k]`` = class with rank ``k + 1`` (checks it is one)."""
    n_classes = ranks.shape[-1]
    order = np.full(ranks.shape, -1, dtype=np.intp)
    classes = np.broadcast_to(np.arange(n_classes, dtype=np.intp), ranks.shape)
    np.put_along_axis(order, ranks.astype(np.intp) - 1, classes, axis=-1)
    back = np.take_along_axis(ranks, np.maximum(order, 0), axis=-1)
    if (order < 0).any() or not np.array_equal(back, np.broadcast_to(classes + 1, ranks.shape)):
        raise ValueError(f"each frame's ranks must be a permutation of 1..{n_classes}")
    return order


def _descending_order(logits: np.ndarray) -> np.ndarray:
    """Classes sorted by decreasing logit, ties by class index (``rankdata(-x, 'ordinal')``)."""
    if np.issubdtype(logits.dtype, np.unsignedinteger):
        logits = logits.astype(np.int64)
    return np.argsort(-logits, axis=-1, kind="stable")


def ranks_from_logits(logits: ArrayLike) -> np.ndarray:
    """Per-frame class ranks, ``scipy.stats.rankdata(-logits, method='ordinal')`` along the last axis.

    ``rank[..., c]`` is the 1-based position of class ``c`` when classes are sorted by decreasing
    logit, ties broken by lower class index first (what ``ImageNet-P/test.py:291`` stores).

    Args:
        logits: Array of shape ``(..., n_classes)``.

    Returns:
        ``int32`` array of the same shape with values ``1..n_classes``.

    Examples:
        >>> ranks_from_logits([0.1, 2.0, 0.1, -1.0]).tolist()
        [2, 1, 3, 4]
    """
    arr = np.asarray(logits)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"logits must have a non-empty last (class) axis, got shape {arr.shape}")
    if np.issubdtype(arr.dtype, np.floating) and np.isnan(arr).any():
        raise ValueError("logits contain NaN")
    order = _descending_order(arr)
    ranks = np.empty(arr.shape, dtype=np.int32)
    values = np.broadcast_to(np.arange(1, arr.shape[-1] + 1, dtype=np.int32), arr.shape)
    np.put_along_axis(ranks, order, values, axis=-1)
    return ranks


def _top5_classes(chunk: np.ndarray, kind: str) -> np.ndarray:
    """The 5 top-ranked classes of every frame, in rank order, shape ``(..., 5)``."""
    if kind == "ranks":
        return _order_from_ranks(chunk)[..., :5]
    if not np.issubdtype(chunk.dtype, np.floating) or np.isneginf(chunk).any():
        # Integer logits cannot hold the -inf mask below and -inf logits would tie with it:
        # take the exact (slower) full-sort path.
        return _descending_order(chunk)[..., :5]
    # Five passes of argmax (first maximum = lowest class index on ties, as 'ordinal' ranking),
    # masking each winner: ~20x faster than a full stable sort over 1000 classes.
    work = chunk.reshape(-1, chunk.shape[-1]).copy()
    rows = np.arange(work.shape[0])
    out = np.empty((work.shape[0], 5), dtype=np.intp)
    for k in range(5):
        best = work.argmax(axis=1)
        out[:, k] = best
        work[rows, best] = -np.inf
    return out.reshape(*chunk.shape[:-1], 5)


def _per_sequence_chunks(arr: np.ndarray) -> Iterable[np.ndarray]:
    per_seq = arr.shape[1] * arr.shape[2]
    size = max(1, _CHUNK_ELEMENTS // max(per_seq, 1))
    for start in range(0, arr.shape[0], size):
        yield arr[start : start + size]


def top5_distance(
    scores: ArrayLike,
    *,
    noise: bool,
    difficulty: int = 1,
    kind: Literal["logits", "ranks"] = "logits",
) -> float:
    """Top-5 distance (T5D) of the per-frame class rankings over perturbation sequences.

    For a reference frame ``x`` and a compared frame ``x'`` let ``sigma(k)`` be the rank in ``x'`` of
    the class ranked ``k``-th in ``x`` (``sigma = tau(x')[tau(x)^-1]``). Then::

        d(x, x') = sum_{k=1..5} |min(sigma(k), 6) - k|

    which equals the reference code (``cum = cumsum([0, 1,1,1,1,1, 0, ...])``,
    ``d = sum_{k<5} |cum[k] - cum[sigma(k) - 1]|``) and the paper's
    ``sum_{i=1..5} sum_{j=min(i, sigma(i))+1}^{max(i, sigma(i))} 1(1 <= j-1 <= 5)``.
    Frames are paired as in :func:`flip_probability`; T5D = mean over sequences of the mean ``d``.
    Ranks come from the logits with ties broken by class index
    (``scipy.stats.rankdata(-logits, method='ordinal')``).

    Args:
        scores: Logits of shape ``(n_sequences, T, n_classes)`` (``kind="logits"``) or the ranks
            themselves, integers ``1..n_classes`` with 1 = top class (``kind="ranks"``).
        noise: Whether the perturbation is a noise one (compare with frame 0).
        difficulty: Frame stride for non-noise perturbations.
        kind: ``"logits"`` or ``"ranks"``.

    Returns:
        T5D in [0, 15].

    Examples:
        >>> import numpy as np
        >>> a = np.arange(10.0)[::-1]          # class 0 on top
        >>> b = a.copy(); b[[0, 1]] = b[[1, 0]]  # swap the top two classes
        >>> top5_distance(np.stack([a, b])[None], noise=False)
        2.0
    """
    arr = _check_scores(scores, kind, min_classes=5)
    ref, cur = _frame_pairs(arr.shape[1], noise, difficulty)
    positions = np.arange(1, 6)
    per_sequence = []
    for chunk in _per_sequence_chunks(arr):
        top5 = _top5_classes(chunk, kind)  # (n, T, 5)
        ref_top, cur_top = top5[:, ref], top5[:, cur]  # (n, P, 5)
        same = ref_top[..., :, None] == cur_top[..., None, :]  # (n, P, 5 ref, 5 cur)
        sigma = np.where(same.any(axis=-1), same.argmax(axis=-1) + 1, 6)  # min(sigma(k), 6)
        dist = np.abs(sigma - positions).sum(axis=-1)
        per_sequence.append(dist.mean(axis=1))
    return float(np.concatenate(per_sequence).mean())


def zipf_distance(
    scores: ArrayLike,
    *,
    noise: bool,
    difficulty: int = 1,
    kind: Literal["logits", "ranks"] = "logits",
) -> float:
    """Zipf distance of the per-frame rankings (printed by the reference, not a headline metric).

    With ``sigma`` as in :func:`top5_distance` and ``C`` classes::

        d(x, x') = sum_{k=1..C} |1/k - 1/sigma(k)| * (1/k)

    averaged per sequence over the same frame pairs as :func:`flip_probability`, then over sequences.

    Args:
        scores: Logits ``(n_sequences, T, n_classes)`` or ranks (``kind="ranks"``).
        noise: Whether the perturbation is a noise one (compare with frame 0).
        difficulty: Frame stride for non-noise perturbations.
        kind: ``"logits"`` or ``"ranks"``.

    Returns:
        The mean Zipf distance (>= 0).

    Examples:
        >>> import numpy as np
        >>> a = np.arange(10.0)[::-1]
        >>> b = a.copy(); b[[0, 1]] = b[[1, 0]]
        >>> zipf_distance(np.stack([a, b])[None], noise=False)
        0.75
    """
    arr = _check_scores(scores, kind, min_classes=1)
    ref, cur = _frame_pairs(arr.shape[1], noise, difficulty)
    recip = 1.0 / np.arange(1, arr.shape[2] + 1, dtype=np.float64)
    per_sequence = []
    for chunk in _per_sequence_chunks(arr):
        if kind == "ranks":
            ranks = chunk.astype(np.intp)
            order = _order_from_ranks(chunk)
        else:
            order = _descending_order(chunk)
            ranks = np.empty(chunk.shape, dtype=np.intp)
            values = np.broadcast_to(np.arange(1, chunk.shape[-1] + 1), chunk.shape)
            np.put_along_axis(ranks, order, values, axis=-1)
        sigma = np.take_along_axis(ranks[:, cur], order[:, ref], axis=-1)  # (n, P, C)
        dist = (np.abs(recip - recip[sigma - 1]) * recip).sum(axis=-1)
        per_sequence.append(dist.mean(axis=1))
    return float(np.concatenate(per_sequence).mean())


# ================================================================================================
# ImageNet-P summary
# ================================================================================================
_NO_P_BASELINE_NOTE = (
    "mFR and mT5D not computed: AlexNet's ImageNet-P flip probabilities and top-5 distances were "
    "never published in machine-readable form (only a spreadsheet linked from hendrycks/robustness "
    "issue #49), so no baseline is built in. Pass baseline= a results file or mapping you measured "
    "(see load_p_baseline)."
)


@dataclass(frozen=True)
class PSummary:
    """ImageNet-P summary returned by :func:`summarize_p` (fractions; T5D in distance units).

    Attributes:
        fp: Perturbation -> flip probability.
        t5d: Perturbation -> top-5 distance (empty without T5D input).
        fr: Perturbation -> flip rate ``FP / FP_baseline`` (empty without a baseline).
        t5d_ratio: Perturbation -> ``T5D / T5D_baseline``.
        mfr: Mean ``fr`` over the 10 test perturbations present (``None`` without a baseline).
        mt5d: Mean ``t5d_ratio`` over the test perturbations present.
        mean_fp: Unnormalised mean FP over the test perturbations present.
        mean_t5d: Unnormalised mean T5D over the test perturbations present.
        validation_mfr: Mean ``fr`` over the 4 validation perturbations (never part of mFR).
        validation_mt5d: Mean ``t5d_ratio`` over the validation perturbations.
        baseline: Description of the baseline (``None`` when there is none).
        partial: ``True`` when mFR (or mean FP without baseline) misses test perturbations.
        missing: Test perturbations not covered by mFR / mean FP.
        notes: Plain-text remarks, ``""`` when there is nothing to say.
    """

    fp: dict[str, float]
    t5d: dict[str, float]
    fr: dict[str, float]
    t5d_ratio: dict[str, float]
    mfr: float | None
    mt5d: float | None
    mean_fp: float | None
    mean_t5d: float | None
    validation_mfr: float | None
    validation_mt5d: float | None
    baseline: str | None
    partial: bool
    missing: list[str] = field(default_factory=list)
    notes: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable plain-dict view."""
        return {
            "mfr": self.mfr,
            "mt5d": self.mt5d,
            "mean_fp": self.mean_fp,
            "mean_t5d": self.mean_t5d,
            "validation_mfr": self.validation_mfr,
            "validation_mt5d": self.validation_mt5d,
            "baseline": self.baseline,
            "partial": self.partial,
            "missing": list(self.missing),
            "notes": self.notes,
            "fp": dict(self.fp),
            "t5d": dict(self.t5d),
            "fr": dict(self.fr),
            "t5d_ratio": dict(self.t5d_ratio),
        }


def _parse_p_values(values: object, arg: str, *, t5d: bool) -> dict[str, float]:
    if not isinstance(values, Mapping):
        raise TypeError(
            f"{arg} must be a mapping perturbation name -> value, got {type(values).__name__}"
        )
    out: dict[str, float] = {}
    for raw_name, value in values.items():
        name = _resolve_name(raw_name, ALL_PERTURBATIONS, "perturbation")
        if name in out:
            raise ValueError(f"{arg} names perturbation {name!r} twice (as {raw_name!r})")
        where = f"{arg}[{raw_name!r}]"
        if t5d:
            if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.number)
            ):
                raise TypeError(f"{where} must be a number, got {value!r}")
            v = float(value)
            if not 0.0 <= v <= _TOP5_MAX:
                raise ValueError(f"{where} = {v!r}: a top-5 distance lies in [0, 15]")
        else:
            v = _check_rate(value, where, allow_missing=False)  # type: ignore[assignment]
        out[name] = v
    return {name: out[name] for name in ALL_PERTURBATIONS if name in out}


def _ratios(
    values: Mapping[str, float], base: Mapping[str, float], label: str, notes: list[str]
) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, v in values.items():
        b = base.get(name)
        if b is None:
            notes.append(f"{name}: no baseline {label}.")
        elif b <= 0.0:
            notes.append(f"{name}: baseline {label} is 0, ratio undefined.")
        else:
            out[name] = v / b
    return out


def summarize_p(
    fp: Mapping[str, float],
    t5d: Mapping[str, float] | None = None,
    baseline: Mapping[str, Mapping[str, float]] | PathLike | None = None,
) -> PSummary:
    """Summarise ImageNet-P flip probabilities / top-5 distances into mFR and mT5D.

    ::

        FR[p]  = FP[p] / FP_baseline[p]        mFR  = mean of FR[p] over the 10 test perturbations
        T5R[p] = T5D[p] / T5D_baseline[p]      mT5D = mean of T5R[p] over the 10 test perturbations

    The 4 validation perturbations (speckle_noise, gaussian_blur, spatter, shear) are reported
    separately (``validation_mfr``). No AlexNet ImageNet-P baseline is built in (it was never
    published machine-readably); without ``baseline`` only raw FP/T5D and their means are
    returned, ``mfr``/``mt5d`` are ``None`` and ``notes`` says why.

    Args:
        fp: Perturbation -> flip probability (fraction).
        t5d: Perturbation -> top-5 distance, optional.
        baseline: ``{"flip_probability": {...}, "top5_distance": {...}}`` as returned by
            :func:`load_p_baseline`, or a path to a JSON/CSV file it can read.

    Returns:
        A :class:`PSummary`.

    Examples:
        >>> base = {"flip_probability": {"rotate": 0.2}, "top5_distance": {"rotate": 4.0}}
        >>> s = summarize_p({"rotate": 0.1}, {"rotate": 3.0}, baseline=base)
        >>> s.fr["rotate"], s.t5d_ratio["rotate"], s.partial
        (0.5, 0.75, True)
    """
    fps = _parse_p_values(fp, "fp", t5d=False)
    if not fps:
        raise ValueError("fp is empty; give at least one perturbation")
    t5ds = {} if t5d is None else _parse_p_values(t5d, "t5d", t5d=True)
    notes: list[str] = []

    base_desc: str | None
    if baseline is None:
        base = None
        base_desc = None
    elif isinstance(baseline, (str, os.PathLike)):
        base = load_p_baseline(baseline)
        base_desc = f"measured baseline from {os.fspath(baseline)}"
    elif isinstance(baseline, Mapping):
        base = _parse_p_baseline_mapping(baseline, "baseline")
        base_desc = "user-supplied baseline mapping"
    else:
        raise TypeError(
            f"baseline must be None, a path or a mapping, got {type(baseline).__name__}"
        )

    fr: dict[str, float] = {}
    t5r: dict[str, float] = {}
    if base is None:
        notes.append(_NO_P_BASELINE_NOTE)
    else:
        fr = _ratios(fps, base["flip_probability"], "flip probability", notes)
        if t5ds:
            if base["top5_distance"]:
                t5r = _ratios(t5ds, base["top5_distance"], "top-5 distance", notes)
            else:
                notes.append("The baseline has no top-5 distances: mT5D not computed.")

    def over(group: Sequence[str], table: Mapping[str, float]) -> float | None:
        return _mean(table.get(n) for n in group)

    covered = fr if base is not None else fps
    missing = [p for p in TEST_PERTURBATIONS if p not in covered]
    if missing and len(missing) < len(TEST_PERTURBATIONS):
        notes.append(f"Test-perturbation means are partial: missing {', '.join(missing)}.")
    return PSummary(
        fp=fps,
        t5d=t5ds,
        fr=fr,
        t5d_ratio=t5r,
        mfr=over(TEST_PERTURBATIONS, fr) if base is not None else None,
        mt5d=over(TEST_PERTURBATIONS, t5r) if t5r else None,
        mean_fp=over(TEST_PERTURBATIONS, fps),
        mean_t5d=over(TEST_PERTURBATIONS, t5ds),
        validation_mfr=over(VALIDATION_PERTURBATIONS, fr),
        validation_mt5d=over(VALIDATION_PERTURBATIONS, t5r),
        baseline=base_desc,
        partial=bool(missing),
        missing=missing,
        notes=" ".join(notes),
    )


def _parse_p_baseline_mapping(data: Mapping[str, Any], source: str) -> dict[str, dict[str, float]]:
    if "flip_probability" not in data:
        raise ValueError(
            f"{source} needs a 'flip_probability' mapping perturbation -> FP "
            f"(optional 'top5_distance'); found keys {sorted(map(str, data))}"
        )
    t5d = data.get("top5_distance")
    return {
        "flip_probability": _parse_p_values(
            data["flip_probability"], f"{source}['flip_probability']", t5d=False
        ),
        "top5_distance": {}
        if t5d is None
        else _parse_p_values(t5d, f"{source}['top5_distance']", t5d=True),
    }


_FP_COLUMNS = ("fp", "flip_probability")
_T5D_COLUMNS = ("t5d", "top5_distance")


def load_p_baseline(path: PathLike) -> dict[str, dict[str, float]]:
    """Read a measured ImageNet-P baseline (e.g. AlexNet evaluated with ``corruptbench eval-p``).

    Two formats are accepted:

    - JSON (an eval-p results file): an object with ``"flip_probability"`` (perturbation -> FP) and
      optionally ``"top5_distance"`` (perturbation -> T5D); other keys are ignored.
    - CSV with a header row ``perturbation,fp,t5d`` (``flip_probability``/``top5_distance`` are
      accepted as column names; the t5d column and its cells may be absent/empty).

    The format is chosen by the suffix (``.json`` / ``.csv``), otherwise by whether the file starts
    with ``{``.

    Args:
        path: File to read.

    Returns:
        ``{"flip_probability": {name: fp}, "top5_distance": {name: t5d}}`` (validated names and
        values, reference order; ``top5_distance`` may be empty).

    Raises:
        ValueError: Malformed file, unknown perturbation name or out-of-range value.
    """
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    suffix = p.suffix.lower()
    is_json = suffix == ".json" or (suffix != ".csv" and text.lstrip().startswith("{"))
    if is_json:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{p}: not valid JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise ValueError(f"{p}: expected a JSON object with 'flip_probability'")
        return _parse_p_baseline_mapping(data, str(p))

    reader = csv.DictReader(text.splitlines())
    header = {(_canonical(h) if h else ""): h for h in (reader.fieldnames or [])}
    if "perturbation" not in header:
        raise ValueError(
            f"{p}: CSV needs a header row 'perturbation,fp,t5d'; got {reader.fieldnames}"
        )
    fp_col = next((header[c] for c in _FP_COLUMNS if c in header), None)
    if fp_col is None:
        raise ValueError(
            f"{p}: CSV needs an 'fp' (flip probability) column; got {reader.fieldnames}"
        )
    t5d_col = next((header[c] for c in _T5D_COLUMNS if c in header), None)
    fps: dict[str, float] = {}
    t5ds: dict[str, float] = {}
    for line, row in enumerate(reader, start=2):
        name = (row.get(header["perturbation"]) or "").strip()
        if not name:
            continue
        for col, table in ((fp_col, fps), (t5d_col, t5ds)):
            cell = (row.get(col) or "").strip() if col else ""
            if not cell:
                continue
            try:
                table[name] = float(cell)
            except ValueError:
                raise ValueError(f"{p}:{line}: {col} value {cell!r} is not a number") from None
    return _parse_p_baseline_mapping({"flip_probability": fps, "top5_distance": t5ds}, str(p))

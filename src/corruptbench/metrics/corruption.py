"""ImageNet-C metrics: CE, mCE, relative CE / mCE (reference-spec.md §4.1).

With ``E[f, s, c]`` the top-1 error of model ``f`` on corruption ``c`` at severity ``s`` and ``A``
the baseline model::

    CE[f, c]          = sum_s E[f, s, c] / sum_s E[A, s, c]
    relative CE[f, c] = sum_s (E[f, s, c] - E[f, clean]) / sum_s (E[A, s, c] - E[A, clean])
    mCE               = mean of CE[f, c] over the 15 benchmark corruptions
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS
from ..grid import resolve_name
from ..tables.alexnet import ALEXNET_C_ERRORS, ALEXNET_CLEAN_ERROR
from .checks import check_rate, mean_present

__all__ = ["NUM_SEVERITIES", "CSummary", "BaselineC", "summarize_c"]

NUM_SEVERITIES = 5


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
        name = resolve_name("c", raw_name, suite="imagenet_c")
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
            check_rate(v, f"{where}[severity {s}]", allow_missing=allow_missing)
            for s, v in enumerate(seq, start=1)
        )
    return {name: parsed[name] for name in ALL_CORRUPTIONS if name in parsed}


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
        None if clean_error is None else check_rate(clean_error, "clean_error", allow_missing=False)
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
                base_clean = check_rate(
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
            else check_rate(baseline_clean_error, "baseline_clean_error", allow_missing=False)
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
        return mean_present(table.get(n) for n in group if n in table)

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

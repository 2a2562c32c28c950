"""ImageNet-C metrics: CE, mCE, relative CE / mCE (Hendrycks & Dietterich, ICLR 2019,
arXiv:1903.12261).

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

__all__ = ["NUM_SEVERITIES", "CSummary", "CMeans", "BaselineC", "summarize_c", "c_means"]

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
    base = _resolve_baseline(baseline, baseline_clean_error)
    rows = {name: _corruption_error(name, values, clean, base) for name, values in errs.items()}
    return _summary(errs, clean, base, rows)


def _summary(
    errs: dict[str, tuple[float | None, ...]],
    clean: float | None,
    base: _Baseline,
    rows: Mapping[str, _Row],
) -> CSummary:
    """The :class:`CSummary` of the per-corruption figures ``rows``: means over the benchmark and
    the extra corruptions, what they leave out, and the notes saying why."""
    mean_errors = {name: row.mean_error for name, row in rows.items()}
    ce = {name: row.ce for name, row in rows.items()}
    rel = {name: row.relative_ce for name, row in rows.items()}
    incomplete = [name for name, row in rows.items() if row.mean_error is None]
    notes = [row.note for row in rows.values() if row.note]
    notes += _input_notes(incomplete, clean, base)
    means = c_means(ce, rel, mean_errors)
    notes += _coverage_notes(means.missing, ce, rel, means.relative_mce)
    return CSummary(
        errors=errs,
        mean_errors=mean_errors,
        ce=ce,
        relative_ce=rel,
        mce=means.mce,
        relative_mce=means.relative_mce,
        mean_error=means.mean_error,
        extra_ce=means.extra_ce,
        extra_relative_ce=means.extra_relative_ce,
        extra_mean_error=means.extra_mean_error,
        clean_error=clean,
        baseline=base.description,
        baseline_clean_error=base.clean_error,
        partial=means.partial,
        missing=list(means.missing),
        extra_missing=list(means.extra_missing),
        incomplete=incomplete,
        notes=" ".join(notes),
    )


@dataclass(frozen=True)
class CMeans:
    """The means of per-corruption figures (:func:`c_means`); see :class:`CSummary` for each."""

    mce: float | None
    relative_mce: float | None
    mean_error: float | None
    extra_ce: float | None
    extra_relative_ce: float | None
    extra_mean_error: float | None
    partial: bool
    missing: tuple[str, ...]
    extra_missing: tuple[str, ...]


def c_means(
    ce: Mapping[str, float | None],
    relative_ce: Mapping[str, float | None],
    mean_errors: Mapping[str, float | None],
) -> CMeans:
    """The means over the benchmark and the extra corruptions of per-corruption CE, relative CE
    and mean error (each ``None`` where not known)::

        mCE          = mean of CE[c] over the benchmark corruptions whose CE is known
        relative mCE = mean of relative CE[c] over those whose relative CE is known
        mean error   = mean of mean_s E[s, c] over the benchmark corruptions whose CE is known

    (likewise over the 4 extra corruptions). ``partial``: some benchmark corruption has no CE
    (``missing``), so mCE covers fewer than the 15. What :func:`summarize_c` reports, and what a
    results file's stored means are checked against when the CEs cannot be recomputed (a
    measured baseline).
    """

    def measured(group: Sequence[str]) -> list[str]:
        return [n for n in group if ce.get(n) is not None]

    missing = tuple(n for n in BENCHMARK_CORRUPTIONS if ce.get(n) is None)
    return CMeans(
        mce=_mean_over(BENCHMARK_CORRUPTIONS, ce),
        relative_mce=_mean_over(BENCHMARK_CORRUPTIONS, relative_ce),
        mean_error=_mean_over(measured(BENCHMARK_CORRUPTIONS), mean_errors),
        extra_ce=_mean_over(EXTRA_CORRUPTIONS, ce),
        extra_relative_ce=_mean_over(EXTRA_CORRUPTIONS, relative_ce),
        extra_mean_error=_mean_over(measured(EXTRA_CORRUPTIONS), mean_errors),
        partial=bool(missing),
        missing=missing,
        extra_missing=tuple(n for n in EXTRA_CORRUPTIONS if ce.get(n) is None),
    )


@dataclass(frozen=True)
class _Baseline:
    """A resolved CE baseline: its per-severity errors (``None``: uniform, no normalisation), its
    clean error (``None``: unknown, so no relative CE) and the description the summary shows."""

    errors: Mapping[str, Sequence[float | None]] | None
    clean_error: float | None
    description: str


def _resolve_baseline(baseline: object, baseline_clean_error: float | None) -> _Baseline:
    """``summarize_c``'s ``baseline`` / ``baseline_clean_error`` checked and resolved."""

    def clean_rate() -> float | None:
        if baseline_clean_error is None:
            return None
        return check_rate(baseline_clean_error, "baseline_clean_error", allow_missing=False)

    if isinstance(baseline, str):
        key = baseline.strip().lower()
        if key == "alexnet":
            given = clean_rate()
            clean = ALEXNET_CLEAN_ERROR if given is None else given
            return _Baseline(
                ALEXNET_C_ERRORS,
                clean,
                "AlexNet (published ImageNet-C per-severity errors, hendrycks/robustness README "
                f"PR #20 / issue #10; clean error {clean:g})",
            )
        if key == "uniform":
            if baseline_clean_error is not None:
                raise ValueError("baseline_clean_error has no meaning with baseline='uniform'")
            return _Baseline(
                None,
                None,
                "uniform (unnormalised: CE = mean error over severities; relative CE = CE - clean error)",
            )
        raise ValueError(
            f"unknown baseline {baseline!r}; use 'alexnet', 'uniform' or a mapping "
            "corruption -> 5 per-severity errors of the baseline model"
        )
    if isinstance(baseline, Mapping):
        errors = _parse_c_errors(baseline, "baseline", allow_missing=False)
        user_clean = clean_rate()
        desc = f"user-supplied baseline ({len(errors)} corruptions"
        desc += f"; clean error {user_clean:g})" if user_clean is not None else ")"
        return _Baseline(errors, user_clean, desc)
    raise TypeError(
        f"baseline must be 'alexnet', 'uniform' or a mapping, got {type(baseline).__name__}"
    )


@dataclass(frozen=True)
class _Row:
    """One corruption's figures (``None`` where they cannot be computed) and why not (``note``)."""

    mean_error: float | None = None
    ce: float | None = None
    relative_ce: float | None = None
    note: str = ""


def _corruption_error(
    name: str, values: Sequence[float | None], clean: float | None, base: _Baseline
) -> _Row:
    """Mean error, CE and relative CE of one corruption from its five severity errors::

        CE          = sum_s E[s] / sum_s B[s]
        relative CE = (mean_s E[s] - E_clean) / (mean_s B[s] - B_clean)

    (uniform baseline: CE = mean_s E[s], relative CE = CE - E_clean). A missing severity gives
    no figures at all.
    """
    if any(v is None for v in values):
        return _Row()
    total = math.fsum(values)  # type: ignore[arg-type]
    mean_err = total / NUM_SEVERITIES
    if base.errors is None:  # uniform
        return _Row(mean_err, mean_err, None if clean is None else mean_err - clean)
    base_values = base.errors.get(name)
    if base_values is None:
        return _Row(
            mean_err, note=f"{name}: the baseline has no errors for it, so CE is undefined."
        )
    base_sum = math.fsum(base_values)  # type: ignore[arg-type]
    if base_sum <= 0.0:
        return _Row(mean_err, note=f"{name}: the baseline's errors sum to 0, so CE is undefined.")
    ce = total / base_sum
    if clean is None or base.clean_error is None:
        return _Row(mean_err, ce)
    base_gap = base_sum / NUM_SEVERITIES - base.clean_error
    if base_gap <= 0.0:
        return _Row(
            mean_err,
            ce,
            note=f"{name}: the baseline's mean corruption error does not exceed its clean "
            "error, so relative CE is undefined.",
        )
    return _Row(mean_err, ce, (mean_err - clean) / base_gap)


def _input_notes(incomplete: Sequence[str], clean: float | None, base: _Baseline) -> list[str]:
    """Remarks on what the input lacks: missing severities, clean errors."""
    notes: list[str] = []
    if incomplete:
        notes.append(f"Missing severities (no CE): {', '.join(incomplete)}.")
    if clean is None:
        notes.append("No clean_error given: relative CE not computed.")
    elif base.errors is not None and base.clean_error is None:
        notes.append("No baseline_clean_error given: relative CE not computed.")
    return notes


def _coverage_notes(
    missing: Sequence[str],
    ce: Mapping[str, float | None],
    rel: Mapping[str, float | None],
    relative_mce: float | None,
) -> list[str]:
    """Remarks on which benchmark corruptions mCE and relative mCE cover."""
    notes: list[str] = []
    if missing and len(missing) < len(BENCHMARK_CORRUPTIONS):
        notes.append(
            f"mCE is partial: {len(BENCHMARK_CORRUPTIONS) - len(missing)} of "
            f"{len(BENCHMARK_CORRUPTIONS)} benchmark corruptions."
        )
    if relative_mce is not None and any(
        rel.get(n) is None for n in BENCHMARK_CORRUPTIONS if ce.get(n) is not None
    ):
        notes.append("relative mCE covers fewer corruptions than mCE.")
    return notes


def _mean_over(group: Sequence[str], table: Mapping[str, float | None]) -> float | None:
    """Mean of the known values of ``table`` over the names of ``group`` it holds."""
    return mean_present(table.get(n) for n in group if n in table)

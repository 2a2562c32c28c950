"""The ImageNet-C part of a results file (``kind`` ``"c"`` and ``"demo"``), read back checked.

A results file holds what was measured (the per-severity ``errors``, their image ``counts``,
``clean_error`` and ``clean_count``, the ``baseline``'s name) and what is derived from it (``ce``,
``relative_ce``, ``mce``, ``relative_mce``, ``partial_mce``, ``partial_relative_mce``,
``mean_error``, ``extra_mean_error``, ``extra_ce``, ``partial``, ``missing``). Reading it
(:func:`parse_c`):

* every number is finite: NaN and infinity are refused alike (a file we write has none; null marks
  a value that is not available), counts are integers >= 0, and an error with a count must be a
  whole number of its images wrong (``(1 - error) * count`` an integer);
* the derived numbers are recomputed, from the errors for the built-in baselines (``alexnet``,
  ``uniform``: :func:`~corruptbench.metrics.summarize_c`) or, for a measured baseline (whose
  errors the file does not hold), from the stored CEs (:func:`~corruptbench.metrics.c_means`);
  a stored value that disagrees (beyond a relative 1e-9: another writer may sum in another
  order) is refused, naming the key; an absent one is filled in (files of older versions).

A file of an older version whose ``partial`` mCE was stored as ``mce`` reads as ``partial_mce``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..corruptions import ALL_CORRUPTIONS
from ..grid import SEVERITIES
from ..metrics import CSummary, c_means, summarize_c
from .parts import CResults
from .reader import Reader, agrees, short_repr

__all__ = ["parse_c", "summarize_errors", "BUILT_IN_C_BASELINES"]

#: the baselines whose errors corruptbench knows, so that a file's CEs can be recomputed
BUILT_IN_C_BASELINES = ("alexnet", "uniform")


def summarize_errors(
    source: str,
    errors: Mapping[str, Sequence[float | None]],
    clean: float | None,
    baseline: Any,
    baseline_clean: float | None = None,
) -> CSummary:
    """:func:`~corruptbench.metrics.summarize_c` for the results read from ``source``; a bad value
    becomes ``ValueError("<source>: cannot compute CE: ...")``."""
    try:
        return summarize_c(
            errors, clean_error=clean, baseline=baseline, baseline_clean_error=baseline_clean
        )
    except (TypeError, ValueError) as exc:
        raise Reader(source).fail(f"cannot compute CE: {exc}") from None


def _errors(r: Reader, data: Mapping[str, Any]) -> dict[str, list[float | None]]:
    raw = r.obj(data, "errors", "")
    assert raw is not None
    if not raw:
        raise r.fail("'errors' is empty: no corruption was evaluated")
    errors: dict[str, list[float | None]] = {}
    for key, values in raw.items():
        name = r.name(key, ALL_CORRUPTIONS, "corruption", "'errors'")
        r.severity_row(f"errors[{key!r}]", values, "per-severity errors (null where absent)")
        errors[name] = [
            r.number(v, f"errors[{key!r}][severity {s}]") for s, v in zip(SEVERITIES, values)
        ]
    return {n: errors[n] for n in ALL_CORRUPTIONS if n in errors}


def _counts(
    r: Reader, data: Mapping[str, Any], errors: Mapping[str, list[float | None]]
) -> dict[str, list[int | None]]:
    counts: dict[str, list[int | None]] = {}
    raw = r.obj(data, "counts", "", required=False) or {}
    for key, values in raw.items():
        name = r.name(key, ALL_CORRUPTIONS, "corruption", "'counts'")
        if values is None:
            continue
        r.severity_row(f"counts[{key!r}]", values, "image counts")
        counts[name] = [
            r.integer(v, f"counts[{key!r}][severity {s}]") for s, v in zip(SEVERITIES, values)
        ]
        row = errors.get(name, [None] * len(SEVERITIES))
        for s, e, n in zip(SEVERITIES, row, counts[name]):
            r.whole(e, n, f"errors[{key!r}][severity {s}]")
    return counts


def _stored_map(r: Reader, data: Mapping[str, Any], key: str) -> dict[str, float | None] | None:
    # CE is at least 0 and unbounded; relative CE is negative when a corruption happens to help
    lo = -math.inf if key == "relative_ce" else 0.0
    return r.rate_map(data, key, ALL_CORRUPTIONS, "corruption", lo=lo, hi=math.inf)


def _ces(
    r: Reader,
    data: Mapping[str, Any],
    errors: dict[str, list[float | None]],
    clean_error: float | None,
    baseline: str,
) -> tuple[dict[str, float | None], dict[str, float | None]]:
    """CE and relative CE per corruption of ``errors``: recomputed for a built-in baseline, the
    stored ones (checked against the errors they need) for a measured one."""
    if baseline in BUILT_IN_C_BASELINES:
        s = summarize_errors(r.source, errors, clean_error, baseline)
        return {n: s.ce.get(n) for n in errors}, {n: s.relative_ce.get(n) for n in errors}
    ce, rel = _stored_map(r, data, "ce"), _stored_map(r, data, "relative_ce")
    if ce is None:
        raise r.fail(
            f"'ce' is missing and the baseline {baseline!r} is not built in "
            f"({', '.join(BUILT_IN_C_BASELINES)}), so CE cannot be computed from the errors"
        )
    for key, table in (("ce", ce), ("relative_ce", rel or {})):
        for n, v in table.items():
            if v is not None and (n not in errors or None in errors[n]):
                raise r.fail(
                    f"'{key}[{n!r}]' = {v!r} but errors[{n!r}] does not have all "
                    f"{len(SEVERITIES)} severities (a CE needs them all)"
                )
    return {n: ce.get(n) for n in errors}, {n: (rel or {}).get(n) for n in errors}


def _check(r: Reader, data: Mapping[str, Any], key: str, derived: Any, stored: Any = None) -> None:
    """A stored derived value (absent: nothing to check) must equal the recomputed one;
    ``stored``: the value as read (names made canonical), else the file's own."""
    if key not in data:
        return
    stored = data[key] if stored is None else stored
    if isinstance(derived, Mapping) and isinstance(stored, Mapping):
        for n in {*stored, *derived}:
            if not agrees(stored.get(n), derived.get(n)):
                raise r.fail(
                    f"'{key}[{n!r}]' = {short_repr(stored.get(n))} disagrees with the errors, "
                    f"which give {short_repr(derived.get(n))}"
                )
        return
    if not agrees(stored, derived):
        raise r.fail(
            f"'{key}' = {short_repr(stored)} disagrees with the errors, which give "
            f"{short_repr(derived)}"
        )


def _check_scalars(r: Reader, data: Mapping[str, Any]) -> None:
    """Every stored scalar is a finite number or null (NaN and infinity refused alike)."""
    for key in (
        "mce",
        "relative_mce",
        "partial_mce",
        "partial_relative_mce",
        "mean_error",
        "extra_mean_error",
    ):
        lo, hi = (0.0, 1.0) if key.endswith("mean_error") else (-math.inf, math.inf)
        r.number(data.get(key), f"{key!r}", lo=lo, hi=hi)
    partial = data.get("partial")
    if partial is not None and not isinstance(partial, bool):
        raise r.fail(f"'partial' must be true or false, got {short_repr(partial)}")
    r.str_list(data, "missing")


def _check_means(r: Reader, data: Mapping[str, Any], c: CResults, old_partial_mce: bool) -> None:
    """The stored means against the recomputed ones (an older file's partial mean is in
    ``mce``)."""
    for key in ("mce", "relative_mce"):
        derived = getattr(c, key)
        if old_partial_mce and data.get(key) is not None:
            derived = getattr(c, f"partial_{key}")
        _check(r, data, key, derived)
    for key in ("partial_mce", "partial_relative_mce", "mean_error", "extra_mean_error"):
        _check(r, data, key, getattr(c, key))
    _check(r, data, "partial", c.partial)
    _check(r, data, "missing", list(c.missing))
    _check(r, data, "extra_ce", c.extra_ce, _stored_map(r, data, "extra_ce"))


def parse_c(r: Reader, data: Mapping[str, Any]) -> CResults:
    """The checked ImageNet-C part of a results object (see the module docstring).

    Raises:
        ValueError: ``"<file>: ..."`` naming the key that is wrong or disagrees.
    """
    errors = _errors(r, data)
    counts = _counts(r, data, errors)
    clean_error = r.number(data.get("clean_error"), "'clean_error'")
    clean_count = r.integer(data.get("clean_count"), "'clean_count'")
    r.whole(clean_error, clean_count, "'clean_error'")
    baseline = data.get("baseline", "alexnet")
    if baseline is None:
        baseline = "alexnet"
    if not isinstance(baseline, str):
        raise r.fail(f"'baseline' must be a string, got {short_repr(baseline)}")
    stored_ce, stored_rel = _stored_map(r, data, "ce"), _stored_map(r, data, "relative_ce")
    _check_scalars(r, data)
    ce, rel = _ces(r, data, errors, clean_error, baseline)
    mean_errors = {
        n: math.fsum(v) / len(v) if None not in v else None  # type: ignore[arg-type]
        for n, v in errors.items()
    }
    means = c_means(ce, rel, mean_errors)
    c = CResults(
        errors=errors,
        clean_error=clean_error,
        ce=ce,
        relative_ce=rel,
        mce=means.mce,
        relative_mce=means.relative_mce,
        mean_error=means.mean_error,
        extra_mean_error=means.extra_mean_error,
        baseline=baseline,
        partial=means.partial,
        missing=list(means.missing),
        counts=counts,
        clean_count=clean_count,
    )
    _check(r, data, "ce", ce, stored_ce)
    _check(r, data, "relative_ce", rel, stored_rel)
    _check_means(r, data, c, old_partial_mce=c.partial and "partial_mce" not in data)
    return c

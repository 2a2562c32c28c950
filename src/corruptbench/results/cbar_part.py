"""The ImageNet-C-bar / CIFAR-10-C-bar part of a results file (``"cbar"``), read back checked.

eval-c writes it when it evaluates corruptions of the suite ``cbar`` (:class:`~.parts.CBarResults`):

    "cbar": {
     "benchmark": "imagenet_c_bar",   # the level table: imagenet_c_bar or cifar10_c_bar
     "errors": {"caustic_refraction": [5 errors, null where not evaluated], ...},
     "counts": {"caustic_refraction": [5 image counts], ...},
     "clean_error": 0.25, "clean_count": 40,          # null when not measured
     "levels": {"caustic_refraction": [2.35, 3.2, 4.9, 6.6, 9.15], ...},   # derived
     "corruption_errors": {...}, "mean_error": .., "extra_mean_error": ..,  # derived
     "partial": false, "missing": []                                         # derived
    }

Reading it (:func:`parse_cbar`): the benchmark is a known one; every name is a corruption of the
suite ``cbar``; every error is a finite fraction or null (NaN and infinity refused), counts are
integers >= 0, and an error with a count is a whole number of its images wrong; the derived keys
are recomputed from the errors (test_c_bar.py's means: :class:`~.parts.CBarResults`) and a stored
value that disagrees is refused, naming the key; an absent one is filled in. A file whose
ImageNet-C part also measured the clean images must give the same clean error here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..grid import SEVERITIES, subsets
from .parts import CBAR_BENCHMARKS, CBarResults, CResults
from .reader import Reader, agrees, short_repr

__all__ = ["parse_cbar", "CBAR_KEY"]

#: the results file's key of the part
CBAR_KEY = "cbar"
_DERIVED = (
    "levels",
    "corruption_errors",
    "mean_error",
    "extra_mean_error",
    "partial",
    "missing",
)


def _rows(r: Reader, obj: Mapping[str, Any], key: str, *, counts: bool) -> dict[str, list[Any]]:
    """``errors`` or ``counts``: corruption of suite cbar -> one entry per severity."""
    raw = r.obj(obj, key, f"{CBAR_KEY}.", required=not counts) or {}
    names = subsets("c", "cbar")["all"]
    out: dict[str, list[Any]] = {}
    for k, values in raw.items():
        name = r.name(k, names, "C-bar corruption", f"'{CBAR_KEY}.{key}'")
        where = f"{CBAR_KEY}.{key}[{k!r}]"
        if counts:
            r.severity_row(where, values, "image counts")
            out[name] = [r.integer(v, f"{where}[severity {s}]") for s, v in zip(SEVERITIES, values)]
        else:
            r.severity_row(where, values, "per-severity errors (null where absent)")
            out[name] = [r.number(v, f"{where}[severity {s}]") for s, v in zip(SEVERITIES, values)]
    return {n: out[n] for n in names if n in out}


def _check_derived(r: Reader, obj: Mapping[str, Any], part: CBarResults) -> None:
    """Every stored derived value must equal the one the errors give."""
    derived = part.to_dict()
    for key in _DERIVED:
        if key in obj and not agrees(obj[key], derived[key]):
            raise r.fail(
                f"'{CBAR_KEY}.{key}' = {short_repr(obj[key])} disagrees with the errors, which "
                f"give {short_repr(derived[key])}"
            )


def parse_cbar(r: Reader, data: Mapping[str, Any], c: CResults | None = None) -> CBarResults | None:
    """The checked ``cbar`` object of a results file (``None`` when it has none); ``c``: the
    file's ImageNet-C part, whose clean error must equal this one's where both have it.

    Raises:
        ValueError: ``"<file>: ..."`` naming the key that is wrong or disagrees.
    """
    obj = r.obj(data, CBAR_KEY, "", required=False)
    if obj is None:
        return None
    benchmark = r.string(obj, "benchmark", f"{CBAR_KEY}.")
    if benchmark not in CBAR_BENCHMARKS:
        raise r.fail(
            f"{CBAR_KEY}.benchmark must be one of {', '.join(CBAR_BENCHMARKS)}, got "
            f"{short_repr(benchmark)}"
        )
    errors = _rows(r, obj, "errors", counts=False)
    if not errors:
        raise r.fail(f"'{CBAR_KEY}.errors' is empty: no C-bar corruption was evaluated")
    counts = _rows(r, obj, "counts", counts=True)
    for name, row in counts.items():
        for s, e, n in zip(SEVERITIES, errors.get(name, [None] * len(SEVERITIES)), row):
            r.whole(e, n, f"{CBAR_KEY}.errors[{name!r}][severity {s}]")
    clean_error = r.number(obj.get("clean_error"), f"'{CBAR_KEY}.clean_error'")
    clean_count = r.integer(obj.get("clean_count"), f"'{CBAR_KEY}.clean_count'")
    r.whole(clean_error, clean_count, f"'{CBAR_KEY}.clean_error'")
    if c is not None and None not in (c.clean_error, clean_error):
        if (c.clean_error, c.clean_count) != (clean_error, clean_count):
            raise r.fail(
                f"'{CBAR_KEY}.clean_error' = {clean_error!r} of {clean_count} images but the "
                f"ImageNet-C part's is {c.clean_error!r} of {c.clean_count}: one run measures "
                "the clean images once"
            )
    part = CBarResults(benchmark, errors, counts, clean_error, clean_count)  # type: ignore[arg-type]
    _check_derived(r, obj, part)
    return part

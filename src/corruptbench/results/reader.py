"""Typed readers for results files: each check names the file and the key that is wrong."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..grid import SEVERITIES
from ..registry import canonical_name

__all__ = ["Reader", "type_name", "short_repr", "agrees", "REL_TOL", "load_json"]

#: how far a stored derived number may be from the recomputed one: another writer may sum in
#: another order; a real disagreement is far larger
REL_TOL = 1e-9
_WHOLE = 1e-6  #: how far ``(1 - error) * count`` may be from an integer (float rounding)


def load_json(text: str, source: str) -> Any:
    """``text`` decoded as JSON, or one ``ValueError("<source>: not valid JSON ...")``: the
    decoder's own error with its line and column, and for nesting deeper than Python's recursion
    limit (a hand-made ``[[[[...]]]]`` 100,000 deep) a line instead of a RecursionError
    traceback."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise ValueError(
            f"{source}: not a results file (its JSON is nested too deeply to read)"
        ) from None


class Reader:
    """Validating accessors for one results object; failures are ``ValueError("<source>: ...")``.

    ``where`` arguments are human-readable locations used in the messages.
    """

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, message: str) -> ValueError:
        return ValueError(f"{self.source}: {message}")

    def obj(
        self, parent: Mapping[str, Any], key: str, where: str, *, required: bool = True
    ) -> dict[str, Any] | None:
        if key not in parent or parent[key] is None:
            if required:
                raise self.fail(f"missing key {where}{key!r} (an object)")
            return None
        value = parent[key]
        if not isinstance(value, dict):
            raise self.fail(f"{where}{key!r} must be an object, got {type_name(value)}")
        return value

    def string(
        self, parent: Mapping[str, Any], key: str, where: str, *, required: bool = True
    ) -> str | None:
        if key not in parent or parent[key] is None:
            if required:
                raise self.fail(f"missing key {where}{key!r} (a string)")
            return None
        value = parent[key]
        if not isinstance(value, str):
            raise self.fail(f"{where}{key!r} must be a string, got {type_name(value)}")
        return value

    def number(
        self, value: Any, where: str, *, lo: float = 0.0, hi: float = 1.0, allow_none: bool = True
    ) -> float | None:
        if value is None:
            if allow_none:
                return None
            raise self.fail(f"{where} is null; a number is required")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"{where} must be a number, got {type_name(value)} {short_repr(value)}")
        v = float(value)
        if not math.isfinite(v):
            # NaN and infinity alike: a results file written by corruptbench has neither
            # (null marks a value that is not available)
            raise self.fail(f"{where} is {v} (not a finite number; null marks a missing value)")
        if not lo <= v <= hi:
            hint = (
                " (fractions are expected, not percentages)"
                if hi == 1.0 and 1.0 < v <= 100.0
                else ""
            )
            raise self.fail(f"{where} = {v:g} is outside [{lo:g}, {hi:g}]{hint}")
        return v

    def integer(self, value: Any, where: str, *, allow_none: bool = True) -> int | None:
        if value is None and allow_none:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(f"{where} must be a non-negative integer, got {short_repr(value)}")
        return value

    def name(self, raw: Any, allowed: Sequence[str], what: str, where: str) -> str:
        if not isinstance(raw, str):
            raise self.fail(f"{where} has a non-string key {short_repr(raw)}")
        key = canonical_name(raw)
        if key not in allowed:
            raise self.fail(f"{where} names an unknown {what} {raw!r}")
        return key

    def severity_row(self, where: str, values: Any, what: str) -> None:
        """A per-severity row is a list with one entry per severity of the grid (1..5)."""
        if not isinstance(values, list) or len(values) != len(SEVERITIES):
            raise self.fail(
                f"{where} must be a list of {len(SEVERITIES)} {what}, got {short_repr(values)}"
            )

    def whole(self, error: float | None, count: int | None, where: str) -> None:
        """An error measured on ``count`` images is a whole number of them wrong (up to float
        rounding); a count of 0 with an error is refused."""
        if count is None or error is None:
            return
        if count == 0:
            raise self.fail(f"{where}: an error over 0 images")
        wrong = error * count
        if abs(wrong - round(wrong)) > _WHOLE * max(1, count):
            raise self.fail(
                f"{where}: error {error!r} is not a whole number of its {count} images "
                f"({wrong:g} wrong); the error and the count disagree"
            )

    def rate_map(
        self,
        parent: Mapping[str, Any],
        key: str,
        allowed: Sequence[str],
        what: str,
        *,
        lo: float = 0.0,
        hi: float = 1.0,
        required: bool = False,
        allow_none_values: bool = True,
    ) -> dict[str, Any] | None:
        raw = self.obj(parent, key, "", required=required)
        if raw is None:
            return None
        out: dict[str, Any] = {}
        for k, v in raw.items():
            name = self.name(k, allowed, what, f"{key!r}")
            out[name] = self.number(v, f"{key}[{k!r}]", lo=lo, hi=hi, allow_none=allow_none_values)
        return {n: out[n] for n in allowed if n in out}

    def str_list(self, parent: Mapping[str, Any], key: str) -> list[str]:
        value = parent.get(key)
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"{key!r} must be a list of strings, got {short_repr(value)}")
        return list(value)


def raise_(exc: Exception) -> Any:
    """Raise ``exc`` (usable inside an expression)."""
    raise exc


def agrees(stored: Any, derived: Any, rel_tol: float = REL_TOL) -> bool:
    """Whether a value read from a file equals the one recomputed from its measurements:
    numbers within ``rel_tol`` (relative; 1e-12 absolute near 0), mappings with the same keys and
    lists of the same length element by element, anything else equal (``None`` only to
    ``None``, booleans only to booleans)."""
    if derived is None or isinstance(derived, (bool, str)):
        return type(stored) is type(derived) and stored == derived
    if isinstance(derived, (int, float)):
        return (
            isinstance(stored, (int, float))
            and not isinstance(stored, bool)
            and math.isclose(float(stored), float(derived), rel_tol=rel_tol, abs_tol=1e-12)
        )
    if isinstance(derived, Mapping):
        return (
            isinstance(stored, Mapping)
            and set(stored) == set(derived)
            and all(agrees(stored[k], v, rel_tol) for k, v in derived.items())
        )
    if isinstance(derived, (list, tuple)):
        return (
            isinstance(stored, (list, tuple))
            and len(stored) == len(derived)
            and all(agrees(a, b, rel_tol) for a, b in zip(stored, derived))
        )
    return bool(stored == derived)


def type_name(value: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

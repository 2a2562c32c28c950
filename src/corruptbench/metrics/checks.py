"""Input checks shared by the metrics: rates as fractions in [0, 1] (names: :mod:`corruptbench.grid`)."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

__all__ = ["check_rate", "mean_present"]


def check_rate(value: object, where: str, *, allow_missing: bool) -> float | None:
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


def mean_present(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return math.fsum(present) / len(present) if present else None

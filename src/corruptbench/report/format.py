"""Formatting helpers shared by the report writers (fractions in, display strings out)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..registry import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS

if TYPE_CHECKING:
    from ..results import Results

FAMILIES = ("noise", "blur", "weather", "digital")

# Family of each corruption as in the paper's Figure 1 (and the registry); used when the registry
# cannot be imported (e.g. a report is built without the corruption modules).
_FAMILY_FALLBACK = {
    "gaussian_noise": "noise",
    "shot_noise": "noise",
    "impulse_noise": "noise",
    "speckle_noise": "noise",
    "defocus_blur": "blur",
    "glass_blur": "blur",
    "motion_blur": "blur",
    "zoom_blur": "blur",
    "gaussian_blur": "blur",
    "snow": "weather",
    "frost": "weather",
    "fog": "weather",
    "brightness": "weather",
    "spatter": "weather",
    "contrast": "digital",
    "elastic_transform": "digital",
    "pixelate": "digital",
    "jpeg_compression": "digital",
    "saturate": "digital",
}

_PRETTY = {
    "jpeg_compression": "JPEG",
    "elastic_transform": "Elastic",
    "gaussian_noise": "Gaussian noise",
    "gaussian_blur": "Gaussian blur",
}

DASH = "\u2014"


def family_of(name: str) -> str:
    try:
        from ..registry import corruption_registry

        info = corruption_registry().get(name)
        if info is not None:
            return info.family
    except Exception:  # registry incomplete while the package is being built: use the table
        pass
    return _FAMILY_FALLBACK.get(name, "digital")


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


def is_extra(name: str) -> bool:
    return name in EXTRA_CORRUPTIONS


def summary_cells(r: Results, with_p: bool) -> list[str]:
    """A comparison-table row's figures: clean error, mCE, relative mCE, mean error, extra mean
    error (then mFR and mT5D when ``with_p``), as percentages; em dashes where missing."""
    c, p = r.c, r.p
    cells = (
        [
            pct(c.clean_error),
            pct(c.mce),
            pct(c.relative_mce),
            pct(c.mean_error),
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
    "is_extra",
    "summary_cells",
]

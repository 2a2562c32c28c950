"""Formatting helpers shared by the report writers (fractions in, display strings out)."""

from __future__ import annotations

import math

from ..baselines import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS

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
        from .._registry import corruption_registry

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
]

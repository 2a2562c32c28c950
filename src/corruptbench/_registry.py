"""The one registry of corruptions (and perturbations): every list, CLI choice and doc table derives
from it. Corruption modules register their functions with :func:`register_corruption`."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CorruptionInfo",
    "register_corruption",
    "get_corruption",
    "corruption_registry",
    "REFERENCE_ORDER",
    "FAMILIES",
    "suggest",
]

#: The reference order (imagenet_c.corruption_tuple): 15 benchmark corruptions, then the 4 extra.
REFERENCE_ORDER: tuple[str, ...] = (
    "gaussian_noise",
    "shot_noise",
    "impulse_noise",
    "defocus_blur",
    "glass_blur",
    "motion_blur",
    "zoom_blur",
    "snow",
    "frost",
    "fog",
    "brightness",
    "contrast",
    "elastic_transform",
    "pixelate",
    "jpeg_compression",
    "speckle_noise",
    "gaussian_blur",
    "spatter",
    "saturate",
)

FAMILIES: tuple[str, ...] = ("noise", "blur", "weather", "digital")


@dataclass(frozen=True)
class CorruptionInfo:
    name: str
    func: Callable[..., Any]
    family: str
    extra: bool  #: True for the 4 validation ("extra") corruptions
    random: bool  #: whether the corruption draws random numbers
    doc: str


_CORRUPTIONS: dict[str, CorruptionInfo] = {}


def register_corruption(
    name: str, *, family: str, extra: bool = False, random: bool = True
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register a corruption function under ``name`` with its family and metadata."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}")

    def deco(func: Callable[..., Any]) -> Callable[..., Any]:
        if name in _CORRUPTIONS:
            raise RuntimeError(f"corruption {name!r} registered twice")
        doc = (func.__doc__ or "").strip().splitlines()
        _CORRUPTIONS[name] = CorruptionInfo(
            name, func, family, extra, random, doc[0] if doc else ""
        )
        return func

    return deco


def _ensure_loaded() -> None:
    # Importing the family modules registers their functions.
    from .corruptions import blur, digital, noise, weather  # noqa: F401


def corruption_registry() -> dict[str, CorruptionInfo]:
    """All registered corruptions, in the reference order."""
    _ensure_loaded()
    return {n: _CORRUPTIONS[n] for n in REFERENCE_ORDER if n in _CORRUPTIONS}


def suggest(name: str, choices: list[str] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else ""


def get_corruption(name: str) -> CorruptionInfo:
    reg = corruption_registry()
    if not isinstance(name, str):
        raise TypeError(f"corruption must be a str, got {type(name).__name__}")
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    if key not in reg:
        raise ValueError(
            f"unknown corruption {name!r}{suggest(key, list(REFERENCE_ORDER))} "
            f"(choices: {', '.join(REFERENCE_ORDER)})"
        )
    return reg[key]

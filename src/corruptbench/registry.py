"""The one registry of corruptions (and perturbations): every list, CLI choice and doc table derives
from it. Corruption modules register their functions with :func:`register_corruption`."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CorruptionInfo",
    "register_corruption",
    "get_corruption",
    "corruption_registry",
    "ALL_CORRUPTIONS",
    "BENCHMARK_CORRUPTIONS",
    "EXTRA_CORRUPTIONS",
    "TEST_PERTURBATIONS",
    "VALIDATION_PERTURBATIONS",
    "ALL_PERTURBATIONS",
    "NOISE_PERTURBATIONS",
    "FAMILIES",
    "suggest",
    "resolve_name",
]

# --- names: the single source of every corruption / perturbation list -----------------------
# Reference order (imagenet_c.corruption_tuple; make_imagenet_c.py:599-618, imagenet_c/__init__.py:5-8,
# ImageNet-C/test.py:272-278; reference-spec.md §0). mCE averages the 15 benchmark corruptions only.
#: The 15 benchmark corruptions, in the reference order.
BENCHMARK_CORRUPTIONS: tuple[str, ...] = (
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
)
#: The four "extra" / validation corruptions (issue #36), reported separately from mCE.
EXTRA_CORRUPTIONS: tuple[str, ...] = ("speckle_noise", "gaussian_blur", "spatter", "saturate")
#: All 19: the 15 benchmark corruptions, then the 4 extra.
ALL_CORRUPTIONS: tuple[str, ...] = BENCHMARK_CORRUPTIONS + EXTRA_CORRUPTIONS

# ImageNet-P (make_imagenet_p.py:61, :384; reference-spec.md §3.1). mFR / mT5D average the 10 test ones.
#: The 10 test perturbations, in the generator scripts' order.
TEST_PERTURBATIONS: tuple[str, ...] = (
    "gaussian_noise",
    "shot_noise",
    "motion_blur",
    "zoom_blur",
    "snow",
    "brightness",
    "translate",
    "rotate",
    "tilt",
    "scale",
)
#: The 4 validation perturbations.
VALIDATION_PERTURBATIONS: tuple[str, ...] = ("speckle_noise", "gaussian_blur", "spatter", "shear")
ALL_PERTURBATIONS: tuple[str, ...] = TEST_PERTURBATIONS + VALIDATION_PERTURBATIONS
#: ImageNet-P/test.py:234,257 treats a perturbation as "noise" iff 'noise' is in its name: those
#: sequences compare every frame with the clean frame 0 (and have difficulty 2/3 datasets).
NOISE_PERTURBATIONS: tuple[str, ...] = tuple(p for p in ALL_PERTURBATIONS if "noise" in p)

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
    return {n: _CORRUPTIONS[n] for n in ALL_CORRUPTIONS if n in _CORRUPTIONS}


def suggest(name: str, choices: list[str] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else ""


def resolve_name(name: object, choices: Sequence[str], what: str) -> str:
    """``name`` as one of ``choices`` (case-insensitive; '-' or ' ' may stand for '_').

    Raises TypeError for a non-str, ValueError (with a suggestion and the choices) for an unknown
    name; ``what`` names the kind in the messages ("corruption", "perturbation").
    """
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a str, got {type(name).__name__}")
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    if key not in choices:
        raise ValueError(
            f"unknown {what} {name!r}{suggest(key, list(choices))} (choices: {', '.join(choices)})"
        )
    return key


def get_corruption(name: str) -> CorruptionInfo:
    return corruption_registry()[resolve_name(name, ALL_CORRUPTIONS, "corruption")]

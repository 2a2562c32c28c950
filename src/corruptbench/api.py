"""The public functional API: ``corrupt`` and the name lists, all derived from the registry."""

from __future__ import annotations

from typing import Any

import numpy as np

from .corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS, FAMILIES
from .profiles import Profile, resolve_profile
from .registry import corruption_specs, get_corruption, suggest
from .rng import RNGLike, check_rng, lent_rng
from .validation import check_image, check_severity

__all__ = [
    "corrupt",
    "get_corruption_names",
    "CORRUPTIONS",
    "EXTRA_CORRUPTIONS",
    "ALL_CORRUPTIONS",
    "SUBSETS",
    "SUBSET_ALIASES",
]

#: The 15 benchmark corruptions (imagecorruptions' name for them).
CORRUPTIONS: tuple[str, ...] = BENCHMARK_CORRUPTIONS

#: imagecorruptions' names of two subsets, accepted by :func:`get_corruption_names` too
SUBSET_ALIASES: dict[str, str] = {"common": "benchmark", "validation": "extra"}
#: the subsets :func:`get_corruption_names` accepts (besides :data:`SUBSET_ALIASES`)
SUBSETS: tuple[str, ...] = ("benchmark", "extra", "all", *FAMILIES)


def get_corruption_names(subset: str = "benchmark") -> list[str]:
    """Corruption names of ``subset`` in the reference order.

    Subsets: ``benchmark`` (the 15; alias ``common``), ``extra`` (the 4 validation ones; alias
    ``validation``), ``all`` (19), or a family of the paper's Figure 1: ``noise`` (gaussian, shot,
    impulse), ``blur`` (defocus, glass, motion, zoom), ``weather`` (snow, frost, fog, brightness),
    ``digital`` (contrast, elastic, pixelate, jpeg). The 4 extra corruptions are in no family.
    """
    key = SUBSET_ALIASES.get(subset, subset)
    if key == "benchmark":
        return list(CORRUPTIONS)
    if key == "extra":
        return list(EXTRA_CORRUPTIONS)
    if key == "all":
        return list(ALL_CORRUPTIONS)
    if key in FAMILIES:
        return [s.name for s in corruption_specs() if s.family == key]
    choices = list(SUBSETS) + list(SUBSET_ALIASES)
    raise ValueError(
        f"unknown subset {subset!r}{suggest(subset, choices)} (choices: {', '.join(choices)})"
    )


def corrupt(
    image: np.ndarray,
    corruption: str,
    severity: int,
    *,
    profile: str | Profile = "auto",
    rng: RNGLike = None,
) -> np.ndarray:
    """Apply one ImageNet-C (or ImageNet-C-bar) corruption to one image.

    Args:
        image: uint8 array, H x W x 3 (RGB), H x W (grayscale) or H x W x 4 (RGBA, alpha kept).
        corruption: one of the 19 names (``corruptbench.ALL_CORRUPTIONS``), or one of the 30 of
            ImageNet-C-bar / CIFAR-10-C-bar (``corruption_specs("cbar")`` of
            :mod:`corruptbench.registry`; the paper's spellings are accepted too).
        severity: int 1..5.
        profile: ``auto`` | ``imagenet`` | ``inception`` | ``tiny`` | ``cifar`` (parameter tables;
            for the ``cbar`` suite ``cifar`` means CIFAR-10-C-bar's levels, every other profile
            ImageNet-C-bar's).
        rng: None (fresh randomness) | int seed | ``np.random.RandomState`` (reference-compatible
            stream: equals the reference after ``np.random.seed(k)``) | ``np.random.Generator``.

    Returns:
        uint8 array of the input's shape. Float results are truncated to uint8 (``np.uint8``), as
        the reference does.
    """
    spec = get_corruption(corruption)
    sev = check_severity(severity)
    rgb, restore = check_image(image)
    prof = resolve_profile(profile, rgb.shape)
    # Deterministic corruptions draw nothing: skip the RandomState, but still reject a malformed
    # rng argument. An int seed re-seeds a kept RandomState (its draws end with this call).
    if spec.random:
        with lent_rng(rng) as r:
            out: Any = spec.func(rgb, sev, profile=prof, rng=r)
    else:
        check_rng(rng)
        out = spec.func(rgb, sev, profile=prof, rng=None)
    out = np.asarray(out)
    if out.dtype != np.uint8:
        out = out.astype(np.uint8)
    if out.shape != rgb.shape:
        raise RuntimeError(
            f"{spec.name} returned shape {out.shape} for input {rgb.shape}"
        )  # pragma: no cover
    return restore(out)

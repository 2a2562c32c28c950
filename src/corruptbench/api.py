"""The public functional API: ``corrupt`` and the name lists, all derived from the registry."""

from __future__ import annotations

from typing import Any

import numpy as np

from .corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS
from .grid import SUBSET_ALIASES as _ALIASES_BY_KIND
from .grid import subset_names, subsets
from .profiles import Profile, resolve_profile
from .registry import get_corruption
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
SUBSET_ALIASES: dict[str, str] = dict(_ALIASES_BY_KIND["c"])
#: the subsets :func:`get_corruption_names` accepts (besides :data:`SUBSET_ALIASES`)
SUBSETS: tuple[str, ...] = tuple(k for k in subsets("c") if k not in SUBSET_ALIASES)


def get_corruption_names(subset: str = "benchmark") -> list[str]:
    """Corruption names of ``subset`` in the reference order (:func:`corruptbench.grid.subsets`).

    Subsets: ``benchmark`` (the 15; alias ``common``), ``extra`` (the 4 validation ones; alias
    ``validation``), ``all`` (19), or a family of the paper's Figure 1: ``noise`` (gaussian, shot,
    impulse), ``blur`` (defocus, glass, motion, zoom), ``weather`` (snow, frost, fog, brightness),
    ``digital`` (contrast, elastic, pixelate, jpeg). The 4 extra corruptions are in no family.
    """
    return list(subset_names("c", subset))


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

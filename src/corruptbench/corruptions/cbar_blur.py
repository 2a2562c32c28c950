"""ImageNet-C-bar's blurs (suite ``cbar``, family ``blur``): scatter, chromatic_abberation,
transverse_chromatic_abberation, circular_motion_blur.

Parameters are drawn like the original classes' ``sample_parameters()`` (``corrupt.py``,
facebookresearch/augmentation-corruption commit ba4d5a5); levels: :mod:`corruptbench.tables.cbar`;
sizes: :mod:`.cbar_common`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ops.cbar_kernels_blur import scatter_u8
from ..ops.scipy_spline import affine_accumulate_f32, spline_taps, zoom_shift_u8
from ..profiles import Profile
from .cbar_common import float_parameter, register_cbar, short_side
from .params import NONNEGATIVE, severity_params

__all__ = [
    "scatter",
    "chromatic_abberation",
    "transverse_chromatic_abberation",
    "circular_motion_blur",
    "scatter_p",
    "chromatic_abberation_p",
    "transverse_chromatic_abberation_p",
    "circular_motion_blur_p",
]


def _axis(coords: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cubic-spline taps, weights and validity of one axis' input coordinates."""
    k = coords.shape[0]
    taps = np.empty((k, 4), np.int64)
    weights = np.empty((k, 4))
    valid = np.empty(k, np.bool_)
    spline_taps(coords, n, taps, weights, valid)
    return taps, weights, valid


def scatter_p(image: np.ndarray, *, radius: float, rng: Any) -> np.ndarray:
    """Each pixel taken from a hashed random offset nearby (frosted glass).

    Each pixel taken from a hashed random offset of up to ``radius * (S / 10) / 10`` px per axis
    (corrupt.py ``Scatter``, where ``radius`` is the level; frosted glass).

    Draws the hash seed ``uniform(0, 10)``.

    Args:
        image: read-only uint8 H x W x 3.
        radius: the largest offset in percent of the short side ``S``, >= 0 (the level).
        rng: legacy random source.
    """
    seed = rng.uniform(low=0.0, high=10.0)
    radius_px = float_parameter(radius, short_side(image) / 10)
    out = np.empty_like(image)
    scatter_u8(image, float(seed), radius_px, out)
    return out


@register_cbar(
    "scatter",
    family="blur",
    order=11,
    params=("radius",),
    apply=scatter_p,
    bounds={"radius": NONNEGATIVE},
    from_level=lambda level: (float(level),),
)
def scatter(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Each pixel taken from a hashed random offset nearby (frosted glass).

    :func:`scatter_p` with ``radius = level``.
    """
    return scatter_p(image, **severity_params("scatter", severity, profile), rng=rng)


def chromatic_abberation_p(image: np.ndarray, *, shift: float, rng: Any) -> np.ndarray:
    """Each colour channel shifted in its own random direction.

    Each colour channel shifted by ``shift * (S / 10) / 10`` px in its own direction (corrupt.py
    ``ChromaticAbberation``, where ``shift`` is the level; ``scipy.ndimage.shift`` of order 3
    without prefilter, here :mod:`corruptbench.ops.scipy_spline`).

    Draws the three directions ``uniform(0, 2 pi, 3)``.

    Args:
        image: read-only uint8 H x W x 3.
        shift: the channels' shift in percent of the short side ``S``, >= 0 (the level).
        rng: legacy random source.
    """
    angles = rng.uniform(low=0, high=2 * np.pi, size=3)
    dist = float_parameter(shift, short_side(image) / 10)
    h, w = image.shape[:2]
    out = np.empty_like(image)
    for c, a in enumerate(angles):
        # shift(plane, (dy, dx)) samples plane at (i - dy, j - dx): NI_ZoomShift's kk + shift
        rows = _axis(np.arange(h, dtype=np.float64) + -(math.cos(a) * dist), h)
        cols = _axis(np.arange(w, dtype=np.float64) + -(math.sin(a) * dist), w)
        zoom_shift_u8(image, c, *rows, *cols, out)
    return out


@register_cbar(
    "chromatic_abberation",
    family="blur",
    order=12,
    aliases=("chromatic_aberration",),
    params=("shift",),
    apply=chromatic_abberation_p,
    bounds={"shift": NONNEGATIVE},
    from_level=lambda level: (float(level),),
)
def chromatic_abberation(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """Each colour channel shifted in its own random direction.

    :func:`chromatic_abberation_p` with ``shift = level``.
    """
    params = severity_params("chromatic_abberation", severity, profile)
    return chromatic_abberation_p(image, **params, rng=rng)


def transverse_chromatic_abberation_p(
    image: np.ndarray, *, magnification: float, rng: Any
) -> np.ndarray:
    """The colour channels magnified by different factors about the centre.

    The colour channels magnified by 1, ``1 + magnification / 2`` and ``1 + magnification``
    about the centre, in a random assignment (corrupt.py ``TransverseChromaticAbberation``;
    ``scipy.ndimage.zoom`` of order 3 without prefilter, centre crop; here
    :mod:`corruptbench.ops.scipy_spline`, the crop only).

    Draws ``permutation(3)``.

    Args:
        image: read-only uint8 H x W x 3.
        magnification: the largest relative magnification, >= 0 (``level / 20``: 0 .. 0.5).
        rng: legacy random source.
    """
    scale = magnification
    scales = np.array([1.0, 1.0 + scale / 2, 1.0 + scale])[rng.permutation(3)]
    h, w = image.shape[:2]
    out = np.empty_like(image)
    for c in range(3):
        # zoom(plane, s) is round(n s) samples at k (n - 1) / (round(n s) - 1); the original
        # keeps the centre crop, so only those are computed
        tables: list[np.ndarray] = []
        for n in (h, w):
            size = int(round(n * float(scales[c])))
            factor = (n - 1) / (size - 1) if size > 1 else 1.0
            first = (size - n) // 2
            tables.extend(_axis(np.arange(first, first + n, dtype=np.float64) * factor, n))
        zoom_shift_u8(image, c, *tables, out)
    return out


@register_cbar(
    "transverse_chromatic_abberation",
    family="blur",
    order=13,
    aliases=("transverse_chromatic_aberration",),
    params=("magnification",),
    apply=transverse_chromatic_abberation_p,
    bounds={"magnification": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 0.5),),
)
def transverse_chromatic_abberation(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """The colour channels magnified by different factors about the centre.

    :func:`transverse_chromatic_abberation_p` with ``magnification = level / 20``.
    """
    params = severity_params("transverse_chromatic_abberation", severity, profile)
    return transverse_chromatic_abberation_p(image, **params, rng=rng)


def _rotation(angle: float, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """``scipy.ndimage.rotate(..., reshape=False)``'s matrix and offset for an H x W plane:
    ``[[c, s], [-s, c]]`` (``cosdg``, ``sindg``) about the centre ``((H - 1) / 2, (W - 1) / 2)``
    (the product written out: NumPy 1.26's ``rot @ centre`` is ``c x + s y`` without FMA)."""
    from scipy.special import cosdg, sindg

    c, s = float(cosdg(angle)), float(sindg(angle))
    cy, cx = (h - 1) / 2, (w - 1) / 2
    offset = np.array([cy - (c * cy + s * cx), cx - (-s * cy + c * cx)])
    return np.array([[c, s], [-s, c]]), offset


def circular_motion_blur_p(image: np.ndarray, *, angle: float) -> np.ndarray:
    """Rotational blur: 21 weighted copies rotated about the centre.

    21 copies rotated over ``+-angle`` degrees (``level * 1.5``), weighted ``exp(-2 t^2)`` (``t``
    from -1 to 1), as corrupt.py ``CircularMotionBlur`` with ``scipy.ndimage.rotate`` (order 3,
    ``reshape=False``). ``rotate`` spline-filters each channel before each rotation; the
    coefficients do not depend on the angle, so they are computed once per channel here and the 21
    rotations sample them (``affine_transform(..., prefilter=False)``, compiled in
    :mod:`corruptbench.ops.scipy_spline`). Draws nothing.

    Args:
        image: read-only uint8 H x W x 3.
        angle: the largest rotation in degrees, >= 0 (``level * 1.5``: 0 .. 15).
    """
    from scipy.ndimage import spline_filter  # here: scipy is slow to import

    amount = angle
    num = 21
    unit = image.astype(np.float32) / 255
    h, w = unit.shape[:2]
    coeffs = [spline_filter(unit[:, :, c], 3, output=np.float64, mode="constant") for c in range(3)]
    out = np.zeros_like(unit)
    factors = []
    for i in range(num):
        t = 2 * i / (num - 1) - 1
        factor = math.exp(-2 * t**2)
        matrix, offset = _rotation(t * amount, h, w)
        for c in range(3):
            affine_accumulate_f32(coeffs[c], matrix, offset, np.float32(factor), c, out)
        factors.append(factor)
    out /= np.float32(sum(factors))
    return np.clip(out * 255, 0, 255).astype(np.uint8)


@register_cbar(
    "circular_motion_blur",
    family="blur",
    order=14,
    random=False,
    params=("angle",),
    apply=circular_motion_blur_p,
    bounds={"angle": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 15),),
)
def circular_motion_blur(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """Rotational blur: 21 weighted copies rotated about the centre.

    :func:`circular_motion_blur_p` with ``angle = level * 1.5``.
    """
    return circular_motion_blur_p(
        image, **severity_params("circular_motion_blur", severity, profile)
    )

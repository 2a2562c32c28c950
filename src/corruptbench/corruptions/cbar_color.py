"""ImageNet-C-bar's colour corruptions (suite ``cbar``, family ``color``): bleach_bypass,
technicolor, pseudocolor, hue_shift, color_dither.

Parameters are drawn like the original classes' ``sample_parameters()`` (``corrupt.py``,
facebookresearch/augmentation-corruption commit ba4d5a5); levels: :mod:`corruptbench.tables.cbar`.
All work per pixel, at any size, in the compiled kernels of
:mod:`corruptbench.ops.cbar_kernels_color`: bleach_bypass and technicolor do the original's NumPy
expressions per pixel (float64, and no clip before the ``uint8`` cast: values outside 0..255 wrap,
as NumPy's cast does on x86); hue_shift does scikit-image's HSV conversion in float32 as the
original calls it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.cbar_kernels_color import (
    bleach_bypass_u8,
    color_dither_u8,
    hue_shift_u8,
    pseudocolor_u8,
    technicolor_u8,
)
from ..profiles import Profile
from .cbar_common import TWO, float_parameter, int_parameter, register_cbar
from .params import UNIT, severity_params, whole_param

__all__ = [
    "bleach_bypass",
    "technicolor",
    "pseudocolor",
    "hue_shift",
    "color_dither",
    "bleach_bypass_p",
    "technicolor_p",
    "pseudocolor_p",
    "hue_shift_p",
    "color_dither_p",
]


def bleach_bypass_p(image: np.ndarray, *, amount: float) -> np.ndarray:
    """The film look of skipping the bleach (luma-keyed multiply / screen).

    The film look of skipping the bleach: a luma-keyed mix of ``2 x luma`` (uint8 ``2 x``,
    which wraps as in the original) and the screen ``1 - 2 (1 - luma)(1 - x)``, blended in with
    ``amount`` (corrupt.py ``BleachBypass``). Draws nothing.

    Args:
        image: read-only uint8 H x W x 3.
        amount: the effect's weight, in [0, 1] (``level / 10``).
    """
    out = np.empty_like(image)
    bleach_bypass_u8(image, float(amount), out)
    return out


@register_cbar(
    "bleach_bypass",
    family="color",
    order=15,
    random=False,
    params=("amount",),
    apply=bleach_bypass_p,
    bounds={"amount": UNIT},
    from_level=lambda level: (float_parameter(level, 1.0),),
)
def bleach_bypass(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """The film look of skipping the bleach (luma-keyed multiply / screen).

    :func:`bleach_bypass_p` with ``amount = level / 10``.
    """
    return bleach_bypass_p(image, **severity_params("bleach_bypass", severity, profile))


def technicolor_p(image: np.ndarray, *, amount: float) -> np.ndarray:
    """Two-strip Technicolor: each channel scaled by the other two's mattes.

    Two-strip Technicolor: each channel scaled by the other two's mattes ``1 - (c - (a + b)
    / 2) / 255``, blended in with ``amount`` (corrupt.py ``Technicolor``). Draws nothing.

    Args:
        image: read-only uint8 H x W x 3.
        amount: the effect's weight, in [0, 1] (``level / 10``).
    """
    out = np.empty_like(image)
    technicolor_u8(image, float(amount), out)
    return out


@register_cbar(
    "technicolor",
    family="color",
    order=16,
    random=False,
    params=("amount",),
    apply=technicolor_p,
    bounds={"amount": UNIT},
    from_level=lambda level: (float_parameter(level, 1.0),),
)
def technicolor(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Two-strip Technicolor: each channel scaled by the other two's mattes.

    :func:`technicolor_p` with ``amount = level / 10``.
    """
    return technicolor_p(image, **severity_params("technicolor", severity, profile))


def pseudocolor_p(image: np.ndarray, *, amount: float, rng: Any) -> np.ndarray:
    """False colour: the luma mapped through a ramp of five random colours.

    False colour: the luma mapped through a ramp of five random colours, blended in with
    ``amount`` (corrupt.py ``Pseudocolor``).

    Draws the smoothness ``uniform(0.25, 0.75)`` and five colours ``randint(0, 255, 3)``.

    Args:
        image: read-only uint8 H x W x 3.
        amount: the false colour's weight, in [0, 1] (``level / 20``: 0 .. 0.5).
        rng: legacy random source.
    """
    smoothness = rng.uniform(low=0.25, high=0.75)
    colors = np.stack([rng.randint(low=0, high=255, size=3).astype(np.uint8) for _ in range(5)])
    out = np.empty_like(image)
    pseudocolor_u8(image, colors, float(smoothness), float(amount), TWO, 3.0, out)
    return out


@register_cbar(
    "pseudocolor",
    family="color",
    order=17,
    params=("amount",),
    apply=pseudocolor_p,
    bounds={"amount": UNIT},
    from_level=lambda level: (float_parameter(level, 0.5),),
)
def pseudocolor(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """False colour: the luma mapped through a ramp of five random colours.

    :func:`pseudocolor_p` with ``amount = level / 20``.
    """
    return pseudocolor_p(image, **severity_params("pseudocolor", severity, profile), rng=rng)


def hue_shift_p(image: np.ndarray, *, shift: float, rng: Any) -> np.ndarray:
    """The hue turned by +-shift of a turn.

    The hue turned by ``+-shift`` of a turn (corrupt.py ``HueShift``; scikit-image HSV in
    float32).

    Draws the direction (``uniform() < 0.5``: negative).

    Args:
        image: read-only uint8 H x W x 3.
        shift: the hue's turn, in turns (1 = 360 degrees), in [0, 1) (``level / 20``).
        rng: legacy random source.
    """
    amount = shift
    if rng.uniform() < 0.5:
        amount *= -1
    out = np.empty_like(image)
    hue_shift_u8(image, np.float32(amount % 1.0), out)
    return out


@register_cbar(
    "hue_shift",
    family="color",
    order=18,
    params=("shift",),
    apply=hue_shift_p,
    from_level=lambda level: (float_parameter(level, 0.5),),
)
def hue_shift(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """The hue turned by +-level / 20 of a turn.

    :func:`hue_shift_p` with ``shift = level / 20``.
    """
    return hue_shift_p(image, **severity_params("hue_shift", severity, profile), rng=rng)


def dither_table(levels: int) -> np.ndarray:
    """ColorDither's quantisation of each uint8 value: ``color_map[div[v]]`` with
    ``div[v] = int(levels v / 256)`` and ``color_map[i] = int(255 i / (levels - 1))``."""
    color_map = [int(255 * i / (levels - 1)) for i in range(levels)]
    return np.array([color_map[int(levels * v / 256)] for v in range(256)], dtype=np.uint8)


def color_dither_p(image: np.ndarray, *, levels: int) -> np.ndarray:
    """Error-diffusion dithering to ``levels`` levels per channel.

    Error-diffusion dithering to ``levels`` levels per channel (corrupt.py ``ColorDither``, with
    its diffusion as written: see :func:`corruptbench.ops.cbar_kernels_color.color_dither_u8`).
    Draws nothing.

    Args:
        image: read-only uint8 H x W x 3.
        levels: the levels per channel, a whole number in 2..256 (``14 - int(level)``: 2 .. 14).
    """
    levels = whole_param(levels, "color_dither's levels", 2, 256)
    out = np.empty_like(image)
    color_dither_u8(image, dither_table(levels), image.copy(), out)
    return out


@register_cbar(
    "color_dither",
    family="color",
    order=19,
    random=False,
    params=("levels",),
    apply=color_dither_p,
    from_level=lambda level: (14 - int_parameter(level, 10),),
)
def color_dither(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Error-diffusion dithering to 14 - int(level) levels per channel.

    :func:`color_dither_p` with ``levels = 14 - int(level)``.
    """
    return color_dither_p(image, **severity_params("color_dither", severity, profile))

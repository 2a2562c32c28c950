"""ImageNet-C-bar's colour corruptions (suite ``cbar``, family ``color``): bleach_bypass,
technicolor, pseudocolor, hue_shift, color_dither.

Parameters are drawn like the original classes' ``sample_parameters()`` (``corrupt.py``,
facebookresearch/augmentation-corruption commit ba4d5a5); levels: :mod:`corruptbench.tables.cbar`.
All work per pixel, at any size, in the compiled kernels of
:mod:`corruptbench.ops.cbar_kernels`: bleach_bypass and technicolor do the original's NumPy
expressions per pixel (float64, and no clip before the ``uint8`` cast: values outside 0..255 wrap,
as NumPy's cast does on x86); hue_shift does scikit-image's HSV conversion in float32 as the
original calls it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.cbar_kernels import (
    bleach_bypass_u8,
    color_dither_u8,
    hue_shift_u8,
    pseudocolor_u8,
    technicolor_u8,
)
from ..profiles import Profile
from .cbar_common import TWO, float_parameter, int_parameter, level_of, register_cbar

__all__ = ["bleach_bypass", "technicolor", "pseudocolor", "hue_shift", "color_dither"]


@register_cbar("bleach_bypass", family="color", order=15, random=False)
def bleach_bypass(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """The film look of skipping the bleach (luma-keyed multiply / screen).

    The film look of skipping the bleach: a luma-keyed mix of ``2 x luma`` (uint8 ``2 x``,
    which wraps as in the original) and the screen ``1 - 2 (1 - luma)(1 - x)``, blended in with
    ``level / 10`` (corrupt.py ``BleachBypass``). Draws nothing."""
    amount = float_parameter(level_of("bleach_bypass", severity, profile), 1.0)
    out = np.empty_like(image)
    bleach_bypass_u8(image, amount, out)
    return out


@register_cbar("technicolor", family="color", order=16, random=False)
def technicolor(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Two-strip Technicolor: each channel scaled by the other two's mattes.

    Two-strip Technicolor: each channel scaled by the other two's mattes ``1 - (c - (a + b)
    / 2) / 255``, blended in with ``level / 10`` (corrupt.py ``Technicolor``). Draws nothing."""
    amount = float_parameter(level_of("technicolor", severity, profile), 1.0)
    out = np.empty_like(image)
    technicolor_u8(image, amount, out)
    return out


@register_cbar("pseudocolor", family="color", order=17)
def pseudocolor(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """False colour: the luma mapped through a ramp of five random colours.

    False colour: the luma mapped through a ramp of five random colours, blended in with
    ``level / 20`` (corrupt.py ``Pseudocolor``).

    Draws the smoothness ``uniform(0.25, 0.75)`` and five colours ``randint(0, 255, 3)``.
    """
    level = level_of("pseudocolor", severity, profile)
    smoothness = rng.uniform(low=0.25, high=0.75)
    colors = np.stack([rng.randint(low=0, high=255, size=3).astype(np.uint8) for _ in range(5)])
    amount = float_parameter(level, 0.5)
    out = np.empty_like(image)
    pseudocolor_u8(image, colors, float(smoothness), amount, TWO, 3.0, out)
    return out


@register_cbar("hue_shift", family="color", order=18)
def hue_shift(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """The hue turned by +-level / 20 of a turn.

    The hue turned by ``+-level / 20`` of a turn (corrupt.py ``HueShift``; scikit-image HSV in
    float32).

    Draws the direction (``uniform() < 0.5``: negative).
    """
    amount = float_parameter(level_of("hue_shift", severity, profile), 0.5)
    if rng.uniform() < 0.5:
        amount *= -1
    out = np.empty_like(image)
    hue_shift_u8(image, np.float32(amount % 1.0), out)
    return out


def dither_table(levels: int) -> np.ndarray:
    """ColorDither's quantisation of each uint8 value: ``color_map[div[v]]`` with
    ``div[v] = int(levels v / 256)`` and ``color_map[i] = int(255 i / (levels - 1))``."""
    color_map = [int(255 * i / (levels - 1)) for i in range(levels)]
    return np.array([color_map[int(levels * v / 256)] for v in range(256)], dtype=np.uint8)


@register_cbar("color_dither", family="color", order=19, random=False)
def color_dither(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Error-diffusion dithering to 14 - int(level) levels per channel.

    Error-diffusion dithering to ``14 - int(level)`` levels per channel (corrupt.py
    ``ColorDither``, with its diffusion as written: see
    :func:`corruptbench.ops.cbar_kernels.color_dither_u8`). Draws nothing."""
    levels = 14 - int_parameter(level_of("color_dither", severity, profile), 10)
    out = np.empty_like(image)
    color_dither_u8(image, dither_table(levels), image.copy(), out)
    return out

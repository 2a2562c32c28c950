"""ImageNet-C-bar's Pillow-based corruptions (suite ``cbar``, family ``pil``): color_balance,
quadrilateral_no_bars, perspective_no_bars.

Parameters are drawn like the original classes' ``sample_parameters()`` (``corrupt.py``,
facebookresearch/augmentation-corruption commit ba4d5a5). The image work is Pillow's, compiled in
:mod:`corruptbench.ops.pillow_transform` (for the QUAD warp it has to be: the original's float32
corners meet NumPy 1 arithmetic in Pillow's Python layer). Levels: :mod:`corruptbench.tables.cbar`;
sizes: :mod:`.cbar_common`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.pillow_transform import enhance_color_u8, quad_coefficients, transform_no_bars_u8
from ..profiles import Profile
from .cbar_common import float_parameter, level_of, register_cbar

__all__ = ["color_balance", "quadrilateral_no_bars", "perspective_no_bars"]


@register_cbar("color_balance", family="pil", order=0)
def color_balance(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Saturation scaled by 1 +- level / 10 (PIL.ImageEnhance.Color).

    Saturation scaled by ``1 +- level / 10`` (``PIL.ImageEnhance.Color``; corrupt.py
    ``ColorBalance``, which lacks the ``ImageEnhance`` import and so fails as published).

    Draws the direction ``choice([-1, 1])``.
    """
    shift = float_parameter(level_of("color_balance", severity, profile), 1.0)
    factor = 1.0 + rng.choice([-1, 1]) * shift
    out = np.empty_like(image)
    enhance_color_u8(image, np.float32(factor), out)  # Pillow's arithmetic, alpha a C float
    return out


def _warp_no_bars(image: np.ndarray, coeffs: np.ndarray, quad: bool) -> np.ndarray:
    """The original's ``Image.transform(size, method, data, BILINEAR)`` of the image and of an
    all-255 mask, then ``mask * warped + (1 - mask) * image``: where the source point falls in
    the image the warped pixel, elsewhere the original one (no black bars; the mask is 0 or 255).
    :func:`corruptbench.ops.pillow_transform.transform_no_bars_u8` does it in one pass."""
    out = np.empty_like(image)
    transform_no_bars_u8(image, np.asarray(coeffs, dtype=np.float64), quad, out)
    return out


@register_cbar("quadrilateral_no_bars", family="pil", order=1)
def quadrilateral_no_bars(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """The image mapped from a random quadrilateral (Pillow QUAD), no black bars.

    The image mapped from a random quadrilateral (``Image.QUAD``): each corner moved by up
    to ``level / 30`` of the image per axis (corrupt.py ``QuadrilateralNoBars``).

    Draws ``uniform(-1, 1, (4, 2))`` (corner, x / y).
    """
    level = level_of("quadrilateral_no_bars", severity, profile)
    h, w = image.shape[:2]
    points = np.array([[0, 0], [0, h], [w, h], [w, 0]]).astype(np.float32)
    extent = np.array([float_parameter(level, w / 3), float_parameter(level, h / 3)])
    points += extent * rng.uniform(low=-1, high=1, size=(4, 2))
    return _warp_no_bars(image, quad_coefficients(points.flatten(), w, h), True)


def _signed(rng: Any, value: float) -> float:
    return -value if rng.uniform() > 0.5 else value


@register_cbar("perspective_no_bars", family="pil", order=2)
def perspective_no_bars(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """A random projective warp (Pillow PERSPECTIVE), no black bars.

    A random projective map (``Image.PERSPECTIVE``): shear ``+-level / 100``, shift
    ``+-level / 100`` of the image, scale ``2 ** (+-level * 0.015)`` per axis and the
    perspective terms ``level * 0.02 / S``-ish (corrupt.py ``PerspectiveNoBars``).

    Draws eight ``uniform()`` signs in the original's order (those of the two perspective terms
    are drawn and ignored, as in the original).
    """
    level = level_of("perspective_no_bars", severity, profile)
    h, w = image.shape[:2]
    offset_x = _signed(rng, float_parameter(level, 0.1))
    offset_y = _signed(rng, float_parameter(level, 0.1))
    shift_x = _signed(rng, float_parameter(level, w / 10))
    shift_y = _signed(rng, float_parameter(level, h / 10))
    factor_x = 2 ** _signed(rng, float_parameter(level, 0.15))
    factor_y = 2 ** _signed(rng, float_parameter(level, 0.15))
    denom_x = float_parameter(level, 0.2 / w)
    rng.uniform()  # the original draws a sign for denom_x and keeps denom_x either way
    denom_y = float_parameter(level, 0.2 / h)
    rng.uniform()
    params = np.array([factor_x, offset_x, shift_x, offset_y, factor_y, shift_y, denom_x, denom_y])
    return _warp_no_bars(image, params, False)

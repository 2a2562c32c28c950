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
from .cbar_common import float_parameter, register_cbar
from .params import NONNEGATIVE, severity_params

__all__ = [
    "color_balance",
    "quadrilateral_no_bars",
    "perspective_no_bars",
    "color_balance_p",
    "quadrilateral_no_bars_p",
    "perspective_no_bars_p",
]


def color_balance_p(image: np.ndarray, *, shift: float, rng: Any) -> np.ndarray:
    """Saturation scaled by 1 +- shift (PIL.ImageEnhance.Color).

    Saturation scaled by ``1 +- shift`` (``PIL.ImageEnhance.Color``; corrupt.py
    ``ColorBalance``, which lacks the ``ImageEnhance`` import and so fails as published).

    Draws the direction ``choice([-1, 1])``.

    Args:
        image: read-only uint8 H x W x 3.
        shift: the change of the saturation factor, >= 0 (``level / 10``; above 1 the
            factor can turn negative, inverting the colours about the grey).
        rng: legacy random source.
    """
    factor = 1.0 + rng.choice([-1, 1]) * shift
    out = np.empty_like(image)
    enhance_color_u8(image, np.float32(factor), out)  # Pillow's arithmetic, alpha a C float
    return out


@register_cbar(
    "color_balance",
    family="pil",
    order=0,
    params=("shift",),
    apply=color_balance_p,
    bounds={"shift": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 1.0),),
)
def color_balance(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Saturation scaled by 1 +- level / 10 (PIL.ImageEnhance.Color).

    :func:`color_balance_p` with ``shift = level / 10``.
    """
    return color_balance_p(image, **severity_params("color_balance", severity, profile), rng=rng)


def _warp_no_bars(image: np.ndarray, coeffs: np.ndarray, quad: bool) -> np.ndarray:
    """The original's ``Image.transform(size, method, data, BILINEAR)`` of the image and of an
    all-255 mask, then ``mask * warped + (1 - mask) * image``: where the source point falls in
    the image the warped pixel, elsewhere the original one (no black bars; the mask is 0 or 255).
    :func:`corruptbench.ops.pillow_transform.transform_no_bars_u8` does it in one pass."""
    out = np.empty_like(image)
    transform_no_bars_u8(image, np.asarray(coeffs, dtype=np.float64), quad, out)
    return out


def quadrilateral_no_bars_p(image: np.ndarray, *, extent: float, rng: Any) -> np.ndarray:
    """The image mapped from a random quadrilateral (Pillow QUAD), no black bars.

    The image mapped from a random quadrilateral (``Image.QUAD``): each corner moved by up
    to ``extent * (W / 3) / 10`` px horizontally and ``extent * (H / 3) / 10`` vertically
    (corrupt.py ``QuadrilateralNoBars``, where ``extent`` is the level).

    Draws ``uniform(-1, 1, (4, 2))`` (corner, x / y).

    Args:
        image: read-only uint8 H x W x 3.
        extent: the corners' largest move in thirtieths of the image's side, >= 0 (the level;
            10: a third of the side).
        rng: legacy random source.
    """
    h, w = image.shape[:2]
    points = np.array([[0, 0], [0, h], [w, h], [w, 0]]).astype(np.float32)
    moves = np.array([float_parameter(extent, w / 3), float_parameter(extent, h / 3)])
    points += moves * rng.uniform(low=-1, high=1, size=(4, 2))
    return _warp_no_bars(image, quad_coefficients(points.flatten(), w, h), True)


@register_cbar(
    "quadrilateral_no_bars",
    family="pil",
    order=1,
    params=("extent",),
    apply=quadrilateral_no_bars_p,
    bounds={"extent": NONNEGATIVE},
    from_level=lambda level: (float(level),),
)
def quadrilateral_no_bars(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """The image mapped from a random quadrilateral (Pillow QUAD), no black bars.

    :func:`quadrilateral_no_bars_p` with ``extent = level``.
    """
    params = severity_params("quadrilateral_no_bars", severity, profile)
    return quadrilateral_no_bars_p(image, **params, rng=rng)


def _signed(rng: Any, value: float) -> float:
    return -value if rng.uniform() > 0.5 else value


def perspective_no_bars_p(
    image: np.ndarray,
    *,
    shear: float,
    shift: float,
    zoom: float,
    perspective: float,
    rng: Any,
) -> np.ndarray:
    """A random projective warp (Pillow PERSPECTIVE), no black bars.

    A random projective map (``Image.PERSPECTIVE``, corrupt.py ``PerspectiveNoBars``): the
    coefficients ``(2 ** +-zoom, +-shear, +-shift * (W / 10) / 10, +-shear, 2 ** +-zoom,
    +-shift * (H / 10) / 10, perspective * (0.2 / W) / 10, perspective * (0.2 / H) / 10)`` with
    random signs.

    Draws eight ``uniform()`` signs in the original's order (those of the two perspective terms
    are drawn and ignored, as in the original).

    Args:
        image: read-only uint8 H x W x 3.
        shear: the off-diagonal terms, >= 0 (``level / 100``).
        shift: the translation in percent of the image's side, >= 0 (the level).
        zoom: the base-2 logarithm of the scale per axis, >= 0 (``level * 0.015``).
        perspective: the perspective terms in units of ``0.02 / side`` per pixel, >= 0 (the
            level).
        rng: legacy random source.
    """
    h, w = image.shape[:2]
    offset_x = _signed(rng, shear)
    offset_y = _signed(rng, shear)
    shift_x = _signed(rng, float_parameter(shift, w / 10))
    shift_y = _signed(rng, float_parameter(shift, h / 10))
    factor_x = 2 ** _signed(rng, zoom)
    factor_y = 2 ** _signed(rng, zoom)
    denom_x = float_parameter(perspective, 0.2 / w)
    rng.uniform()  # the original draws a sign for denom_x and keeps denom_x either way
    denom_y = float_parameter(perspective, 0.2 / h)
    rng.uniform()
    params = np.array([factor_x, offset_x, shift_x, offset_y, factor_y, shift_y, denom_x, denom_y])
    return _warp_no_bars(image, params, False)


@register_cbar(
    "perspective_no_bars",
    family="pil",
    order=2,
    params=("shear", "shift", "zoom", "perspective"),
    apply=perspective_no_bars_p,
    bounds={
        "shear": NONNEGATIVE,
        "shift": NONNEGATIVE,
        "zoom": NONNEGATIVE,
        "perspective": NONNEGATIVE,
    },
    from_level=lambda level: (
        float_parameter(level, 0.1),
        float(level),
        float_parameter(level, 0.15),
        float(level),
    ),
)
def perspective_no_bars(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """A random projective warp (Pillow PERSPECTIVE), no black bars.

    :func:`perspective_no_bars_p` with ``shear = level / 100``, ``shift = level``,
    ``zoom = level * 0.015``, ``perspective = level``.
    """
    params = severity_params("perspective_no_bars", severity, profile)
    return perspective_no_bars_p(image, **params, rng=rng)

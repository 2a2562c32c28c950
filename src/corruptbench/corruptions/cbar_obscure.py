"""ImageNet-C-bar's occluding corruptions (suite ``cbar``, family ``obscure``):
checkerboard_cutout, lines, blue_noise_sample.

Parameters are drawn like the original classes' ``sample_parameters()`` (``corrupt.py``,
facebookresearch/augmentation-corruption commit ba4d5a5); levels: :mod:`corruptbench.tables.cbar`;
sizes: :mod:`.cbar_common`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ops.cbar_kernels_obscure import checkerboard_u8
from ..ops.fourier_noise import spectral_field
from ..profiles import Profile
from ..rng import scratch_rng
from .cbar_common import float_parameter, register_cbar, short_side
from .params import NONNEGATIVE, UNIT, severity_params

__all__ = [
    "checkerboard_cutout",
    "lines",
    "blue_noise_sample",
    "checkerboard_cutout_p",
    "lines_p",
    "blue_noise_sample_p",
]


def checkerboard_cutout_p(image: np.ndarray, *, fraction: float, rng: Any) -> np.ndarray:
    """Grey squares of a rotated checkerboard, each kept with probability ``fraction``.

    Grey (128) squares of a rotated checkerboard, each kept with probability ``fraction``
    (corrupt.py ``CheckerBoardCutOut``).

    Draws the angle ``uniform(0, 2 pi)``, the square side ``max(uniform(0.1, 0.25) S, 1)`` and a
    seed ``randint(0, 2**32)``; the squares' ``uniform() < level / 10`` come from
    ``RandomState(seed)`` as a ``4 n / side`` square grid, ``n`` the image side (non-square:
    ``max(H, W)``, so that the grid covers the image).

    Args:
        image: read-only uint8 H x W x 3.
        fraction: the probability of each grey square, in [0, 1] (``level / 10``).
        rng: legacy random source.
    """
    angle = rng.uniform(low=0, high=2 * np.pi)
    side = float(np.maximum(rng.uniform(low=0.1, high=0.25) * short_side(image), 1))
    seed = rng.randint(low=0, high=2**32)
    n = int(4 * max(image.shape[:2]) // side)
    grid = scratch_rng(int(seed)).uniform(size=(n, n)) < fraction
    out = np.empty_like(image)
    checkerboard_u8(image, math.cos(angle), math.sin(angle), side, grid, out)
    return out


@register_cbar(
    "checkerboard_cutout",
    family="obscure",
    order=20,
    params=("fraction",),
    apply=checkerboard_cutout_p,
    bounds={"fraction": UNIT},
    from_level=lambda level: (float_parameter(level, 1.0),),
)
def checkerboard_cutout(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """Grey squares of a rotated checkerboard, each kept with probability level / 10.

    :func:`checkerboard_cutout_p` with ``fraction = level / 10``.
    """
    params = severity_params("checkerboard_cutout", severity, profile)
    return checkerboard_cutout_p(image, **params, rng=rng)


def lines_p(image: np.ndarray, *, density: float, rng: Any) -> np.ndarray:
    """Grey anti-aliased lines across the image.

    ``int(density * S)`` grey anti-aliased lines of length ``2 S`` across the image (corrupt.py
    ``Lines``).

    Draws the mean angle ``uniform(0, 2 pi)``, its spread ``uniform(0.1, 1)`` and a seed
    ``randint(0, 2**32)``; each line's centre (row ``H u``, column ``W u``) and angle come from
    ``RandomState(seed)``. Lines are drawn with ``skimage.draw.line_aa``, blended towards 128 by
    its coverage and truncated to uint8 line after line, as the original.

    Args:
        image: read-only uint8 H x W x 3.
        density: lines per pixel of the short side ``S``, >= 0 (``level / 10``).
        rng: legacy random source.
    """
    from skimage.draw import line_aa  # here: scikit-image is slow to import

    length = 1.0
    angle = rng.uniform(low=0.0, high=2 * np.pi)
    variation = rng.uniform(low=0.1, high=1.0)
    seed = rng.randint(low=0, high=2**32)
    h, w = image.shape[:2]
    s = short_side(image)
    count = int(density * s)
    half = length * s
    draws = scratch_rng(int(seed)).uniform(size=(count, 3))
    out = image.copy()
    for u_row, u_col, u_angle in draws:
        x = h * u_row  # the original's x is the row (line_aa's first coordinate)
        y = w * u_col
        a = angle + 2 * np.pi * variation * (u_angle - 0.5)
        dy = math.sin(a) * half
        dx = math.cos(a) * half
        rr, cc, val = line_aa(int(x - dx), int(y - dy), int(x + dx), int(y + dy))
        keep = (rr >= 0) & (cc >= 0) & (rr < h) & (cc < w)
        rr, cc, val = rr[keep], cc[keep], val[keep].reshape(-1, 1)
        out[rr, cc, :] = (1.0 - val) * out[rr, cc, :].astype(np.float32) + val * 128
    return out


@register_cbar(
    "lines",
    family="obscure",
    order=23,
    params=("density",),
    apply=lines_p,
    bounds={"density": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 1.0),),
)
def lines(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Grey anti-aliased lines across the image.

    :func:`lines_p` with ``density = level / 10``.
    """
    return lines_p(image, **severity_params("lines", severity, profile), rng=rng)


def blue_noise_sample_p(image: np.ndarray, *, threshold: float, rng: Any) -> np.ndarray:
    """Pixels set to black where a blue-noise field is below a threshold.

    Pixels set to black where a blue-noise field is at most ``threshold`` (corrupt.py
    ``BlueNoiseSample``).

    Draws a seed ``randint(0, 2**32)``; the field's phases come from ``RandomState(seed)``
    (:func:`corruptbench.ops.fourier_noise.spectral_field`).

    Args:
        image: read-only uint8 H x W x 3.
        threshold: the field's level below which pixels turn black (the field is roughly
            centred on 0; ``level * 0.3 - 2.5``: -2.5 .. 0.5; higher blacks more).
        rng: legacy random source.
    """
    seed = rng.randint(low=0, high=2**32)
    noise = spectral_field(scratch_rng(int(seed)), image.shape[:2], "blue")
    return image * (noise > threshold)[:, :, None]


@register_cbar(
    "blue_noise_sample",
    family="obscure",
    order=24,
    params=("threshold",),
    apply=blue_noise_sample_p,
    from_level=lambda level: (float_parameter(level, 3.0) - 2.5,),
)
def blue_noise_sample(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """Pixels set to black where a blue-noise field is below a threshold.

    :func:`blue_noise_sample_p` with ``threshold = level * 0.3 - 2.5``.
    """
    params = severity_params("blue_noise_sample", severity, profile)
    return blue_noise_sample_p(image, **params, rng=rng)

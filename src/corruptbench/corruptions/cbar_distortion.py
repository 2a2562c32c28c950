"""ImageNet-C-bar's distortions (suite ``cbar``, family ``distortion``): pinch_and_twirl,
caustic_refraction, fish_eye, water_drop, ripple.

Each resamples the image through the original's ``bilinear_interpolation`` (``utils/image.py``)
at warped points; parameters are drawn like the classes' ``sample_parameters()`` (``corrupt.py``,
facebookresearch/augmentation-corruption commit ba4d5a5). The compiled warps are in
:mod:`corruptbench.ops.cbar_kernels_distortion`; levels: :mod:`corruptbench.tables.cbar`; sizes:
:mod:`.cbar_common`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.cbar_kernels_distortion import (
    caustic_refraction_f64,
    fish_eye_f32,
    pinch_and_twirl_f32,
    ripple_u8,
    water_drop_u8,
)
from ..ops.cbar_kernels_noise import caustic_field
from ..profiles import Profile
from ..rng import scratch_rng
from .cbar_common import TWO, float_parameter, register_cbar, short_side
from .params import NONNEGATIVE, severity_params

__all__ = [
    "pinch_and_twirl",
    "caustic_refraction",
    "fish_eye",
    "water_drop",
    "ripple",
    "pinch_and_twirl_p",
    "caustic_refraction_p",
    "fish_eye_p",
    "water_drop_p",
    "ripple_p",
]


def pinch_and_twirl_p(image: np.ndarray, *, twirl: float, pinch: float, rng: Any) -> np.ndarray:
    """A grid of pinch-and-twirl lenses.

    A grid of pinch-and-twirl lenses, turned by ``+-twirl`` radians each and pinched by
    ``pinch`` (corrupt.py ``PinchAndTwirl``, the repository's ``PinchAndTwirlV2``).

    Cells of ``S // n`` px, ``n = 5`` when ``S == 224`` else 3 (the original's rule), from the
    top-left corner; the original has ``n x n`` of them, a non-square image as many more along
    its long side as fit. Draws one ``choice([1, -1])`` per cell (the twirl's direction).

    Args:
        image: read-only uint8 H x W x 3.
        twirl: each lens's turn at its centre in radians, >= 0 (``level * pi / 20``).
        pinch: the pinch exponent: a point at relative distance ``d`` from a lens's centre
            moves out by the factor ``sin(pi d / 2) ** -pinch``, >= 0 (``level * 0.04 + 0.1``).
        rng: legacy random source.
    """
    h, w = image.shape[:2]
    s = short_side(image)
    n = 5 if s == 224 else 3
    cell = s // n
    rows, cols = n + (h - s) // cell, n + (w - s) // cell
    angles = np.array([rng.choice([1, -1]) * twirl for _ in range(rows * cols)]).reshape(cols, rows)
    amount = pinch
    values = image.astype(np.float32)
    scratch = np.empty((cell, cell, 3))
    pinch_and_twirl_f32(values, cell, angles, amount, TWO, scratch)
    return np.clip(values, 0, 255).astype(np.uint8)


@register_cbar(
    "pinch_and_twirl",
    family="distortion",
    order=25,
    params=("twirl", "pinch"),
    apply=pinch_and_twirl_p,
    bounds={"twirl": NONNEGATIVE, "pinch": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, np.pi / 2), float_parameter(level, 0.4) + 0.1),
)
def pinch_and_twirl(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """A grid of pinch-and-twirl lenses.

    :func:`pinch_and_twirl_p` with ``twirl = level * pi / 20``, ``pinch = level * 0.04 + 0.1``.
    """
    params = severity_params("pinch_and_twirl", severity, profile)
    return pinch_and_twirl_p(image, **params, rng=rng)


def caustic_refraction_p(
    image: np.ndarray, *, displacement: float, lighting: float, rng: Any
) -> np.ndarray:
    """The image seen through a rippled water surface (refraction and caustic light).

    The image seen through a rippled water surface: refracted by the slope of blurred
    caustics (index 4, lens scale ``displacement * (S / 2) / 10`` px) and lit by it with
    ``lighting`` (corrupt.py ``CausticRefraction``, where ``displacement`` is the level).

    Draws the time ``uniform(0.5, 2)`` and the tile size ``uniform(0.75, 1.25) * S``. The caustic
    field is blurred with ``scipy.ndimage.gaussian_filter(sigma=1)`` over its three (equal)
    channels, as the original.

    Args:
        image: read-only uint8 H x W x 3.
        displacement: the refraction's scale in twentieths of the short side ``S``, >= 0 (the
            level).
        lighting: the caustic light's weight, >= 0 (``level / 5``).
        rng: legacy random source.
    """
    from scipy.ndimage import gaussian_filter  # here: scipy is slow to import

    s = short_side(image)
    time = rng.uniform(low=0.5, high=2.0)
    size = rng.uniform(low=0.75, high=1.25) * s
    lens_scale = float_parameter(displacement, 0.5 * s)
    field = np.empty(image.shape[:2])
    caustic_field(float(time), float(size), TWO, field)
    caustics = gaussian_filter(np.stack((field, field, field), axis=2), sigma=1)
    values = np.empty(image.shape)
    any64 = caustic_refraction_f64(image, caustics, 4.0, lens_scale, lighting, values)
    if not any64:  # every pixel float32: NumPy would have scaled them in float32
        return (values.astype(np.float32) * 255).astype(np.uint8)
    return (values * 255).astype(np.uint8)


@register_cbar(
    "caustic_refraction",
    family="distortion",
    order=26,
    params=("displacement", "lighting"),
    apply=caustic_refraction_p,
    bounds={"displacement": NONNEGATIVE, "lighting": NONNEGATIVE},
    from_level=lambda level: (float(level), float_parameter(level, 2.0)),
)
def caustic_refraction(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """The image seen through a rippled water surface (refraction and caustic light).

    :func:`caustic_refraction_p` with ``displacement = level``, ``lighting = level / 5``.
    """
    params = severity_params("caustic_refraction", severity, profile)
    return caustic_refraction_p(image, **params, rng=rng)


def fish_eye_p(image: np.ndarray, *, eta: float, rng: Any) -> np.ndarray:
    """About 500 small spherical lenses placed one after the other.

    About 500 small spherical lenses (radius ``max(0.05 S, 3)``, refractive index ``eta``)
    placed one after the other (corrupt.py ``FishEye``, the repository's ``FishEyeV2``).

    Draws a seed ``randint(0, 2**32)``; the lens centres ``uniform(0, (H, W))`` (row, column) come
    from ``RandomState(seed)``, ``int(0.01 * 224**2 / S**2 * H * W)`` of them.

    Args:
        image: read-only uint8 H x W x 3.
        eta: the lenses' refractive index, >= 1 (1: no distortion; ``1 + level / 5``).
        rng: legacy random source.
    """
    h, w = image.shape[:2]
    s = short_side(image)
    seed = rng.randint(low=0, high=2**32)
    density = 0.01 * 224**2 / (s**2)
    radius = max(0.05 * s, 3)
    count = int(density * (h * w))
    centers = scratch_rng(int(seed)).uniform(low=0, high=np.array([h, w]), size=(count, 2))
    values = image.astype(np.float32)
    side = int(2 * radius) + 3
    fish_eye_f32(values, centers, float(radius), eta, TWO, np.empty((side, side, 3)))
    return np.clip(values, 0, 255).astype(np.uint8)


@register_cbar(
    "fish_eye",
    family="distortion",
    order=27,
    params=("eta",),
    apply=fish_eye_p,
    bounds={"eta": (1.0, None, False)},
    from_level=lambda level: (float_parameter(level, 2.0) + 1.0,),
)
def fish_eye(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """About 500 small spherical lenses placed one after the other.

    :func:`fish_eye_p` with ``eta = 1 + level / 5``.
    """
    return fish_eye_p(image, **severity_params("fish_eye", severity, profile), rng=rng)


def water_drop_p(image: np.ndarray, *, amplitude: float, rng: Any) -> np.ndarray:
    """Circular ripples of a drop around a random centre.

    Circular ripples of a drop within ``S // 2`` of a random centre, amplitude ``amplitude``
    (corrupt.py ``WaterDrop``).

    Draws the centre ``uniform(0.25, 0.75, 2) * (H, W)`` (row, column), the wavelength
    ``uniform(0.05, 0.2) * S`` and the phase ``uniform(0, 2 pi)``.

    Args:
        image: read-only uint8 H x W x 3.
        amplitude: the ripples' relative amplitude, >= 0 (``level / 40``).
        rng: legacy random source.
    """
    h, w = image.shape[:2]
    s = short_side(image)
    center = rng.uniform(low=0.25, high=0.75, size=2) * np.array([h, w])
    wavelength = rng.uniform(low=0.05, high=0.2) * s
    phase = rng.uniform(low=0.0, high=2 * np.pi)
    out = np.empty_like(image)
    water_drop_u8(
        image,
        float(center[0]),
        float(center[1]),
        float(s // 2),
        amplitude,
        float(wavelength),
        float(phase),
        out,
    )
    return out


@register_cbar(
    "water_drop",
    family="distortion",
    order=28,
    params=("amplitude",),
    apply=water_drop_p,
    bounds={"amplitude": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 0.25),),
)
def water_drop(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Circular ripples of a drop around a random centre.

    :func:`water_drop_p` with ``amplitude = level / 40``.
    """
    return water_drop_p(image, **severity_params("water_drop", severity, profile), rng=rng)


def ripple_p(image: np.ndarray, *, amplitude: float, rng: Any) -> np.ndarray:
    """Sinusoidal displacement along each axis.

    Sinusoidal displacement along each axis, amplitude ``amplitude * S`` (corrupt.py
    ``Ripple``).

    Draws the wavelengths ``uniform(0.1, 0.3, 2) * S`` and the phases ``uniform(0, 2 pi, 2)``
    (row, column).

    Args:
        image: read-only uint8 H x W x 3.
        amplitude: the displacement's amplitude as a fraction of the short side ``S``, >= 0
            (``level * 0.0025``).
        rng: legacy random source.
    """
    s = short_side(image)
    amplitudes = np.array([amplitude for _ in range(2)]) * s
    wavelengths = rng.uniform(low=0.1, high=0.3, size=2) * s
    phases = rng.uniform(low=0, high=2 * np.pi, size=2)
    out = np.empty_like(image)
    ripple_u8(image, amplitudes, wavelengths, phases, out)
    return out


@register_cbar(
    "ripple",
    family="distortion",
    order=29,
    params=("amplitude",),
    apply=ripple_p,
    bounds={"amplitude": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 0.025),),
)
def ripple(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Sinusoidal displacement along each axis.

    :func:`ripple_p` with ``amplitude = level * 0.0025``.
    """
    return ripple_p(image, **severity_params("ripple", severity, profile), rng=rng)

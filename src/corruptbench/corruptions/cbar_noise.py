"""ImageNet-C-bar's additive noises (suite ``cbar``, family ``noise``): single_frequency_greyscale,
cocentric_sine_waves, plasma_noise, voronoi_noise, caustic_noise, perlin_noise, blue_noise,
brownish_noise, sparkles, inverse_sparkles.

Each function draws the parameters of the original class's ``sample_parameters()`` from ``rng``
(same calls, same order) and applies its ``transform`` through the compiled kernels of
:mod:`corruptbench.ops.cbar_kernels_noise`, :mod:`corruptbench.ops.perlin` and
:mod:`corruptbench.ops.fourier_noise` (``corrupt.py``, facebookresearch/augmentation-corruption
commit ba4d5a5). Levels: :mod:`corruptbench.tables.cbar`; sizes: :mod:`.cbar_common`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.cbar_kernels_noise import (
    add_gray_field_u8,
    caustic_field,
    cocentric_sine_u8,
    plasma_u8,
    single_frequency_u8,
    sparkles_u8,
    voronoi_u8,
)
from ..ops.fourier_noise import spectral_field
from ..ops.perlin import perlin_tables, perlin_turbulence
from ..profiles import Profile
from ..rng import scratch_rng
from .cbar_common import TWO, float_parameter, register_cbar, short_side
from .params import NONNEGATIVE, UNIT, severity_params

__all__ = [
    "single_frequency_greyscale",
    "cocentric_sine_waves",
    "plasma_noise",
    "voronoi_noise",
    "caustic_noise",
    "perlin_noise",
    "blue_noise",
    "brownish_noise",
    "sparkles",
    "inverse_sparkles",
    "single_frequency_greyscale_p",
    "cocentric_sine_waves_p",
    "plasma_noise_p",
    "voronoi_noise_p",
    "caustic_noise_p",
    "perlin_noise_p",
    "blue_noise_p",
    "brownish_noise_p",
    "sparkles_p",
    "inverse_sparkles_p",
]


def single_frequency_greyscale_p(image: np.ndarray, *, amplitude: float, rng: Any) -> np.ndarray:
    """A grey plane wave sin(x f0 + y f1 + phase) added to the image.

    A grey plane wave ``sin(x f0 + y f1 + phase)`` of amplitude ``amplitude`` added to the
    image (corrupt.py ``SingleFrequencyGreyscale``).

    Draws ``m = uniform(-pi, pi)``, ``uniform(-|m|, |m|)``, ``permutation(2)`` (which axis gets
    ``m``) and the phase ``uniform(0, 2 pi)``. Any size.

    Args:
        image: read-only uint8 H x W x 3.
        amplitude: the wave's amplitude in uint8 steps, >= 0 (``level * 19.6``).
        rng: legacy random source.
    """
    mag = rng.uniform(low=-np.pi, high=np.pi)
    other = rng.uniform(low=-abs(mag), high=abs(mag))
    freq = np.array([mag, other])[rng.permutation(2)]
    phase = rng.uniform(low=0, high=2 * np.pi)
    out = np.empty_like(image)
    f0, f1 = float(freq[0]), float(freq[1])
    single_frequency_u8(image, f0, f1, float(phase), amplitude, out)
    return out


@register_cbar(
    "single_frequency_greyscale",
    family="noise",
    order=3,
    aliases=("single_frequency_grayscale",),
    params=("amplitude",),
    apply=single_frequency_greyscale_p,
    bounds={"amplitude": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 196),),
)
def single_frequency_greyscale(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """A grey plane wave sin(x f0 + y f1 + phase) added to the image.

    :func:`single_frequency_greyscale_p` with ``amplitude = level * 19.6``.
    """
    params = severity_params("single_frequency_greyscale", severity, profile)
    return single_frequency_greyscale_p(image, **params, rng=rng)


def cocentric_sine_waves_p(image: np.ndarray, *, intensity: float, rng: Any) -> np.ndarray:
    """Wobbly concentric rings (a sawtooth of the distance) added to the image.

    Concentric rings around a random centre, wobbled by ``sin(freq angle)`` (corrupt.py
    ``CocentricSineWaves``): a sawtooth of the distance modulo the ring width,
    ``+-intensity / 2``.

    Draws the centre ``uniform(0, (W, H))`` (x, y), ``freq = uniform(0, 10)``, the wobble
    amplitude and the ring width ``uniform(0, S / 10)`` each.

    Args:
        image: read-only uint8 H x W x 3.
        intensity: the sawtooth's peak-to-peak height in uint8 steps, >= 0 (``level * 12.8``).
        rng: legacy random source.
    """
    h, w = image.shape[:2]
    s = short_side(image)
    x0, y0 = rng.uniform(low=0, high=np.array([w, h]), size=2)
    freq = rng.uniform(low=0, high=10)
    amplitude = rng.uniform(low=0, high=s / 10)
    ring_width = rng.uniform(low=0, high=s / 10)
    intensities = np.full(3, intensity)
    out = np.empty_like(image)
    cocentric_sine_u8(
        image,
        float(x0),
        float(y0),
        float(freq),
        float(amplitude),
        float(ring_width),
        intensities,
        TWO,
        out,
    )
    return out


@register_cbar(
    "cocentric_sine_waves",
    family="noise",
    order=4,
    aliases=("concentric_sine_waves",),
    params=("intensity",),
    apply=cocentric_sine_waves_p,
    bounds={"intensity": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 128),),
)
def cocentric_sine_waves(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """Wobbly concentric rings (a sawtooth of the distance) added to the image.

    :func:`cocentric_sine_waves_p` with ``intensity = level * 12.8``.
    """
    params = severity_params("cocentric_sine_waves", severity, profile)
    return cocentric_sine_waves_p(image, **params, rng=rng)


def plasma_noise_p(image: np.ndarray, *, intensity: float, rng: Any) -> np.ndarray:
    """A coloured plasma of rotating sine fields blended into the image.

    A coloured plasma of rotating sine fields blended in with weight ``intensity / 255``
    (corrupt.py ``PlasmaNoise``).

    Draws the time ``uniform(0, 6 pi)``, the iterations ``randint(4, 7)``, the sharpness
    ``uniform(0.5, 1)`` and the scale ``uniform(0.075, 0.2) * S``.

    Args:
        image: read-only uint8 H x W x 3.
        intensity: the plasma's weight in uint8 steps, in [0, 255] (``level * 6.4``).
        rng: legacy random source.
    """
    time = rng.uniform(low=0.0, high=6 * np.pi)
    iterations = rng.randint(low=4, high=7)
    sharpness = rng.uniform(low=0.5, high=1.0)
    scale = rng.uniform(low=0.075, high=0.2) * short_side(image)
    out = np.empty_like(image)
    plasma_u8(
        image,
        float(time),
        int(iterations),
        float(sharpness),
        float(scale),
        intensity,
        out,
    )
    return out


@register_cbar(
    "plasma_noise",
    family="noise",
    order=5,
    params=("intensity",),
    apply=plasma_noise_p,
    bounds={"intensity": (0.0, 255.0, False)},
    from_level=lambda level: (float_parameter(level, 64),),
)
def plasma_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """A coloured plasma of rotating sine fields blended into the image.

    :func:`plasma_noise_p` with ``intensity = level * 6.4``.
    """
    return plasma_noise_p(image, **severity_params("plasma_noise", severity, profile), rng=rng)


def voronoi_noise_p(image: np.ndarray, *, intensity: float, rng: Any) -> np.ndarray:
    """Grey Voronoi cells added to (or subtracted from) the image.

    Grey Voronoi cells (the smoothstep of the distance to hashed cell points, minus 0.5)
    times ``+-intensity`` (corrupt.py ``VoronoiNoise``).

    Draws the hash seed ``uniform(0, 10)``, the density ``uniform(0.5, 0.9)``, the cell size
    ``uniform(0.05, 0.2) * S`` and the sign (``uniform() > 0.5``: negative).

    Args:
        image: read-only uint8 H x W x 3.
        intensity: the cells' amplitude in uint8 steps, >= 0 (``level * 25.5``).
        rng: legacy random source.
    """
    seed = rng.uniform(low=0, high=10)
    density = rng.uniform(low=0.5, high=0.9)
    size = rng.uniform(low=0.05, high=0.2) * short_side(image)
    if rng.uniform() > 0.5:
        intensity = -intensity
    out = np.empty_like(image)
    voronoi_u8(image, float(size), float(seed), float(density), intensity, TWO, 3.0, out)
    return out


@register_cbar(
    "voronoi_noise",
    family="noise",
    order=6,
    params=("intensity",),
    apply=voronoi_noise_p,
    bounds={"intensity": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 255),),
)
def voronoi_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Grey Voronoi cells added to (or subtracted from) the image.

    :func:`voronoi_noise_p` with ``intensity = level * 25.5``.
    """
    return voronoi_noise_p(image, **severity_params("voronoi_noise", severity, profile), rng=rng)


def caustic_noise_p(image: np.ndarray, *, intensity: float, rng: Any) -> np.ndarray:
    """Bright water caustics added to the image.

    Bright water caustics (a tiling pattern of period ``size``) added with ``intensity``
    (corrupt.py ``CausticNoise``).

    Draws the time ``uniform(0.5, 2)`` and the tile size ``uniform(0.75, 1.25) * S``.

    Args:
        image: read-only uint8 H x W x 3.
        intensity: the caustics' weight in uint8 steps, >= 0 (``level * 25.5``).
        rng: legacy random source.
    """
    time = rng.uniform(low=0.5, high=2.0)
    size = rng.uniform(low=0.75, high=1.25) * short_side(image)
    field = np.empty(image.shape[:2])
    caustic_field(float(time), float(size), TWO, field)
    out = np.empty_like(image)
    add_gray_field_u8(image, field, intensity, out)
    return out


@register_cbar(
    "caustic_noise",
    family="noise",
    order=7,
    params=("intensity",),
    apply=caustic_noise_p,
    bounds={"intensity": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 255),),
)
def caustic_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Bright water caustics added to the image.

    :func:`caustic_noise_p` with ``intensity = level * 25.5``.
    """
    return caustic_noise_p(image, **severity_params("caustic_noise", severity, profile), rng=rng)


def perlin_noise_p(image: np.ndarray, *, alpha: float, rng: Any) -> np.ndarray:
    """Grey Perlin turbulence blended into the image.

    Grey Perlin turbulence (5 octaves, cell ``32 S / 224`` px) blended in with weight
    ``alpha``: ``(1 - alpha) x + 255 alpha P`` (corrupt.py ``PerlinNoise``).

    Draws a seed ``randint(0, 2**32)``; the gradients and permutation come from
    ``RandomState(seed)`` (:func:`corruptbench.ops.perlin.perlin_tables`). A zero gradient (the
    original normalises it to NaN) turns the pixels that use it black, as in the original.

    Args:
        image: read-only uint8 H x W x 3.
        alpha: the turbulence's weight, in [0, 1] (``level * 0.05``).
        rng: legacy random source.
    """
    m = 1 / (32 * short_side(image) / 224)
    seed = rng.randint(low=0, high=2**32)
    p, g = perlin_tables(scratch_rng(int(seed)))
    field = np.empty(image.shape[:2])
    perlin_turbulence(p, g, m, m, 16.0, 0.5, 0.5, TWO, field)
    out = (1 - alpha) * image.astype(np.float32) + 255 * alpha * field[:, :, None]
    # a zero gradient (about 1 seed in 500) makes NaN pixels, which the original's uint8 cast
    # turns into 0 (x86): written out, so that it is 0 everywhere and without a warning
    out[np.isnan(out)] = 0
    return np.clip(out, 0, 255).astype(np.uint8)


@register_cbar(
    "perlin_noise",
    family="noise",
    order=8,
    params=("alpha",),
    apply=perlin_noise_p,
    bounds={"alpha": UNIT},
    from_level=lambda level: (float_parameter(level, 0.50),),
)
def perlin_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Grey Perlin turbulence blended into the image.

    :func:`perlin_noise_p` with ``alpha = level * 0.05``.
    """
    return perlin_noise_p(image, **severity_params("perlin_noise", severity, profile), rng=rng)


def _spectral_corruption(image: np.ndarray, rng: Any, kind: str, intensity: float) -> np.ndarray:
    seed = rng.randint(low=0, high=2**32)
    rs = scratch_rng(int(seed))
    noise = np.stack([spectral_field(rs, image.shape[:2], kind) for _ in range(3)], axis=2)
    return np.clip(image + intensity * noise, 0, 255).astype(np.uint8)


def blue_noise_p(image: np.ndarray, *, intensity: float, rng: Any) -> np.ndarray:
    """Blue noise (power rising with frequency) added per channel.

    Blue noise (power rising with frequency), one field per channel, times ``intensity``
    (corrupt.py ``BlueNoise``).

    Draws a seed ``randint(0, 2**32)``; the phases come from ``RandomState(seed)``.

    Args:
        image: read-only uint8 H x W x 3.
        intensity: the fields' factor in uint8 steps, >= 0 (``level * 19.6``).
        rng: legacy random source.
    """
    return _spectral_corruption(image, rng, "blue", intensity)


@register_cbar(
    "blue_noise",
    family="noise",
    order=9,
    params=("intensity",),
    apply=blue_noise_p,
    bounds={"intensity": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 196),),
)
def blue_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Blue noise (power rising with frequency) added per channel.

    :func:`blue_noise_p` with ``intensity = level * 19.6``.
    """
    return blue_noise_p(image, **severity_params("blue_noise", severity, profile), rng=rng)


def brownish_noise_p(image: np.ndarray, *, intensity: float, rng: Any) -> np.ndarray:
    """Brownish noise (power 1 / (f^2 + 1)) added per channel.

    Brownish noise (power ``1 / (f^2 + 1)``), one field per channel, times ``intensity``
    (corrupt.py ``BrownishNoise``).

    Draws a seed ``randint(0, 2**32)``; the phases come from ``RandomState(seed)``.

    Args:
        image: read-only uint8 H x W x 3.
        intensity: the fields' factor in uint8 steps, >= 0 (``level * 6.4``).
        rng: legacy random source.
    """
    return _spectral_corruption(image, rng, "brownish", intensity)


@register_cbar(
    "brownish_noise",
    family="noise",
    order=10,
    params=("intensity",),
    apply=brownish_noise_p,
    bounds={"intensity": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 64),),
)
def brownish_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Brownish noise (power 1 / (f^2 + 1)) added per channel.

    :func:`brownish_noise_p` with ``intensity = level * 6.4``.
    """
    return brownish_noise_p(image, **severity_params("brownish_noise", severity, profile), rng=rng)


def sparkles_p(image: np.ndarray, *, radius: float, rng: Any) -> np.ndarray:
    """Five white star bursts.

    Five white star bursts of radius ``radius * S`` (corrupt.py ``Sparkles``).

    Draws the centres ``uniform(0, (H, W), (5, 2))`` (row, column), a seed ``randint(0,
    2**32)`` and the ray counts ``randint(50, 200, 5)``; the ray lengths ``max(1, r + 0.25 r
    N(0, 1))`` come from ``RandomState(seed)``, sparkle after sparkle.

    Args:
        image: read-only uint8 H x W x 3.
        radius: the bursts' mean ray length as a fraction of the short side ``S``, >= 0
            (``level * 0.01``).
        rng: legacy random source.
    """
    h, w = image.shape[:2]
    centers = rng.uniform(low=0, high=np.array([h, w]), size=(5, 2))
    radii = np.array([radius for _ in range(5)]) * short_side(image)
    seed = rng.randint(low=0, high=2**32)
    nrays = rng.randint(low=50, high=200, size=5)
    rs = scratch_rng(int(seed))
    lengths = np.concatenate(
        [
            np.maximum(1, radius + 25 / 100.0 * radius * rs.standard_normal(int(rays)))
            for rays, radius in zip(nrays, radii)
        ]
    )
    starts = np.concatenate([[0], np.cumsum(nrays)]).astype(np.int64)
    out = np.empty_like(image)
    sparkles_u8(image, np.ascontiguousarray(centers), lengths, starts, 1.0, False, TWO, out)
    return out


@register_cbar(
    "sparkles",
    family="noise",
    order=21,
    params=("radius",),
    apply=sparkles_p,
    bounds={"radius": NONNEGATIVE},
    from_level=lambda level: (float_parameter(level, 0.1),),
)
def sparkles(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Five white star bursts.

    :func:`sparkles_p` with ``radius = level * 0.01``.
    """
    return sparkles_p(image, **severity_params("sparkles", severity, profile), rng=rng)


def inverse_sparkles_p(image: np.ndarray, *, coverage: float, rng: Any) -> np.ndarray:
    """The image seen through one star burst in a white field.

    The image seen through one star burst of radius ``S / 4`` in a white field that covers
    more with ``coverage`` (corrupt.py ``InverseSparkles``: its ``amount = 100 - coverage``, the
    burst's fall-off exponent ``(100 - amount) / 50``).

    Draws the centre ``uniform(0.25, 0.75, 2) * (H, W)`` (row, column), a seed ``randint(0,
    2**32)`` and the ray count ``randint(50, 200)``; the ray lengths ``r + 0.25 r N(0, 1)`` come
    from ``RandomState(seed)``.

    Args:
        image: read-only uint8 H x W x 3.
        coverage: the white field's strength in percent, in [0, 100) (``level * 6.5``: 0 .. 65).
        rng: legacy random source.
    """
    h, w = image.shape[:2]
    center = rng.uniform(low=0.25, high=0.75, size=2) * np.array([h, w])
    radius = 0.25 * short_side(image)
    amount = 100 - coverage
    seed = rng.randint(low=0, high=2**32)
    rays = rng.randint(low=50, high=200)
    rs = scratch_rng(int(seed))
    lengths = radius + 25 / 100.0 * radius * rs.standard_normal(int(rays))
    exponent = (100 - amount) / 50.0
    starts = np.array([0, int(rays)], dtype=np.int64)
    out = np.empty_like(image)
    sparkles_u8(image, center.reshape(1, 2), lengths, starts, exponent, True, TWO, out)
    return out


@register_cbar(
    "inverse_sparkles",
    family="noise",
    order=22,
    params=("coverage",),
    apply=inverse_sparkles_p,
    bounds={"coverage": (0.0, 100.0, False)},
    from_level=lambda level: (float_parameter(level, 65),),
)
def inverse_sparkles(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """The image seen through one star burst in a white field.

    :func:`inverse_sparkles_p` with ``coverage = level * 6.5``.
    """
    params = severity_params("inverse_sparkles", severity, profile)
    return inverse_sparkles_p(image, **params, rng=rng)

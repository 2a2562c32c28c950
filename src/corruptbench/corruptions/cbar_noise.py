"""ImageNet-C-bar's additive noises (suite ``cbar``, family ``noise``): single_frequency_greyscale,
cocentric_sine_waves, plasma_noise, voronoi_noise, caustic_noise, perlin_noise, blue_noise,
brownish_noise, sparkles, inverse_sparkles.

Each function draws the parameters of the original class's ``sample_parameters()`` from ``rng``
(same calls, same order) and applies its ``transform`` through the compiled kernels of
:mod:`corruptbench.ops.cbar_kernels`, :mod:`corruptbench.ops.perlin` and
:mod:`corruptbench.ops.fourier_noise` (``corrupt.py``, facebookresearch/augmentation-corruption
commit ba4d5a5). Levels: :mod:`corruptbench.tables.cbar`; sizes: :mod:`.cbar_common`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.cbar_kernels import (
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
from .cbar_common import TWO, float_parameter, level_of, register_cbar, short_side

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
]


@register_cbar(
    "single_frequency_greyscale",
    family="noise",
    order=3,
    aliases=("single_frequency_grayscale",),
)
def single_frequency_greyscale(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """A grey plane wave sin(x f0 + y f1 + phase) added to the image.

    A grey plane wave ``sin(x f0 + y f1 + phase)`` of amplitude ``level * 19.6`` added to the
    image (corrupt.py ``SingleFrequencyGreyscale``).

    Draws ``m = uniform(-pi, pi)``, ``uniform(-|m|, |m|)``, ``permutation(2)`` (which axis gets
    ``m``) and the phase ``uniform(0, 2 pi)``. Any size.
    """
    level = level_of("single_frequency_greyscale", severity, profile)
    mag = rng.uniform(low=-np.pi, high=np.pi)
    other = rng.uniform(low=-abs(mag), high=abs(mag))
    freq = np.array([mag, other])[rng.permutation(2)]
    phase = rng.uniform(low=0, high=2 * np.pi)
    out = np.empty_like(image)
    f0, f1 = float(freq[0]), float(freq[1])
    single_frequency_u8(image, f0, f1, float(phase), float_parameter(level, 196), out)
    return out


@register_cbar("cocentric_sine_waves", family="noise", order=4, aliases=("concentric_sine_waves",))
def cocentric_sine_waves(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """Wobbly concentric rings (a sawtooth of the distance) added to the image.

    Concentric rings around a random centre, wobbled by ``sin(freq angle)`` (corrupt.py
    ``CocentricSineWaves``): a sawtooth of the distance modulo the ring width, ``+-level * 6.4``.

    Draws the centre ``uniform(0, (W, H))`` (x, y), ``freq = uniform(0, 10)``, the wobble
    amplitude and the ring width ``uniform(0, S / 10)`` each.
    """
    level = level_of("cocentric_sine_waves", severity, profile)
    h, w = image.shape[:2]
    s = short_side(image)
    x0, y0 = rng.uniform(low=0, high=np.array([w, h]), size=2)
    freq = rng.uniform(low=0, high=10)
    amplitude = rng.uniform(low=0, high=s / 10)
    ring_width = rng.uniform(low=0, high=s / 10)
    intensity = np.full(3, float_parameter(level, 128))
    out = np.empty_like(image)
    cocentric_sine_u8(
        image,
        float(x0),
        float(y0),
        float(freq),
        float(amplitude),
        float(ring_width),
        intensity,
        TWO,
        out,
    )
    return out


@register_cbar("plasma_noise", family="noise", order=5)
def plasma_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """A coloured plasma of rotating sine fields blended into the image.

    A coloured plasma of rotating sine fields blended in with weight ``level * 6.4 / 255``
    (corrupt.py ``PlasmaNoise``).

    Draws the time ``uniform(0, 6 pi)``, the iterations ``randint(4, 7)``, the sharpness
    ``uniform(0.5, 1)`` and the scale ``uniform(0.075, 0.2) * S``.
    """
    level = level_of("plasma_noise", severity, profile)
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
        float_parameter(level, 64),
        out,
    )
    return out


@register_cbar("voronoi_noise", family="noise", order=6)
def voronoi_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Grey Voronoi cells added to (or subtracted from) the image.

    Grey Voronoi cells (the smoothstep of the distance to hashed cell points, minus 0.5)
    times ``+-level * 25.5`` (corrupt.py ``VoronoiNoise``).

    Draws the hash seed ``uniform(0, 10)``, the density ``uniform(0.5, 0.9)``, the cell size
    ``uniform(0.05, 0.2) * S`` and the sign (``uniform() > 0.5``: negative).
    """
    level = level_of("voronoi_noise", severity, profile)
    seed = rng.uniform(low=0, high=10)
    density = rng.uniform(low=0.5, high=0.9)
    size = rng.uniform(low=0.05, high=0.2) * short_side(image)
    intensity = float_parameter(level, 255)
    if rng.uniform() > 0.5:
        intensity = -intensity
    out = np.empty_like(image)
    voronoi_u8(image, float(size), float(seed), float(density), intensity, TWO, 3.0, out)
    return out


@register_cbar("caustic_noise", family="noise", order=7)
def caustic_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Bright water caustics added to the image.

    Bright water caustics (a tiling pattern of period ``size``) added with ``level * 25.5``
    (corrupt.py ``CausticNoise``).

    Draws the time ``uniform(0.5, 2)`` and the tile size ``uniform(0.75, 1.25) * S``.
    """
    level = level_of("caustic_noise", severity, profile)
    time = rng.uniform(low=0.5, high=2.0)
    size = rng.uniform(low=0.75, high=1.25) * short_side(image)
    field = np.empty(image.shape[:2])
    caustic_field(float(time), float(size), TWO, field)
    out = np.empty_like(image)
    add_gray_field_u8(image, field, float_parameter(level, 255), out)
    return out


@register_cbar("perlin_noise", family="noise", order=8)
def perlin_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Grey Perlin turbulence blended into the image.

    Grey Perlin turbulence (5 octaves, cell ``32 S / 224`` px) blended in with weight
    ``level * 0.05`` (corrupt.py ``PerlinNoise``).

    Draws a seed ``randint(0, 2**32)``; the gradients and permutation come from
    ``RandomState(seed)`` (:func:`corruptbench.ops.perlin.perlin_tables`). A zero gradient (the
    original normalises it to NaN) turns the pixels that use it black, as in the original.
    """
    level = level_of("perlin_noise", severity, profile)
    m = 1 / (32 * short_side(image) / 224)
    alpha = float_parameter(level, 0.50)
    seed = rng.randint(low=0, high=2**32)
    p, g = perlin_tables(scratch_rng(int(seed)))
    field = np.empty(image.shape[:2])
    perlin_turbulence(p, g, m, m, 16.0, 0.5, 0.5, TWO, field)
    out = (1 - alpha) * image.astype(np.float32) + 255 * alpha * field[:, :, None]
    # a zero gradient (about 1 seed in 500) makes NaN pixels, which the original's uint8 cast
    # turns into 0 (x86): written out, so that it is 0 everywhere and without a warning
    out[np.isnan(out)] = 0
    return np.clip(out, 0, 255).astype(np.uint8)


def _spectral_corruption(image: np.ndarray, rng: Any, kind: str, intensity: float) -> np.ndarray:
    seed = rng.randint(low=0, high=2**32)
    rs = scratch_rng(int(seed))
    noise = np.stack([spectral_field(rs, image.shape[:2], kind) for _ in range(3)], axis=2)
    return np.clip(image + intensity * noise, 0, 255).astype(np.uint8)


@register_cbar("blue_noise", family="noise", order=9)
def blue_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Blue noise (power rising with frequency) added per channel.

    Blue noise (power rising with frequency), one field per channel, times
    ``level * 19.6`` (corrupt.py ``BlueNoise``).

    Draws a seed ``randint(0, 2**32)``; the phases come from ``RandomState(seed)``.
    """
    level = level_of("blue_noise", severity, profile)
    return _spectral_corruption(image, rng, "blue", float_parameter(level, 196))


@register_cbar("brownish_noise", family="noise", order=10)
def brownish_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Brownish noise (power 1 / (f^2 + 1)) added per channel.

    Brownish noise (power ``1 / (f^2 + 1)``), one field per channel, times ``level * 6.4``
    (corrupt.py ``BrownishNoise``).

    Draws a seed ``randint(0, 2**32)``; the phases come from ``RandomState(seed)``.
    """
    level = level_of("brownish_noise", severity, profile)
    return _spectral_corruption(image, rng, "brownish", float_parameter(level, 64))


@register_cbar("sparkles", family="noise", order=21)
def sparkles(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Five white star bursts.

    Five white star bursts of radius ``level * 0.01 * S`` (corrupt.py ``Sparkles``).

    Draws the centres ``uniform(0, (H, W), (5, 2))`` (row, column), a seed ``randint(0,
    2**32)`` and the ray counts ``randint(50, 200, 5)``; the ray lengths ``max(1, r + 0.25 r
    N(0, 1))`` come from ``RandomState(seed)``, sparkle after sparkle.
    """
    level = level_of("sparkles", severity, profile)
    h, w = image.shape[:2]
    centers = rng.uniform(low=0, high=np.array([h, w]), size=(5, 2))
    radii = np.array([float_parameter(level, 0.1) for _ in range(5)]) * short_side(image)
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


@register_cbar("inverse_sparkles", family="noise", order=22)
def inverse_sparkles(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """The image seen through one star burst in a white field.

    The image seen through one star burst of radius ``S / 4`` in a white field that covers
    more with the level (corrupt.py ``InverseSparkles``).

    Draws the centre ``uniform(0.25, 0.75, 2) * (H, W)`` (row, column), a seed ``randint(0,
    2**32)`` and the ray count ``randint(50, 200)``; the ray lengths ``r + 0.25 r N(0, 1)`` come
    from ``RandomState(seed)``.
    """
    level = level_of("inverse_sparkles", severity, profile)
    h, w = image.shape[:2]
    center = rng.uniform(low=0.25, high=0.75, size=2) * np.array([h, w])
    radius = 0.25 * short_side(image)
    amount = 100 - float_parameter(level, 65)
    seed = rng.randint(low=0, high=2**32)
    rays = rng.randint(low=50, high=200)
    rs = scratch_rng(int(seed))
    lengths = radius + 25 / 100.0 * radius * rs.standard_normal(int(rays))
    exponent = (100 - amount) / 50.0
    starts = np.array([0, int(rays)], dtype=np.int64)
    out = np.empty_like(image)
    sparkles_u8(image, center.reshape(1, 2), lengths, starts, exponent, True, TWO, out)
    return out

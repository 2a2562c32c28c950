"""The compiled kernels of ImageNet-C-bar's additive noises (corrupt.py of
facebookresearch/augmentation-corruption, commit ba4d5a5;
:mod:`corruptbench.corruptions.cbar_noise`).

The conventions (NumPy scalar semantics, libm ``pow``, NumPy's remainder) and the shared helpers
are :mod:`corruptbench.ops.cbar_kernels`'.
"""

from __future__ import annotations

import math

import numpy as np

from .cbar_kernels import TWO_PI, clip_scalar, np_mod, to_u8
from .jit import kernel

__all__ = [
    "add_gray_field_u8",
    "single_frequency_u8",
    "cocentric_sine_u8",
    "plasma_u8",
    "voronoi_u8",
    "caustic_field",
    "sparkles_u8",
]


@kernel(error_model="numpy")
def add_gray_field_u8(
    image: np.ndarray, field: np.ndarray, scale: float, out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """``uint8(clip(image + scale * field[..., None], 0, 255))``: the original's
    ``np.clip(image + intensity * noise, 0, 255).astype(np.uint8)`` for a noise that is the same
    in the three channels (``field`` H x W float64)."""
    h, w = field.shape
    for y in range(h):
        for x in range(w):
            a = scale * field[y, x]
            for c in range(3):
                out[y, x, c] = to_u8(image[y, x, c] + a)


@kernel(error_model="numpy")
def single_frequency_u8(
    image: np.ndarray, f0: float, f1: float, phase: float, intensity: float, out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """SingleFrequencyGreyscale: ``noise(y, x) = sin(x f0 + y f1 + phase)``, then
    ``uint8(clip(image + intensity * noise))``."""
    h, w, _ = image.shape
    for y in range(h):
        for x in range(w):
            a = intensity * math.sin(x * f0 + y * f1 + phase)
            for c in range(3):
                out[y, x, c] = to_u8(image[y, x, c] + a)


@kernel(error_model="numpy")
def cocentric_sine_u8(
    image: np.ndarray,
    x0: float,
    y0: float,
    freq: float,
    amplitude: float,
    ring_width: float,
    intensity: np.ndarray,
    two: float,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """CocentricSineWaves' ``calc_intensity``: with ``dx = x - x0``, ``dy = y - y0``,
    ``angle = atan2(dx, dy) freq`` and ``r = sqrt(dx^2 + dy^2) + sin(angle) amplitude``, the
    noise is ``(r mod ring_width) / ring_width - 1/2``; channel ``c`` adds ``intensity[c]``
    times it."""
    h, w, _ = image.shape
    dx2 = np.empty(w)  # (x - x0) ** 2 per column, (y - y0) ** 2 per row (libm pow)
    for x in range(w):
        dx2[x] = (x - x0) ** two
    for y in range(h):
        dy = y - y0
        dy2 = dy**two
        for x in range(w):
            dx = x - x0
            angle = math.atan2(dx, dy) * freq
            r = math.sqrt(dx2[x] + dy2) + math.sin(angle) * amplitude
            n = np_mod(r, ring_width) / ring_width
            n -= 0.5
            for c in range(3):
                out[y, x, c] = to_u8(image[y, x, c] + intensity[c] * n)


@kernel(error_model="numpy")
def plasma_u8(
    image: np.ndarray,
    time: float,
    iterations: int,
    sharpness: float,
    scale: float,
    intensity: float,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """PlasmaNoise's ``kernel(x, y, rand, iters, sharp, scale)`` per pixel: ``iterations``
    rounds of the rotating sine field on ``(x, y) / scale``, then ``(sin(x - t),
    sin((x + y + sin t) / 2), sin(y + t))`` as RGB; the image is
    ``(1 - intensity / 255) image + intensity noise``, clipped."""
    h, w, _ = image.shape
    keep = 1 - intensity / 255
    sharp = 2.25 - sharpness
    srand = math.sin(time)
    # the first round (i = (1, 1, 1, 0)) reads only the row or only the column
    first_cos = np.empty(h)
    first_sin = np.empty(w)
    for y in range(h):
        first_cos[y] = math.cos((y / scale) * 1.0 - 0.0 + time / 1.0) / 1.0
    for x in range(w):
        first_sin[x] = math.sin((x / scale) * 1.0 - 0.0 + time / 1.0) / 1.0
    for y in range(h):
        for x in range(w):
            px = x / scale
            py = y / scale
            i0, i1, i2, i3 = 1.0, 1.0, 1.0, 0.0
            for k in range(iterations):
                if k == 0:
                    r0 = first_cos[y]
                    r1 = first_sin[x]
                    t0 = -r1 * 0.3
                    t1 = r0 * 0.3
                    r0 += t0
                    r1 += t1
                    px += r0
                    py += r1
                    m3 = time * i1
                    i0 *= 1.93
                    i1 *= 1.15
                    i2 *= sharp
                    i3 *= m3
                    continue
                q = time / i1
                r0 = math.cos(py * i0 - i3 + q) / i2
                r1 = math.sin(px * i0 - i3 + q) / i2
                t0 = -r1 * 0.3
                t1 = r0 * 0.3
                r0 += t0
                r1 += t1
                px += r0
                py += r1
                m3 = time * i1
                i0 *= 1.93
                i1 *= 1.15
                i2 *= sharp
                i3 *= m3
            rgb = (math.sin(px - time), math.sin((px + py + srand) * 0.5), math.sin(py + time))
            for c in range(3):
                out[y, x, c] = to_u8(keep * image[y, x, c] + intensity * rgb[c])


@kernel(inline="always", error_model="numpy")
def _smoothstep01(v: float, two: float, three: float) -> float:
    """utils/image.py ``smoothstep(0, 1, v)`` on a scalar: clip to [0, 1], then
    ``clip(3 v^2 - 2 v^3, 0, 1)`` with libm powers."""
    v = clip_scalar(v, 0.0, 1.0)
    v = (v - 0.0) / (1.0 - 0.0)
    s = 3 * (v**two) - 2 * (v**three)
    return clip_scalar(s, 0.0, 1.0)


@kernel(error_model="numpy")
def voronoi_u8(
    image: np.ndarray,
    size: float,
    seed: float,
    density: float,
    intensity: float,
    two: float,
    three: float,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """VoronoiNoise's ``kernel``: the distance from ``v = (x, y) / size + 1`` to the nearest of
    the 3 x 3 hashed cell points (``hash(g) = (sin(m g) sqrt(m g) seed 0.0025) mod 1``,
    ``m = [[13.85, 47.77], [99.41, 88.48]]``), capped at 1; noise ``smoothstep(0, 1, dist
    density) - 0.5`` in all three channels."""
    h, w, _ = image.shape
    for y in range(h):
        for x in range(w):
            v0 = x / size + 1
            v1 = y / size + 1
            g0 = math.floor(v0)
            g1 = math.floor(v1)
            f0 = np_mod(v0, 1.0)
            f1 = np_mod(v1, 1.0)
            dist = 1.0
            for i in range(-1, 2):
                for j in range(-1, 2):
                    q0 = g0 + i
                    q1 = g1 + j
                    w0 = 13.85 * q0 + 47.77 * q1
                    w1 = 99.41 * q0 + 88.48 * q1
                    h0 = np_mod(math.sin(w0) * math.sqrt(w0) * seed * 0.0025, 1.0)
                    h1 = np_mod(math.sin(w1) * math.sqrt(w1) * seed * 0.0025, 1.0)
                    d0 = (i + h0) - f0
                    d1 = (j + h1) - f1
                    cur = math.sqrt(d0 * d0 + d1 * d1)
                    if not dist < cur:  # Python's min(cur, dist) keeps cur on ties
                        dist = cur
            n = _smoothstep01(dist * density, two, three) - 0.5
            for c in range(3):
                out[y, x, c] = to_u8(image[y, x, c] + intensity * n)


@kernel(error_model="numpy")
def caustic_field(
    time: float, size: float, two: float, out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """CausticNoise's (and CausticRefraction's) ``kernel(point, time, size)`` for every pixel:
    ``p = ((y, x) / size mod 1) 6.28318530718 - 250``, five rounds of
    ``i = p + (cos(t - i0) + sin(t + i1), sin(t - i1) + cos(t + i0))`` adding
    ``1 / |p / (sin(i0 + t), cos(i1 + t)) * 0.005|``, then ``clip(|1.17 - (c / 5)^1.4|^8, 0, 1)``.
    ``out`` is H x W float64 (the original's three channels are equal)."""
    h, w = out.shape
    inten = 0.005
    p14 = 1.4
    p8 = 8.0
    # p per row and per column, and the first round's terms (which read p alone)
    t1 = time * (1.0 - (3.5 / (0 + 1)))
    row_p = np.empty(h)
    row_cos = np.empty((h, 2))
    col_p = np.empty(w)
    col_sin = np.empty((w, 2))
    for y in range(h):
        p0 = np_mod(y / size, 1.0) * 6.28318530718 - 250
        row_p[y] = p0
        row_cos[y, 0] = math.cos(t1 - p0)
        row_cos[y, 1] = math.cos(t1 + p0)
    for x in range(w):
        p1 = np_mod(x / size, 1.0) * 6.28318530718 - 250
        col_p[x] = p1
        col_sin[x, 0] = math.sin(t1 + p1)
        col_sin[x, 1] = math.sin(t1 - p1)
    for y in range(h):
        p0 = row_p[y]
        for x in range(w):
            p1 = col_p[x]
            i0 = p0
            i1 = p1
            c = 1.0
            for n in range(5):
                t = time * (1.0 - (3.5 / (n + 1)))
                if n == 0:
                    a0 = row_cos[y, 0] + col_sin[x, 0]
                    a1 = col_sin[x, 1] + row_cos[y, 1]
                else:
                    a0 = math.cos(t - i0) + math.sin(t + i1)
                    a1 = math.sin(t - i1) + math.cos(t + i0)
                i0 = p0 + a0
                i1 = p1 + a1
                la = (p0 / (math.sin(i0 + t) / inten)) ** two
                lb = (p1 / (math.cos(i1 + t) / inten)) ** two
                c += 1.0 / math.sqrt(la + lb)
            c /= 5.0
            c = 1.17 - c**p14
            out[y, x] = clip_scalar(abs(c) ** p8, 0.0, 1.0)


@kernel(inline="always", error_model="numpy")
def _sparkle_weight(
    dy: float, dx: float, lengths: np.ndarray, start: int, rays: int, exponent: float, two: float
) -> float:
    """Sparkles' ``kernel`` weight ``f`` at offset ``(dy, dx)`` from a sparkle's centre, its rays
    ``lengths[start:start + rays]``: ``d = (atan2(dx, dy) + pi) / 2pi * rays``, ``i = int(d)``,
    ``f = d - i``, the ray length interpolated between rays ``i`` and ``i + 1``,
    ``g = (length^2 / (dist^2 + 1e-4))^exponent``, ``f = clip((1 - (f - 0.5)^2) g, 0, 1)``
    (``g ** 1.0`` is ``g`` and is skipped)."""
    dist = math.sqrt(dy * dy + dx * dx)
    angle = math.atan2(dx, dy)
    d = (angle + math.pi) / TWO_PI * rays
    i = int(d)
    f = d - i
    lo = lengths[start + i % rays]
    length = lo + f * (lengths[start + (i + 1) % rays] - lo)
    g = length**two / (dist**two + 1e-4)
    if exponent != 1.0:
        g = g**exponent
    f -= 0.5
    f = 1 - f**two
    f *= g
    return clip_scalar(f, 0.0, 1.0)


@kernel(error_model="numpy")
def sparkles_u8(
    image: np.ndarray,
    centers: np.ndarray,
    lengths: np.ndarray,
    starts: np.ndarray,
    exponent: float,
    inverse: bool,
    two: float,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Sparkles / InverseSparkles: the sparkles ``k`` (centre ``centers[k]`` (row, column), rays
    ``lengths[starts[k]:starts[k + 1]]``) one after the other at each pixel. Each reads the
    pixel as float32 (the original's ``image[y, x, :].astype(np.float32)``) and makes it
    ``v + f (255 - v)`` (sparkles) or ``255 + f (v - 255)`` (``inverse``); the last result is
    clipped and truncated. (The original runs one whole-image pass per sparkle; a pixel's chain
    is the same either way.)"""
    h, w, _ = image.shape
    count = centers.shape[0]
    for y in range(h):
        for x in range(w):
            v0 = float(image[y, x, 0])
            v1 = float(image[y, x, 1])
            v2 = float(image[y, x, 2])
            for k in range(count):
                rays = starts[k + 1] - starts[k]
                f = _sparkle_weight(
                    y - centers[k, 0], x - centers[k, 1], lengths, starts[k], rays, exponent, two
                )
                a0 = np.float64(np.float32(v0))
                a1 = np.float64(np.float32(v1))
                a2 = np.float64(np.float32(v2))
                if inverse:
                    v0 = 255.0 + f * (a0 - 255.0)
                    v1 = 255.0 + f * (a1 - 255.0)
                    v2 = 255.0 + f * (a2 - 255.0)
                else:
                    v0 = a0 + f * (255.0 - a0)
                    v1 = a1 + f * (255.0 - a1)
                    v2 = a2 + f * (255.0 - a2)
            out[y, x, 0] = to_u8(v0)
            out[y, x, 1] = to_u8(v1)
            out[y, x, 2] = to_u8(v2)

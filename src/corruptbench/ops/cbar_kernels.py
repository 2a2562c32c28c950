"""The per-pixel Python of ImageNet-C-bar's ``corrupt.py`` and ``utils/image.py``, compiled.

The original (facebookresearch/augmentation-corruption, commit ba4d5a5, ``imagenet_c_bar/``) loops
over pixels in Python and computes each pixel with NumPy *scalars*; these kernels perform the same
float64 (and, where the original has them, float32) operations in the same order, so that
``np.uint8`` of the result is the original's byte for byte. What that takes, besides the formulas:

* **Scalar powers call libm.** ``s ** 2`` on a NumPy float64 scalar calls C ``pow(s, 2.0)``,
  which is not always ``s * s`` rounded (22 in 20,000 random values differ; an array's ``a ** 2``
  is ``a * a``). LLVM rewrites ``pow(s, 2.0)`` with a literal exponent as ``s * s``, so the
  kernels take the exponent 2.0 as an argument (``two``): a run-time value stays a ``pow`` call.
* **Remainders** (``%`` on floats) are NumPy's: ``fmod``, then shifted by the divisor when the
  signs differ (:func:`_np_mod`).
* **Small dot products** are OpenBLAS's ``ddot`` as NumPy 1.26 calls it: two terms in order; three
  terms as ``(a0 b0 + a2 b2) + a1 b1`` (for vectors that are 16-byte aligned, as fresh arrays
  are); ``np.linalg.norm(v)`` is ``sqrt(v . v)``. (Measured in the reference environment.)
* **NumPy 1 value-based casting**: a float32 array times a float64 *scalar* is computed in
  float32 (the scalar rounded to float32 first); times an int64 array (the ``[0, 0, 0]`` that
  ``bilinear_interpolation`` returns outside the image) in float64.
* **Transcendentals** (``sin``, ``cos``, ``atan2``, ``acos``, ``asin``, ``tan``, ``pow``) are
  glibc's, as NumPy's are when it uses no AVX-512 code (``NPY_DISABLE_CPU_FEATURES``): NumPy
  1.26's AVX-512 ``arctan2``, ``power``, ``exp``, ``arccos``, ``arcsin`` and ``tan`` differ from
  glibc in the last bit, which moves a rare value across an integer before the ``uint8`` cast.
* ``error_model="numpy"``: a float division by zero gives ``inf`` / ``nan`` as in NumPy instead of
  raising.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel

__all__ = [
    "single_frequency_u8",
    "cocentric_sine_u8",
    "plasma_u8",
    "voronoi_u8",
    "caustic_field",
    "add_gray_field_u8",
    "sparkle_pass",
    "clip_f64_u8",
    "checkerboard_u8",
]

_NUMPY_ERRORS = {"error_model": "numpy"}
_TWO_PI = 2 * math.pi  # the original's ``2 * np.pi``


@kernel(inline="always", **_NUMPY_ERRORS)
def _np_mod(a: float, b: float) -> float:
    """NumPy's float remainder ``a % b``: ``fmod(a, b)``, plus ``b`` when the signs differ."""
    m = np.fmod(a, b)
    if m != 0.0 and ((b < 0.0) != (m < 0.0)):
        m += b
    return m


@kernel(inline="always", **_NUMPY_ERRORS)
def _clip(v: float, lo: float, hi: float) -> float:
    """``np.clip`` of a scalar (NaN stays NaN)."""
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@kernel(inline="always", **_NUMPY_ERRORS)
def _to_u8(v: float) -> np.uint8:
    """``np.clip(v, 0, 255).astype(np.uint8)``: clipped, then truncated (NaN, which ``np.clip``
    keeps, casts to 0 as NumPy's cast does on x86)."""
    if not v > 0.0:
        return np.uint8(0)
    if v > 255.0:
        return np.uint8(255)
    return np.uint8(v)


@kernel(**_NUMPY_ERRORS)
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
                out[y, x, c] = _to_u8(image[y, x, c] + a)


@kernel(**_NUMPY_ERRORS)
def clip_f64_u8(values: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """``np.clip(values, 0, 255).astype(np.uint8)`` of an H x W x 3 float64 array."""
    h, w, _ = values.shape
    for y in range(h):
        for x in range(w):
            for c in range(3):
                out[y, x, c] = _to_u8(values[y, x, c])


@kernel(**_NUMPY_ERRORS)
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
                out[y, x, c] = _to_u8(image[y, x, c] + a)


@kernel(**_NUMPY_ERRORS)
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
    for y in range(h):
        dy = y - y0
        for x in range(w):
            dx = x - x0
            angle = math.atan2(dx, dy) * freq
            r = math.sqrt(dx**two + dy**two) + math.sin(angle) * amplitude
            n = _np_mod(r, ring_width) / ring_width
            n -= 0.5
            for c in range(3):
                out[y, x, c] = _to_u8(image[y, x, c] + intensity[c] * n)


@kernel(**_NUMPY_ERRORS)
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
    for y in range(h):
        for x in range(w):
            px = x / scale
            py = y / scale
            i0, i1, i2, i3 = 1.0, 1.0, 1.0, 0.0
            for _ in range(iterations):
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
                out[y, x, c] = _to_u8(keep * image[y, x, c] + intensity * rgb[c])


@kernel(inline="always", **_NUMPY_ERRORS)
def _smoothstep01(v: float, two: float, three: float) -> float:
    """utils/image.py ``smoothstep(0, 1, v)`` on a scalar: clip to [0, 1], then
    ``clip(3 v^2 - 2 v^3, 0, 1)`` with libm powers."""
    v = _clip(v, 0.0, 1.0)
    v = (v - 0.0) / (1.0 - 0.0)
    s = 3 * (v**two) - 2 * (v**three)
    return _clip(s, 0.0, 1.0)


@kernel(**_NUMPY_ERRORS)
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
            f0 = _np_mod(v0, 1.0)
            f1 = _np_mod(v1, 1.0)
            dist = 1.0
            for i in range(-1, 2):
                for j in range(-1, 2):
                    q0 = g0 + i
                    q1 = g1 + j
                    w0 = 13.85 * q0 + 47.77 * q1
                    w1 = 99.41 * q0 + 88.48 * q1
                    h0 = _np_mod(math.sin(w0) * math.sqrt(w0) * seed * 0.0025, 1.0)
                    h1 = _np_mod(math.sin(w1) * math.sqrt(w1) * seed * 0.0025, 1.0)
                    d0 = (i + h0) - f0
                    d1 = (j + h1) - f1
                    cur = math.sqrt(d0 * d0 + d1 * d1)
                    if not dist < cur:  # Python's min(cur, dist) keeps cur on ties
                        dist = cur
            n = _smoothstep01(dist * density, two, three) - 0.5
            for c in range(3):
                out[y, x, c] = _to_u8(image[y, x, c] + intensity * n)


@kernel(**_NUMPY_ERRORS)
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
    for y in range(h):
        p0 = _np_mod(y / size, 1.0) * 6.28318530718 - 250
        for x in range(w):
            p1 = _np_mod(x / size, 1.0) * 6.28318530718 - 250
            i0 = p0
            i1 = p1
            c = 1.0
            for n in range(5):
                t = time * (1.0 - (3.5 / (n + 1)))
                a0 = math.cos(t - i0) + math.sin(t + i1)
                a1 = math.sin(t - i1) + math.cos(t + i0)
                i0 = p0 + a0
                i1 = p1 + a1
                la = (p0 / (math.sin(i0 + t) / inten)) ** two
                lb = (p1 / (math.cos(i1 + t) / inten)) ** two
                c += 1.0 / math.sqrt(la + lb)
            c /= 5.0
            c = 1.17 - c**p14
            out[y, x] = _clip(abs(c) ** p8, 0.0, 1.0)


@kernel(**_NUMPY_ERRORS)
def sparkle_pass(
    values: np.ndarray,
    cy: float,
    cx: float,
    ray_lengths: np.ndarray,
    exponent: float,
    inverse: bool,
    two: float,
) -> None:  # pragma: no cover - compiled
    """One sparkle of Sparkles / InverseSparkles over ``values`` (H x W x 3 float64, in place).

    Per pixel, from the centre ``(cy, cx)``: ``d = (atan2(dx, dy) + pi) / 2pi * rays``, ``i =
    int(d)``, ``f = d - i``; the ray length interpolated between rays ``i`` and ``i + 1``;
    ``g = (length^2 / (dist^2 + 1e-4))^exponent``; ``f = clip((1 - (f - 0.5)^2) g, 0, 1)``.
    The pixel, read as float32 as the original's ``image[y, x, :].astype(np.float32)``, becomes
    ``v + f (255 - v)`` (sparkles) or ``255 + f (v - 255)`` (``inverse``).
    """
    h, w, _ = values.shape
    rays = ray_lengths.shape[0]
    for y in range(h):
        dy = y - cy
        for x in range(w):
            dx = x - cx
            dist = math.sqrt(dy * dy + dx * dx)
            angle = math.atan2(dx, dy)
            d = (angle + math.pi) / _TWO_PI * rays
            i = int(d)
            f = d - i
            lo = ray_lengths[i % rays]
            length = lo + f * (ray_lengths[(i + 1) % rays] - lo)
            g = length**two / (dist**two + 1e-4)
            g = g**exponent
            f -= 0.5
            f = 1 - f**two
            f *= g
            f = _clip(f, 0.0, 1.0)
            for c in range(3):
                v = np.float64(np.float32(values[y, x, c]))
                if inverse:
                    values[y, x, c] = 255.0 + f * (v - 255.0)
                else:
                    values[y, x, c] = v + f * (255.0 - v)


@kernel(**_NUMPY_ERRORS)
def checkerboard_u8(
    image: np.ndarray,
    cos_a: float,
    sin_a: float,
    scale: float,
    grid: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """CheckerBoardCutOut's ``mask_kernel``: ``nx = (cos a y + sin a x) / scale``,
    ``ny = (-sin a y + cos a x) / scale``; a pixel turns grey (128) where ``int(nx mod 2) ==
    int(ny mod 2)`` and ``grid[int(nx), int(ny)]`` (Python indexing: negative from the end)."""
    h, w, _ = image.shape
    n0, n1 = grid.shape
    for y in range(h):
        for x in range(w):
            nx = (cos_a * y + sin_a * x) / scale
            ny = (-sin_a * y + cos_a * x) / scale
            cut = False
            if int(_np_mod(nx, 2.0)) == int(_np_mod(ny, 2.0)):
                ix = int(nx)
                iy = int(ny)
                if ix < 0:
                    ix += n0
                if iy < 0:
                    iy += n1
                cut = grid[ix, iy]
            for c in range(3):
                out[y, x, c] = 128 if cut else image[y, x, c]

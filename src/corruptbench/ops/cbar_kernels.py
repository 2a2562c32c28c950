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
    "sparkles_u8",
    "checkerboard_u8",
]

_TWO_PI = 2 * math.pi  # the original's ``2 * np.pi``


@kernel(inline="always", error_model="numpy")
def _np_mod(a: float, b: float) -> float:
    """NumPy's float remainder ``a % b``: ``fmod(a, b)``, plus ``b`` when the signs differ."""
    m = np.fmod(a, b)
    if m != 0.0 and ((b < 0.0) != (m < 0.0)):
        m += b
    return m


@kernel(inline="always", error_model="numpy")
def _clip(v: float, lo: float, hi: float) -> float:
    """``np.clip`` of a scalar (NaN stays NaN)."""
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@kernel(inline="always", error_model="numpy")
def _to_u8(v: float) -> np.uint8:
    """``np.clip(v, 0, 255).astype(np.uint8)``: clipped, then truncated (NaN, which ``np.clip``
    keeps, casts to 0 as NumPy's cast does on x86)."""
    if not v > 0.0:
        return np.uint8(0)
    if v > 255.0:
        return np.uint8(255)
    return np.uint8(v)


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
                out[y, x, c] = _to_u8(image[y, x, c] + a)


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
                out[y, x, c] = _to_u8(image[y, x, c] + a)


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
            n = _np_mod(r, ring_width) / ring_width
            n -= 0.5
            for c in range(3):
                out[y, x, c] = _to_u8(image[y, x, c] + intensity[c] * n)


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
                out[y, x, c] = _to_u8(keep * image[y, x, c] + intensity * rgb[c])


@kernel(inline="always", error_model="numpy")
def _smoothstep01(v: float, two: float, three: float) -> float:
    """utils/image.py ``smoothstep(0, 1, v)`` on a scalar: clip to [0, 1], then
    ``clip(3 v^2 - 2 v^3, 0, 1)`` with libm powers."""
    v = _clip(v, 0.0, 1.0)
    v = (v - 0.0) / (1.0 - 0.0)
    s = 3 * (v**two) - 2 * (v**three)
    return _clip(s, 0.0, 1.0)


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
        p0 = _np_mod(y / size, 1.0) * 6.28318530718 - 250
        row_p[y] = p0
        row_cos[y, 0] = math.cos(t1 - p0)
        row_cos[y, 1] = math.cos(t1 + p0)
    for x in range(w):
        p1 = _np_mod(x / size, 1.0) * 6.28318530718 - 250
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
            out[y, x] = _clip(abs(c) ** p8, 0.0, 1.0)


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
    d = (angle + math.pi) / _TWO_PI * rays
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
    return _clip(f, 0.0, 1.0)


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
            out[y, x, 0] = _to_u8(v0)
            out[y, x, 1] = _to_u8(v1)
            out[y, x, 2] = _to_u8(v2)


@kernel(error_model="numpy")
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


# ------------------------------------------------------------------------------------------------
# utils/image.py bilinear_interpolation, and the warps that sample through it
# ------------------------------------------------------------------------------------------------


@kernel(inline="always", error_model="numpy")
def _weights(p0: float, p1: float) -> tuple[int, int, float, float, float, float]:
    """The original's corner and weights: row ``i = floor(p0)``, column ``j = floor(p1)``, the
    column weights ``(1.0 - p1) + j`` and ``(1.0 - (j + 1)) + p1``, the row weights
    ``(1.0 - p0) + i`` and ``(1.0 - (i + 1)) + p0`` (its ``l, u`` and ``r, d`` are ``i, j`` and
    ``i + 1, j + 1``)."""
    i = int(math.floor(p0))
    j = int(math.floor(p1))
    wj0 = (1.0 - p1) + j
    wj1 = (1.0 - (j + 1)) + p1
    wi0 = (1.0 - p0) + i
    wi1 = (1.0 - (i + 1)) + p0
    return i, j, wj0, wj1, wi0, wi1


@kernel(inline="always", error_model="numpy")
def _bilinear_u8(
    image: np.ndarray, p0: float, p1: float, c: int
) -> float:  # pragma: no cover - compiled
    """``bilinear_interpolation(image, (p0, p1))[c]`` of a uint8 image: all in float64 (a uint8
    array times a float scalar is float64), 0 outside the image."""
    h, w, _ = image.shape
    i, j, wj0, wj1, wi0, wi1 = _weights(p0, p1)
    top = 0 <= i < h
    bottom = 0 <= i + 1 < h
    left = 0 <= j < w
    right = 0 <= j + 1 < w
    v00 = float(image[i, j, c]) if top and left else 0.0
    v01 = float(image[i, j + 1, c]) if top and right else 0.0
    v10 = float(image[i + 1, j, c]) if bottom and left else 0.0
    v11 = float(image[i + 1, j + 1, c]) if bottom and right else 0.0
    a0 = v00 * wj0 + v01 * wj1
    a1 = v10 * wj0 + v11 * wj1
    return a0 * wi0 + a1 * wi1


@kernel(inline="always", error_model="numpy")
def _mix(a: float, a64: bool, wa: float, b: float, b64: bool, wb: float) -> tuple[float, bool]:
    """``a * wa + b * wb`` with NumPy 1's types: ``a`` / ``b`` a float32 array (flag False) or a
    float64 one (flag True), ``wa`` / ``wb`` float64 scalars, which a float32 array meets in
    float32. Returns the value (float32 values exactly, as float64) and whether it is float64."""
    if a64:
        x = a * wa
    else:
        x = np.float64(np.float32(a) * np.float32(wa))
    if b64:
        y = b * wb
    else:
        y = np.float64(np.float32(b) * np.float32(wb))
    if a64 or b64:
        return x + y, True
    return np.float64(np.float32(x) + np.float32(y)), False


@kernel(inline="always", error_model="numpy")
def _bilinear_f32(
    image: np.ndarray, p0: float, p1: float, c: int
) -> tuple[float, bool]:  # pragma: no cover - compiled
    """``bilinear_interpolation(image, (p0, p1))[c]`` of a float32 image with NumPy 1's types:
    inside the image the products and sums are float32; a neighbour outside is the int64
    ``[0, 0, 0]``, whose products make that sum (and what follows) float64. Returns the value
    and whether it is float64."""
    h, w, _ = image.shape
    i, j, wj0, wj1, wi0, wi1 = _weights(p0, p1)
    top = 0 <= i < h
    bottom = 0 <= i + 1 < h
    left = 0 <= j < w
    right = 0 <= j + 1 < w
    v00 = np.float64(image[i, j, c]) if top and left else 0.0
    v01 = np.float64(image[i, j + 1, c]) if top and right else 0.0
    v10 = np.float64(image[i + 1, j, c]) if bottom and left else 0.0
    v11 = np.float64(image[i + 1, j + 1, c]) if bottom and right else 0.0
    a0, a0_64 = _mix(v00, not (top and left), wj0, v01, not (top and right), wj1)
    a1, a1_64 = _mix(v10, not (bottom and left), wj0, v11, not (bottom and right), wj1)
    return _mix(a0, a0_64, wi0, a1, a1_64, wi1)


@kernel(inline="always", error_model="numpy")
def _pinch_point(
    y: int,
    x: int,
    cy: float,
    cx: float,
    radius: float,
    neg_amount: float,
    angle: float,
    two: float,
) -> tuple[float, float]:
    """PinchAndTwirl's ``warp_kernel``: unchanged beyond ``radius`` or at the centre
    (``np.round(dist, 3) == 0``), else pushed out by ``sin(pi/2 d)^-amount`` and turned by
    ``angle (1 - d)^2``, ``d = dist / radius``."""
    dy = y - cy
    dx = x - cx
    dist = math.sqrt(dy * dy + dx * dx)
    if dist > radius or dist * 1000.0 <= 0.5:
        return float(y), float(x)
    d = dist / radius
    t = math.sin(np.pi * 0.5 * d) ** neg_amount
    dy *= t
    dx *= t
    e = 1 - d
    a = angle * (e**two)
    return cy + (dy * math.cos(a) - dx * math.sin(a)), cx + (dy * math.sin(a) + dx * math.cos(a))


@kernel(error_model="numpy")
def pinch_and_twirl_f32(
    values: np.ndarray,
    cell: int,
    angles: np.ndarray,
    amount: float,
    two: float,
    scratch: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """PinchAndTwirl's cells (``cell`` px squares, ``angles[i, j]`` for column cell ``i`` and row
    cell ``j``), in the original's order, each resampled from the float32 ``values`` as they
    stand (in place; ``scratch`` holds a cell)."""
    radius = cell / 2
    for i in range(angles.shape[0]):
        for j in range(angles.shape[1]):
            lo = i * cell
            up = j * cell
            cy = up + radius
            cx = lo + radius
            for y in range(up, up + cell):
                for x in range(lo, lo + cell):
                    py, px = _pinch_point(y, x, cy, cx, radius, -amount, angles[i, j], two)
                    for c in range(3):
                        scratch[y - up, x - lo, c] = _bilinear_f32(values, py, px, c)[0]
            for y in range(up, up + cell):
                for x in range(lo, lo + cell):
                    for c in range(3):
                        values[y, x, c] = np.float32(scratch[y - up, x - lo, c])


@kernel(inline="always", error_model="numpy")
def _lens_axis(d: float, sq: float, z: float, z2: float, r: float) -> float:
    """FishEye's refraction along one axis: the tangent offset ``tan(angle_2) z``."""
    ax = math.acos(d / math.sqrt(sq + z2))
    a1 = np.pi / 2 - ax
    a2 = math.asin(math.sin(a1) * r)
    a2 = np.pi / 2 - ax - a2
    return math.tan(a2) * z


@kernel(error_model="numpy")
def fish_eye_f32(
    values: np.ndarray,
    centers: np.ndarray,
    radius: float,
    eta: float,
    two: float,
    scratch: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """FishEye: a spherical lens of index ``eta`` and radius ``radius`` at each of ``centers``
    (row, column), one after the other, each resampling the float32 ``values`` as they stand
    over its bounding box (in place; ``scratch`` holds a box)."""
    h, w, _ = values.shape
    r_eta = 1.0 / eta
    a2 = radius**two
    ab = radius * radius
    for k in range(centers.shape[0]):
        c0 = centers[k, 0]
        c1 = centers[k, 1]
        lo = max(int(math.floor(c1 - radius)), 0)
        hi = min(int(math.ceil(c1 + radius)), w)
        up = max(int(math.floor(c0 - radius)), 0)
        dn = min(int(math.ceil(c0 + radius)), h)
        for y in range(up, dn):
            for x in range(lo, hi):
                dy = y - c0
                dx = x - c1
                y2 = dy**two
                x2 = dx**two
                py = float(y)
                px = float(x)
                if not x2 >= (a2 - a2 * y2 / a2):
                    z = math.sqrt((1.0 - y2 / a2 - x2 / a2) * ab)
                    z2 = z**two
                    py = y - _lens_axis(dy, y2, z, z2, r_eta)
                    px = x - _lens_axis(dx, x2, z, z2, r_eta)
                for c in range(3):
                    scratch[y - up, x - lo, c] = _bilinear_f32(values, py, px, c)[0]
        for y in range(up, dn):
            for x in range(lo, hi):
                for c in range(3):
                    values[y, x, c] = np.float32(scratch[y - up, x - lo, c])


@kernel(error_model="numpy")
def water_drop_u8(
    image: np.ndarray,
    c0: float,
    c1: float,
    radius: float,
    amplitude: float,
    wavelength: float,
    phase: float,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """WaterDrop: within ``radius`` of ``(c0, c1)`` a point moves radially by
    ``amplitude sin(2 pi dist / wavelength - phase) wavelength / dist`` times its offset; the
    image is sampled there (``bilinear_interpolation``), clipped and truncated."""
    h, w, _ = image.shape
    for y in range(h):
        for x in range(w):
            dy = y - c0
            dx = x - c1
            dist = math.sqrt(dy * dy + dx * dx)
            py = float(y)
            px = float(x)
            if not dist > radius:
                amount = amplitude * math.sin(dist / wavelength * np.pi * 2 - phase)
                if dist != 0.0:
                    amount *= wavelength / dist
                py = y + amount * dy
                px = x + amount * dx
            for c in range(3):
                out[y, x, c] = _to_u8(_bilinear_u8(image, py, px, c))


@kernel(error_model="numpy")
def ripple_u8(
    image: np.ndarray,
    amplitudes: np.ndarray,
    wavelengths: np.ndarray,
    phases: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Ripple: the image sampled at ``p + amplitudes sin(2 pi p / wavelengths + phases)`` per
    axis (``p = (y, x)``), clipped and truncated."""
    h, w, _ = image.shape
    for y in range(h):
        py = y + amplitudes[0] * math.sin(_TWO_PI * y / wavelengths[0] + phases[0])
        for x in range(w):
            px = x + amplitudes[1] * math.sin(_TWO_PI * x / wavelengths[1] + phases[1])
            for c in range(3):
                out[y, x, c] = _to_u8(_bilinear_u8(image, py, px, c))


@kernel(inline="always", error_model="numpy")
def _scatter_hash(a: int, b: int, seed: float) -> float:
    """Scatter's ``noise(a, b, seed)``: ``(sin(12.9898 sin(a seed) + 78.233 cos(b seed))
    43758.5453) mod 1``."""
    i = math.sin(a * seed)
    j = math.cos(b * seed)
    return _np_mod(math.sin(12.9898 * i + 78.233 * j) * 43758.5453, 1.0)


@kernel(error_model="numpy")
def scatter_u8(
    image: np.ndarray, seed: float, radius: float, out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """Scatter: each pixel sampled at itself plus a hashed offset in ``[-radius, radius]`` per
    axis, clamped to the image (``min(max(0, v), n - 1)``), truncated to uint8."""
    h, w, _ = image.shape
    for y in range(h):
        for x in range(w):
            px = x + radius * (-1.0 + _scatter_hash(x, y, seed) * 2)
            py = y + radius * (-1.0 + _scatter_hash(y, x, seed) * 2)
            if not px > 0:
                px = 0.0
            if w - 1 < px:
                px = float(w - 1)
            if not py > 0:
                py = 0.0
            if h - 1 < py:
                py = float(h - 1)
            for c in range(3):
                out[y, x, c] = _to_u8(_bilinear_u8(image, py, px, c))


@kernel(inline="always", error_model="numpy")
def _luma(field: np.ndarray, y: int, x: int) -> float:
    """``np.dot(field[y, x], (0.2126, 0.7152, 0.0722))`` in OpenBLAS's order, 0 outside."""
    h, w, _ = field.shape
    if not (0 <= y < h and 0 <= x < w):
        return 0.0
    return (field[y, x, 0] * 0.2126 + field[y, x, 2] * 0.0722) + field[y, x, 1] * 0.7152


@kernel(inline="always", error_model="numpy")
def _refraction(a: float, b: float, eta: float, scale: float) -> tuple[float, float]:
    """``np.round(refract((0, 0, 1), normal, eta) * scale, 3)[:2]`` for the lens normal
    ``(a, b, 1) / |(a, b, 1)|``.

    The refracted ray is ``R^-1 (cos t, sin t, 0)`` with ``R`` the orthonormal rows (normal,
    normal x spectator, spectator) and ``t = asin(sin(acos n2) / eta)``; it is computed here as
    ``R^T (cos t, sin t, 0)``, which differs from LAPACK's ``inv(R)`` in the last bits, and the
    original's rounding to 1/1000 px removes that (no difference in 66,880 sampled normals).
    """
    length = math.sqrt((a * a + 1.0) + b * b)
    n0 = a / length
    n1 = b / length
    n2 = 1.0 / length
    if abs(n2) >= 1.0 - 1e-3:
        return 0.0, 0.0
    t = math.asin(math.sin(math.acos(n2)) / eta)
    ct = math.cos(t)
    st = math.sin(t)
    s_len = math.sqrt((n1 * n1 + 0.0) + n0 * n0)
    s0 = -n1 / s_len
    s1 = n0 / s_len
    o0 = -(n2 * s1)
    o1 = n2 * s0
    r0 = (ct * n0 + st * o0) * scale
    r1 = (ct * n1 + st * o1) * scale
    return np.rint(r0 * 1000.0) / 1000.0, np.rint(r1 * 1000.0) / 1000.0


@kernel(error_model="numpy")
def caustic_refraction_f64(
    image: np.ndarray,
    caustics: np.ndarray,
    eta: float,
    lens_scale: float,
    lighting: float,
    out: np.ndarray,
) -> bool:  # pragma: no cover - compiled
    """CausticRefraction's ``luma_based_refract`` per pixel: the lens normal from the luma
    differences of the (blurred) caustics around the pixel, the image (``image / 255`` in
    float32) sampled at the refracted point, plus ``(north - south + east - west) lighting``,
    clipped to [0, 1] into ``out`` (float64; float32 values where NumPy 1 keeps float32).
    Returns whether any pixel is float64 (then NumPy stacks all of them as float64)."""
    h, w, _ = image.shape
    any64 = False
    unit = np.empty((h, w, 3), np.float32)
    for y in range(h):
        for x in range(w):
            for c in range(3):
                unit[y, x, c] = np.float32(image[y, x, c]) / np.float32(255.0)
    for y in range(h):
        for x in range(w):
            north = _luma(caustics, y, x - 1)
            south = _luma(caustics, y, x + 1)
            west = _luma(caustics, y - 1, x)
            east = _luma(caustics, y + 1, x)
            r0, r1 = _refraction(east - west, south - north, eta, lens_scale)
            d1 = (north - south) * lighting
            d2 = (east - west) * lighting
            for c in range(3):
                v, is64 = _bilinear_f32(unit, y + r0, x + r1, c)
                if is64:
                    v += d1
                    v += d2
                else:
                    v32 = np.float32(v) + np.float32(d1)
                    v = np.float64(v32 + np.float32(d2))
                out[y, x, c] = _clip(v, 0.0, 1.0)
                any64 = any64 or is64
    return any64


# ------------------------------------------------------------------------------------------------
# colour
# ------------------------------------------------------------------------------------------------


@kernel(inline="always", error_model="numpy")
def _pseudo_color(
    c0: float,
    c1: float,
    step: float,
    e0: float,
    e1: float,
    luma: float,
    smoothness: float,
    two: float,
    three: float,
) -> float:
    """Pseudocolor's ``get_color`` for one channel: ``(1 - smoothness) linear + smoothness
    smooth`` with ``smooth = c0 + step smoothstep(e0, e1, luma)`` (``step`` is the uint8
    ``c1 - c0``, which wraps) and ``linear = (1 - a) c0 + a c1``, ``a = 4 (luma - e0)``. The
    array's ``x ** 2`` is ``x * x``, its ``x ** 3`` libm ``pow``."""
    x = _clip(luma, e0, e1)
    x = (x - e0) / (e1 - e0)
    s = _clip(3 * (x * x) - 2 * (x**three), 0.0, 1.0)
    smooth = c0 + step * s
    a = 4.0 * (luma - e0)
    linear = (1 - a) * c0 + a * c1
    return (1 - smoothness) * linear + smoothness * smooth


@kernel(error_model="numpy")
def pseudocolor_u8(
    image: np.ndarray,
    colors: np.ndarray,
    smoothness: float,
    amount: float,
    two: float,
    three: float,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Pseudocolor: the luma ``(0.2126 R + 0.7152 G + 0.0722 B) / 255`` (summed in that order)
    picks one of four ramps between consecutive ``colors`` (uint8 ``(5, 3)``) on ``[0, 0.25)``,
    ``[0.25, 0.5)``, ``[0.5, 0.75)``, ``[0.75, ...)``; the pixel is ``(1 - amount) image + amount
    colour``, clipped and truncated."""
    h, w, _ = image.shape
    for y in range(h):
        for x in range(w):
            luma = (
                (float(image[y, x, 0]) * 0.2126 + float(image[y, x, 1]) * 0.7152)
                + float(image[y, x, 2]) * 0.0722
            ) / 255
            if luma < 0.25:
                k = 0
            elif luma < 0.5:
                k = 1
            elif luma < 0.75:
                k = 2
            else:
                k = 3
            e0 = 0.25 * k
            e1 = 0.25 * (k + 1)
            for c in range(3):
                lo = colors[k, c]
                hi = colors[k + 1, c]
                step = float(np.uint8(hi - lo))
                col = _pseudo_color(
                    float(lo), float(hi), step, e0, e1, luma, smoothness, two, three
                )
                out[y, x, c] = _to_u8((1 - amount) * image[y, x, c] + amount * col)


@kernel(inline="always", error_model="numpy")
def _diffuse(work: np.ndarray, y: int, x: int, e0: int, e1: int, e2: int, weight: int) -> None:
    """``work[y, x] = uint8(clip(float32(work[y, x]) + e * weight / 16))`` per channel."""
    for c in range(3):
        e = e0 if c == 0 else (e1 if c == 1 else e2)
        work[y, x, c] = _to_u8(np.float64(np.float32(work[y, x, c])) + e * weight / 16)


@kernel(error_model="numpy")
def color_dither_u8(
    image: np.ndarray, table: np.ndarray, work: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """ColorDither: each value quantised through ``table`` (``color_map[div[v]]``) in scan
    order, its error ``e`` diffused as the original does: ``e * 7 / 16`` then ``e * 1 / 16`` to
    the next pixel of the row (the original's ``index + j`` stays in the row; ``3 / 16`` and
    ``5 / 16`` land on pixels already quantised), each step clipped and truncated to uint8, and
    only where ``0 < row`` (for the 7/16 step) or ``row + 1 < H`` (for the 1/16 step) and
    ``0 < column + 1 < W`` (the original's ``> 0`` bounds). ``work`` is a copy of ``image``."""
    h, w, _ = image.shape
    for y in range(h):
        for x in range(w):
            e0 = e1 = e2 = np.int64(0)
            for c in range(3):
                v = work[y, x, c]
                q = table[v]
                out[y, x, c] = q
                e = np.int64(v) - np.int64(q)
                if c == 0:
                    e0 = e
                elif c == 1:
                    e1 = e
                else:
                    e2 = e
            if 0 < x + 1 < w:
                if 0 < y < h:
                    _diffuse(work, y, x + 1, e0, e1, e2, 7)
                if 0 < y + 1 < h:
                    _diffuse(work, y, x + 1, e0, e1, e2, 1)


@kernel(inline="always", error_model="numpy")
def _wrap_u8(v: float) -> np.uint8:
    """NumPy's float64 -> uint8 cast without a clip (x86): truncated towards zero, low byte."""
    return np.uint8(np.int64(v) & 255)


@kernel(error_model="numpy")
def bleach_bypass_u8(image: np.ndarray, amount: float, out: np.ndarray) -> None:  # pragma: no cover
    """BleachBypass, the original's array expressions per pixel in float64: ``luma = (0.2126 R +
    0.7152 G + 0.0722 B) / 255``, ``l = clip(10 (luma - 0.45), 0, 1)``, per channel
    ``(1 - l) uint8(2 x) luma / 255 + l (1 - 2 (1 - luma)(1 - x / 255))`` times 255, blended with
    ``amount`` and cast without a clip (``uint8(2 x)`` wraps, as the original's)."""
    h, w, _ = image.shape
    for y in range(h):
        for x in range(w):
            luma = (
                (float(image[y, x, 0]) * 0.2126 + float(image[y, x, 1]) * 0.7152)
                + float(image[y, x, 2]) * 0.0722
            ) / 255
            mix = _clip(10.0 * (luma - 0.45), 0.0, 1.0)
            for c in range(3):
                v = float(image[y, x, c])
                dark = float(np.uint8((2 * np.int64(image[y, x, c])) & 255)) * luma / 255
                light = 1.0 - 2.0 * (1.0 - luma) * (1.0 - v / 255)
                res = ((1 - mix) * dark + mix * light) * 255
                out[y, x, c] = _wrap_u8((1 - amount) * v + amount * res)


@kernel(error_model="numpy")
def technicolor_u8(image: np.ndarray, amount: float, out: np.ndarray) -> None:  # pragma: no cover
    """Technicolor, the original's array expressions per pixel in float64: each channel times
    the other two's mattes ``1 - (c / 255 - (a / 2 + b / 2) / 255)``, blended with ``amount``
    and cast without a clip (values above 255 wrap, as the original's)."""
    h, w, _ = image.shape
    for y in range(h):
        for x in range(w):
            r = float(image[y, x, 0])
            g = float(image[y, x, 1])
            b = float(image[y, x, 2])
            red_matte = 1.0 - (r / 255 - (g / 2 + b / 2) / 255)
            green_matte = 1.0 - (g / 255 - (r / 2 + b / 2) / 255)
            blue_matte = 1.0 - (b / 255 - (r / 2 + g / 2) / 255)
            out[y, x, 0] = _wrap_u8((1 - amount) * r + amount * (green_matte * blue_matte * r))
            out[y, x, 1] = _wrap_u8((1 - amount) * g + amount * (red_matte * blue_matte * g))
            out[y, x, 2] = _wrap_u8((1 - amount) * b + amount * (red_matte * green_matte * b))


@kernel(error_model="numpy")
def hue_shift_u8(image: np.ndarray, shift: np.float32, out: np.ndarray) -> None:  # pragma: no cover
    """HueShift: scikit-image's ``rgb2hsv`` of ``image / 255`` in float32, ``H += shift``,
    ``hsv2rgb``, ``clip(255 x, 0, 255)``, truncated; every step in float32 as scikit-image
    computes it for a float32 image (the hue of the channel that is the maximum, blue before
    green before red; ``(h / 6) mod 1``; ``hi = uint8(floor(6 H)) mod 6`` picks the sextant)."""
    h, w, _ = image.shape
    one = np.float32(1.0)
    six = np.float32(6.0)
    k255 = np.float32(255.0)
    zero = np.float32(0.0)
    for y in range(h):
        for x in range(w):
            r = np.float32(image[y, x, 0]) / k255
            g = np.float32(image[y, x, 1]) / k255
            b = np.float32(image[y, x, 2]) / k255
            v = max(r, g, b)
            delta = v - min(r, g, b)
            s = zero
            hue = zero
            if delta != zero:
                s = delta / v
                if b == v:
                    h6 = np.float32(4.0) + (r - g) / delta
                elif g == v:
                    h6 = np.float32(2.0) + (b - r) / delta
                else:
                    h6 = (g - b) / delta
                hue = h6 / six
                m = np.fmod(hue, one)
                if m != zero and m < zero:
                    m += one
                hue = m
            hue = hue + shift
            hi = np.float32(math.floor(hue * six))
            f = hue * six - hi
            p = v * (one - s)
            q = v * (one - f * s)
            t = v * (one - (one - f) * s)
            k = np.uint8(hi) % 6
            if k == 0:
                c0, c1, c2 = v, t, p
            elif k == 1:
                c0, c1, c2 = q, v, p
            elif k == 2:
                c0, c1, c2 = p, v, t
            elif k == 3:
                c0, c1, c2 = p, q, v
            elif k == 4:
                c0, c1, c2 = t, p, v
            else:
                c0, c1, c2 = v, p, q
            out[y, x, 0] = _to_u8(np.float64(c0 * k255))
            out[y, x, 1] = _to_u8(np.float64(c1 * k255))
            out[y, x, 2] = _to_u8(np.float64(c2 * k255))

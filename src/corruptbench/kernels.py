"""Kernel and map builders shared by several corruptions.

* :func:`disk` — the defocus kernel (reference ``disk``; spec §1.1)
* :func:`gaussian_kernel1d` / :func:`gaussian_filter_nearest` — scikit-image ``gaussian`` (=
  ``scipy.ndimage.gaussian_filter``, mode ``'nearest'``), compiled, bit-identical to SciPy, and
  :func:`gaussian_blur_u8` — the same on ``uint8 / 255`` with the clip and uint8 cast fused
* :func:`plasma_fractal` — the diamond-square fog map (reference ``plasma_fractal``)
* :func:`clipped_zoom` — centre-crop-and-zoom used by zoom blur and snow, and
  :func:`zoom_sum` — the sum of several clipped zooms (zoom blur's inner loop), both a native
  re-implementation of ``scipy.ndimage.zoom(order=1)`` (same coordinate mapping and weights), and
  :func:`zoom_blur_u8` — the whole zoom blur on uint8 in one compiled pass
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import cv2
import numba
import numpy as np
from llvmlite import ir
from numba.core import types as nbtypes
from numba.extending import intrinsic

__all__ = [
    "disk",
    "gaussian_kernel1d",
    "gaussian_filter_nearest",
    "gaussian_blur_u8",
    "plasma_fractal",
    "plasma_raw_map",
    "clipped_zoom",
    "zoom_sum",
    "zoom_blur_u8",
    "zoom_axis_table",
    "clipped_zoom_geometry",
    "next_pow2",
]


def disk(radius: float, alias_blur: float, dtype: Any = np.float32) -> np.ndarray:
    """Anti-aliased disk kernel of the reference ``disk(radius, alias_blur)``.

    ``L = -8..8`` (ksize 3) when ``radius <= 8`` else ``-radius..radius`` (ksize 5);
    ``K = GaussianBlur(1[X^2 + Y^2 <= r^2] / count, ksize, sigma=alias_blur)`` (OpenCV, REFLECT_101).
    The blurred kernel is *not* renormalised (sums ~1.013 at r = 8): a reference quirk kept on purpose.
    Returns a new array (the result of a cached computation, safe to modify).
    """
    return _disk_cached(float(radius), float(alias_blur), np.dtype(dtype).str).copy()


@functools.lru_cache(maxsize=64)
def _disk_cached(radius: float, alias_blur: float, dtype: str) -> np.ndarray:
    coords: np.ndarray
    if radius <= 8:
        coords = np.arange(-8, 8 + 1)
        ksize = (3, 3)
    else:
        # np.arange(-r, r + 1) as the reference (a float radius gives float coordinates)
        r = int(radius) if float(radius).is_integer() else radius
        coords = np.arange(-r, r + 1)
        ksize = (5, 5)
    xx, yy = np.meshgrid(coords, coords)
    aliased = np.array((xx**2 + yy**2) <= radius**2, dtype=dtype)
    aliased /= np.sum(aliased)
    out = cv2.GaussianBlur(aliased, ksize=ksize, sigmaX=alias_blur)
    out.flags.writeable = False
    return out


def next_pow2(n: int) -> int:
    """Smallest power of two >= n."""
    return 1 << max(0, int(n - 1).bit_length())


# ------------------------------------------------------------------------------------------------
# Gaussian filter (scikit-image / SciPy semantics)
# ------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _gaussian_kernel1d_cached(sigma: float, truncate: float) -> np.ndarray:
    radius = int(truncate * sigma + 0.5)
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    phi = np.exp(-0.5 / (sigma * sigma) * x**2)
    phi /= phi.sum()
    phi.flags.writeable = False
    return phi


def gaussian_kernel1d(sigma: float, truncate: float = 4.0) -> np.ndarray:
    """SciPy's ``gaussian_filter1d`` weights: radius ``int(truncate * sigma + 0.5)``, normalised."""
    return _gaussian_kernel1d_cached(float(sigma), float(truncate)).copy()


@numba.njit(cache=True, nogil=True)
def _gauss_axis0_row(src, i, h, mod, w, acc):  # pragma: no cover - compiled
    # Row i of the filter along axis 0 of (H, L) ``src``, SciPy's symmetric correlate1d order,
    # mode 'nearest': acc = s[i] * w0 + sum_{k = r..1} (s[i - k] + s[i + k]) * w_k, accumulated in
    # double (the pair sum in the source's dtype). Four taps per sweep over the row, the last one
    # to three in one sweep; per element the operations and their order are unchanged. Image row
    # q (0 <= q < h) is src[q % mod]: mod = h for the whole image, or the number of rows of a
    # ring buffer that holds the 2r + 1 rows around i.
    n = src.shape[1]
    r = w.shape[0] // 2
    w0 = w[r]
    s = src[i % mod]
    for e in range(n):
        acc[e] = s[e] * w0
    k = r
    while k >= 4:
        a0 = src[max(i - k, 0) % mod]
        b0 = src[min(i + k, h - 1) % mod]
        a1 = src[max(i - k + 1, 0) % mod]
        b1 = src[min(i + k - 1, h - 1) % mod]
        a2 = src[max(i - k + 2, 0) % mod]
        b2 = src[min(i + k - 2, h - 1) % mod]
        a3 = src[max(i - k + 3, 0) % mod]
        b3 = src[min(i + k - 3, h - 1) % mod]
        u0 = w[r - k]
        u1 = w[r - k + 1]
        u2 = w[r - k + 2]
        u3 = w[r - k + 3]
        for e in range(n):
            v = acc[e] + (a0[e] + b0[e]) * u0
            v = v + (a1[e] + b1[e]) * u1
            v = v + (a2[e] + b2[e]) * u2
            acc[e] = v + (a3[e] + b3[e]) * u3
        k -= 4
    if k == 3:
        a0 = src[max(i - 3, 0) % mod]
        b0 = src[min(i + 3, h - 1) % mod]
        a1 = src[max(i - 2, 0) % mod]
        b1 = src[min(i + 2, h - 1) % mod]
        a2 = src[max(i - 1, 0) % mod]
        b2 = src[min(i + 1, h - 1) % mod]
        u0 = w[r - 3]
        u1 = w[r - 2]
        u2 = w[r - 1]
        for e in range(n):
            v = acc[e] + (a0[e] + b0[e]) * u0
            v = v + (a1[e] + b1[e]) * u1
            acc[e] = v + (a2[e] + b2[e]) * u2
    elif k == 2:
        a0 = src[max(i - 2, 0) % mod]
        b0 = src[min(i + 2, h - 1) % mod]
        a1 = src[max(i - 1, 0) % mod]
        b1 = src[min(i + 1, h - 1) % mod]
        u0 = w[r - 2]
        u1 = w[r - 1]
        for e in range(n):
            v = acc[e] + (a0[e] + b0[e]) * u0
            acc[e] = v + (a1[e] + b1[e]) * u1
    elif k == 1:
        a = src[max(i - 1, 0) % mod]
        b = src[min(i + 1, h - 1) % mod]
        wk = w[r - 1]
        for e in range(n):
            acc[e] += (a[e] + b[e]) * wk


@numba.njit(cache=True, nogil=True)
def _gauss_axis1_row(pad, n, nc, w, acc):  # pragma: no cover - compiled
    # The filter along axis 1 of one row of n = W * nc interleaved values (channels not mixed),
    # held edge-padded by r pixels in ``pad`` (float64); same order as _gauss_axis0_row.
    r = w.shape[0] // 2
    w0 = w[r]
    base = r * nc
    for e in range(n):
        acc[e] = pad[base + e] * w0
    k = r
    while k >= 4:
        a0 = pad[base - k * nc : base - k * nc + n]
        b0 = pad[base + k * nc : base + k * nc + n]
        a1 = pad[base - (k - 1) * nc : base - (k - 1) * nc + n]
        b1 = pad[base + (k - 1) * nc : base + (k - 1) * nc + n]
        a2 = pad[base - (k - 2) * nc : base - (k - 2) * nc + n]
        b2 = pad[base + (k - 2) * nc : base + (k - 2) * nc + n]
        a3 = pad[base - (k - 3) * nc : base - (k - 3) * nc + n]
        b3 = pad[base + (k - 3) * nc : base + (k - 3) * nc + n]
        u0 = w[r - k]
        u1 = w[r - k + 1]
        u2 = w[r - k + 2]
        u3 = w[r - k + 3]
        for e in range(n):
            v = acc[e] + (a0[e] + b0[e]) * u0
            v = v + (a1[e] + b1[e]) * u1
            v = v + (a2[e] + b2[e]) * u2
            acc[e] = v + (a3[e] + b3[e]) * u3
        k -= 4
    if k == 3:
        a0 = pad[base - 3 * nc : base - 3 * nc + n]
        b0 = pad[base + 3 * nc : base + 3 * nc + n]
        a1 = pad[base - 2 * nc : base - 2 * nc + n]
        b1 = pad[base + 2 * nc : base + 2 * nc + n]
        a2 = pad[base - nc : base - nc + n]
        b2 = pad[base + nc : base + nc + n]
        u0 = w[r - 3]
        u1 = w[r - 2]
        u2 = w[r - 1]
        for e in range(n):
            v = acc[e] + (a0[e] + b0[e]) * u0
            v = v + (a1[e] + b1[e]) * u1
            acc[e] = v + (a2[e] + b2[e]) * u2
    elif k == 2:
        a0 = pad[base - 2 * nc : base - 2 * nc + n]
        b0 = pad[base + 2 * nc : base + 2 * nc + n]
        a1 = pad[base - nc : base - nc + n]
        b1 = pad[base + nc : base + nc + n]
        u0 = w[r - 2]
        u1 = w[r - 1]
        for e in range(n):
            v = acc[e] + (a0[e] + b0[e]) * u0
            acc[e] = v + (a1[e] + b1[e]) * u1
    elif k == 1:
        a = pad[base - nc : base - nc + n]
        b = pad[base + nc : base + nc + n]
        wk = w[r - 1]
        for e in range(n):
            acc[e] += (a[e] + b[e]) * wk


@numba.njit(cache=True, nogil=True)
def _gauss_fill_pad(row, n, nc, r, pad):  # pragma: no cover - compiled
    # pad[r * nc : r * nc + n] = row; r replicated edge pixels on each side.
    base = r * nc
    for e in range(n):
        pad[base + e] = row[e]
    for j in range(r):
        for c in range(nc):
            pad[j * nc + c] = row[c]
            pad[base + n + j * nc + c] = row[n - nc + c]


@numba.njit(cache=True, nogil=True)
def _gauss_filter(src, nc, w, out):  # pragma: no cover - compiled
    # Separable filter of (H, W * nc) ``src`` into ``out`` (same shape and dtype): axis 0, the
    # intermediate row stored in the source's dtype, then axis 1; one row at a time.
    h, n = src.shape
    r = w.shape[0] // 2
    acc = np.empty(n, dtype=np.float64)
    mid = np.empty(n, dtype=src.dtype)
    pad = np.empty(n + 2 * r * nc, dtype=np.float64)
    for i in range(h):
        _gauss_axis0_row(src, i, h, h, w, acc)
        for e in range(n):
            mid[e] = acc[e]
        _gauss_fill_pad(mid, n, nc, r, pad)
        _gauss_axis1_row(pad, n, nc, w, acc)
        o = out[i]
        for e in range(n):
            o[e] = acc[e]


@numba.njit(cache=True, nogil=True)
def _gauss_filter_u8(img, nc, w, clip, out):  # pragma: no cover - compiled
    # uint8 (H, W * nc) ``img`` -> x = img / 255. -> _gauss_filter arithmetic ->
    # out = uint8((clip(v, 0, 1) if clip else v) * 255) (truncation), one row at a time. x is
    # held in a ring of 2r + 1 rows (row q in slot q % rows), converted as the window moves down.
    h, n = img.shape
    r = w.shape[0] // 2
    lut = np.empty(256, dtype=np.float64)  # v / 255. by table: no division per pixel
    for v in range(256):
        lut[v] = v / 255.0
    mod = min(2 * r + 1, h)
    ring = np.empty((mod, n), dtype=np.float64)
    ready = 0  # rows 0 .. ready - 1 converted
    base = r * nc
    acc = np.empty(n, dtype=np.float64)
    pad = np.empty(n + 2 * base, dtype=np.float64)
    mid = pad[base : base + n]
    for i in range(h):
        while ready <= min(i + r, h - 1):
            si = img[ready]
            xi = ring[ready % mod]
            for e in range(n):
                xi[e] = lut[si[e]]
            ready += 1
        _gauss_axis0_row(ring, i, h, mod, w, mid)  # straight into the padded row
        for j in range(r):
            for c in range(nc):
                pad[j * nc + c] = mid[c]
                pad[base + n + j * nc + c] = mid[n - nc + c]
        _gauss_axis1_row(pad, n, nc, w, acc)
        o = out[i]
        if clip:
            for e in range(n):
                o[e] = np.uint8(min(max(acc[e], 0.0), 1.0) * 255.0)
        else:
            for e in range(n):
                o[e] = np.uint8(acc[e] * 255.0)


def gaussian_filter_nearest(
    image: np.ndarray, sigma: float, truncate: float = 4.0, out: np.ndarray | None = None
) -> np.ndarray:
    """``skimage.filters.gaussian(image, sigma, channel_axis=-1)`` for a float H x W (x C) image.

    For float64 bit-identical to ``scipy.ndimage.gaussian_filter(image, (sigma, sigma, 0), mode='nearest',
    truncate=truncate)`` (which scikit-image calls): the same normalised kernel, axis 0 then
    axis 1, each output ``x[i] * w0 + sum_{k=r..1} (x[i-k] + x[i+k]) * w_k`` summed in double in
    SciPy's order, edges replicated, the intermediate stored in the image's dtype. Matching the
    order matters: in flat areas the sum lands on an integer after ``* 255``, and a different
    rounding would flip the uint8 truncation. (float32 agrees to ~1 ulp.) The channels are not mixed.
    The kernel uses ``np.exp`` of the running NumPy, like SciPy; NumPy builds whose ``exp`` differs
    in the last bit (e.g. 1.26 with AVX-512) can move such flat-area values by one level. Returns a new array of
    the input's float dtype (or ``out``, a C-contiguous array of that shape and dtype).
    """
    if image.dtype not in (np.float32, np.float64):
        raise TypeError(f"gaussian_filter_nearest needs a float32/float64 image, got {image.dtype}")
    if image.ndim not in (2, 3):
        raise ValueError(
            f"gaussian_filter_nearest needs an H x W (x C) image, got shape {image.shape}"
        )
    if out is not None and (
        out.shape != image.shape or out.dtype != image.dtype or not out.flags.c_contiguous
    ):
        raise ValueError("out must be a C-contiguous array of the image's shape and dtype")
    res = np.empty(image.shape, dtype=image.dtype) if out is None else out
    if sigma <= 1e-15:  # SciPy skips axes with a negligible sigma
        res[...] = image
        return res
    w = _gaussian_kernel1d_cached(float(sigma), float(truncate))
    h = image.shape[0]
    nc = image.shape[2] if image.ndim == 3 else 1
    src = np.ascontiguousarray(image).reshape(h, -1)
    _gauss_filter(src, nc, w, res.reshape(h, -1))
    return res


def gaussian_blur_u8(
    image: np.ndarray,
    sigma: float,
    *,
    clip: bool = True,
    truncate: float = 4.0,
) -> np.ndarray:
    """``uint8((clip(gaussian_filter_nearest(image / 255., sigma), 0, 1)) * 255)`` for uint8 input.

    The blur corruptions' Gaussian step in one compiled pass, with exactly the float64 arithmetic
    of :func:`gaussian_filter_nearest` on ``image / 255.`` followed by NumPy's ``clip`` (skipped
    when ``clip`` is false: glass blur's first blur truncates unclipped), ``* 255`` and the
    truncating ``uint8`` cast. ``image``: uint8 H x W (x C). Only 2r + 1 rows of ``image / 255.``
    are held at a time. Returns a new uint8 array of the image's shape.
    """
    if image.dtype != np.uint8 or image.ndim not in (2, 3):
        raise TypeError(f"gaussian_blur_u8 needs a uint8 H x W (x C) image, got {image.dtype}")
    h = image.shape[0]
    nc = image.shape[2] if image.ndim == 3 else 1
    src = np.ascontiguousarray(image).reshape(h, -1)
    out = np.empty(image.shape, dtype=np.uint8)
    if sigma <= 1e-15:  # SciPy skips axes with a negligible sigma: x itself
        x = image / 255.0
        if clip:
            np.clip(x, 0, 1, out=x)
        x *= 255
        out[...] = x
        return out
    w = _gaussian_kernel1d_cached(float(sigma), float(truncate))
    _gauss_filter_u8(src, nc, w, bool(clip), out.reshape(h, -1))
    return out


# ------------------------------------------------------------------------------------------------
# Plasma fractal
# ------------------------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def plasma_raw(m, u, wibbles):  # type: ignore[no-untyped-def]  # pragma: no cover
    """The diamond-square levels of :func:`plasma_fractal`, in place on the
    n x n float64 map ``m`` (``m[0, 0] = 0`` set here), *before* its normalisation; returns
    ``(min, max)`` of the map.

    ``u``: all the ``random_sample()`` draws in call order (per level: squares, diamonds of the
    first set, diamonds of the second set, each ``k x k`` in C order); ``wibbles``: the per-level
    ``w``. A point is ``A / 4 + w * (-w + (w - -w) * u)`` with ``A`` summed in the reference's
    order (its ``np.roll`` pairs); the neighbours wrap around (``% k``), handled here at the last
    row/column instead of by a modulo per point.
    """
    n = m.shape[0]
    m[0, 0] = 0.0
    step = n
    level = 0
    pos = 0
    while step >= 2:
        half = step // 2
        k = n // step
        w = wibbles[level]
        lo = -w
        span = w - lo
        for i in range(k):  # squares: m[half::step, half::step]
            r0 = m[i * step]
            r1 = m[((i + 1) % k) * step]
            out = m[half + i * step]
            base = pos + i * k
            for j in range(k):
                j1 = (j + 1) * step if j + 1 < k else 0
                a = (r0[j * step] + r1[j * step]) + (r0[j1] + r1[j1])
                out[half + j * step] = a / 4 + w * (lo + span * u[base + j])
        pos += k * k
        for i in range(k):  # diamonds m[0::step, half::step]: dr above/below, ul left/right
            d0 = m[half + i * step]
            d1 = m[half + ((i - 1) % k) * step]
            ul = m[i * step]
            base = pos + i * k
            for j in range(k):
                j1 = (j + 1) * step if j + 1 < k else 0
                a = (d0[half + j * step] + d1[half + j * step]) + (ul[j * step] + ul[j1])
                ul[half + j * step] = a / 4 + w * (lo + span * u[base + j])
        pos += k * k
        for i in range(k):  # diamonds m[half::step, 0::step]
            d0 = m[half + i * step]
            u0 = m[i * step]
            u1 = m[((i + 1) % k) * step]
            base = pos + i * k
            for j in range(k):
                j0 = (j - 1) * step if j > 0 else (k - 1) * step
                a = (d0[half + j * step] + d0[half + j0]) + (u0[j * step] + u1[j * step])
                d0[j * step] = a / 4 + w * (lo + span * u[base + j])
        pos += k * k
        step //= 2
        level += 1
    lo_v = m[0, 0]
    hi_v = m[0, 0]
    for i in range(n):
        row = m[i]
        for j in range(n):
            v = row[j]
            lo_v = min(lo_v, v)
            hi_v = max(hi_v, v)
    return lo_v, hi_v


def plasma_raw_map(
    mapsize: int, wibbledecay: float, rng: np.random.RandomState
) -> tuple[np.ndarray, float, float]:
    """The unnormalised plasma map of a ``RandomState`` and its ``(min, max)``: ``(m, lo, hi)``.

    All levels' draws come from one ``random_sample`` call (the legacy stream of the reference's
    per-level ``uniform`` calls), then :func:`plasma_raw` builds the map.
    """
    wibbles = []
    wibble = 100.0
    total = 0
    step = mapsize
    while step >= 2:
        wibbles.append(wibble)
        total += 3 * (mapsize // step) ** 2
        step //= 2
        wibble /= wibbledecay
    u = rng.random_sample(total)
    m = np.empty((mapsize, mapsize), dtype=np.float64)
    lo, hi = plasma_raw(m, u, np.array(wibbles, dtype=np.float64))
    return m, float(lo), float(hi)


def plasma_fractal(mapsize: int, wibbledecay: float, rng: Any) -> np.ndarray:
    """Diamond-square plasma fractal in [0, 1], shape (mapsize, mapsize), float64.

    The "wibbled mean" is ``A / 4 + w * U(-w, w)`` — the amplitude is ``w**2`` (reference quirk).
    Random draws (legacy order): per level one uniform array for the squares, then two for the
    diamonds, each ``(mapsize / s) x (mapsize / s)``. With a ``RandomState`` all of them come from
    one ``random_sample`` call (the same stream: legacy ``uniform(lo, hi)`` is
    ``lo + (hi - lo) * random_sample()``) and the levels run compiled; other sources are called
    level by level as the reference does.
    """
    if mapsize < 2 or mapsize & (mapsize - 1):
        raise ValueError(f"mapsize must be a power of two >= 2, got {mapsize}")
    if isinstance(rng, np.random.RandomState):
        m = plasma_raw_map(mapsize, wibbledecay, rng)[0]
    else:
        m = np.empty((mapsize, mapsize), dtype=np.float64)
        m[0, 0] = 0
        _plasma_levels_numpy(m, wibbledecay, rng)
    m -= m.min()
    return m / m.max()


def _plasma_levels_numpy(m: np.ndarray, wibbledecay: float, rng: Any) -> None:
    mapsize = m.shape[0]
    step = mapsize
    wibble = 100.0

    def wibbled(a: np.ndarray) -> np.ndarray:
        return a / 4 + wibble * rng.uniform(-wibble, wibble, a.shape)

    while step >= 2:
        half = step // 2
        corners = m[0:mapsize:step, 0:mapsize:step]
        sq = corners + np.roll(corners, shift=-1, axis=0)
        sq += np.roll(sq, shift=-1, axis=1)
        m[half:mapsize:step, half:mapsize:step] = wibbled(sq)
        dr = m[half:mapsize:step, half:mapsize:step]
        ul = m[0:mapsize:step, 0:mapsize:step]
        m[0:mapsize:step, half:mapsize:step] = wibbled(
            (dr + np.roll(dr, 1, axis=0)) + (ul + np.roll(ul, -1, axis=1))
        )
        m[half:mapsize:step, 0:mapsize:step] = wibbled(
            (dr + np.roll(dr, 1, axis=1)) + (ul + np.roll(ul, -1, axis=0))
        )
        step //= 2
        wibble /= wibbledecay


# ------------------------------------------------------------------------------------------------
# Clipped zoom: scipy.ndimage.zoom(order=1, mode='constant', grid_mode=False) re-implemented
# ------------------------------------------------------------------------------------------------


def clipped_zoom_geometry(length: int, zoom_factor: float) -> tuple[int, int, int, int]:
    """``(crop, top, zoomed, trim)`` of the reference ``clipped_zoom`` along an axis of ``length``.

    ``crop = ceil(length / z)``, ``top = (length - crop) // 2``, ``zoomed = round(crop * z)`` (SciPy's
    output size), ``trim = (zoomed - length) // 2``. E.g. (224, 1.3) -> (173, 25, 225, 0).
    """
    z = float(zoom_factor)
    c = int(math.ceil(length / z))
    n = int(round(c * z))
    return c, (length - c) // 2, n, (n - length) // 2


@functools.lru_cache(maxsize=512)
def zoom_axis_table(
    length: int, zoom_factor: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Interpolation table of one axis of the reference ``clipped_zoom(img, z)``.

    For each of the ``length`` kept output positions: ``(i0, i1, w0, w1)`` with the output
    ``w0 * img[i0] + w1 * img[i1]`` along this axis (indices into the *uncropped* axis).

    Geometry (reference): ``c = ceil(length / z)``, ``top = (length - c) // 2``; scipy zoom output
    length ``n = round(c * z)``; output index ``k`` samples crop coordinate ``k * ((c - 1) / (n - 1))``
    (``grid_mode=False``); order-1 spline weights ``(1 - f, f)`` at ``floor``; the out-of-range tap
    is mirrored (weight 0 there) and a coordinate beyond ``c - 1`` by round-off gives 0 (mode
    'constant'); finally the centred trim ``(n - length) // 2``.
    """
    if not zoom_factor >= 1:  # the reference only zooms in (z < 1 would crop outside the image)
        raise ValueError(f"clipped_zoom needs zoom_factor >= 1, got {zoom_factor}")
    c, top, n, trim = clipped_zoom_geometry(length, zoom_factor)
    step = (c - 1) / (n - 1) if n > 1 else 1.0
    k = np.arange(trim, trim + length, dtype=np.float64)
    cc = k * step
    outside = cc > c - 1
    start = np.floor(cc)
    frac = cc - start
    i0 = start.astype(np.int64)
    i1 = i0 + 1
    if c <= 1:
        i1[:] = 0
    else:
        over = i1 >= c
        i1[over] = 2 * c - 2 - i1[over]
    w0 = 1.0 - frac
    w1 = frac.copy()
    w0[outside] = 0.0
    w1[outside] = 0.0
    i0[outside] = 0
    i1[outside] = 0
    i0 = np.clip(i0, 0, c - 1) + top
    i1 = np.clip(i1, 0, c - 1) + top
    for a in (i0, i1, w0, w1):
        a.flags.writeable = False
    return i0, i1, w0, w1


@numba.njit(cache=True, nogil=True)
def _zoom_columns(src, rlo, rhi, c0, c1, cw0, cw1, t):  # pragma: no cover - compiled
    # t[k, j * nc + ch] = src[k, c0[j], ch] * cw0[j] + src[k, c1[j], ch] * cw1[j], rows rlo..rhi-1
    w = c0.shape[0]
    nc = src.shape[2]
    for k in range(rlo, rhi):
        s = src[k]
        tk = t[k]
        if nc == 3:
            for j in range(w):
                b0 = cw0[j]
                b1 = cw1[j]
                p = s[c0[j]]
                q = s[c1[j]]
                o = 3 * j
                tk[o] = p[0] * b0 + q[0] * b1
                tk[o + 1] = p[1] * b0 + q[1] * b1
                tk[o + 2] = p[2] * b0 + q[2] * b1
        else:
            for j in range(w):
                b0 = cw0[j]
                b1 = cw1[j]
                p = s[c0[j]]
                q = s[c1[j]]
                for ch in range(nc):
                    tk[j * nc + ch] = p[ch] * b0 + q[ch] * b1


@numba.njit(cache=True, nogil=True)
def _zoom_one(src, r0, r1, rw0, rw1, c0, c1, cw0, cw1, out):  # pragma: no cover - compiled
    # src (H, W, C) float; out (h, w * C): separable bilinear in double (columns, then rows),
    # cast to out's dtype on store.
    t = np.empty((src.shape[0], c0.shape[0] * src.shape[2]), dtype=np.float64)
    rlo = min(r0.min(), r1.min())
    rhi = max(r0.max(), r1.max()) + 1
    _zoom_columns(src, rlo, rhi, c0, c1, cw0, cw1, t)
    n = t.shape[1]
    for i in range(r0.shape[0]):
        a0 = rw0[i]
        a1 = rw1[i]
        ta = t[r0[i]]
        tb = t[r1[i]]
        oi = out[i]
        for e in range(n):
            oi[e] = ta[e] * a0 + tb[e] * a1


@intrinsic
def _lerp4(typingctx, t, o, s, p, q, b0, b1):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``t[o : o + 4] = s[p : p + 4] * b0 + s[q : q + 4] * b1`` as one 4 x double vector operation.

    Lane by lane the same IEEE operations as the scalar expression (float32 ``s`` widened exactly,
    two products rounded, then their sum; no fused multiply-add). ``t`` float64 and ``s``
    float32/float64 1-D C-contiguous arrays; no bounds checks (the caller's indices are valid).
    numba leaves its SLP vectoriser off, so a pixel's four lanes would otherwise stay scalar.
    """
    ok = (
        isinstance(t, nbtypes.Array)
        and isinstance(s, nbtypes.Array)
        and t.ndim == 1
        and s.ndim == 1
        and t.layout == "C"
        and s.layout == "C"
        and t.dtype == nbtypes.float64
        and s.dtype in (nbtypes.float32, nbtypes.float64)
    )
    if not ok:
        return None
    sig = nbtypes.void(t, o, s, p, q, nbtypes.float64, nbtypes.float64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        targ, oarg, sarg, parg, qarg, b0arg, b1arg = args
        tary = context.make_array(signature.args[0])(context, builder, targ)
        sary = context.make_array(signature.args[2])(context, builder, sarg)
        vty = ir.VectorType(ir.DoubleType(), 4)
        s_el = context.get_data_type(signature.args[2].dtype)
        i32 = ir.IntType(32)

        def load(idx):  # type: ignore[no-untyped-def]
            ptr = builder.gep(sary.data, [idx])
            v = builder.load(builder.bitcast(ptr, ir.VectorType(s_el, 4).as_pointer()), align=4)
            return v if s_el == ir.DoubleType() else builder.fpext(v, vty)

        def splat(x):  # type: ignore[no-untyped-def]
            v = builder.insert_element(ir.Constant(vty, ir.Undefined), x, ir.Constant(i32, 0))
            mask = ir.Constant(ir.VectorType(i32, 4), [0, 0, 0, 0])
            return builder.shuffle_vector(v, ir.Constant(vty, ir.Undefined), mask)

        b0v = context.cast(builder, b0arg, signature.args[5], nbtypes.float64)
        b1v = context.cast(builder, b1arg, signature.args[6], nbtypes.float64)
        r = builder.fadd(builder.fmul(load(parg), splat(b0v)), builder.fmul(load(qarg), splat(b1v)))
        dst = builder.bitcast(builder.gep(tary.data, [oarg]), vty.as_pointer())
        builder.store(r, dst, align=8)
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(cache=True, nogil=True)
def _zoom_column_row(s, c0, c1, cw0, cw1, nc, vec, t):  # pragma: no cover - compiled
    # One source row s (W * nc) -> t (w * nc, float64):
    # t[j * nc + ch] = s[c0[j] * nc + ch] * cw0[j] + s[c1[j] * nc + ch] * cw1[j] (as _zoom_columns)
    # ``vec`` (nc == 3 only): one 4-lane operation per pixel, left to right; the fourth lane reads
    # the next pixel's first value and writes a value that the next pixel overwrites, so s's and
    # t's buffers need one element of slack past the row's end (the last pixel's fourth lane).
    w = c0.shape[0]
    if vec:
        for j in range(w):
            _lerp4(t, 3 * j, s, 3 * c0[j], 3 * c1[j], cw0[j], cw1[j])
    elif nc == 3:
        for j in range(w):
            b0 = cw0[j]
            b1 = cw1[j]
            p = 3 * c0[j]
            q = 3 * c1[j]
            o = 3 * j
            t[o] = s[p] * b0 + s[q] * b1
            t[o + 1] = s[p + 1] * b0 + s[q + 1] * b1
            t[o + 2] = s[p + 2] * b0 + s[q + 2] * b1
    else:
        for j in range(w):
            b0 = cw0[j]
            b1 = cw1[j]
            p = nc * c0[j]
            q = nc * c1[j]
            for ch in range(nc):
                t[j * nc + ch] = s[p + ch] * b0 + s[q + ch] * b1


@numba.njit(cache=True, nogil=True)
def _zoom_add_row(
    src, nc, vec, i, r0, r1, rw0, rw1, c0, c1, cw0, cw1, held, tbuf, acc
):  # pragma: no cover
    # acc (w * nc, float32) += float32(clipped_zoom(src, z)[i]) for every zoom z of the stacked
    # tables, in order, with the arithmetic of _zoom_one (columns in double, then rows in double,
    # cast to float32, added in float32). The column-interpolated source rows are computed on
    # demand and kept in two slots per zoom (tbuf[z, slot], row index in held[z, slot]): output
    # rows move down monotonically, so each one is computed about once and stays cached.
    n = acc.shape[0]
    for z in range(r0.shape[0]):
        ra = r0[z, i]
        rb = r1[z, i]
        if held[z, 0] == ra:
            sa = 0
        elif held[z, 1] == ra:
            sa = 1
        else:
            sa = 1 if held[z, 0] == rb else 0
            _zoom_column_row(src[ra], c0[z], c1[z], cw0[z], cw1[z], nc, vec, tbuf[z, sa])
            held[z, sa] = ra
        if held[z, 0] == rb:
            sb = 0
        elif held[z, 1] == rb:
            sb = 1
        else:
            sb = 1 - sa
            _zoom_column_row(src[rb], c0[z], c1[z], cw0[z], cw1[z], nc, vec, tbuf[z, sb])
            held[z, sb] = rb
        a0 = rw0[z, i]
        a1 = rw1[z, i]
        ta = tbuf[z, sa]
        tb = tbuf[z, sb]
        for e in range(n):
            acc[e] += np.float32(ta[e] * a0 + tb[e] * a1)


@numba.njit(cache=True, nogil=True)
def _zoom_sum_f32(src, nc, r0, r1, rw0, rw1, c0, c1, cw0, cw1, acc):  # pragma: no cover - compiled
    # For each zoom z (first axis of the tables): acc += float32(clipped_zoom(src, z)), with the
    # arithmetic of _zoom_one. src (H, W * C) float32, acc (h, w * C) float32.
    nz = r0.shape[0]
    n = acc.shape[1]
    held = np.full((nz, 2), -1, dtype=np.int64)
    tbuf = np.empty((nz, 2, n), dtype=np.float64)
    for i in range(acc.shape[0]):
        _zoom_add_row(src, nc, False, i, r0, r1, rw0, rw1, c0, c1, cw0, cw1, held, tbuf, acc[i])


@numba.njit(cache=True, nogil=True)
def _zoom_blur_u8(img, identity, r0, r1, rw0, rw1, c0, c1, cw0, cw1, xbuf, out):  # pragma: no cover
    # Zoom blur of a 3-channel image (H, W * 3), fused: x = float32(img / 255.) in the flat
    # float32 scratch xbuf (H * W * 3 + 1: one element of slack for the 4-lane column pass); per
    # output row acc = x (the factor-1 zoom, when ``identity``) or 0, += each other zoom
    # (_zoom_add_row); v = (acc + x) / float32(count); out = uint8(clip(v, 0, 1) * 255)
    # (float32 throughout, truncation).
    h, n = img.shape
    x = xbuf[: h * n].reshape((h, n))
    lut = np.empty(256, dtype=np.float32)  # float32(v / 255.) by table
    for v in range(256):
        lut[v] = np.float32(v / 255.0)
    for i in range(h):
        si = img[i]
        xi = x[i]
        for e in range(n):
            xi[e] = lut[si[e]]
    xbuf[h * n] = 0.0
    nz = r0.shape[0]
    count = np.float32(nz + (2 if identity else 1))
    one = np.float32(1.0)
    zero = np.float32(0.0)
    f255 = np.float32(255.0)
    held = np.full((nz, 2), -1, dtype=np.int64)
    tbuf = np.empty((nz, 2, n + 1), dtype=np.float64)
    acc = np.empty(n, dtype=np.float32)
    for i in range(h):
        xi = x[i]
        if identity:
            for e in range(n):
                acc[e] = np.float32(xi[e])
        else:
            for e in range(n):
                acc[e] = zero
        _zoom_add_row(x, 3, True, i, r0, r1, rw0, rw1, c0, c1, cw0, cw1, held, tbuf, acc)
        o = out[i]
        for e in range(n):
            v = (acc[e] + np.float32(xi[e])) / count
            o[e] = np.uint8(min(max(v, zero), one) * f255)


def clipped_zoom(img: np.ndarray, zoom_factor: float) -> np.ndarray:
    """Zoom the centre of ``img`` (H x W or H x W x C) by ``zoom_factor`` and crop back to H x W.

    The reference: ``ch = ceil(h / z)``, ``top = (h - ch) // 2``; bilinear ``scipy.ndimage.zoom``
    (order 1, mode 'constant') of the centre crop; then a centred trim ``(out - h) // 2``. This is a
    native re-implementation with the same coordinate mapping and weights, computed in double and
    cast to the input's float dtype (equal to SciPy up to ~1 ulp). Rows and columns are handled
    independently, which at a square size is exactly the reference. Non-float inputs are
    converted to float64. Returns a new array of the input's shape.
    """
    arr = np.asarray(img)
    if arr.ndim not in (2, 3):
        raise ValueError(f"clipped_zoom needs an H x W or H x W x C array, got shape {arr.shape}")
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    src = arr if arr.ndim == 3 else arr[:, :, None]
    h, w = src.shape[:2]
    r0, r1, rw0, rw1 = zoom_axis_table(h, float(zoom_factor))
    c0, c1, cw0, cw1 = zoom_axis_table(w, float(zoom_factor))
    out = np.empty(src.shape, dtype=src.dtype)
    _zoom_one(np.ascontiguousarray(src), r0, r1, rw0, rw1, c0, c1, cw0, cw1, out.reshape(h, -1))
    return out if arr.ndim == 3 else out[:, :, 0]


@functools.lru_cache(maxsize=128)
def _stacked_tables(length: int, factors: tuple[float, ...]) -> tuple[np.ndarray, ...]:
    tabs = [zoom_axis_table(length, z) for z in factors]
    return tuple(np.ascontiguousarray(np.stack([t[k] for t in tabs])) for k in range(4))


def zoom_sum(
    img: np.ndarray, factors: Sequence[float] | np.ndarray, out: np.ndarray | None = None
) -> np.ndarray:
    """``sum(clipped_zoom(img, z) for z in factors)`` for a float32 H x W x C image, in float32.

    Each zoom is cast to float32 before it is added, in the order of ``factors``, as the
    reference's ``out += clipped_zoom(x, z)`` loop does. One compiled pass; returns a new array,
    or ``out`` (float32, the image's shape; overwritten) when given.
    """
    if img.dtype != np.float32 or img.ndim != 3:
        raise TypeError(f"zoom_sum needs a float32 H x W x C image, got {img.dtype} {img.shape}")
    key = tuple(float(z) for z in factors)
    if out is None:
        acc = np.zeros(img.shape, dtype=np.float32)
    else:
        if out.shape != img.shape or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError("out must be a C-contiguous float32 array of the image's shape")
        acc = out
        acc.fill(0)
    if key and key[0] == 1.0:
        # clipped_zoom(x, 1) is exactly x (and np.arange(1, ...) always starts there): 0 + x = x
        np.copyto(acc, img)
        key = key[1:]
    if not key:
        return acc
    r0, r1, rw0, rw1 = _stacked_tables(img.shape[0], key)
    c0, c1, cw0, cw1 = _stacked_tables(img.shape[1], key)
    h, _, nc = img.shape
    src = np.ascontiguousarray(img).reshape(h, -1)
    _zoom_sum_f32(src, nc, r0, r1, rw0, rw1, c0, c1, cw0, cw1, acc.reshape(h, -1))
    return acc


def zoom_blur_u8(
    image: np.ndarray, factors: Sequence[float] | np.ndarray, scratch: np.ndarray | None = None
) -> np.ndarray:
    """Zoom blur of a uint8 H x W x 3 image in one compiled pass (float32, as the reference).

    ``x = float32(image / 255.)``; ``out = zoom_sum(x, factors)``;
    ``uint8(clip((out + x) / float32(len(factors) + 1), 0, 1) * 255)`` (truncation), with exactly
    the float32 / float64 operations of :func:`zoom_sum` and NumPy's float32 array arithmetic.
    ``scratch``: optional flat float32 array of ``H * W * 3 + 1`` elements (reused; others are
    ignored). Returns a new uint8 array.
    """
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise TypeError(
            f"zoom_blur_u8 needs a uint8 H x W x 3 image, got {image.dtype} {image.shape}"
        )
    h, w, nc = image.shape
    key = tuple(float(z) for z in factors)
    identity = bool(key) and key[0] == 1.0  # clipped_zoom(x, 1) is exactly x: 0 + x = x
    if identity:
        key = key[1:]
    size = h * w * 3 + 1
    if scratch is None or scratch.shape != (size,) or scratch.dtype != np.float32:
        scratch = np.empty(size, dtype=np.float32)
    if key:
        r0, r1, rw0, rw1 = _stacked_tables(h, key)
        c0, c1, cw0, cw1 = _stacked_tables(w, key)
    else:
        r0 = r1 = c0 = c1 = np.zeros((0, 1), dtype=np.int64)
        rw0 = rw1 = cw0 = cw1 = np.zeros((0, 1), dtype=np.float64)
    out = np.empty(image.shape, dtype=np.uint8)
    _zoom_blur_u8(
        np.ascontiguousarray(image).reshape(h, -1),
        identity,
        r0,
        r1,
        rw0,
        rw1,
        c0,
        c1,
        cw0,
        cw1,
        scratch,
        out.reshape(h, -1),
    )
    return out

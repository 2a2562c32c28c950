"""scikit-image ``gaussian`` (= ``scipy.ndimage.gaussian_filter``, mode ``'nearest'``), compiled and
bit-identical to SciPy.

* :func:`gaussian_kernel1d` — SciPy's ``gaussian_filter1d`` weights
* :func:`gaussian_matrix` — the 1-D filter of one axis as an ``n x n`` matrix, border folded in
* :func:`gaussian_filter_nearest` — the separable filter on float images
* :func:`gaussian_blur_u8` — the same on ``uint8 / 255`` with the clip and uint8 cast fused
"""

from __future__ import annotations

import functools

import numpy as np

from .borders import fold_index
from .jit import kernel, readonly

__all__ = [
    "gaussian_kernel1d",
    "gaussian_matrix",
    "gaussian_filter_nearest",
    "gaussian_blur_u8",
]


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


@functools.lru_cache(maxsize=256)
def gaussian_matrix(
    n: int, sigma: float, truncate: float = 4.0, mode: str = "nearest"
) -> np.ndarray:
    """``n x n`` matrix of SciPy's 1-D Gaussian correlation (``gaussian_filter1d``) along an axis
    of length ``n``, the border ``mode`` (``'nearest'``: scikit-image ``gaussian``'s default,
    ``'reflect'``: the elastic transform's) folded in: ``filtered = M @ column``.

    Row ``i`` gets weight ``k[j]`` of :func:`gaussian_kernel1d` at the folded source of position
    ``i - r + j``, the weights of one source added in tap order. The identity for
    ``sigma <= 1e-15`` (SciPy skips such axes). Read-only, cached. The CPU library's wide
    'reflect' filters and the torch backend's dense operators are built here.
    """
    if sigma <= 1e-15:
        op = np.eye(n)
    else:
        k = gaussian_kernel1d(sigma, truncate)
        r = (len(k) - 1) // 2
        src = fold_index(n, r, r, mode)  # padded position -> source row
        rows = np.repeat(np.arange(n), len(k))
        cols = src[np.arange(n)[:, None] + np.arange(len(k))[None, :]].ravel()
        op = np.zeros((n, n))
        np.add.at(op, (rows, cols), np.tile(k, n))
    op.flags.writeable = False
    return op


@kernel
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


@kernel
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


@kernel
def _gauss_fill_pad(row, n, nc, r, pad):  # pragma: no cover - compiled
    # pad[r * nc : r * nc + n] = row; r replicated edge pixels on each side.
    base = r * nc
    for e in range(n):
        pad[base + e] = row[e]
    for j in range(r):
        for c in range(nc):
            pad[j * nc + c] = row[c]
            pad[base + n + j * nc + c] = row[n - nc + c]


@kernel
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


@kernel
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
    src = readonly(image).reshape(h, -1)
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

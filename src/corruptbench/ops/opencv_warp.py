"""OpenCV 3.4's bilinear warps, re-implemented: the reference data were made with OpenCV 3.4, and
newer OpenCV releases compute both warps differently.

* :func:`invert_affine_cv` / :func:`warp_affine_cv34` — ``cv2.warpAffine(..., INTER_LINEAR,
  BORDER_REFLECT_101)`` (elastic transform): OpenCV 4.11+/5 compute it in float32 differently, up to
  ~0.02 apart on [0, 1] data
* :func:`warp_perspective_cv34` — ``cv2.warpPerspective(..., INTER_LINEAR)``, black border (the tilt
  perturbation): OpenCV >= 4.11 changes up to ~17 % of a tilt frame's values by up to 4 levels
"""

from __future__ import annotations

import cv2
import numpy as np

from .jit import kernel

__all__ = [
    "AB_BITS",
    "INTER_BITS",
    "invert_affine_cv",
    "warp_affine_cv34",
    "warp_affine_inverse_into",
    "warp_affine_u8_rows_into",
    "warp_perspective_cv34",
]

#: warpAffine: fixed-point fractional bits of the mapped coordinates (``AB_BITS``)
AB_BITS = 10
#: fractional bits of the interpolation table (``INTER_BITS``: 32 x 32 bilinear weights)
INTER_BITS = 5
_INTER_TAB = 1 << INTER_BITS


@kernel
def _reflect101(p: int, n: int) -> int:
    # cv::borderInterpolate(p, n, BORDER_REFLECT_101)
    if n == 1:
        return 0
    while p < 0 or p >= n:
        if p < 0:
            p = -p
        else:
            p = 2 * n - 2 - p
    return p


@kernel(inline="always")
def _warp_tables(m: np.ndarray, ow: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # OpenCV's 32 x 32 bilinear weight table and the per-column fixed-point coordinate deltas
    scale = np.float32(1.0) / np.float32(_INTER_TAB)
    one = np.float32(1.0)
    ab_scale = float(1 << AB_BITS)
    wtab = np.empty((_INTER_TAB, _INTER_TAB, 4), np.float32)
    for iy in range(_INTER_TAB):
        ty = np.float32(iy) * scale
        for ix in range(_INTER_TAB):
            tx = np.float32(ix) * scale
            wtab[iy, ix, 0] = (one - ty) * (one - tx)
            wtab[iy, ix, 1] = (one - ty) * tx
            wtab[iy, ix, 2] = ty * (one - tx)
            wtab[iy, ix, 3] = ty * tx
    adelta = np.empty(ow, np.int64)
    bdelta = np.empty(ow, np.int64)
    for x in range(ow):
        adelta[x] = int(np.rint(m[0, 0] * x * ab_scale))  # saturate_cast<int> rounds half to even
        bdelta[x] = int(np.rint(m[1, 0] * x * ab_scale))
    return wtab, adelta, bdelta


@kernel(inline="always")
def _warp_row_origin(m: np.ndarray, y: int) -> tuple[int, int]:
    # the fixed-point source coordinates of output row y's first pixel, rounding term included
    ab_scale = float(1 << AB_BITS)
    round_delta = (1 << AB_BITS) // _INTER_TAB // 2
    x0 = int(np.rint((m[0, 1] * y + m[0, 2]) * ab_scale)) + round_delta
    y0 = int(np.rint((m[1, 1] * y + m[1, 2]) * ab_scale)) + round_delta
    return x0, y0


@kernel(inline="always")
def _warp_source(
    x0: int, y0: int, a: int, b: int, h: int, w: int
) -> tuple[int, int, int, int, int, int]:
    # (xa, xb, ya, yb) of the four neighbours (BORDER_REFLECT_101) and the weight table's index
    shift = AB_BITS - INTER_BITS
    mask = _INTER_TAB - 1
    xx = (x0 + a) >> shift
    yy = (y0 + b) >> shift
    sx = xx >> INTER_BITS
    sy = yy >> INTER_BITS
    if 0 <= sx < w - 1 and 0 <= sy < h - 1:
        return sx, sx + 1, sy, sy + 1, yy & mask, xx & mask
    return (
        _reflect101(sx, w),
        _reflect101(sx + 1, w),
        _reflect101(sy, h),
        _reflect101(sy + 1, h),
        yy & mask,
        xx & mask,
    )


@kernel
def _warp_affine_kernel(src: np.ndarray, m: np.ndarray, dst: np.ndarray) -> None:
    # float32 src; dst float32, or float64 to hold the float32 results exactly
    h, w, cn = src.shape
    oh, ow = dst.shape[0], dst.shape[1]
    wtab, adelta, bdelta = _warp_tables(m, ow)
    for y in range(oh):
        x0, y0 = _warp_row_origin(m, y)
        for x in range(ow):
            xa, xb, ya, yb, ty, tx = _warp_source(x0, y0, adelta[x], bdelta[x], h, w)
            wt = wtab[ty, tx]
            w0 = wt[0]
            w1 = wt[1]
            w2 = wt[2]
            w3 = wt[3]
            p00 = src[ya, xa]
            p01 = src[ya, xb]
            p10 = src[yb, xa]
            p11 = src[yb, xb]
            d = dst[y, x]
            if cn == 4:  # (a constant trip count: one vector operation per step)
                for k in range(4):  # float32 products and sums in OpenCV's order
                    d[k] = p00[k] * w0 + p01[k] * w1 + p10[k] * w2 + p11[k] * w3
            else:
                for k in range(cn):
                    d[k] = p00[k] * w0 + p01[k] * w1 + p10[k] * w2 + p11[k] * w3


@kernel
def _warp_affine_u8_rows(
    src: np.ndarray, lut: np.ndarray, m: np.ndarray, row0: int, dst: np.ndarray
) -> None:
    # rows row0 .. row0 + len(dst) - 1 of _warp_affine_kernel's result for the float32 image
    # lut[src] (uint8 src), read through the table instead of from an array; dst: float64 with
    # src's channels and possibly zero ones after them (4 lanes for RGB)
    h, w, cn = src.shape
    ow = dst.shape[1]
    lanes = dst.shape[2]
    wtab, adelta, bdelta = _warp_tables(m, ow)
    zero = np.float32(0.0)
    for r in range(dst.shape[0]):
        x0, y0 = _warp_row_origin(m, row0 + r)
        for x in range(ow):
            xa, xb, ya, yb, ty, tx = _warp_source(x0, y0, adelta[x], bdelta[x], h, w)
            wt = wtab[ty, tx]
            w0 = wt[0]
            w1 = wt[1]
            w2 = wt[2]
            w3 = wt[3]
            p00 = src[ya, xa]
            p01 = src[ya, xb]
            p10 = src[yb, xa]
            p11 = src[yb, xb]
            d = dst[r, x]
            for k in range(cn):  # float32 products and sums in OpenCV's order
                d[k] = lut[p00[k]] * w0 + lut[p01[k]] * w1 + lut[p10[k]] * w2 + lut[p11[k]] * w3
            for k in range(cn, lanes):
                d[k] = zero


def invert_affine_cv(matrix: np.ndarray) -> np.ndarray:
    """Invert a 2 x 3 affine matrix exactly as OpenCV's ``warpAffine`` does internally (float64).

    ``D = 1 / det`` (0 when singular); ``A' = D * [[a22, -a12], [-a21, a11]]``; ``b' = -A' b``.
    """
    m = np.array(matrix, dtype=np.float64).reshape(2, 3)
    d = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    d = 1.0 / d if d != 0 else 0.0
    a11, a22 = m[1, 1] * d, m[0, 0] * d
    m[0, 0] = a11
    m[0, 1] *= -d
    m[1, 0] *= -d
    m[1, 1] = a22
    b1 = -m[0, 0] * m[0, 2] - m[0, 1] * m[1, 2]
    b2 = -m[1, 0] * m[0, 2] - m[1, 1] * m[1, 2]
    m[0, 2], m[1, 2] = b1, b2
    return m


def warp_affine_inverse_into(src: np.ndarray, inverse: np.ndarray, dst: np.ndarray) -> None:
    """The compiled warp of :func:`warp_affine_cv34` with the *inverse* map given.

    ``src``: C-contiguous float32 ``H x W x C``; ``inverse``: 2 x 3 float64 (:func:`invert_affine_cv`);
    ``dst``: C-contiguous ``h x w x C``, float32, or float64 to hold the float32 results exactly.
    """
    _warp_affine_kernel(src, inverse, dst)


def warp_affine_u8_rows_into(
    src: np.ndarray, lut: np.ndarray, inverse: np.ndarray, row0: int, dst: np.ndarray
) -> None:
    """Rows ``row0 .. row0 + len(dst) - 1`` of :func:`warp_affine_cv34` of the float32 image
    ``lut[src]``, with the *inverse* map given, into ``dst``.

    ``src``: C-contiguous uint8 ``H x W x C``; ``lut``: float32, 256 entries (e.g. ``v / 255``);
    ``inverse``: 2 x 3 float64 (:func:`invert_affine_cv`); ``dst``: C-contiguous float64
    ``rows x w x C'`` with ``C' >= C`` (the float32 results held exactly; channels after ``C``
    set to 0, e.g. 4 lanes for RGB). A row depends only on its index: the rows can be made in
    any grouping, with the values of one warp of the whole image.
    """
    _warp_affine_u8_rows(src, lut, inverse, int(row0), dst)


def warp_affine_cv34(
    src: np.ndarray, matrix: np.ndarray, dsize: tuple[int, int] | None = None
) -> np.ndarray:
    """``cv2.warpAffine(src, matrix, dsize, borderMode=BORDER_REFLECT_101)`` as OpenCV 3.4 computes it.

    Bilinear interpolation (INTER_LINEAR) of a float32 ``H x W x C`` image: the forward matrix is
    inverted in float64, mapped coordinates are rounded to 1/1024 and then 1/32 pixel (fixed point),
    weights come from OpenCV's 32 x 32 bilinear table and the four products are summed in float32.
    OpenCV 4.11+/5 compute warpAffine differently (up to ~0.02 apart on [0, 1] data), and the
    reference data were made with OpenCV 3.4. ``dsize`` is ``(width, height)`` (default: src size).
    """
    src32 = np.ascontiguousarray(src, dtype=np.float32)
    if src32.ndim == 2:
        return warp_affine_cv34(src32[:, :, None], matrix, dsize)[:, :, 0]
    m = invert_affine_cv(matrix)
    w, h = (src32.shape[1], src32.shape[0]) if dsize is None else dsize
    dst = np.empty((h, w, src32.shape[2]), np.float32)
    _warp_affine_kernel(src32, m, dst)
    return dst


_BLOCK = 32  # OpenCV's WarpPerspectiveInvoker works in blocks of at most 32 * 32 pixels


@kernel(nogil=False)
def _perspective_maps(m, bw0, xy, alpha):  # pragma: no cover - compiled
    """OpenCV 3.4's fixed-point source coordinates (see :func:`warp_perspective`), in double."""
    h, w = alpha.shape
    lo, hi = -(2.0**31), 2.0**31 - 1
    for y in range(h):
        for x in range(w):
            x0 = (x // bw0) * bw0
            x1 = x - x0
            big0 = m[0] * x0 + m[1] * y + m[2]
            big1 = m[3] * x0 + m[4] * y + m[5]
            wgt = (m[6] * x0 + m[7] * y + m[8]) + m[6] * x1
            wgt = 32.0 / wgt if wgt != 0 else 0.0
            fx = min(max((big0 + m[0] * x1) * wgt, lo), hi)
            fy = min(max((big1 + m[3] * x1) * wgt, lo), hi)
            xi = np.int64(np.rint(fx))
            yi = np.int64(np.rint(fy))
            xy[y, x, 0] = min(max(xi >> 5, -32768), 32767)
            xy[y, x, 1] = min(max(yi >> 5, -32768), 32767)
            alpha[y, x] = (yi & 31) * 32 + (xi & 31)


def warp_perspective_cv34(
    src: np.ndarray, matrix: np.ndarray, dsize: tuple[int, int]
) -> np.ndarray:
    """``cv2.warpPerspective(src, matrix, dsize)`` as OpenCV 3.4 computes it (bilinear, black border).

    OpenCV 3.4 (``imgwarp.cpp``, ``WarpPerspectiveInvoker``): ``M = inverse(matrix)`` (``cv2.invert``,
    LU); the output is processed in blocks ``bw0 x bh0`` (``bh0 = min(16, h)``,
    ``bw0 = min(1024 // bh0, w)``); in a block starting at column ``x``, pixel ``(x + x1, y)`` gets

        X0 = M0 x + M1 y + M2,  Y0 = M3 x + M4 y + M5,  W0 = M6 x + M7 y + M8   (double)
        W = 32 / (W0 + M6 x1)   (0 if the denominator is 0)
        X = round((X0 + M0 x1) W),  Y = round((Y0 + M3 x1) W)     (round half to even)

    i.e. source coordinates in 1/32 px: integer part ``X >> 5`` and table index
    ``(Y & 31) * 32 + (X & 31)``, then ``cv2.remap`` with these fixed-point maps (15-bit bilinear
    weights, constant border 0) — the remap path OpenCV still shares with 3.4.

    Args:
        src: uint8 H x W x C (or H x W).
        matrix: 3 x 3 forward homography (source -> destination), float64.
        dsize: output ``(width, height)``.
    """
    w, h = dsize
    ok, inv = cv2.invert(np.asarray(matrix, dtype=np.float64), flags=cv2.DECOMP_LU)
    m = np.ascontiguousarray(inv.ravel() if ok else np.zeros(9), dtype=np.float64)
    bh0 = min(_BLOCK // 2, h)
    bw0 = min(_BLOCK * _BLOCK // bh0, w)
    xy = np.empty((h, w, 2), dtype=np.int16)
    alpha = np.empty((h, w), dtype=np.uint16)
    _perspective_maps(m, bw0, xy, alpha)
    return cv2.remap(
        src, xy, alpha, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
    )

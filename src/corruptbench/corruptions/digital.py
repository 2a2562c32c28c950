"""Digital corruptions: brightness, contrast, elastic_transform, pixelate, jpeg_compression,
saturate (extra).

Fidelity notes:

* brightness / saturate use the compiled scikit-image-exact HSV kernels of :mod:`.._color`.
* contrast is a per-channel 256-entry lookup table built with the reference's float64 formula.
* pixelate and jpeg_compression call Pillow exactly as the reference does (BOX resampling; JPEG
  with Pillow's defaults).
* elastic_transform reproduces the reference pipeline numerically: ``cv2.getAffineTransform``, then
  OpenCV 3.4's ``warpAffine`` bilinear algorithm (fixed-point coordinates with 5 fractional bits,
  float32 weights and sums, BORDER_REFLECT_101) — newer OpenCV releases compute ``warpAffine``
  differently, so it is re-implemented here —, the displacement fields of
  ``skimage.filters.gaussian(mode='reflect', truncate=3)`` and ``scipy.ndimage.map_coordinates(
  order=1, mode='reflect')`` with SciPy's exact coordinate folding, weights and summation order.
  The steps are fused where that keeps every float operation: ``image / 255`` is read through a
  256-entry float32 table, the warp writes a zero-padded 4-channel float64 copy of its float32
  results (vector sums over the lanes, here and in the sampling), each displacement field's
  ``* alpha`` and float32 cast run in the filter's last pass, and the sampling writes the clipped
  uint8 result directly.
"""

from __future__ import annotations

import functools
import io
import math
from typing import Any

import cv2
import numba
import numpy as np
import scipy.fft
import simplejpeg
from PIL import Image

from ..ops.hsv import hsv_adjust_uint8
from ..ops.legacy_random import legacy_uniform
from ..profiles import Profile
from ..registry import register_corruption
from ..tables.corruptions import get_params

__all__ = [
    "brightness",
    "contrast",
    "elastic_transform",
    "pixelate",
    "jpeg_compression",
    "saturate",
    "gaussian_filter_reflect",
    "pil_box_resize",
    "warp_affine_cv34",
    "map_coordinates_reflect_bilinear",
]

_UNIT = np.arange(256) / 255.0  # value / 255. for every uint8 value
_UNIT32 = np.arange(256, dtype=np.uint8).astype(np.float32) / 255.0  # float32 image / 255.0


# --------------------------------------------------------------------------------------------
# brightness, saturate, contrast
# --------------------------------------------------------------------------------------------


@register_corruption("brightness", family="digital", random=False)
def brightness(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Brightness: HSV ``V = clip(V + c, 0, 1)``, back to RGB, ``clip * 255`` (spec §1.2 #13).

    HSV as ``skimage.color.rgb2hsv`` / ``hsv2rgb`` (float64, bit-identical). No random draws;
    any image size (per-pixel operation).

    Args:
        image: read-only uint8 H x W x 3.
        severity: 1..5.
        profile: parameter table to use.
        rng: unused.

    Returns:
        uint8 H x W x 3 (the reference's float result, truncated).
    """
    c = get_params("brightness", severity, profile.name)
    return hsv_adjust_uint8(image, v_add=c)


@register_corruption("saturate", family="digital", extra=True, random=False)
def saturate(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Saturation: HSV ``S = clip(S * c0 + c1, 0, 1)``, back to RGB, ``clip * 255`` (§1.2 #15; extra).

    No random draws; any image size (per-pixel operation).

    Returns:
        uint8 H x W x 3 (the reference's float result, truncated).
    """
    c0, c1 = get_params("saturate", severity, profile.name)
    return hsv_adjust_uint8(image, s_mul=c0, s_add=c1)


@register_corruption("contrast", family="digital", random=False)
def contrast(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Contrast: ``clip((x - mean) * c + mean, 0, 1) * 255`` per channel (spec §1.2 #14).

    ``x = image / 255.``; ``mean`` is each channel's spatial mean (``np.mean(x, axis=(0, 1))``
    summed in NumPy's order, so it is bit-identical). The formula is evaluated once per channel
    and uint8 value (a lookup table). No random draws; any image size.

    Returns:
        uint8 H x W x 3 (the reference's float result, truncated).
    """
    c = get_params("contrast", severity, profile.name)
    img = np.ascontiguousarray(image)
    means = _channel_sums(img, _UNIT) / (img.shape[0] * img.shape[1])
    # (the same float64 operations per channel and value, broadcast over the 3 channels)
    lut = (np.clip((_UNIT[:, None] - means) * c + means, 0, 1) * 255).astype(np.uint8)
    out = np.empty(img.shape, np.uint8)
    _apply_channel_lut(img, lut, out)
    return out


@numba.njit(cache=True, nogil=True)
def _apply_channel_lut(img: np.ndarray, lut: np.ndarray, out: np.ndarray) -> None:
    # out[..., ch] = lut[img[..., ch], ch] (cv2.LUT with a 3-channel table)
    src = img.reshape(-1, 3)
    dst = out.reshape(-1, 3)
    for k in range(src.shape[0]):
        dst[k, 0] = lut[src[k, 0], 0]
        dst[k, 1] = lut[src[k, 1], 1]
        dst[k, 2] = lut[src[k, 2], 2]


@numba.njit(cache=True, nogil=True)
def _channel_sums(img: np.ndarray, unit: np.ndarray) -> np.ndarray:
    # np.sum(img / 255., axis=(0, 1)) in NumPy's order for this layout: a sequential float64
    # accumulation over the pixels (the reduced axes are outer; asserted equal in the tests)
    sums = np.zeros(3)
    flat = img.reshape(-1, 3)
    for k in range(flat.shape[0]):
        for ch in range(3):
            sums[ch] += unit[flat[k, ch]]
    return sums


# --------------------------------------------------------------------------------------------
# pixelate, jpeg_compression
# --------------------------------------------------------------------------------------------


@register_corruption("pixelate", family="digital", random=False)
def pixelate(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Pixelation: Pillow BOX resize to ``(int(W c), int(H c))`` and BOX back to ``(W, H)`` (§1.2 #17).

    The reference hard-codes its native size ``S`` for both sides; here width and height follow the
    actual image (identical at the native size), with at least one pixel. Both resizes run
    :func:`pil_box_resize`, a compiled copy of Pillow's 8-bit BOX resampling (bit-identical to
    the reference's ``Image.resize(..., Image.BOX)``, about twice as fast). No random draws.

    Returns:
        uint8 H x W x 3.
    """
    c = get_params("pixelate", severity, profile.name)
    h, w = image.shape[:2]
    small = pil_box_resize(image, (max(1, int(w * c)), max(1, int(h * c))))
    return pil_box_resize(small, (w, h))


@functools.lru_cache(maxsize=64)
def _pil_box_coefficients(in_size: int, out_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Pillow's ``precompute_coeffs`` (BOX, support 0.5) + ``normalize_coeffs_8bpc``."""
    scale = float(in_size) / out_size
    filterscale = max(scale, 1.0)
    support = 0.5 * filterscale
    ksize = int(math.ceil(support)) * 2 + 1
    bounds = np.zeros((out_size, 2), np.int64)
    fixed = np.zeros((out_size, ksize), np.int32)  # Pillow's INT32 coefficients
    inv = 1.0 / filterscale
    for xx in range(out_size):
        center = (xx + 0.5) * scale  # in0 = 0
        xmin = max(int(center - support + 0.5), 0)  # C casts truncate toward zero
        xmax = min(int(center + support + 0.5), in_size) - xmin
        weights = []
        for x in range(xmax):
            t = (x + xmin - center + 0.5) * inv
            weights.append(1.0 if -0.5 < t <= 0.5 else 0.0)
        total = sum(weights)  # sequential, as the C loop
        for x, wgt in enumerate(weights):
            k = wgt / total if total != 0.0 else wgt
            fixed[xx, x] = int(0.5 + k * (1 << _PIL_PRECISION_BITS))
        bounds[xx] = (xmin, xmax)
    bounds.flags.writeable = False
    fixed.flags.writeable = False
    return bounds, fixed


_PIL_PRECISION_BITS = 32 - 8 - 2


@functools.lru_cache(maxsize=64)
def _pil_box_single_taps(in_size: int, out_size: int) -> np.ndarray | None:
    """The source index of each output when every output has one tap of fixed weight 1.0.

    Then Pillow's pass is a copy: ``(2**21 + v * 2**22) >> 22 == v`` for every uint8 ``v``.
    The same size gives the identity (Pillow skips that pass); ``None`` otherwise.
    """
    if in_size == out_size:
        idx = np.arange(in_size)
    else:
        bounds, fixed = _pil_box_coefficients(in_size, out_size)
        if not (bounds[:, 1] == 1).all() or not (fixed[:, 0] == 1 << _PIL_PRECISION_BITS).all():
            return None
        idx = bounds[:, 0].copy()
    idx.flags.writeable = False
    return idx


@numba.njit(cache=True, nogil=True)
def _gather_pixels(src: np.ndarray, rows: np.ndarray, cols: np.ndarray, dst: np.ndarray) -> None:
    # dst[y, x] = src[rows[y], cols[x]] (C-contiguous arrays); a row equal to the previous
    # output row's source is copied from it
    cn = src.shape[2]
    row_in = src.shape[1] * cn
    row_out = dst.shape[1] * cn
    flat_s = src.ravel()
    flat_d = dst.ravel()
    offs = np.empty(row_out, np.int64)
    for x in range(dst.shape[1]):
        for c in range(cn):
            offs[x * cn + c] = cols[x] * cn + c
    for y in range(dst.shape[0]):
        o = y * row_out
        if y > 0 and rows[y] == rows[y - 1]:
            for k in range(row_out):
                flat_d[o + k] = flat_d[o - row_out + k]
        else:
            base = rows[y] * row_in
            for k in range(row_out):
                flat_d[o + k] = flat_s[base + offs[k]]


@numba.njit(cache=True, nogil=True)
def _pil_resample_rows(
    src: np.ndarray, offset: int, bounds: np.ndarray, kk: np.ndarray, dst: np.ndarray
) -> None:
    # ImagingResampleHorizontal_8bpc: dst[y, xx] = clip8(2**21 + sum_x src[y + offset, xmin + x] * k[x])
    half = 1 << (_PIL_PRECISION_BITS - 1)
    nch = dst.shape[2]
    for y in range(dst.shape[0]):
        row = src[y + offset]
        for xx in range(dst.shape[1]):
            xmin = bounds[xx, 0]
            taps = bounds[xx, 1]
            if nch == 3:  # the RGB case, channels unrolled as in Pillow
                a0 = half
                a1 = half
                a2 = half
                for x in range(taps):
                    k = kk[xx, x]
                    a0 += np.int32(row[xmin + x, 0]) * k
                    a1 += np.int32(row[xmin + x, 1]) * k
                    a2 += np.int32(row[xmin + x, 2]) * k
                dst[y, xx, 0] = min(max(a0 >> _PIL_PRECISION_BITS, 0), 255)
                dst[y, xx, 1] = min(max(a1 >> _PIL_PRECISION_BITS, 0), 255)
                dst[y, xx, 2] = min(max(a2 >> _PIL_PRECISION_BITS, 0), 255)
            else:
                for ch in range(nch):
                    acc = half
                    for x in range(taps):
                        acc += np.int32(row[xmin + x, ch]) * kk[xx, x]
                    dst[y, xx, ch] = min(max(acc >> _PIL_PRECISION_BITS, 0), 255)


@numba.njit(cache=True, nogil=True)
def _pil_resample_cols(
    src: np.ndarray, bounds: np.ndarray, kk: np.ndarray, dst: np.ndarray
) -> None:
    # ImagingResampleVertical_8bpc (bounds already shifted by the first used source row); the
    # accumulation runs over whole rows at once (same integer sums, vectorisable)
    half = 1 << (_PIL_PRECISION_BITS - 1)
    width = dst.shape[1] * dst.shape[2]
    flat_src = src.reshape(src.shape[0], width)
    flat_dst = dst.reshape(dst.shape[0], width)
    acc = np.empty(width, np.int32)
    for yy in range(dst.shape[0]):
        ymin = bounds[yy, 0]
        acc[:] = half
        for y in range(bounds[yy, 1]):
            k = kk[yy, y]
            line = flat_src[ymin + y]
            for i in range(width):
                acc[i] += np.int32(line[i]) * k
        for i in range(width):
            flat_dst[yy, i] = min(max(acc[i] >> _PIL_PRECISION_BITS, 0), 255)


def pil_box_resize(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``Image.fromarray(image).resize(size, Image.BOX)`` of Pillow <= 12 for uint8 ``H x W x C``.

    A compiled transcription of Pillow's ``ImagingResampleInner`` for 8-bit images (``Resample.c``):
    double-precision BOX coefficients normalised to 22-bit fixed point, a horizontal pass over the
    source rows the vertical pass needs, then the vertical pass, each rounding with ``+ 2**21`` and
    clipping. ``size`` is ``(width, height)``; the same size returns a copy (as Pillow).

    Always horizontal pass first, as the Pillow of the reference environment (10.x): Pillow 13 may
    run the vertical pass first when both sides change, which can move a few values by 1 on
    non-square images. Square-to-square resizes (every pixelate case of the reference) and
    single-axis resizes are identical in all these Pillow versions.
    """
    src = np.ascontiguousarray(image)
    if src.ndim == 2:
        return pil_box_resize(src[:, :, None], size)[:, :, 0]
    h, w = src.shape[:2]
    out_w, out_h = int(size[0]), int(size[1])
    if (out_w, out_h) == (w, h):
        return src.copy()
    rows = _pil_box_single_taps(h, out_h)
    cols = _pil_box_single_taps(w, out_w)
    if rows is not None and cols is not None:
        # every output pixel has one tap of weight 1 (BOX upscaling): the passes copy pixels
        out = np.empty((out_h, out_w, src.shape[2]), np.uint8)
        _gather_pixels(src, rows, cols, out)
        return out
    bounds_v, kk_v = _pil_box_coefficients(h, out_h)
    first = int(bounds_v[0, 0])
    last = int(bounds_v[-1, 0] + bounds_v[-1, 1])
    if out_w != w:
        bounds_h, kk_h = _pil_box_coefficients(w, out_w)
        tmp = np.empty((last - first, out_w, src.shape[2]), np.uint8)
        _pil_resample_rows(src, first, bounds_h, kk_h, tmp)
        bounds_v = bounds_v - np.array([first, 0])
    else:
        tmp = src
    if out_h == h:
        return tmp.copy() if tmp is src else tmp
    out = np.empty((out_h, out_w, src.shape[2]), np.uint8)
    _pil_resample_cols(tmp, bounds_v, kk_v, out)
    return out


@register_corruption("jpeg_compression", family="digital", random=False)
def jpeg_compression(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """JPEG round trip at quality ``c`` (Pillow encoder with its defaults: 4:2:0, no optimize; §1.2 #16).

    Encoded with Pillow as the reference, in memory; decoded with libjpeg-turbo through
    ``simplejpeg`` straight into an RGB array (the same decoder defaults as Pillow's — accurate
    integer DCT, fancy upsampling —: the same pixels, checked against Pillow's decode in the
    tests, and faster than ``Image.open`` + array conversion). (The dataset scripts then store the
    result as a quality-85 JPEG: that second compression belongs to the dataset writer, not to this
    function.) No random draws; any size.

    Returns:
        uint8 H x W x 3.
    """
    q = get_params("jpeg_compression", severity, profile.name)
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image)).save(buf, "JPEG", quality=int(q))
    return simplejpeg.decode_jpeg(
        buf.getbuffer(), colorspace="RGB", fastdct=False, fastupsample=False
    )


# --------------------------------------------------------------------------------------------
# elastic_transform and its numerical building blocks
# --------------------------------------------------------------------------------------------

_AB_BITS = 10  # OpenCV warpAffine: fixed-point bits of the mapped coordinates
_INTER_BITS = 5  # OpenCV: fractional bits of the interpolation table (32 x 32 bilinear weights)
_INTER_TAB = 1 << _INTER_BITS


@numba.njit(cache=True, nogil=True)
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


@numba.njit(cache=True, nogil=True)
def _warp_affine_kernel(src: np.ndarray, m: np.ndarray, dst: np.ndarray) -> None:
    # float32 src; dst float32, or float64 to hold the float32 results exactly
    h, w, cn = src.shape
    oh, ow = dst.shape[0], dst.shape[1]
    ab_scale = float(1 << _AB_BITS)
    round_delta = (1 << _AB_BITS) // _INTER_TAB // 2
    shift = _AB_BITS - _INTER_BITS
    mask = _INTER_TAB - 1
    scale = np.float32(1.0) / np.float32(_INTER_TAB)
    one = np.float32(1.0)
    wtab = np.empty((_INTER_TAB, _INTER_TAB, 4), np.float32)  # OpenCV's bilinear table
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
    for y in range(oh):
        x0 = int(np.rint((m[0, 1] * y + m[0, 2]) * ab_scale)) + round_delta
        y0 = int(np.rint((m[1, 1] * y + m[1, 2]) * ab_scale)) + round_delta
        for x in range(ow):
            xx = (x0 + adelta[x]) >> shift
            yy = (y0 + bdelta[x]) >> shift
            sx = xx >> _INTER_BITS
            sy = yy >> _INTER_BITS
            wt = wtab[yy & mask, xx & mask]
            w0 = wt[0]
            w1 = wt[1]
            w2 = wt[2]
            w3 = wt[3]
            if 0 <= sx < w - 1 and 0 <= sy < h - 1:
                xa, xb, ya, yb = sx, sx + 1, sy, sy + 1
            else:
                xa = _reflect101(sx, w)
                xb = _reflect101(sx + 1, w)
                ya = _reflect101(sy, h)
                yb = _reflect101(sy + 1, h)
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


@numba.njit(cache=True, nogil=True)
def _unit_rgb_padded(src: np.ndarray, lut: np.ndarray, dst: np.ndarray) -> None:
    # dst[..., :3] = lut[src] (uint8 RGB; lut[v] == float32(v) / 255), dst[..., 3] = 0
    n = src.shape[0] * src.shape[1]
    s = src.reshape(n, 3)
    d = dst.reshape(n, 4)
    zero = np.float32(0.0)
    for p in range(n):
        d[p, 0] = lut[s[p, 0]]
        d[p, 1] = lut[s[p, 1]]
        d[p, 2] = lut[s[p, 2]]
        d[p, 3] = zero


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


@numba.njit(cache=True, nogil=True)
def _scipy_reflect_coordinate(c: float, n: int) -> float:
    # scipy.ndimage map_coordinate() for mode 'reflect' (NI_EXTEND_REFLECT), as SciPy >= 1.6
    if c < 0:
        if n <= 1:
            return 0.0
        sz2 = 2 * n
        if c < -sz2:
            c = sz2 * int(-c / sz2) + c
        # (SciPy guards against -c - 1 == -1, which would select the constant border)
        c = c + sz2 if c < -n else (1e-15 if c > -1e-15 else -c) - 1.0
    elif c > n - 1:
        if n <= 1:
            return 0.0
        sz2 = 2 * n
        c -= sz2 * int(c / sz2)
        if c >= n:
            c = sz2 - c - 1.0
    return c


@numba.njit(cache=True, nogil=True)
def _scipy_reflect_index(i: int, n: int) -> int:
    # the border-neighbour folding of scipy.ndimage's interpolation for mode 'reflect'
    # (half-sample symmetric: ... 1 0 | 0 1 ... n-1 | n-1 n-2 ...)
    if n <= 1:
        return 0
    s2 = 2 * n
    i %= s2  # Python/numba floor modulo: in [0, 2n)
    if i >= n:
        i = s2 - 1 - i
    return i


@numba.njit(cache=True, nogil=True, inline="always")
def _linear_setup(c: float, n: int) -> tuple[bool, int, int, float, float]:
    cc = _scipy_reflect_coordinate(c, n)
    if not cc > -1.0:
        return False, 0, 0, 0.0, 0.0
    start = int(np.floor(cc))
    t = cc - np.floor(cc)
    w0 = 1.0 - t
    w1 = 1.0 - w0
    i0, i1 = start, start + 1
    if start < 0 or start + 1 >= n:
        i0 = _scipy_reflect_index(i0, n)
        i1 = _scipy_reflect_index(i1, n)
    return True, i0, i1, w0, w1


@numba.njit(cache=True, nogil=True)
def _map_coordinates_kernel(
    img: np.ndarray, dx: np.ndarray, dy: np.ndarray, out: np.ndarray
) -> None:
    h, w, cn = img.shape
    for i in range(h):
        for j in range(w):
            oky, y0, y1, wy0, wy1 = _linear_setup(np.float64(i) + np.float64(dy[i, j]), h)
            okx, x0, x1, wx0, wx1 = _linear_setup(np.float64(j) + np.float64(dx[i, j]), w)
            for k in range(cn):
                t = 0.0
                if oky and okx:
                    # the summation order of NI_GeometricTransform (last axis fastest); the
                    # channel axis contributes weights 1 and 0 (integer channel coordinate)
                    t += np.float64(img[y0, x0, k]) * wy0 * wx0
                    t += np.float64(img[y0, x1, k]) * wy0 * wx1
                    t += np.float64(img[y1, x0, k]) * wy1 * wx0
                    t += np.float64(img[y1, x1, k]) * wy1 * wx1
                out[i, j, k] = t


@numba.njit(cache=True, nogil=True)
def _map_coordinates_u8_kernel(
    img: np.ndarray, dx: np.ndarray, dy: np.ndarray, out: np.ndarray
) -> None:
    # _map_coordinates_kernel followed by _to_uint8_255 on its float32 result, for a float64
    # image holding float32 values (converting them to float64 is exact), possibly padded with
    # zero channels so that the per-channel sums run as one vector (out has the real channels).
    # Row by row: a branch-free pass sets up the interior samples (no folding: floor ==
    # truncation, both neighbours inside), a second one the others, a third one samples.
    h, w, cn = img.shape
    cno = out.shape[2]
    zero = np.float32(0.0)
    one = np.float32(1.0)
    s255 = np.float32(255.0)
    ya = np.empty(w, np.int64)
    yb = np.empty(w, np.int64)
    xa = np.empty(w, np.int64)
    xb = np.empty(w, np.int64)
    wya = np.empty(w)
    wyb = np.empty(w)
    wxa = np.empty(w)
    wxb = np.empty(w)
    ok = np.empty(w, np.bool_)
    acc = np.empty(cn)
    for i in range(h):
        fi = np.float64(i)
        for j in range(w):
            cy = fi + np.float64(dy[i, j])
            cx = np.float64(j) + np.float64(dx[i, j])
            inside = (cy >= 0.0) & (cy < h - 1) & (cx >= 0.0) & (cx < w - 1)
            sy = cy if inside else 0.0
            sx = cx if inside else 0.0
            y0 = int(sy)
            x0 = int(sx)
            wy0 = 1.0 - (sy - np.float64(y0))
            wx0 = 1.0 - (sx - np.float64(x0))
            ya[j] = y0
            yb[j] = y0 + 1
            xa[j] = x0
            xb[j] = x0 + 1
            wya[j] = wy0
            wyb[j] = 1.0 - wy0
            wxa[j] = wx0
            wxb[j] = 1.0 - wx0
            ok[j] = inside
        for j in range(w):
            if not ok[j]:
                oky, ya[j], yb[j], wya[j], wyb[j] = _linear_setup(fi + np.float64(dy[i, j]), h)
                okx, xa[j], xb[j], wxa[j], wxb[j] = _linear_setup(
                    np.float64(j) + np.float64(dx[i, j]), w
                )
                ok[j] = oky and okx
        for j in range(w):
            if ok[j]:
                y0 = ya[j]
                y1 = yb[j]
                x0 = xa[j]
                x1 = xb[j]
                wy0 = wya[j]
                wy1 = wyb[j]
                wx0 = wxa[j]
                wx1 = wxb[j]
                p00 = img[y0, x0]
                p01 = img[y0, x1]
                p10 = img[y1, x0]
                p11 = img[y1, x1]
                for k in range(cn):
                    # the summation order of NI_GeometricTransform (see _map_coordinates_kernel)
                    t = 0.0
                    t += p00[k] * wy0 * wx0
                    t += p01[k] * wy0 * wx1
                    t += p10[k] * wy1 * wx0
                    t += p11[k] * wy1 * wx1
                    acc[k] = t
                for k in range(cno):
                    out[i, j, k] = np.uint8(min(max(np.float32(acc[k]), zero), one) * s255)
            else:
                for k in range(cno):
                    out[i, j, k] = 0


def map_coordinates_reflect_bilinear(
    image: np.ndarray, dx: np.ndarray, dy: np.ndarray
) -> np.ndarray:
    """``map_coordinates(image, (y + dy, x + dx, z), order=1, mode='reflect')`` of the reference.

    ``image``: ``H x W x C``; ``dx``, ``dy``: ``H x W`` displacements (float32 as in the reference).
    Samples every channel at ``(i + dy[i, j], j + dx[i, j])`` with SciPy's coordinate folding for
    'reflect' (and its mirror folding of border neighbours), weights ``1 - t``, ``1 - (1 - t)``,
    products and sum in float64 in SciPy's order; the result has ``image``'s dtype.
    """
    img = np.ascontiguousarray(image)
    out = np.empty(img.shape, img.dtype)
    _map_coordinates_kernel(img, np.ascontiguousarray(dx), np.ascontiguousarray(dy), out)
    return out


def _gaussian_weights(sigma: float, radius: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.arange(-radius, radius + 1)
    phi = np.exp(-0.5 / (sigma * sigma) * x**2)  # scipy.ndimage._gaussian_kernel1d
    return x, phi / phi.sum()


@functools.lru_cache(maxsize=16)
def _reflect_gaussian_operator(n: int, sigma: float, radius: int) -> np.ndarray:
    """``n x n`` matrix of the 1-D Gaussian correlation with 'reflect' (half-sample symmetric) edges."""
    x, phi = _gaussian_weights(sigma, radius)
    rows = np.arange(n)[:, None]
    cols = np.mod(rows + x[None, :], 2 * n)  # the period-2n symmetric extension
    cols = np.where(cols >= n, 2 * n - 1 - cols, cols)
    flat = (rows * n + cols).ravel()
    op = np.bincount(flat, weights=np.broadcast_to(phi, cols.shape).ravel(), minlength=n * n)
    op = op.reshape(n, n)
    op.flags.writeable = False
    return op


def _reflect_gaussian_fft(a: np.ndarray, sigma: float, radius: int, axis: int) -> np.ndarray:
    """The same correlation along ``axis`` as a circular convolution of the symmetric extension."""
    n = a.shape[axis]
    x, phi = _gaussian_weights(sigma, radius)
    folded = np.bincount(np.mod(x, 2 * n), weights=phi, minlength=2 * n)  # symmetric kernel
    ext = np.concatenate([a, np.flip(a, axis=axis)], axis=axis)
    spec = scipy.fft.rfft(ext, axis=axis)
    spec *= scipy.fft.rfft(folded).reshape((-1, 1) if axis == 0 else (1, -1))
    out = scipy.fft.irfft(spec, n=2 * n, axis=axis)
    return out[:n] if axis == 0 else out[:, :n]


@numba.njit(cache=True, nogil=True)
def _correlate_reflect_rows(src: np.ndarray, wts: np.ndarray, dst: np.ndarray) -> None:
    # scipy.ndimage.correlate1d(src, wts, axis=0, mode='reflect') for a symmetric float64 kernel
    # (NI_Correlate1D's symmetric branch): out = x[i] * w[c], then for k = c .. 1 (outer taps
    # first) out += (x[i - k] + x[i + k]) * w[c - k], the neighbours folded half-sample
    # symmetrically; vectorised over the columns (the same per-element operations and order)
    n = src.shape[0]
    c = wts.shape[0] // 2
    for i in range(n):
        acc = dst[i]
        row = src[i]
        wc = wts[c]
        for j in range(src.shape[1]):
            acc[j] = row[j] * wc
        for k in range(c, 0, -1):
            lo = src[_scipy_reflect_index(i - k, n)]
            hi = src[_scipy_reflect_index(i + k, n)]
            wk = wts[c - k]
            for j in range(src.shape[1]):
                acc[j] += (lo[j] + hi[j]) * wk


@numba.njit(cache=True, nogil=True)
def _correlate_reflect_cols_scaled(
    src: np.ndarray, wts: np.ndarray, scale: float, dst: np.ndarray
) -> None:
    # the same correlation along axis 1, then ``(result * scale)`` cast to dst's dtype; each row
    # is first copied into a buffer extended by the kernel radius with the reflected values
    n = src.shape[1]
    c = wts.shape[0] // 2
    buf = np.empty(n + 2 * c)
    acc = np.empty(n)
    wc = wts[c]
    for i in range(src.shape[0]):
        row = src[i]
        for j in range(c):
            buf[j] = row[_scipy_reflect_index(j - c, n)]
            buf[n + c + j] = row[_scipy_reflect_index(n + j, n)]
        for j in range(n):
            buf[c + j] = row[j]
        mid = buf[c : c + n]
        for j in range(n):
            acc[j] = mid[j] * wc
        for k in range(c, 0, -1):
            wk = wts[c - k]
            lo = buf[c - k : c - k + n]  # (views: plain non-negative indices in the loop)
            hi = buf[c + k : c + k + n]
            for j in range(n):
                acc[j] += (lo[j] + hi[j]) * wk
        out = dst[i]
        for j in range(n):
            out[j] = acc[j] * scale


def _gaussian_small_scaled(
    field: np.ndarray, sigma: float, radius: int, scale: float, dtype: type
) -> np.ndarray:
    """``(scipy.ndimage.gaussian_filter(field, sigma, mode='reflect', radius) * scale)`` as ``dtype``.

    Compiled, bit-identical to SciPy (axis 0 then axis 1, float64, SciPy's symmetric-kernel
    summation order), the scaling and cast fused into the second pass.
    """
    _, phi = _gaussian_weights(sigma, radius)
    wts = np.ascontiguousarray(phi[::-1])  # scipy correlates with the reversed kernel
    src = np.ascontiguousarray(field, dtype=np.float64)
    tmp = np.empty(src.shape)
    _correlate_reflect_rows(src, wts, tmp)
    out: np.ndarray = np.empty(src.shape, dtype)
    _correlate_reflect_cols_scaled(tmp, wts, float(scale), out)
    return out


def _smoothed_displacement(field: np.ndarray, sigma: float, alpha: float) -> np.ndarray:
    """``(gaussian_filter_reflect(field, sigma) * alpha).astype(np.float32)`` (same bytes)."""
    sigma = float(sigma)
    radius = int(3.0 * sigma + 0.5)
    if sigma > 1e-15 and 2 * radius + 1 <= _SMALL_KERNEL and field.ndim == 2:
        return _gaussian_small_scaled(field, sigma, radius, alpha, np.float32)
    return (gaussian_filter_reflect(field, sigma) * alpha).astype(np.float32)


#: the widest kernel (taps) filtered directly, as SciPy; wider ones use exact folded operators
_SMALL_KERNEL = 48


def gaussian_filter_reflect(field: np.ndarray, sigma: float, truncate: float = 3.0) -> np.ndarray:
    """``skimage.filters.gaussian(field, sigma, mode='reflect', truncate=truncate)`` of a 2-D field.

    Equals ``scipy.ndimage.gaussian_filter(field, sigma, mode='reflect', truncate=truncate)``
    (float64). Small kernels (up to 48 taps) run a compiled copy of SciPy's separable
    correlation (its symmetric-kernel summation order: bit-identical). Kernels much wider (the
    reference's elastic sigmas reach 0.7 x 244 px, wider than the image) are applied exactly folded
    onto the image's period-2n symmetric extension, as two dense matrix products (sides up to
    512 px) or FFT convolutions: equal to SciPy's up to float64 round-off (~1e-15 relative).
    """
    field = np.asarray(field, dtype=np.float64)
    sigma = float(sigma)
    if sigma <= 1e-15:  # scipy skips such axes
        return field.copy()
    radius = int(truncate * sigma + 0.5)
    h, w = field.shape
    if 2 * radius + 1 <= _SMALL_KERNEL:
        return _gaussian_small_scaled(field, sigma, radius, 1.0, np.float64)
    if max(h, w) <= 512:
        op_h = _reflect_gaussian_operator(h, sigma, radius)
        op_w = _reflect_gaussian_operator(w, sigma, radius)
        return op_h @ field @ op_w.T
    return _reflect_gaussian_fft(_reflect_gaussian_fft(field, sigma, radius, 0), sigma, radius, 1)


@register_corruption("elastic_transform", family="digital")
def elastic_transform(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """Elastic transform: random affine + smoothed random displacement (spec §1.2 #18).

    With ``(alpha, sigma, jitter)`` from the table (244x the base triples at 224 px, a reference
    quirk kept): ``x = image / 255`` (float32); ``pts1`` around ``centre = float32([H, W]) // 2`` at
    ``± min(H, W) // 3``; ``pts2 = pts1 + U(-jitter, jitter, (3, 2))``; ``x = warpAffine(x,
    getAffineTransform(pts1, pts2), (W, H), BORDER_REFLECT_101)``; ``dx, dy = float32(gaussian(U(-1,
    1, (H, W)), sigma, mode='reflect', truncate=3) * alpha)``; ``out = map_coordinates(x, (y + dy,
    x + dx, z), order=1, mode='reflect')``; ``clip * 255``. Draws: uniform (3, 2), uniform (H, W),
    uniform (H, W). Non-square images follow the reference's shape logic literally (the centre
    ``[H // 2, W // 2]`` is used as cv2 ``(x, y)`` points, like the reference code does).

    Returns:
        uint8 H x W x 3.
    """
    alpha, sigma, jitter = get_params("elastic_transform", severity, profile.name)
    h, w = image.shape[:2]

    center = np.array((h, w), dtype=np.float32) // 2
    square = min(h, w) // 3
    pts1 = np.array(
        [center + square, [center[0] + square, center[1] - square], center - square],
        dtype=np.float32,
    )
    pts2 = pts1 + np.asarray(rng.uniform(-jitter, jitter, size=pts1.shape)).astype(np.float32)
    matrix = cv2.getAffineTransform(pts1, pts2)
    # warpAffine of x = image / 255 (float32), reading x through a 256-entry table
    src = np.ascontiguousarray(image)
    # (RGB padded with a zero channel, for 4-lane vector sums here and in the sampling below;
    # the warped float32 values are held as float64, exactly)
    if src.dtype == np.uint8 and src.shape[2:] == (3,):
        x32 = np.empty((h, w, 4), np.float32)
        _unit_rgb_padded(src, _UNIT32, x32)
    else:
        x32 = src.astype(np.float32) / 255.0
    x = np.empty(x32.shape)
    _warp_affine_kernel(x32, invert_affine_cv(matrix), x)

    # rng.uniform(-1, 1, size=(h, w)) twice, compiled for a RandomState (same values and state)
    dx = _smoothed_displacement(legacy_uniform(rng, -1, 1, (h, w)), sigma, alpha)
    dy = _smoothed_displacement(legacy_uniform(rng, -1, 1, (h, w)), sigma, alpha)

    # map_coordinates, then np.uint8(np.clip(., 0, 1) * 255) of its float32 result, fused
    out = np.empty((h, w, src.shape[2]), np.uint8)
    _map_coordinates_u8_kernel(x, dx, dy, out)
    return out

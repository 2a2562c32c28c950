"""Pillow's 8-bit BOX resampling (``Image.resize(size, Image.BOX)``), compiled and bit-identical.

* :func:`pil_box_coefficients` — the fixed-point coefficients of one axis (also used by the torch
  backend)
* :func:`pil_box_resize` — the resize of a uint8 H x W (x C) image (pixelate)
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .jit import kernel

__all__ = ["PRECISION_BITS", "pil_box_coefficients", "pil_box_resize"]

#: fractional bits of Pillow's 8-bit resampling coefficients (``Resample.c``: 32 - 8 - 2)
PRECISION_BITS = 32 - 8 - 2


@functools.lru_cache(maxsize=256)
def pil_box_coefficients(in_size: int, out_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Pillow's BOX coefficients of one axis: ``precompute_coeffs`` + ``normalize_coeffs_8bpc``.

    Returns read-only ``(bounds, fixed)``: ``bounds[o] = (xmin, taps)`` (output ``o`` reads inputs
    ``xmin .. xmin + taps - 1``) and ``fixed[o, :taps]`` the weights in Pillow's 22-bit fixed
    point (int32). The one copy: the CPU library's resize and the torch backend both use it.

    As ``Resample.c``: ``scale = (double)(in1 - in0) / outSize`` with the float (float32) box
    coordinates ``in0 = 0``, ``in1 = in_size`` (``float32(in_size)`` equals ``in_size`` below
    2**24); ``center = (o + 0.5) * scale``; BOX weight 1 where ``-0.5 < (x - center + 0.5) /
    max(scale, 1) <= 0.5``; weights normalised by their (sequential) sum, then
    ``int(0.5 + k * 2**22)`` (BOX weights are never negative).
    """
    scale = float(np.float32(in_size)) / out_size
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
            fixed[xx, x] = int(0.5 + k * (1 << PRECISION_BITS))
        bounds[xx] = (xmin, xmax)
    bounds.flags.writeable = False
    fixed.flags.writeable = False
    return bounds, fixed


@functools.lru_cache(maxsize=64)
def _pil_box_single_taps(in_size: int, out_size: int) -> np.ndarray | None:
    """The source index of each output when every output has one tap of fixed weight 1.0.

    Then Pillow's pass is a copy: ``(2**21 + v * 2**22) >> 22 == v`` for every uint8 ``v``.
    The same size gives the identity (Pillow skips that pass); ``None`` otherwise.
    """
    if in_size == out_size:
        idx = np.arange(in_size)
    else:
        bounds, fixed = pil_box_coefficients(in_size, out_size)
        if not (bounds[:, 1] == 1).all() or not (fixed[:, 0] == 1 << PRECISION_BITS).all():
            return None
        idx = bounds[:, 0].copy()
    idx.flags.writeable = False
    return idx


@kernel
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


@kernel
def _pil_resample_rows(
    src: np.ndarray, offset: int, bounds: np.ndarray, kk: np.ndarray, dst: np.ndarray
) -> None:
    # ImagingResampleHorizontal_8bpc: dst[y, xx] = clip8(2**21 + sum_x src[y + offset, xmin + x] * k[x])
    half = 1 << (PRECISION_BITS - 1)
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
                dst[y, xx, 0] = min(max(a0 >> PRECISION_BITS, 0), 255)
                dst[y, xx, 1] = min(max(a1 >> PRECISION_BITS, 0), 255)
                dst[y, xx, 2] = min(max(a2 >> PRECISION_BITS, 0), 255)
            else:
                for ch in range(nch):
                    acc = half
                    for x in range(taps):
                        acc += np.int32(row[xmin + x, ch]) * kk[xx, x]
                    dst[y, xx, ch] = min(max(acc >> PRECISION_BITS, 0), 255)


@kernel
def _pil_resample_cols(
    src: np.ndarray, bounds: np.ndarray, kk: np.ndarray, dst: np.ndarray
) -> None:
    # ImagingResampleVertical_8bpc (bounds already shifted by the first used source row); the
    # accumulation runs over whole rows at once (same integer sums, vectorisable)
    half = 1 << (PRECISION_BITS - 1)
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
            flat_dst[yy, i] = min(max(acc[i] >> PRECISION_BITS, 0), 255)


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
    bounds_v, kk_v = pil_box_coefficients(h, out_h)
    first = int(bounds_v[0, 0])
    last = int(bounds_v[-1, 0] + bounds_v[-1, 1])
    if out_w != w:
        bounds_h, kk_h = pil_box_coefficients(w, out_w)
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

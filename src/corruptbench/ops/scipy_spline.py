"""SciPy ndimage's cubic-spline sampling in ``mode='constant'``, compiled and bit-identical to SciPy.

ImageNet-C-bar's chromatic aberrations call ``scipy.ndimage.shift`` / ``zoom`` with
``prefilter=False`` on uint8 planes, and its circular motion blur ``rotate`` (an
``affine_transform`` of spline coefficients). SciPy 1.17 runs these 1.5-1.8x slower than the
SciPy 1.13 the original is measured with; these kernels do the same arithmetic
(scipy/ndimage/src/ni_interpolation.c ``NI_ZoomShift`` / ``NI_GeometricTransform`` with
``order=3``, ni_splines.c ``get_spline_interpolation_weights``):

* a coordinate outside ``[0, n - 1]`` on any axis gives ``cval`` (0);
* inside, the 4 taps from ``floor(c) - 1`` are folded back mirror-wise (``2 n - 2`` period) at
  the edges; the weights are the cubic B-spline's at ``x = c - floor(c)``: ``w1 = (x^2 (x - 2)
  3 + 4) / 6``, ``w2`` the same of ``1 - x``, ``w0 = (1 - x)^3 / 6``, ``w3 = 1 - w0 - w1 - w2``;
* the 16 products ``v * w_row * w_col`` are summed tap by tap (row-major) in double;
* uint8 output: ``t + 0.5`` (0 for ``t <= 0``), capped at 255, truncated; float32: a C cast.

They were checked against SciPy on random shifts, zooms and rotations during development (and
the tests compare them with SciPy on random planes).
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel

__all__ = ["spline_taps", "zoom_shift_u8", "affine_accumulate_f32"]


@kernel(inline="always")
def _mirror(idx: int, n: int) -> int:
    """An edge tap folded back into ``[0, n)`` (period ``2 n - 2``)."""
    if n <= 1:
        return 0
    s2 = 2 * n - 2
    if idx < 0:
        idx = s2 * (-idx // s2) + idx
        idx = idx + s2 if idx <= 1 - n else -idx
    elif idx >= n:
        idx -= s2 * (idx // s2)
        if idx >= n:
            idx = s2 - idx
    return idx


@kernel(inline="always")
def _cubic_weights(c: float) -> tuple[float, float, float, float]:
    """``get_spline_interpolation_weights(c, 3)``."""
    x = c - math.floor(c)
    y = x
    z = 1.0 - x
    w1 = (y * y * (y - 2.0) * 3.0 + 4.0) / 6.0
    w2 = (z * z * (z - 2.0) * 3.0 + 4.0) / 6.0
    w0 = z * z * z / 6.0
    w3 = 1.0
    w3 -= w0
    w3 -= w1
    w3 -= w2
    return w0, w1, w2, w3


@kernel
def spline_taps(
    coords: np.ndarray, n: int, taps: np.ndarray, weights: np.ndarray, valid: np.ndarray
) -> None:  # pragma: no cover - compiled
    """Per output index of one axis, for its input coordinate ``coords[k]`` on an axis of ``n``
    samples: whether it lies in ``[0, n - 1]`` (else ``cval``), its 4 folded taps and weights."""
    for k in range(coords.shape[0]):
        c = coords[k]
        if c < 0 or c > n - 1:
            valid[k] = False
            continue
        valid[k] = True
        start = int(math.floor(c)) - 1
        for t in range(4):
            taps[k, t] = _mirror(start + t, n)
        weights[k, 0], weights[k, 1], weights[k, 2], weights[k, 3] = _cubic_weights(c)


@kernel
def zoom_shift_u8(
    image: np.ndarray,
    channel: int,
    row_taps: np.ndarray,
    row_weights: np.ndarray,
    row_valid: np.ndarray,
    col_taps: np.ndarray,
    col_weights: np.ndarray,
    col_valid: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """``NI_ZoomShift`` (order 3, ``mode='constant'``, no prefilter) of ``image[:, :, channel]``
    into ``out[:, :, channel]``, from the per-axis tables of :func:`spline_taps`."""
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            if not (row_valid[i] and col_valid[j]):
                out[i, j, channel] = 0
                continue
            t = 0.0
            for a in range(4):
                for b in range(4):
                    coeff = float(image[row_taps[i, a], col_taps[j, b], channel])
                    coeff *= row_weights[i, a]
                    coeff *= col_weights[j, b]
                    t += coeff
            t = t + 0.5 if t > 0 else 0.0
            if t > 255.0:
                t = 255.0
            out[i, j, channel] = np.uint8(t)


@kernel
def affine_accumulate_f32(
    coeffs: np.ndarray,
    matrix: np.ndarray,
    offset: np.ndarray,
    factor: np.float32,
    channel: int,
    acc: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """``acc[:, :, channel] += factor * affine_transform(coeffs, matrix, offset, order=3,
    mode='constant', prefilter=False, output=float32)`` (``NI_GeometricTransform``: the input
    coordinate ``((0 + i m00) + j m01) + o0`` per axis), all in float32 after the sample."""
    h, w = coeffs.shape
    m00, m01, m10, m11 = matrix[0, 0], matrix[0, 1], matrix[1, 0], matrix[1, 1]
    t0 = np.empty(4, np.int64)
    t1 = np.empty(4, np.int64)
    for i in range(acc.shape[0]):
        for j in range(acc.shape[1]):
            c0 = 0.0
            c0 += i * m00
            c0 += j * m01
            c0 += offset[0]
            c1 = 0.0
            c1 += i * m10
            c1 += j * m11
            c1 += offset[1]
            sample = np.float32(0.0)
            if not (c0 < 0 or c0 > h - 1 or c1 < 0 or c1 > w - 1):
                s0 = int(math.floor(c0)) - 1
                s1 = int(math.floor(c1)) - 1
                for t in range(4):
                    t0[t] = _mirror(s0 + t, h)
                    t1[t] = _mirror(s1 + t, w)
                w0 = _cubic_weights(c0)
                w1 = _cubic_weights(c1)
                total = 0.0
                for a in range(4):
                    for b in range(4):
                        coeff = coeffs[t0[a], t1[b]]
                        coeff *= w0[a]
                        coeff *= w1[b]
                        total += coeff
                sample = np.float32(total)
            acc[i, j, channel] += factor * sample

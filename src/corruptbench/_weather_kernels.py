"""Compiled elementwise stages of the weather corruptions (:mod:`corruptbench.corruptions.weather`).

Each kernel fuses one chain of NumPy operations of the reference formula into a single pass,
with the same dtypes and the same operation order per element, so that the results are
bit-identical to the NumPy expressions they replace (written out in each docstring):

* float32 where NumPy computes in float32 (a Python float next to a float32 array is a float32
  scalar under NEP 50; the caller passes such constants already rounded to float32), float64
  elsewhere; no fused multiply-add (numba does not contract without ``fastmath``);
* ``np.clip(v, 0, 1)`` is ``min(max(v, 0), 1)`` (no NaN can occur); the final float -> uint8
  conversion truncates like ``astype(np.uint8)`` on values in [0, 255].

OpenCV and the Gaussian / motion-blur kernels stay where they are; these are the glue between
them. Every jitted function here calls nothing compiled from another module (numba's disk cache
would not notice a change there).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = [
    "snow_layer_u8",
    "snow_compose_u8",
    "frost_u8",
    "fog_u8",
    "liquid_u8",
    "water_u8",
    "water_f32",
    "mud_u8",
]


@numba.njit(cache=True, nogil=True)
def snow_layer_u8(layer, threshold, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``L[L < t] = 0; out = uint8(clip(L, 0, 1) * 255)`` for a float64 H x W layer."""
    h, w = layer.shape
    for i in range(h):
        for j in range(w):
            v = layer[i, j]
            if v < threshold:
                v = 0.0
            out[i, j] = np.uint8(min(max(v, 0.0), 1.0) * 255.0)


@numba.njit(cache=True, nogil=True)
def snow_compose_u8(x, gray, flakes, b, nb, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Snow's last steps, from the float32 image to uint8.

    ``x``: float32 H x W x 3; ``gray``: float32 H x W (OpenCV RGB2GRAY of ``x``); ``flakes``:
    uint8 H x W (the motion-blurred layer); ``b = float32(blend)``, ``nb = float32(1 - blend)``::

        F = flakes / 255.0                                           # float64
        y = b * x + nb * np.maximum(x, gray * 1.5 + 0.5)             # float32
        out = uint8(clip(y + F + F[::-1, ::-1], 0, 1) * 255)         # float64
    """
    h, w, nc = x.shape
    lut = np.empty(256, dtype=np.float64)
    for v in range(256):
        lut[v] = v / 255.0
    f15 = np.float32(1.5)
    f05 = np.float32(0.5)
    for i in range(h):
        for j in range(w):
            fl = lut[flakes[i, j]]
            fr = lut[flakes[h - 1 - i, w - 1 - j]]
            g = gray[i, j] * f15 + f05
            for c in range(nc):
                xc = x[i, j, c]
                y = b * xc + nb * max(xc, g)
                v = (np.float64(y) + fl) + fr
                out[i, j, c] = np.uint8(min(max(v, 0.0), 1.0) * 255.0)


@numba.njit(cache=True, nogil=True)
def frost_u8(image, crop, c0, c1, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``uint8(clip(float64(image) * c0 + float64(crop) * c1, 0, 255))`` (H x W x C uint8 inputs)."""
    a = np.empty(256, dtype=np.float64)
    b = np.empty(256, dtype=np.float64)
    for v in range(256):
        a[v] = np.float64(v) * c0
        b[v] = np.float64(v) * c1
    h, w, nc = image.shape
    for i in range(h):
        for j in range(w):
            for c in range(nc):
                v = a[image[i, j, c]] + b[crop[i, j, c]]
                out[i, j, c] = np.uint8(min(max(v, 0.0), 255.0))


@numba.njit(cache=True, nogil=True)
def fog_u8(image, plasma, strength, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Fog from the uint8 image and the normalised plasma map (float64, at least H x W)::

        x = image / 255.0; m = x.max()                               # float64
        x += (strength * plasma[:H, :W])[:, :, None]
        out = uint8(clip(x * m / (m + strength), 0, 1) * 255)

    (``x * m / d`` as the in-place ``x *= m; x /= d``: left to right.)
    """
    h, w, nc = image.shape
    top = 0
    for i in range(h):
        for j in range(w):
            for c in range(nc):
                top = max(top, np.int64(image[i, j, c]))
    lut = np.empty(256, dtype=np.float64)
    for v in range(256):
        lut[v] = v / 255.0
    mx = lut[top]  # division is monotonic: max(image / 255) = max(image) / 255
    den = mx + strength
    for i in range(h):
        for j in range(w):
            s = strength * plasma[i, j]
            for c in range(nc):
                v = ((lut[image[i, j, c]] + s) * mx) / den
                out[i, j, c] = np.uint8(min(max(v, 0.0), 1.0) * 255.0)


@numba.njit(cache=True, nogil=True)
def liquid_u8(liquid, threshold, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``L[L < t] = 0; out = (L * 255).astype(int64).astype(uint8)`` (wraps modulo 256)."""
    h, w = liquid.shape
    for i in range(h):
        for j in range(w):
            v = liquid[i, j]
            if v < threshold:
                v = 0.0
            out[i, j] = np.uint8(np.int64(v * 255.0) & 255)


@numba.njit(cache=True, nogil=True)
def _water_peak(liquid8, dist):  # type: ignore[no-untyped-def]  # pragma: no cover
    # max(float32(L8) * float32(d)): exact integers below 2**24
    peak = 0
    h, w = liquid8.shape
    for i in range(h):
        for j in range(w):
            peak = max(peak, np.int64(liquid8[i, j]) * np.int64(dist[i, j]))
    return np.float32(peak)


@numba.njit(cache=True, nogil=True, inline="always")
def _water_m(l8, d, peak, scale):  # type: ignore[no-untyped-def]  # pragma: no cover
    m = np.float32(l8) * np.float32(d)
    if peak > 0:
        m = (m / peak) * scale
    return m


@numba.njit(cache=True, nogil=True)
def water_f32(x, liquid8, dist, intensity, colour, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """The water layer added to ``x`` (float32 H x W x 3), before clipping (float32 ``out``)::

        m = float32(L8) * float32(d); p = m.max()
        if p > 0: m /= p; m *= intensity                             # float32
        out = m[:, :, None] * colour + x                             # float32

    ``liquid8``, ``dist``: uint8 H x W; ``intensity``: float32; ``colour``: float32 (3,).
    """
    peak = _water_peak(liquid8, dist)
    h, w, nc = x.shape
    for i in range(h):
        for j in range(w):
            m = _water_m(liquid8[i, j], dist[i, j], peak, intensity)
            for c in range(nc):
                out[i, j, c] = m * colour[c] + x[i, j, c]


@numba.njit(cache=True, nogil=True)
def water_u8(image, liquid8, dist, intensity, colour, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Spatter's water output from the uint8 image: :func:`water_f32` of ``x = image / 255``
    (float32), then ``uint8(clip(., 0, 1) * float32(255))`` in float32."""
    peak = _water_peak(liquid8, dist)
    lut = np.empty(256, dtype=np.float32)
    for v in range(256):
        lut[v] = np.float32(v) / np.float32(255.0)
    one = np.float32(1.0)
    zero = np.float32(0.0)
    s255 = np.float32(255.0)
    h, w, nc = image.shape
    for i in range(h):
        for j in range(w):
            m = _water_m(liquid8[i, j], dist[i, j], peak, intensity)
            for c in range(nc):
                v = m * colour[c] + lut[image[i, j, c]]
                out[i, j, c] = np.uint8(min(max(v, zero), one) * s255)


@numba.njit(cache=True, nogil=True)
def mud_u8(image, mask, colour, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Spatter's mud output. ``mask``: float64 H x W (the smoothed mask, not yet thresholded);
    ``colour``: float64 (3,) (the float32 mud colour, widened); ``x = image / 255`` (float32)::

        mask[mask < 0.8] = 0
        y = float32(float64(x) * (1 - mask)) + float32(colour * mask)  # float32 sum
        out = uint8(clip(y, 0, 1) * float32(255))                      # float32
    """
    lut = np.empty(256, dtype=np.float64)
    for v in range(256):
        lut[v] = np.float64(np.float32(v) / np.float32(255.0))
    one = np.float32(1.0)
    zero = np.float32(0.0)
    s255 = np.float32(255.0)
    h, w, nc = image.shape
    for i in range(h):
        for j in range(w):
            mk = mask[i, j]
            if mk < 0.8:
                mk = 0.0
            keep = 1.0 - mk
            for c in range(nc):
                v = np.float32(lut[image[i, j, c]] * keep) + np.float32(colour[c] * mk)
                out[i, j, c] = np.uint8(min(max(v, zero), one) * s255)

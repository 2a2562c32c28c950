"""The compiled kernels of ImageNet-C-bar's colour corruptions (corrupt.py of
facebookresearch/augmentation-corruption, commit ba4d5a5;
:mod:`corruptbench.corruptions.cbar_color`).

The conventions (NumPy scalar semantics, libm ``pow``, NumPy's remainder) and the shared helpers
are :mod:`corruptbench.ops.cbar_kernels`'.
"""

from __future__ import annotations

import math

import numpy as np

from .cbar_kernels import clip_scalar, to_u8
from .jit import kernel

__all__ = [
    "pseudocolor_u8",
    "color_dither_u8",
    "bleach_bypass_u8",
    "technicolor_u8",
    "hue_shift_u8",
]


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
    x = clip_scalar(luma, e0, e1)
    x = (x - e0) / (e1 - e0)
    s = clip_scalar(3 * (x * x) - 2 * (x**three), 0.0, 1.0)
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
                out[y, x, c] = to_u8((1 - amount) * image[y, x, c] + amount * col)


@kernel(inline="always", error_model="numpy")
def _diffuse(work: np.ndarray, y: int, x: int, e0: int, e1: int, e2: int, weight: int) -> None:
    """``work[y, x] = uint8(clip(float32(work[y, x]) + e * weight / 16))`` per channel."""
    for c in range(3):
        e = e0 if c == 0 else (e1 if c == 1 else e2)
        work[y, x, c] = to_u8(np.float64(np.float32(work[y, x, c])) + e * weight / 16)


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
            mix = clip_scalar(10.0 * (luma - 0.45), 0.0, 1.0)
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
            out[y, x, 0] = to_u8(np.float64(c0 * k255))
            out[y, x, 1] = to_u8(np.float64(c1 * k255))
            out[y, x, 2] = to_u8(np.float64(c2 * k255))

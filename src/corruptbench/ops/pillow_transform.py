"""Pillow's ``Image.transform(size, QUAD | PERSPECTIVE, data, resample=BILINEAR)`` of an RGB image,
and ``ImageEnhance.Color``, compiled (libImaging/Geometry.c: ``quad_transform``, ``perspective_transform``,
``bilinear_filter32RGB`` in ``ImagingGenericTransform``), and the QUAD coefficients as Pillow's
``Image.__transformer`` computes them from NumPy 1 float32 corners.

For each output pixel ``(x, y)`` the map is evaluated at ``(x + 0.5, y + 0.5)``:
QUAD ``(a0 + a1 x + a2 y + a3 x y, a4 + a5 x + a6 y + a7 x y)``, PERSPECTIVE
``((a0 x + a1 y + a2) / (a6 x + a7 y + 1), (a3 x + a4 y + a5) / (a6 x + a7 y + 1))``. A source
point outside ``[0, W) x [0, H)`` is no pixel (Pillow fills 0); inside, the source is shifted by
-0.5 and interpolated between the clamped neighbours, ``v = a + (b - a) d`` per axis in double,
truncated to uint8.

Why not Pillow itself: ImageNet-C-bar's ``QuadrilateralNoBars`` passes float32 corners, and
``__transformer``'s ``(ne[0] - x0) * As`` is float64 under NumPy 1 (a float32 scalar times a
Python float) but float32 under NumPy 2, which moves pixels; :func:`quad_coefficients` does the
NumPy 1 arithmetic, and the kernel takes the coefficients directly.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel

__all__ = ["quad_coefficients", "transform_no_bars_u8", "enhance_color_u8"]


def quad_coefficients(corners: np.ndarray, width: int, height: int) -> np.ndarray:
    """Pillow's QUAD coefficients of float32 ``corners`` (NW, SW, SE, NE as ``x, y`` pairs, the
    original's ``points.flatten()``), with NumPy 1 types: differences of the float32 corners in
    float32, then scaled by ``1 / width`` and ``1 / height`` in float64."""
    c = np.asarray(corners, dtype=np.float32).reshape(8)
    x0, y0 = c[0], c[1]
    sw, se, ne = c[2:4], c[4:6], c[6:8]
    ws = 1.0 / width
    hs = 1.0 / height
    return np.array(
        [
            float(x0),
            float(ne[0] - x0) * ws,
            float(sw[0] - x0) * hs,
            float(se[0] - sw[0] - ne[0] + x0) * ws * hs,
            float(y0),
            float(ne[1] - y0) * ws,
            float(sw[1] - y0) * hs,
            float(se[1] - sw[1] - ne[1] + y0) * ws * hs,
        ]
    )


@kernel(inline="always", error_model="numpy")
def _pil_floor(v: float) -> int:
    """libImaging's ``FLOOR``: ``(int)floor(v)`` below 0, else ``(int)v``."""
    if v < 0.0:
        return int(math.floor(v))
    return int(v)


@kernel(error_model="numpy")
def transform_no_bars_u8(
    image: np.ndarray, coeffs: np.ndarray, quad: bool, out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """``Image.transform`` of ``image`` with ``coeffs`` (QUAD when ``quad``, else PERSPECTIVE,
    BILINEAR), where the source point falls inside the image; elsewhere ``out`` keeps the
    original pixel (the corruptions' all-255 mask, transformed alike, is 0 there and 255
    elsewhere)."""
    h, w, _ = image.shape
    a0, a1, a2, a3 = coeffs[0], coeffs[1], coeffs[2], coeffs[3]
    a4, a5, a6, a7 = coeffs[4], coeffs[5], coeffs[6], coeffs[7]
    for y in range(h):
        for x in range(w):
            xin = x + 0.5
            yin = y + 0.5
            if quad:
                xx = a0 + a1 * xin + a2 * yin + a3 * xin * yin
                yy = a4 + a5 * xin + a6 * yin + a7 * xin * yin
            else:
                xx = (a0 * xin + a1 * yin + a2) / (a6 * xin + a7 * yin + 1)
                yy = (a3 * xin + a4 * yin + a5) / (a6 * xin + a7 * yin + 1)
            if xx < 0.0 or xx >= w or yy < 0.0 or yy >= h:
                for b in range(3):
                    out[y, x, b] = image[y, x, b]
                continue
            xx -= 0.5
            yy -= 0.5
            sx = _pil_floor(xx)
            sy = _pil_floor(yy)
            dx = xx - sx
            dy = yy - sy
            r0 = min(max(sy, 0), h - 1)
            c0 = min(max(sx, 0), w - 1)
            c1 = min(max(sx + 1, 0), w - 1)
            below = 0 <= sy + 1 < h
            for b in range(3):
                p = np.int64(image[r0, c0, b])
                q = np.int64(image[r0, c1, b])
                v1 = p + (q - p) * dx
                v2 = v1
                if below:
                    p = np.int64(image[sy + 1, c0, b])
                    q = np.int64(image[sy + 1, c1, b])
                    v2 = p + (q - p) * dx
                v1 = v1 + (v2 - v1) * dy
                out[y, x, b] = np.uint8(v1)


@kernel(error_model="numpy")
def enhance_color_u8(
    image: np.ndarray, factor: np.float32, out: np.ndarray
) -> None:  # pragma: no cover
    """``ImageEnhance.Color(image).enhance(factor)``: Pillow's ``Image.blend(degenerate, image,
    factor)`` with the degenerate image ``image.convert("L").convert("RGB")``
    (libImaging/Convert.c ``rgb2l``: ``L = (19595 R + 38470 G + 7471 B + 0x8000) >> 16``;
    Blend.c: ``l + alpha (x - l)`` in C ``float`` with ``alpha`` a float, truncated, and clipped
    to 0..255 when ``alpha`` is outside [0, 1])."""
    h, w, _ = image.shape
    inside = factor >= np.float32(0.0) and factor <= np.float32(1.0)
    for y in range(h):
        for x in range(w):
            r = np.int64(image[y, x, 0])
            g = np.int64(image[y, x, 1])
            b = np.int64(image[y, x, 2])
            lum = (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16
            for c in range(3):
                v = np.float32(lum) + factor * np.float32(np.int64(image[y, x, c]) - lum)
                if inside:
                    out[y, x, c] = np.uint8(v)
                elif v <= np.float32(0.0):
                    out[y, x, c] = 0
                elif v >= np.float32(255.0):
                    out[y, x, c] = 255
                else:
                    out[y, x, c] = np.uint8(v)

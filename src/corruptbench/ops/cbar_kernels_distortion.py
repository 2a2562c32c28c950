"""The compiled warps of ImageNet-C-bar's distortions, sampled through ``utils/image.py``'s
``bilinear_interpolation`` (corrupt.py of facebookresearch/augmentation-corruption, commit ba4d5a5;
:mod:`corruptbench.corruptions.cbar_distortion`).

The conventions (NumPy scalar semantics, libm ``pow``, NumPy's remainder) and the shared helpers
are :mod:`corruptbench.ops.cbar_kernels`'.
"""

from __future__ import annotations

import math

import numpy as np

from .cbar_kernels import TWO_PI, bilinear_f32, bilinear_u8, clip_scalar, to_u8
from .jit import kernel

__all__ = [
    "pinch_and_twirl_f32",
    "fish_eye_f32",
    "water_drop_u8",
    "ripple_u8",
    "caustic_refraction_f64",
]


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
                        scratch[y - up, x - lo, c] = bilinear_f32(values, py, px, c)[0]
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
                    scratch[y - up, x - lo, c] = bilinear_f32(values, py, px, c)[0]
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
                out[y, x, c] = to_u8(bilinear_u8(image, py, px, c))


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
        py = y + amplitudes[0] * math.sin(TWO_PI * y / wavelengths[0] + phases[0])
        for x in range(w):
            px = x + amplitudes[1] * math.sin(TWO_PI * x / wavelengths[1] + phases[1])
            for c in range(3):
                out[y, x, c] = to_u8(bilinear_u8(image, py, px, c))


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
                v, is64 = bilinear_f32(unit, y + r0, x + r1, c)
                if is64:
                    v += d1
                    v += d2
                else:
                    v32 = np.float32(v) + np.float32(d1)
                    v = np.float64(v32 + np.float32(d2))
                out[y, x, c] = clip_scalar(v, 0.0, 1.0)
                any64 = any64 or is64
    return any64

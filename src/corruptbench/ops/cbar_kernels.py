"""The per-pixel Python of ImageNet-C-bar's ``corrupt.py`` and ``utils/image.py``, compiled: the
conventions and the shared scalar helpers (``utils/image.py``'s ``bilinear_interpolation``
included); the kernels themselves are in one module per family, as :mod:`corruptbench.corruptions`'
``cbar_*`` modules are: :mod:`.cbar_kernels_noise`, :mod:`.cbar_kernels_obscure`,
:mod:`.cbar_kernels_distortion`, :mod:`.cbar_kernels_blur`, :mod:`.cbar_kernels_color`.

The original (facebookresearch/augmentation-corruption, commit ba4d5a5, ``imagenet_c_bar/``) loops
over pixels in Python and computes each pixel with NumPy *scalars*; these kernels perform the same
float64 (and, where the original has them, float32) operations in the same order, so that
``np.uint8`` of the result is the original's byte for byte. What that takes, besides the formulas:

* **Scalar powers call libm.** ``s ** 2`` on a NumPy float64 scalar calls C ``pow(s, 2.0)``,
  which is not always ``s * s`` rounded (22 in 20,000 random values differ; an array's ``a ** 2``
  is ``a * a``). LLVM rewrites ``pow(s, 2.0)`` with a literal exponent as ``s * s``, so the
  kernels take the exponent 2.0 as an argument (``two``): a run-time value stays a ``pow`` call.
* **Remainders** (``%`` on floats) are NumPy's: ``fmod``, then shifted by the divisor when the
  signs differ (:func:`np_mod`).
* **Small dot products** are OpenBLAS's ``ddot`` as NumPy 1.26 calls it: two terms in order; three
  terms as ``(a0 b0 + a2 b2) + a1 b1`` (for vectors that are 16-byte aligned, as fresh arrays
  are); ``np.linalg.norm(v)`` is ``sqrt(v . v)``. (Measured in the reference environment.)
* **NumPy 1 value-based casting**: a float32 array times a float64 *scalar* is computed in
  float32 (the scalar rounded to float32 first); times an int64 array (the ``[0, 0, 0]`` that
  ``bilinear_interpolation`` returns outside the image) in float64.
* **Transcendentals** (``sin``, ``cos``, ``atan2``, ``acos``, ``asin``, ``tan``, ``pow``) are
  glibc's, as NumPy's are when it uses no AVX-512 code (``NPY_DISABLE_CPU_FEATURES``): NumPy
  1.26's AVX-512 ``arctan2``, ``power``, ``exp``, ``arccos``, ``arcsin`` and ``tan`` differ from
  glibc in the last bit, which moves a rare value across an integer before the ``uint8`` cast.
* ``error_model="numpy"``: a float division by zero gives ``inf`` / ``nan`` as in NumPy instead of
  raising.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel

__all__ = ["TWO_PI", "np_mod", "clip_scalar", "to_u8", "bilinear_u8", "bilinear_f32"]

TWO_PI = 2 * math.pi  # the original's ``2 * np.pi``


@kernel(inline="always", error_model="numpy")
def np_mod(a: float, b: float) -> float:
    """NumPy's float remainder ``a % b``: ``fmod(a, b)``, plus ``b`` when the signs differ."""
    m = np.fmod(a, b)
    if m != 0.0 and ((b < 0.0) != (m < 0.0)):
        m += b
    return m


@kernel(inline="always", error_model="numpy")
def clip_scalar(v: float, lo: float, hi: float) -> float:
    """``np.clip`` of a scalar (NaN stays NaN)."""
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@kernel(inline="always", error_model="numpy")
def to_u8(v: float) -> np.uint8:
    """``np.clip(v, 0, 255).astype(np.uint8)``: clipped, then truncated (NaN, which ``np.clip``
    keeps, casts to 0 as NumPy's cast does on x86)."""
    if not v > 0.0:
        return np.uint8(0)
    if v > 255.0:
        return np.uint8(255)
    return np.uint8(v)


# ------------------------------------------------------------------------------------------------
# utils/image.py bilinear_interpolation
# ------------------------------------------------------------------------------------------------


@kernel(inline="always", error_model="numpy")
def _weights(p0: float, p1: float) -> tuple[int, int, float, float, float, float]:
    """The original's corner and weights: row ``i = floor(p0)``, column ``j = floor(p1)``, the
    column weights ``(1.0 - p1) + j`` and ``(1.0 - (j + 1)) + p1``, the row weights
    ``(1.0 - p0) + i`` and ``(1.0 - (i + 1)) + p0`` (its ``l, u`` and ``r, d`` are ``i, j`` and
    ``i + 1, j + 1``)."""
    i = int(math.floor(p0))
    j = int(math.floor(p1))
    wj0 = (1.0 - p1) + j
    wj1 = (1.0 - (j + 1)) + p1
    wi0 = (1.0 - p0) + i
    wi1 = (1.0 - (i + 1)) + p0
    return i, j, wj0, wj1, wi0, wi1


@kernel(inline="always", error_model="numpy")
def bilinear_u8(
    image: np.ndarray, p0: float, p1: float, c: int
) -> float:  # pragma: no cover - compiled
    """``bilinear_interpolation(image, (p0, p1))[c]`` of a uint8 image: all in float64 (a uint8
    array times a float scalar is float64), 0 outside the image."""
    h, w, _ = image.shape
    i, j, wj0, wj1, wi0, wi1 = _weights(p0, p1)
    top = 0 <= i < h
    bottom = 0 <= i + 1 < h
    left = 0 <= j < w
    right = 0 <= j + 1 < w
    v00 = float(image[i, j, c]) if top and left else 0.0
    v01 = float(image[i, j + 1, c]) if top and right else 0.0
    v10 = float(image[i + 1, j, c]) if bottom and left else 0.0
    v11 = float(image[i + 1, j + 1, c]) if bottom and right else 0.0
    a0 = v00 * wj0 + v01 * wj1
    a1 = v10 * wj0 + v11 * wj1
    return a0 * wi0 + a1 * wi1


@kernel(inline="always", error_model="numpy")
def _mix(a: float, a64: bool, wa: float, b: float, b64: bool, wb: float) -> tuple[float, bool]:
    """``a * wa + b * wb`` with NumPy 1's types: ``a`` / ``b`` a float32 array (flag False) or a
    float64 one (flag True), ``wa`` / ``wb`` float64 scalars, which a float32 array meets in
    float32. Returns the value (float32 values exactly, as float64) and whether it is float64."""
    if a64:
        x = a * wa
    else:
        x = np.float64(np.float32(a) * np.float32(wa))
    if b64:
        y = b * wb
    else:
        y = np.float64(np.float32(b) * np.float32(wb))
    if a64 or b64:
        return x + y, True
    return np.float64(np.float32(x) + np.float32(y)), False


@kernel(inline="always", error_model="numpy")
def bilinear_f32(
    image: np.ndarray, p0: float, p1: float, c: int
) -> tuple[float, bool]:  # pragma: no cover - compiled
    """``bilinear_interpolation(image, (p0, p1))[c]`` of a float32 image with NumPy 1's types:
    inside the image the products and sums are float32; a neighbour outside is the int64
    ``[0, 0, 0]``, whose products make that sum (and what follows) float64. Returns the value
    and whether it is float64."""
    h, w, _ = image.shape
    i, j, wj0, wj1, wi0, wi1 = _weights(p0, p1)
    top = 0 <= i < h
    bottom = 0 <= i + 1 < h
    left = 0 <= j < w
    right = 0 <= j + 1 < w
    v00 = np.float64(image[i, j, c]) if top and left else 0.0
    v01 = np.float64(image[i, j + 1, c]) if top and right else 0.0
    v10 = np.float64(image[i + 1, j, c]) if bottom and left else 0.0
    v11 = np.float64(image[i + 1, j + 1, c]) if bottom and right else 0.0
    a0, a0_64 = _mix(v00, not (top and left), wj0, v01, not (top and right), wj1)
    a1, a1_64 = _mix(v10, not (bottom and left), wj0, v11, not (bottom and right), wj1)
    return _mix(a0, a0_64, wi0, a1, a1_64, wi1)

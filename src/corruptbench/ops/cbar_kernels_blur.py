"""The compiled kernel of ImageNet-C-bar's scatter (corrupt.py of
facebookresearch/augmentation-corruption, commit ba4d5a5;
:mod:`corruptbench.corruptions.cbar_blur`).

The conventions (NumPy scalar semantics, libm ``pow``, NumPy's remainder) and the shared helpers
are :mod:`corruptbench.ops.cbar_kernels`'.
"""

from __future__ import annotations

import math

import numpy as np

from .cbar_kernels import bilinear_u8, np_mod, to_u8
from .jit import kernel

__all__ = ["scatter_u8"]


@kernel(inline="always", error_model="numpy")
def _scatter_hash(a: int, b: int, seed: float) -> float:
    """Scatter's ``noise(a, b, seed)``: ``(sin(12.9898 sin(a seed) + 78.233 cos(b seed))
    43758.5453) mod 1``."""
    i = math.sin(a * seed)
    j = math.cos(b * seed)
    return np_mod(math.sin(12.9898 * i + 78.233 * j) * 43758.5453, 1.0)


@kernel(error_model="numpy")
def scatter_u8(
    image: np.ndarray, seed: float, radius: float, out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """Scatter: each pixel sampled at itself plus a hashed offset in ``[-radius, radius]`` per
    axis, clamped to the image (``min(max(0, v), n - 1)``), truncated to uint8."""
    h, w, _ = image.shape
    for y in range(h):
        for x in range(w):
            px = x + radius * (-1.0 + _scatter_hash(x, y, seed) * 2)
            py = y + radius * (-1.0 + _scatter_hash(y, x, seed) * 2)
            if not px > 0:
                px = 0.0
            if w - 1 < px:
                px = float(w - 1)
            if not py > 0:
                py = 0.0
            if h - 1 < py:
                py = float(h - 1)
            for c in range(3):
                out[y, x, c] = to_u8(bilinear_u8(image, py, px, c))

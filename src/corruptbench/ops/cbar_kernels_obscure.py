"""The compiled kernel of ImageNet-C-bar's checkerboard cutout (corrupt.py of
facebookresearch/augmentation-corruption, commit ba4d5a5;
:mod:`corruptbench.corruptions.cbar_obscure`).

The conventions (NumPy scalar semantics, libm ``pow``, NumPy's remainder) and the shared helpers
are :mod:`corruptbench.ops.cbar_kernels`'.
"""

from __future__ import annotations

import numpy as np

from .cbar_kernels import np_mod
from .jit import kernel

__all__ = ["checkerboard_u8"]


@kernel(error_model="numpy")
def checkerboard_u8(
    image: np.ndarray,
    cos_a: float,
    sin_a: float,
    scale: float,
    grid: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """CheckerBoardCutOut's ``mask_kernel``: ``nx = (cos a y + sin a x) / scale``,
    ``ny = (-sin a y + cos a x) / scale``; a pixel turns grey (128) where ``int(nx mod 2) ==
    int(ny mod 2)`` and ``grid[int(nx), int(ny)]`` (Python indexing: negative from the end)."""
    h, w, _ = image.shape
    n0, n1 = grid.shape
    for y in range(h):
        for x in range(w):
            nx = (cos_a * y + sin_a * x) / scale
            ny = (-sin_a * y + cos_a * x) / scale
            cut = False
            if int(np_mod(nx, 2.0)) == int(np_mod(ny, 2.0)):
                ix = int(nx)
                iy = int(ny)
                if ix < 0:
                    ix += n0
                if iy < 0:
                    iy += n1
                cut = grid[ix, iy]
            for c in range(3):
                out[y, x, c] = 128 if cut else image[y, x, c]

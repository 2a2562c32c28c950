"""A 3-element dot product as OpenBLAS's FMA kernels compute it, on every x86-64 CPU.

imagecorruptions' ``rgb2gray`` is ``np.dot(rgb[..., :3], [0.2989, 0.5870, 0.1140])`` (its
``corruptions.py``). NumPy hands a float64 matrix-vector product to OpenBLAS's ``dgemv``, whose
kernel is picked by the CPU: the Haswell kernel (AVX2, the one the reference environment is pinned
to) computes each row as ``fma(b, w2, fma(g, w1, r * w0))`` (two fused multiply-adds, rounded
once each), the SkylakeX kernel (AVX-512) and NumPy 2's ``einsum`` in other orders, so the last
bit of about a third of the values depends on the machine. :func:`dot3_fma` fixes the arithmetic
to the Haswell kernel's: LLVM's ``llvm.fma.f64`` is one correctly rounded fused multiply-add,
the FMA instruction where the CPU has one and the C library's ``fma`` (also correctly rounded)
where it has not, so the result is the same bits everywhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .jit import kernel

__all__ = ["dot3_fma"]

#: numba's ``_fma`` intrinsic, made by :func:`_numba_globals` when a kernel is first compiled
_fma: Any = None


def _numba_globals() -> dict[str, Any]:
    # compile-time globals of this module's kernels (ops.jit adds them before the first kernel
    # is made): numba and llvmlite are imported only when a kernel is compiled
    from llvmlite import ir
    from numba.core import cgutils
    from numba.core import types as nbtypes
    from numba.extending import intrinsic

    @intrinsic
    def _fma(typingctx, a, b, c):  # type: ignore[no-untyped-def]  # pragma: no cover
        """``a * b + c`` rounded once (IEEE 754 fusedMultiplyAdd), float64."""
        sig = nbtypes.float64(nbtypes.float64, nbtypes.float64, nbtypes.float64)

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            d = ir.DoubleType()
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(d, [d, d, d]), "llvm.fma.f64"
            )
            return builder.call(fn, args)

        return sig, codegen

    return {"_fma": _fma}


@kernel
def _dot3_fma_rows(x: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
    for i in range(x.shape[0]):
        out[i] = _fma(x[i, 2], w[2], _fma(x[i, 1], w[1], x[i, 0] * w[0]))


def dot3_fma(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``x[..., :3] @ w`` as ``fma(x2, w2, fma(x1, w1, x0 * w0))`` per row, float64.

    Args:
        x: any array whose last axis has at least 3 entries (any real dtype; read as float64).
        w: the 3 weights.

    Returns:
        float64 array of shape ``x.shape[:-1]``.
    """
    rows = np.ascontiguousarray(x[..., :3], dtype=np.float64).reshape(-1, 3)
    out = np.empty(rows.shape[0], dtype=np.float64)
    _dot3_fma_rows(rows, np.ascontiguousarray(w, dtype=np.float64), out)
    return out.reshape(x.shape[:-1])

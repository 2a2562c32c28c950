"""scikit-image ``gaussian`` (SciPy ``gaussian_filter``) on the last two axes of a batch: the
separable filter as dense matrices with the border folded in, or banded on the CPU."""

from __future__ import annotations

import functools

import numpy as np
import torch

from ...ops.gaussian import gaussian_kernel1d, gaussian_matrix
from .common import pad, to_device

__all__ = ["gaussian_operator", "apply_separable", "gaussian_nearest"]


def gaussian_operator(
    n: int,
    sigma: float,
    device: torch.device,
    *,
    truncate: float = 4.0,
    mode: str = "nearest",
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """``n x n`` matrix of SciPy's 1-D Gaussian correlation (``gaussian_filter1d``) with the border
    folded in (:func:`corruptbench.ops.gaussian.gaussian_matrix`): ``mode='nearest'`` is
    scikit-image ``gaussian``'s default, ``'reflect'`` the elastic transform's. Cached per device."""
    return to_device(gaussian_matrix, (int(n), float(sigma), float(truncate), mode), device, dtype)


def apply_separable(x: torch.Tensor, op_h: torch.Tensor, op_w: torch.Tensor) -> torch.Tensor:
    """``op_h @ x @ op_w^T`` over the last two axes of ``x`` (any leading batch axes)."""
    return torch.matmul(torch.matmul(op_h, x), op_w.transpose(0, 1))


#: block of outputs per small matmul in :func:`gaussian_nearest`'s banded CPU form
_GAUSS_BLOCK = 32


@functools.lru_cache(maxsize=128)
def _gaussian_block_np(sigma: float, truncate: float) -> np.ndarray:
    """``(B + 2r, B)``: output ``j`` of a block of ``B`` is the correlation of the padded inputs
    ``j .. j + 2r`` with SciPy's ``2r + 1`` weights."""
    k = gaussian_kernel1d(sigma, truncate)
    r = (len(k) - 1) // 2
    out = np.zeros((_GAUSS_BLOCK + 2 * r, _GAUSS_BLOCK))
    for j in range(_GAUSS_BLOCK):
        out[j : j + 2 * r + 1, j] = k
    return out


def _gaussian_banded(
    x: torch.Tensor, sigma: float, truncate: float, mode: str = "nearest"
) -> torch.Tensor:
    # The same sums as the dense operators without their zeros: the image padded by r pixels
    # (border ``mode`` folded in), then per block of 32 outputs one matmul with the (32 + 2r)
    # inputs it reads, as strided views (no copies): horizontally on every padded row, then
    # vertically.
    h, w = x.shape[-2:]
    kb = to_device(_gaussian_block_np, (float(sigma), float(truncate)), x.device, x.dtype)
    b = _GAUSS_BLOCK
    r = (kb.shape[0] - b) // 2
    planes = x.reshape(1, -1, h, w)
    p = planes.shape[1]
    xp = pad(planes, (r, r, r, r), mode)[0]  # (P, H + 2r, W + 2r)
    rows = xp.reshape(p * (h + 2 * r), w + 2 * r)
    y = torch.empty((p * (h + 2 * r), w // b, b), dtype=x.dtype, device=x.device)
    for j in range(w // b):
        torch.mm(rows[:, j * b : j * b + b + 2 * r], kb, out=y[:, j, :])
    y = y.view(p, h + 2 * r, w)
    kbt = kb.t()
    out = torch.empty((p, h, w), dtype=x.dtype, device=x.device)
    for j in range(h // b):
        torch.matmul(kbt, y[:, j * b : j * b + b + 2 * r, :], out=out[:, j * b : (j + 1) * b, :])
    return out.view(x.shape)


def _banded_ok(x: torch.Tensor, sigma: float, truncate: float) -> bool:
    # the block form: CPU, sides multiples of 32, kernels narrower than ~3/4 of the side
    h, w = x.shape[-2:]
    radius = int(truncate * float(sigma) + 0.5)
    return (
        x.device.type == "cpu"
        and sigma > 1e-15
        and x.dim() >= 3
        and x.dtype in (torch.float32, torch.float64)
        and h % _GAUSS_BLOCK == 0
        and w % _GAUSS_BLOCK == 0
        and 4 * (_GAUSS_BLOCK + 2 * radius) <= 3 * min(h, w) + 4 * _GAUSS_BLOCK
    )


def gaussian_nearest(x: torch.Tensor, sigma: float, truncate: float = 4.0) -> torch.Tensor:
    """scikit-image ``gaussian(x, sigma, mode='nearest', truncate)`` on the last two axes.

    Dense ``H x H`` / ``W x W`` operators (two matmuls), or on the CPU, for sides that are
    multiples of 32 and kernels narrower than ~3/4 of the side, the same weights applied block
    by block (:func:`_gaussian_banded`: 2-5x fewer multiplications)."""
    h, w = x.shape[-2:]
    dev = x.device
    if _banded_ok(x, sigma, truncate):
        return _gaussian_banded(x, sigma, truncate, "nearest")
    return apply_separable(
        x,
        gaussian_operator(h, sigma, dev, truncate=truncate, dtype=x.dtype),
        gaussian_operator(w, sigma, dev, truncate=truncate, dtype=x.dtype),
    )

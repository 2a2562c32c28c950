"""Pillow's 8-bit BOX resampling on batches of 8-bit planes, with the CPU library's coefficients
(:func:`corruptbench.ops.pillow_resize.pil_box_coefficients`) and Pillow's fixed-point rounding."""

from __future__ import annotations

import functools

import numpy as np
import torch

from ...ops.pillow_resize import PRECISION_BITS, pil_box_coefficients
from .common import to_device

__all__ = ["box_matrix", "pil_box_resize"]


@functools.lru_cache(maxsize=256)
def box_matrix(in_size: int, out_size: int) -> np.ndarray:
    """``(out_size, in_size)`` matrix of Pillow's BOX coefficients in 22-bit fixed point, as
    float64 integers: :func:`corruptbench.ops.pillow_resize.pil_box_coefficients` scattered into
    dense rows."""
    bounds, fixed = pil_box_coefficients(in_size, out_size)
    out = np.zeros((out_size, in_size))
    for xx, (xmin, taps) in enumerate(bounds):
        out[xx, xmin : xmin + taps] = fixed[xx, :taps]
    return out


@functools.lru_cache(maxsize=256)
def _box_taps(in_size: int, out_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Sparse form of :func:`box_matrix`: ``(index, weight)`` arrays ``(out_size, k)``."""
    coef = box_matrix(in_size, out_size)
    nz = coef != 0
    k = max(1, int(nz.sum(axis=1).max()))
    first = np.where(nz.any(axis=1), nz.argmax(axis=1), 0)
    idx = np.minimum(first[:, None] + np.arange(k)[None, :], in_size - 1)
    wts = np.take_along_axis(coef, idx, axis=1)
    wts[first[:, None] + np.arange(k)[None, :] > in_size - 1] = 0  # clipped positions: no weight
    return idx, wts


def _box_idx(in_size: int, out_size: int) -> np.ndarray:
    return _box_taps(in_size, out_size)[0]


def _box_wts(in_size: int, out_size: int) -> np.ndarray:
    return _box_taps(in_size, out_size)[1]


def _box_pass_taps(v: torch.Tensor, in_size: int, out_size: int, axis: int) -> torch.Tensor:
    idx = to_device(_box_idx, (in_size, out_size), v.device, torch.long)
    wts = to_device(_box_wts, (in_size, out_size), v.device, v.dtype)
    acc = None
    for j in range(idx.shape[1]):
        wj = wts[:, j] if axis == -1 else wts[:, j, None]
        term = v.index_select(axis, idx[:, j]) * wj
        acc = term if acc is None else acc.add_(term)
    assert acc is not None
    half = 1 << (PRECISION_BITS - 1)
    if v.is_floating_point():
        return torch.floor((acc + half) / float(1 << PRECISION_BITS)).clamp_(0, 255)
    return torch.bitwise_right_shift(acc.add_(half), PRECISION_BITS).clamp_(0, 255)


@functools.lru_cache(maxsize=256)
def _box_gather(in_size: int, out_size: int) -> np.ndarray | None:
    """Source index per output position when every row of the BOX coefficients is a single full
    weight ``2^22`` (upsampling: the pass copies pixels exactly), else ``None``."""
    coef = box_matrix(in_size, out_size)
    full = float(1 << PRECISION_BITS)
    if not ((coef != 0).sum(axis=1) == 1).all() or not (coef.max(axis=1) == full).all():
        return None
    return coef.argmax(axis=1).astype(np.int64)


def _box_gather_idx(in_size: int, out_size: int) -> np.ndarray:
    idx = _box_gather(in_size, out_size)
    assert idx is not None
    return idx


@functools.lru_cache(maxsize=256)
def _box_windows(in_size: int, out_size: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``(ones, weight)``: the 0/1 window matrix ``(out_size, in_size)`` and each row's single
    coefficient value, when every row of the BOX coefficients has one value (Pillow's BOX filter
    is 0/1 before normalisation, so always at these sizes); else ``None``."""
    coef = box_matrix(in_size, out_size)
    weight = coef.max(axis=1)
    ones = coef != 0
    if (
        not (coef == np.where(ones, weight[:, None], 0.0)).all()
        or weight.max() > 1 << PRECISION_BITS
    ):
        return None
    return ones.astype(np.float64), weight


def _box_ones(in_size: int, out_size: int) -> np.ndarray:
    win = _box_windows(in_size, out_size)
    assert win is not None
    return win[0]


def _box_weight(in_size: int, out_size: int) -> np.ndarray:
    win = _box_windows(in_size, out_size)
    assert win is not None
    return win[1]


@functools.lru_cache(maxsize=256)
def _box_regular(in_size: int, out_size: int) -> bool:
    """Whether the BOX windows are ``[j k, (j + 1) k)`` with ``k = in_size / out_size``."""
    if in_size % out_size:
        return False
    k = in_size // out_size
    return bool((_box_ones(in_size, out_size) == np.kron(np.eye(out_size), np.ones(k))).all())


def _box_pass(v: torch.Tensor, in_size: int, out_size: int, axis: int) -> torch.Tensor:
    gather = _box_gather(in_size, out_size)
    if gather is not None:  # exact copies: no arithmetic at all
        idx = to_device(_box_gather_idx, (in_size, out_size), v.device, torch.long)
        return v.index_select(axis, idx)
    if v.device.type != "cpu" or _box_windows(in_size, out_size) is None:
        return _box_pass_taps(v, in_size, out_size, axis)  # exact: int32 / float64 tap sums
    # CPU: window sums of 8-bit values by one float32 matmul with a 0/1 matrix (exact integers
    # < 2^24), times the row's coefficient in int32 (< 2^31), rounded as Pillow does
    weight = to_device(_box_weight, (in_size, out_size), v.device, torch.int32)
    vf = v.to(torch.float32)
    k = in_size // out_size
    if _box_regular(in_size, out_size):  # windows [j k, (j + 1) k): k strided slices
        sums = vf[..., 0::k] if axis == -1 else vf[..., 0::k, :]
        for i in range(1, k):
            sums = sums + (vf[..., i::k] if axis == -1 else vf[..., i::k, :])
    else:
        ones = to_device(_box_ones, (in_size, out_size), v.device, torch.float32)
        sums = torch.matmul(vf, ones.transpose(0, 1)) if axis == -1 else torch.matmul(ones, vf)
    acc = sums.to(torch.int32).mul_(weight if axis == -1 else weight[:, None])
    acc.add_(1 << (PRECISION_BITS - 1)).bitwise_right_shift_(PRECISION_BITS).clamp_(0, 255)
    return acc.to(v.dtype)


def pil_box_resize(v: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
    """Pillow ``Image.resize((w, h), Image.BOX)`` of 8-bit planes ``(..., H, W)`` holding integer
    values 0..255, in any dtype that holds them (exact: Pillow's own fixed-point arithmetic).
    Horizontal pass first, then vertical, each rounded to 8 bits with Pillow's 22-bit
    coefficients. Passes where every output copies one input pixel (upsampling) are gathers; on the
    CPU the others are float32 matmuls with 0/1 window matrices (exact integer sums) scaled in
    int32, elsewhere tap sums in ``v``'s dtype (int32 or float64).
    Returns integer values in ``v``'s dtype."""
    out_h, out_w = size
    h, w = v.shape[-2:]
    if out_w != w:
        v = _box_pass(v, w, out_w, -1)
    if out_h != h:
        v = _box_pass(v, h, out_h, -2)
    return v

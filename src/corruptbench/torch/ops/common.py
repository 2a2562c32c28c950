"""Host -> device caching, border padding and ``grid_sample`` coordinates."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F

from ...ops.borders import fold_index

__all__ = ["to_device", "pad", "grid_coordinates"]


@functools.lru_cache(maxsize=512)
def _cached_tensor(
    builder: Callable[..., np.ndarray], args: tuple, device: torch.device, dtype: torch.dtype
) -> torch.Tensor:
    # a copy: the builders' cached arrays are often read-only
    return torch.tensor(np.ascontiguousarray(builder(*args))).to(device=device, dtype=dtype)


def to_device(
    builder: Callable[..., np.ndarray], args: tuple, device: torch.device, dtype: torch.dtype
) -> torch.Tensor:
    """``builder(*args)`` (a cached NumPy array) as a tensor on ``device``, cached per device/dtype.

    The returned tensor is shared: never modify it in place.
    """
    return _cached_tensor(builder, tuple(args), torch.device(device), dtype)


def pad(x: torch.Tensor, pads: tuple[int, int, int, int], mode: str) -> torch.Tensor:
    """Pad the last two axes of ``x`` by ``(top, bottom, left, right)`` with index folding."""
    top, bottom, left, right = pads
    h, w = x.shape[-2:]
    if x.dim() == 4 and x.is_floating_point() and (top or bottom or left or right):
        # torch's own padding kernels (a plain copy): 'reflect' is REFLECT_101 for pads < size
        if mode == "nearest":
            return F.pad(x, (left, right, top, bottom), mode="replicate")
        if mode == "reflect101" and max(top, bottom) < h and max(left, right) < w:
            return F.pad(x, (left, right, top, bottom), mode="reflect")
    if top or bottom:
        idx = to_device(fold_index, (h, top, bottom, mode), x.device, torch.long)
        x = x.index_select(-2, idx)
    if left or right:
        idx = to_device(fold_index, (w, left, right, mode), x.device, torch.long)
        x = x.index_select(-1, idx)
    return x


def grid_coordinates(xs: torch.Tensor, ys: torch.Tensor, w: int, h: int) -> torch.Tensor:
    """Pixel coordinates as ``grid_sample``'s normalised coordinates (``align_corners=True``),
    float32 ``(..., 2)`` (x, y) over the broadcast shape of ``xs`` and ``ys``."""
    shape = torch.broadcast_shapes(xs.shape, ys.shape)
    grid = torch.empty((*shape, 2), dtype=torch.float32, device=xs.device)
    torch.mul(xs, 2.0 / max(w - 1, 1), out=grid[..., 0]).sub_(1.0)
    torch.mul(ys, 2.0 / max(h - 1, 1), out=grid[..., 1]).sub_(1.0)
    return grid

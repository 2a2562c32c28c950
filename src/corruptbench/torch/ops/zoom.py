"""The reference's ``clipped_zoom`` (``scipy.ndimage.zoom(order=1)`` of a centre crop) on a batch,
from the CPU library's own interpolation tables (:func:`corruptbench.ops.zoom.zoom_axis_table`)."""

from __future__ import annotations

import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

from ...ops.zoom import zoom_axis_table
from .common import to_device

__all__ = ["clipped_zoom"]


@functools.lru_cache(maxsize=512)
def _zoom_positions(length: int, z: float) -> np.ndarray:
    """Source coordinate (uncropped axis) of each kept output position of the reference zoom, as
    ``grid_sample``'s normalised coordinate (``align_corners=True``); -3 (every tap outside: 0)
    where SciPy's zoom (mode 'constant') gives 0 because round-off puts the output coordinate
    beyond the last input sample (never at the profiles' native sizes)."""
    i0, _, w0, w1 = zoom_axis_table(length, z)
    # the 2-tap row (i0, i1; 1 - f, f) is the linear sample at i0 + f: i1 = i0 + 1 whenever f > 0
    # (the mirrored tap at the crop's end only occurs with f = 0)
    pos = i0 + w1
    g = pos * (2.0 / (length - 1)) - 1.0 if length > 1 else np.zeros(length)
    return np.where((w0 != 0) | (w1 != 0), g, -3.0)


@functools.lru_cache(maxsize=512)
def _zoom_grid(h: int, w: int, z: float) -> np.ndarray:
    gy = _zoom_positions(h, z)
    gx = _zoom_positions(w, z)
    return np.stack(np.broadcast_arrays(gx[None, :], gy[:, None]), axis=-1)[None]  # (1, H, W, 2)


def clipped_zoom(x: torch.Tensor, z: float) -> torch.Tensor:
    """The reference ``clipped_zoom`` of every ``H x W`` plane of ``x`` (``(N, C, H, W)`` float).

    Centre crop ``ceil(L / z)`` per axis, bilinear zoom to ``round(c z)`` with SciPy's
    ``grid_mode=False`` mapping (``k (c - 1) / (n - 1)``, i.e. ``align_corners=True``), centred
    trim: only the kept outputs are computed, as one bilinear ``grid_sample`` of the uncropped
    image at the precomputed source coordinates (:func:`corruptbench.ops.zoom.zoom_axis_table`;
    every tap lies inside the crop, or has weight 0).
    """
    z = float(z)
    h, w = x.shape[-2:]
    if all(int(math.ceil(s / z)) == s and int(round(s * z)) == s for s in (h, w)):
        return x.clone()  # no crop, no resampling
    grid = to_device(_zoom_grid, (h, w, z), x.device, x.dtype)
    # all planes as the channels of one sample: the coordinates are computed once per position
    planes = x.reshape(1, -1, h, w)
    out = F.grid_sample(planes, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
    return out.reshape(x.shape)

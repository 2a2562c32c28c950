"""OpenCV 3.4's ``warpAffine`` (:func:`corruptbench.ops.opencv_warp.warp_affine_cv34`) on a batch."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from ...ops.opencv_warp import AB_BITS, INTER_BITS
from .common import grid_coordinates

__all__ = ["warp_affine_cv34"]


def warp_affine_cv34(img: torch.Tensor, inverse: np.ndarray) -> torch.Tensor:
    """OpenCV 3.4 ``warpAffine`` (INTER_LINEAR, BORDER_REFLECT_101) of each sample.

    Args:
        img: ``(N, C, H, W)`` float32.
        inverse: ``(N, 2, 3)`` float64 *inverse* maps (destination -> source), computed as OpenCV
            does (:func:`corruptbench.ops.opencv_warp.invert_affine_cv`).

    Mapped coordinates are rounded to 1/1024 then 1/32 pixel in fixed point as in OpenCV 3.4 (the
    reference's version); the bilinear sample is then taken with ``grid_sample`` (reflection about
    the first/last pixel centre with ``align_corners=True`` is exactly REFLECT_101, for the
    interpolated value as for the taps, because mirroring about integer positions commutes with
    linear interpolation).
    """
    n, c, h, w = img.shape
    dev = img.device
    m = np.asarray(inverse, dtype=np.float64)
    xs = np.arange(w, dtype=np.float64)
    ys = np.arange(h, dtype=np.float64)
    scale = float(1 << AB_BITS)  # 1024: coordinates in 1/1024 px
    delta = (1 << AB_BITS) // (1 << INTER_BITS) // 2  # 16: rounding to 1/32 px
    shift = AB_BITS - INTER_BITS
    adelta = np.rint(m[:, 0, 0, None] * xs * scale).astype(np.int64)  # (N, W)
    bdelta = np.rint(m[:, 1, 0, None] * xs * scale).astype(np.int64)
    x0 = (
        np.rint((m[:, 0, 1, None] * ys + m[:, 0, 2, None]) * scale).astype(np.int64) + delta
    )  # (N, H)
    y0 = np.rint((m[:, 1, 1, None] * ys + m[:, 1, 2, None]) * scale).astype(np.int64) + delta

    # coordinates in 1/32 pixel: (x0[y] + adelta[x]) >> 5; int32 unless the values need more
    big = max(np.abs(a).max(initial=0) for a in (x0, y0, adelta, bdelta)) >= 2**30
    itype = torch.int64 if big else torch.int32

    def t(a: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(a, device=dev).to(itype)

    xx = torch.bitwise_right_shift(t(x0)[:, :, None] + t(adelta)[:, None, :], shift)
    yy = torch.bitwise_right_shift(t(y0)[:, :, None] + t(bdelta)[:, None, :], shift)
    ftype = (
        torch.float64 if big else torch.float32
    )  # multiples of 1/32 below 2**19: exact in float32
    grid = grid_coordinates(
        xx.to(ftype) / float(1 << INTER_BITS), yy.to(ftype) / float(1 << INTER_BITS), w, h
    )
    return F.grid_sample(img, grid, mode="bilinear", padding_mode="reflection", align_corners=True)

"""SciPy's ``map_coordinates(order=1, mode='reflect')``
(:func:`corruptbench.ops.scipy_ndimage.map_coordinates_reflect_bilinear`) on a batch."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .common import grid_coordinates

__all__ = ["map_coordinates_reflect"]


def _scipy_reflect_fold(c: torch.Tensor, n: int) -> torch.Tensor:
    # scipy.ndimage map_coordinate() folding for mode 'reflect' (as the CPU library's kernel)
    sz2 = float(2 * n)
    cn = torch.where(c < -sz2, sz2 * torch.trunc(-c / sz2) + c, c)
    cn = torch.where(
        cn < -n, cn + sz2, torch.where(cn > -1e-15, torch.full_like(cn, 1e-15), -cn) - 1.0
    )
    cp = c - sz2 * torch.trunc(c / sz2)
    cp = torch.where(cp >= n, sz2 - cp - 1.0, cp)
    return torch.where(c < 0, cn, torch.where(c > n - 1, cp, c))


def _scipy_reflect_coordinate(c: torch.Tensor, n: int) -> torch.Tensor:
    """SciPy's 'reflect' folding of coordinates into ``(-1, n)``; coordinates already in
    ``[0, n - 1]`` are kept, so only the others (near the borders) go through the fold."""
    if n <= 1:
        return torch.zeros_like(c)
    outside = (c < 0).logical_or_(c > n - 1)
    out = c.clone()
    if bool(outside.any()):
        out[outside] = _scipy_reflect_fold(c[outside], n)
    return out


def map_coordinates_reflect(img: torch.Tensor, dx: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """``scipy.ndimage.map_coordinates(img, (y + dy, x + dx, z), order=1, mode='reflect')`` per sample.

    SciPy folds each coordinate into ``(-1, n)`` (its 'reflect' rule) and takes border neighbours
    half-sample symmetric (index -1 is 0, n is n - 1): a bilinear sample of the image padded by one
    replicated pixel, which is the bilinear sample at the coordinate clamped to ``[0, n - 1]``
    (the padding is separable and constant across the clamped half-pixel): ``grid_sample`` with
    ``padding_mode='border'`` at the folded coordinate.
    ``img`` ``(N, C, H, W)``, ``dx``/``dy`` ``(N, H, W)`` (float32 or float64).
    """
    n, c, h, w = img.shape
    dev = img.device
    ys = torch.arange(h, device=dev, dtype=dy.dtype).view(1, h, 1)
    xs = torch.arange(w, device=dev, dtype=dx.dtype).view(1, 1, w)
    cy = _scipy_reflect_coordinate(ys + dy, h)
    cx = _scipy_reflect_coordinate(xs + dx, w)
    grid = grid_coordinates(cx, cy, w, h)
    return F.grid_sample(img, grid, mode="bilinear", padding_mode="border", align_corners=True)

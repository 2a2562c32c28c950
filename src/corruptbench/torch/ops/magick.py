"""ImageMagick's motion blur (:mod:`corruptbench.ops.magick`) on a batch: per-sample tap kernels
and the Q16 -> 8-bit output rounding."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from .common import pad

__all__ = ["motion_blur_taps", "magick_quantise"]


def motion_blur_taps(
    x: torch.Tensor,
    kernels: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
    *,
    min_weight: float = 1e-9,
    batched: bool | None = None,
) -> torch.Tensor:
    """Apply ImageMagick motion-blur kernels, one per sample: ``out(x, y) = sum_i w[i] in(x + dx[i],
    y + dy[i])``, samples outside the image from the nearest edge pixel (ImageMagick's "edge"
    virtual pixels).

    Args:
        x: ``(N, C, H, W)`` float tensor.
        kernels: per sample ``(weights, offsets_x, offsets_y)`` of
            :func:`corruptbench.ops.magick.motion_kernel`.
        min_weight: taps below this weight are skipped (their total is < 1e-7 of the range).
        batched: sum tap ``t`` of every sample in one gather (``3 T`` operations for the batch
            instead of ``N T`` slice additions: far fewer kernel launches on a GPU; each sample
            sums its taps in the same order). ``None``: batched on non-CPU devices.

    Returns:
        ``(N, C, H, W)`` float tensor (no quantisation).
    """
    n, _, h, w = x.shape
    ox = np.concatenate([k[1] for k in kernels])
    oy = np.concatenate([k[2] for k in kernels])
    top, bottom = max(0, -int(oy.min())), max(0, int(oy.max()))
    left, right = max(0, -int(ox.min())), max(0, int(ox.max()))
    xp = pad(x, (top, bottom, left, right), "nearest")
    if batched if batched is not None else (x.device.type != "cpu" and n > 1):
        return _motion_taps_batched(xp, kernels, (h, w), (top, left), min_weight)
    out = torch.empty_like(x)
    for s, (wts, dx, dy) in enumerate(kernels):
        acc = out[s]
        src = xp[s]
        first = True
        for wt, ddx, ddy in zip(wts.tolist(), dx.tolist(), dy.tolist()):
            if wt < min_weight:
                continue
            r0, c0 = top + ddy, left + ddx
            if first:  # 0 + w x is w x: the first tap initialises the sum
                torch.mul(src[:, r0 : r0 + h, c0 : c0 + w], wt, out=acc)
                first = False
            else:
                acc.add_(src[:, r0 : r0 + h, c0 : c0 + w], alpha=wt)
        if first:
            acc.zero_()
    return out


def _motion_taps_batched(
    xp: torch.Tensor,
    kernels: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
    size: tuple[int, int],
    origin: tuple[int, int],
    min_weight: float,
) -> torch.Tensor:
    """:func:`motion_blur_taps` on the padded batch ``xp``, tap by tap for all samples at once:
    ``acc[s] += w[s, t] * xp[s, :, top + dy[s, t] + i, left + dx[s, t] + j]`` as one gather of the
    flattened planes at per-sample offsets. Samples with fewer taps get zero-weight taps at offset
    0 (adding an exact 0)."""
    n, c, hp, wp = xp.shape
    h, w = size
    top, left = origin
    taps = []
    for wts, dx, dy in kernels:
        keep = wts >= min_weight
        taps.append((wts[keep], (top + dy[keep]) * wp + (left + dx[keep])))
    t_max = max((len(t[0]) for t in taps), default=0)
    weights = np.zeros((n, max(t_max, 1)), dtype=np.float32)
    offsets = np.zeros((n, max(t_max, 1)), dtype=np.int64)
    for s, (wts, off) in enumerate(taps):
        weights[s, : len(wts)] = wts
        offsets[s, : len(off)] = off
    dev = xp.device
    wt = torch.as_tensor(weights, device=dev)
    off_t = torch.as_tensor(offsets, device=dev)
    # flat index of output pixel (i, j) in a padded plane, before the tap's offset
    base = (torch.arange(h, device=dev)[:, None] * wp + torch.arange(w, device=dev)[None, :]).view(
        1, 1, h * w
    )
    flat = xp.reshape(n, c, hp * wp)
    acc = torch.zeros((n, c, h * w), dtype=xp.dtype, device=dev)
    for t in range(t_max):
        idx = (base + off_t[:, t].view(n, 1, 1)).expand(n, c, h * w)
        acc.addcmul_(flat.gather(2, idx), wt[:, t].view(n, 1, 1).to(xp.dtype))
    return acc.view(n, c, h, w)


def magick_quantise(acc: torch.Tensor) -> torch.Tensor:
    """ImageMagick Q16 ``ClampToQuantum`` + 8-bit PNG write of a [0, 1] blur result: integer values
    ``floor(round(65535 acc) / 257)`` in 0..255 (float tensor)."""
    q = torch.mul(acc, 65535.0).add_(0.5).floor_().clamp_(0.0, 65535.0)
    return q.div_(257.0).floor_()

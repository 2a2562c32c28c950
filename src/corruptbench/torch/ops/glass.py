"""Glass blur's sequential in-place pixel copy on a batch: the loop itself (compiled) on the CPU,
resolved in parallel by pointer jumping elsewhere."""

from __future__ import annotations

import numba
import numpy as np
import torch

__all__ = ["glass_shuffle", "glass_shuffle_passes"]


@numba.njit(cache=True, nogil=True)
def _glass_loop(x, d, offsets):  # pragma: no cover - compiled
    # the reference's sequential copy loop, every pass, in place on (N, C, H, W);
    # offsets (N, passes, H-2d, W-2d, 2) ascending
    n, nc, height, width = x.shape
    for i in range(n):
        img = x[i]
        for it in range(offsets.shape[1]):
            off = offsets[i, it]
            for h in range(height - d, d, -1):
                row = off[h - d - 1]
                for w in range(width - d, d, -1):
                    hp = h + np.int64(row[w - d - 1, 1])
                    wp = w + np.int64(row[w - d - 1, 0])
                    if nc == 3:
                        img[0, h, w] = img[0, hp, wp]
                        img[1, h, w] = img[1, hp, wp]
                        img[2, h, w] = img[2, hp, wp]
                    else:
                        for c in range(nc):
                            img[c, h, w] = img[c, hp, wp]


def _glass_loop_cpu(x: torch.Tensor, d: int, offsets: torch.Tensor) -> torch.Tensor:
    out = x.detach().clone(memory_format=torch.contiguous_format)
    off = offsets.detach().cpu()
    if off.dtype not in (torch.int8, torch.int16, torch.int32, torch.int64):
        off = off.to(torch.int64)
    _glass_loop(out.numpy(), d, off.contiguous().numpy())
    return out


def glass_shuffle_passes(x: torch.Tensor, max_delta: int, offsets: torch.Tensor) -> torch.Tensor:
    """:func:`glass_shuffle` applied for each pass ``offsets[:, p]`` in turn (``offsets`` ``(N,
    passes, H - 2d, W - 2d, 2)``). On the CPU all passes run in one compiled loop (uint8 input
    moves single bytes); elsewhere pass by pass."""
    n, c, h, w = x.shape
    d = int(max_delta)
    if h - 2 * d <= 0 or w - 2 * d <= 0:
        return x.clone()
    if x.device.type != "cpu":
        for it in range(offsets.shape[1]):
            x = _glass_shuffle_jump(x, d, offsets[:, it])
        return x
    return _glass_loop_cpu(x, d, offsets)


def glass_shuffle(x: torch.Tensor, max_delta: int, offsets: torch.Tensor) -> torch.Tensor:
    """One pass of the reference's glass-blur copy loop, for every sample at once.

    The reference visits ``h = H-d .. d+1`` (descending), inside that ``w = W-d .. d+1``
    (descending), and sets ``x[h, w] = x[h + dy, w + dx]`` *in place*, so a pixel may read a source
    that this pass already overwrote (any source later in raster order than the pixel itself).
    Each pixel's value is therefore ``old[root]`` where ``root`` is found by following the sources
    that were already overwritten: a functional graph whose chains are resolved here by pointer
    jumping (``O(log chain length)`` gathers). The result equals the sequential loop exactly.
    On the CPU the loop itself runs (compiled with Numba), which is the same computation.

    Args:
        x: ``(N, C, H, W)`` tensor (any dtype).
        max_delta: ``d``.
        offsets: ``(N, H - 2d, W - 2d, 2)`` integer ``(dx, dy)`` in ``[-d, d - 1]`` for the rows
            ``d+1 .. H-d`` and columns ``d+1 .. W-d`` in *ascending* order.

    Returns:
        a new tensor, the image after the pass.
    """
    n, c, h, w = x.shape
    d = int(max_delta)
    hr, wr = h - 2 * d, w - 2 * d
    if hr <= 0 or wr <= 0:
        return x.clone()
    if x.device.type == "cpu":  # the sequential loop itself (compiled): same copies, fewer ops
        return _glass_loop_cpu(x, d, offsets[:, None])
    return _glass_shuffle_jump(x, d, offsets)


def _glass_shuffle_jump(x: torch.Tensor, max_delta: int, offsets: torch.Tensor) -> torch.Tensor:
    """:func:`glass_shuffle` by pointer jumping (any device)."""
    n, c, h, w = x.shape
    d = int(max_delta)
    hr, wr = h - 2 * d, w - 2 * d
    if hr <= 0 or wr <= 0:
        return x.clone()
    dev = x.device
    hh = torch.arange(d + 1, h - d + 1, device=dev).view(1, hr, 1)
    ww = torch.arange(d + 1, w - d + 1, device=dev).view(1, 1, wr)
    dx = offsets[..., 0].to(device=dev, dtype=torch.long)
    dy = offsets[..., 1].to(device=dev, dtype=torch.long)
    sh, sw = hh + dy, ww + dx
    inside = (sh >= d + 1) & (sh <= h - d) & (sw >= d + 1) & (sw <= w - d)
    earlier = inside & ((sh > hh) | ((sh == hh) & (sw > ww)))  # overwritten before (h, w) is read
    nxt = torch.arange(h * w, device=dev).repeat(n, 1)
    done = torch.ones((n, h * w), dtype=torch.bool, device=dev)
    pos = (hh * w + ww).expand(n, hr, wr).reshape(n, -1)
    nxt.scatter_(1, pos, (sh * w + sw).reshape(n, -1))
    done.scatter_(1, pos, (~earlier).reshape(n, -1))
    while not bool(done.all()):
        nxt_next = nxt.gather(1, nxt)
        done_next = done.gather(1, nxt)
        nxt = torch.where(done, nxt, nxt_next)
        done = done | done_next
    flat = x.reshape(n, c, h * w)
    return flat.gather(2, nxt.unsqueeze(1).expand(n, c, h * w)).reshape(n, c, h, w)

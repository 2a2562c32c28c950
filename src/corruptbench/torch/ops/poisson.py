"""Poisson counts of 8-bit images (shot noise): Walker alias tables, one random word per value."""

from __future__ import annotations

import functools
import math

import numpy as np
import torch

from .common import to_device

__all__ = ["poisson_u8"]


@functools.lru_cache(maxsize=64)
def _poisson_alias(c: float) -> tuple[np.ndarray, np.ndarray]:
    """Walker/Vose alias tables ``(threshold, alias)``, each ``(256, 2^b)`` int64, of
    Poisson(``v c / 255``) for the 256 values ``v``. The counts ``0 .. K - 1`` with ``K`` covering
    ``c + 12 sqrt(c) + 12`` (the mass beyond is below 1e-25 and is dropped, the rest
    renormalised), padded with empty cells to ``2^b >= K`` cells; a cell keeps its own count with
    probability ``threshold / 2^(63 - b)`` (the cell probability, to 2^-53 at least), else its
    alias."""
    lam = np.arange(256, dtype=np.float64) / 255.0 * c
    k_max = int(math.ceil(c + 12.0 * math.sqrt(c) + 12.0))
    bits = max(1, (k_max - 1).bit_length())
    cells = 1 << bits
    k = np.arange(k_max, dtype=np.float64)
    lgam = np.array([math.lgamma(i + 1.0) for i in range(k_max)])
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = k[None, :] * np.log(lam[:, None]) - lam[:, None] - lgam[None, :]
    logp[0] = np.where(k == 0, 0.0, -np.inf)  # rate 0: always 0
    pmf = np.zeros((256, cells))
    pmf[:, :k_max] = np.exp(logp)
    pmf /= pmf.sum(axis=1, keepdims=True)
    prob = np.ones((256, cells))
    alias = np.tile(np.arange(cells, dtype=np.int64), (256, 1))
    for v in range(256):
        q = pmf[v] * cells
        small = [i for i in range(cells) if q[i] < 1.0]
        large = [i for i in range(cells) if q[i] >= 1.0]
        while small and large:
            s, lg = small.pop(), large.pop()
            prob[v, s], alias[v, s] = q[s], lg
            q[lg] = (q[lg] + q[s]) - 1.0
            (small if q[lg] < 1.0 else large).append(lg)
        # the rest (round-off leftovers): probability 1 of their own cell
    threshold = np.floor(prob * 2.0 ** (63 - bits)).astype(np.int64)
    return threshold, alias


def _poisson_packed(c: float) -> np.ndarray:
    # one int64 per cell: threshold * 2^b + alias, the threshold capped at 2^(63-b) - 1 (only
    # cells of probability 1 reach the cap, and their alias is the cell itself)
    threshold, alias = _poisson_alias(c)
    bits = threshold.shape[1].bit_length() - 1
    capped = np.minimum(threshold, (1 << (63 - bits)) - 1)
    return (capped << bits) | alias


def poisson_u8(v: torch.Tensor, c: float, words: torch.Tensor) -> torch.Tensor:
    """Poisson counts with rates ``v c / 255`` for 8-bit values ``v`` (any dtype holding 0..255),
    from one random int64 word in ``[0, 2^63)`` per element (``Tensor.random_()``), by Walker's
    alias method in integers: the low ``b`` bits pick one of the ``2^b`` cells, the other
    ``63 - b`` bits decide between the cell's own count and its alias. Exactly Poisson up to the
    dropped tail (< 1e-25) and the thresholds' resolution (<= 2^-53). Returns int64 counts
    (``words`` is overwritten)."""
    c = float(c)
    packed = to_device(_poisson_packed, (c,), words.device, torch.int64)
    cells = int(packed.shape[1])
    bits = cells.bit_length() - 1
    cell = words.bitwise_and(cells - 1)
    idx = v.to(device=words.device, dtype=torch.int64).bitwise_left_shift_(bits).add_(cell)
    entry = packed.view(-1).take(idx)  # threshold * 2^b + alias
    # frac < threshold  <=>  frac * 2^b + (2^b - 1) < threshold * 2^b + alias, and
    # frac * 2^b + (2^b - 1) is the word with its low b bits set
    keep = torch.lt(words.bitwise_or_(cells - 1), entry)
    return torch.where(keep, cell, entry.bitwise_and_(cells - 1))

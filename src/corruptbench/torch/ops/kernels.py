"""The defocus disk's 2-D correlation by FFT and the batched plasma fractal."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import torch

from .common import pad

__all__ = ["filter2d_fft", "plasma_fractal"]


def _flipped(kernel: np.ndarray) -> np.ndarray:
    return kernel[::-1, ::-1].copy()  # a copy: a 1 x 1 view stays negatively strided otherwise


@functools.lru_cache(maxsize=64)
def _kernel_spectrum(
    key: bytes, shape: tuple[int, int], size: tuple[int, int], device: torch.device
) -> torch.Tensor:
    kernel = np.frombuffer(key, dtype=np.float64).reshape(shape)
    k = torch.as_tensor(_flipped(kernel), dtype=torch.float32, device=device)
    return torch.fft.rfft2(k, s=size)


@functools.lru_cache(maxsize=256)
def _fast_fft_len(n: int) -> int:
    """The smallest ``m >= n`` whose prime factors are all 2, 3 or 5."""
    m = max(1, n)
    while True:
        r = m
        for p in (2, 3, 5):
            while r % p == 0:
                r //= p
        if r == 1:
            return m
        m += 1


def filter2d_fft(x: torch.Tensor, kernel: np.ndarray, border: str = "reflect101") -> torch.Tensor:
    """``cv2.filter2D(x, -1, kernel, borderType=REFLECT_101)`` (correlation, centred anchor) of every
    ``H x W`` plane of ``x`` (odd square ``kernel``), by FFT of the border-padded planes."""
    k = np.asarray(kernel, dtype=np.float64)
    kh, kw = k.shape
    rh, rw = kh // 2, kw // 2
    h, w = x.shape[-2:]
    xp = pad(x, (rh, rh, rw, rw), border)
    # FFT lengths: the next 5-smooth lengths (zero padding past the padded image changes no kept
    # output: each reads only padded-image positions); sizes like 244 = 4 * 61 are slow
    size = (_fast_fft_len(h + 2 * rh), _fast_fft_len(w + 2 * rw))
    spec = _kernel_spectrum(k.tobytes(), k.shape, size, x.device)
    full = torch.fft.irfft2(torch.fft.rfft2(xp, s=size) * spec, s=size)
    return full[..., kh - 1 : kh - 1 + h, kw - 1 : kw - 1 + w]


def plasma_fractal(
    n: int,
    mapsize: int,
    wibbledecay: float,
    uniform: Callable[[tuple[int, ...], float, float], torch.Tensor],
    *,
    device: torch.device,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """``n`` independent reference plasma fractals ``(n, mapsize, mapsize)`` in [0, 1].

    Same algorithm as :func:`corruptbench.ops.kernels.plasma_fractal` (squared wibble amplitude kept);
    ``uniform(shape, low, high)`` supplies the random values, per level one ``(n, k, k)`` array for the
    squares then two for the diamonds.
    """
    if mapsize < 2 or mapsize & (mapsize - 1):
        raise ValueError(f"mapsize must be a power of two >= 2, got {mapsize}")
    m = torch.zeros((n, mapsize, mapsize), device=device, dtype=dtype)
    step = mapsize
    wibble = 100.0

    def wibbled(a: torch.Tensor) -> torch.Tensor:
        return a / 4 + wibble * uniform(tuple(a.shape), -wibble, wibble).to(
            device=device, dtype=dtype
        )

    while step >= 2:
        half = step // 2
        corners = m[:, 0::step, 0::step]
        sq = corners + torch.roll(corners, -1, 1)
        sq = sq + torch.roll(sq, -1, 2)
        m[:, half::step, half::step] = wibbled(sq)
        dr = m[:, half::step, half::step]
        ul = m[:, 0::step, 0::step]
        m[:, 0::step, half::step] = wibbled(
            (dr + torch.roll(dr, 1, 1)) + (ul + torch.roll(ul, -1, 2))
        )
        m[:, half::step, 0::step] = wibbled(
            (dr + torch.roll(dr, 1, 2)) + (ul + torch.roll(ul, -1, 1))
        )
        step //= 2
        wibble /= wibbledecay
    m = m - m.amin(dim=(1, 2), keepdim=True)
    return m / m.amax(dim=(1, 2), keepdim=True)

"""Noise with a prescribed power spectrum: ``gen_noise`` of ImageNet-C-bar's ``BlueNoise``,
``BrownishNoise`` and ``BlueNoiseSample`` (``corrupt.py``, facebookresearch/augmentation-corruption
commit ba4d5a5).

An ``n x n`` spectrum ``power * exp(i phases)`` with uniform random phases (the right half the
left half turned by 180 degrees; for odd ``n`` a middle column ``(c, 0, c reversed)``), rolled by
``n // 2`` on both axes, goes through ``scipy.fftpack.ifft2``; the real part divided by its
standard deviation is the noise. ``power`` is the distance from the centre ``n / 2``
(blue) or ``1 / (distance ** 2 + 1)`` (brownish). The original builds the power map with a
Python double loop for every noise (three per image); it depends only on ``n``, so here it is
made once per size (:func:`power_map`), with the original's scalar arithmetic.
"""

from __future__ import annotations

import functools

import numpy as np

from .jit import kernel

__all__ = ["power_map", "spectral_noise", "spectral_field", "pow_inplace"]


@kernel(error_model="numpy")
def pow_inplace(values: np.ndarray, exponent: float) -> None:  # pragma: no cover - compiled
    """``values[i] = values[i] ** exponent`` with libm ``pow`` (as a NumPy float64 *scalar*'s
    ``**``; the exponent is a run-time value so that ``2.0`` is not rewritten as a product)."""
    for i in range(values.shape[0]):
        values[i] = values[i] ** exponent


@functools.lru_cache(maxsize=32)
def power_map(n: int, kind: str) -> np.ndarray:
    """The ``n x n`` power map of ``kind`` ``"blue"`` or ``"brownish"`` (read-only, cached).

    ``blue``: ``|(x, y) - n / 2|`` (``np.linalg.norm`` of the 2-vector: ``sqrt(dx dx + dy dy)``);
    ``brownish``: ``1 / (|(x, y) - n / 2| ** 2 + 1)`` with the scalar ``** 2`` of the original
    (libm ``pow``). Row ``y``, column ``x``.
    """
    d = np.arange(n) - n / 2
    sq = d * d
    dist = np.sqrt(sq[None, :] + sq[:, None])
    if kind == "brownish":
        flat = dist.reshape(-1)
        pow_inplace(flat, 2.0)
        dist = 1 / (dist + 1)
    elif kind != "blue":
        raise ValueError(f"kind must be 'blue' or 'brownish', got {kind!r}")
    dist.flags.writeable = False
    return dist


def spectral_noise(rs: np.random.RandomState, n: int, kind: str) -> np.ndarray:
    """One ``gen_noise(random_state)`` of size ``n x n`` (float64, unit standard deviation),
    drawing ``uniform(0, 2 pi, (n, n // 2))`` (and ``(n // 2, 1)`` more for odd ``n``) from
    ``rs``."""
    from scipy.fftpack import ifft2  # the original's; imported here: scipy is slow to import

    phases = rs.uniform(low=0, high=2 * np.pi, size=(n, n // 2))
    if n % 2 == 0:
        phases = np.concatenate((phases, phases[::-1, ::-1]), axis=1)
    else:
        mid = rs.uniform(low=0, high=2 * np.pi, size=(n // 2, 1))
        mid = np.concatenate((mid, np.array([[0.0]]), mid[::-1, :]), axis=0)
        phases = np.concatenate((phases, mid, phases[::-1, ::-1]), axis=1)
    spectrum = power_map(n, kind) * (np.cos(phases) + np.sin(phases) * 1j)
    spectrum = np.roll(spectrum, n // 2, axis=0)
    spectrum = np.roll(spectrum, n // 2, axis=1)
    noise = np.real(ifft2(spectrum))
    return noise / np.std(noise)


def spectral_field(rs: np.random.RandomState, shape: tuple[int, int], kind: str) -> np.ndarray:
    """One ``gen_noise`` for an H x W image: the original's ``n x n`` field with
    ``n = max(H, W)`` (the side of a square image), cut to its first H rows and W columns (ours:
    the original only has square images)."""
    h, w = shape
    return spectral_noise(rs, max(h, w), kind)[:h, :w]

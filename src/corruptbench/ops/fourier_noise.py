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


def _mirrored(left: np.ndarray, mid: np.ndarray | None) -> np.ndarray:
    """The original's phase layout from its left half (and odd sides' middle column)."""
    if mid is None:
        return np.concatenate((left, left[::-1, ::-1]), axis=1)
    return np.concatenate((left, mid, left[::-1, ::-1]), axis=1)


@functools.lru_cache(maxsize=32)
def _rolled_power(n: int, kind: str) -> np.ndarray:
    out = np.roll(power_map(n, kind), (n // 2, n // 2), axis=(0, 1))
    out.flags.writeable = False
    return out


def spectral_noise(rs: np.random.RandomState, n: int, kind: str) -> np.ndarray:
    """One ``gen_noise(random_state)`` of size ``n x n`` (float64, unit standard deviation),
    drawing ``uniform(0, 2 pi, (n, n // 2))`` (and ``(n // 2, 1)`` more for odd ``n``) from
    ``rs``.

    The original's ``power * (cos(phases) + sin(phases) * 1j)`` is ``(power cos, power sin)``
    exactly; ``cos`` and ``sin`` run on the drawn half only (the other half mirrors it), and the
    roll is applied to the power map once per size and to the cosines and sines.
    """
    from scipy.fftpack import ifft2  # the original's; imported here: scipy is slow to import

    left = rs.uniform(low=0, high=2 * np.pi, size=(n, n // 2))
    mid = None
    if n % 2:
        half = rs.uniform(low=0, high=2 * np.pi, size=(n // 2, 1))
        mid = np.concatenate((half, np.array([[0.0]]), half[::-1, :]), axis=0)
    shift = (n // 2, n // 2)
    cos = np.roll(_mirrored(np.cos(left), None if mid is None else np.cos(mid)), shift, (0, 1))
    sin = np.roll(_mirrored(np.sin(left), None if mid is None else np.sin(mid)), shift, (0, 1))
    power = _rolled_power(n, kind)
    spectrum = np.empty((n, n), np.complex128)
    np.multiply(power, cos, out=spectrum.real)
    np.multiply(power, sin, out=spectrum.imag)
    noise = np.real(ifft2(spectrum))
    return noise / np.std(noise)


def spectral_field(rs: np.random.RandomState, shape: tuple[int, int], kind: str) -> np.ndarray:
    """One ``gen_noise`` for an H x W image: the original's ``n x n`` field with
    ``n = max(H, W)`` (the side of a square image), cut to its first H rows and W columns (ours:
    the original only has square images)."""
    h, w = shape
    return spectral_noise(rs, max(h, w), kind)[:h, :w]

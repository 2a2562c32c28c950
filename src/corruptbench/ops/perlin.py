"""Perlin turbulence of ImageNet-C-bar's ``utils/perlin_noise.py`` (``PerlinNoiseGenerator``).

The original (facebookresearch/augmentation-corruption, commit ba4d5a5) is Ken Perlin's reference
2-D noise with ``B = 256`` lattice gradients and ``N = 4096``. :func:`perlin_tables` builds the
permutation ``p`` and gradients ``g`` from a legacy ``RandomState`` with exactly the original's
calls (one ``randint(0, 2**31, size=2)`` per gradient, one ``randint(0, 2**31)`` per swap: the
split matters, each call buffers its own 64-bit draws); :func:`perlin_turbulence` evaluates
``turbulence`` at every pixel in a compiled loop with the original's scalar arithmetic
(``s ** 2`` is libm ``pow``, ``%`` NumPy's remainder; see :mod:`corruptbench.ops.cbar_kernels`).
"""

from __future__ import annotations

import numpy as np

from .jit import kernel

__all__ = ["LATTICE", "perlin_tables", "perlin_turbulence"]

#: the original's ``B`` (gradients and permutation entries; the tables hold ``2 B + 2``)
LATTICE = 256
_N = 16 * 256  # the original's ``N``, added to coordinates to keep them positive


def perlin_tables(rs: np.random.RandomState) -> tuple[np.ndarray, np.ndarray]:
    """``(p, g)`` of ``PerlinNoiseGenerator(rs)``: int64 ``(2 B + 2,)`` and float64
    ``(2 B + 2, 2)``, drawn from ``rs`` as the original draws them.

    Each gradient is ``v / |v|`` with ``v = (randint(0, 2**31, 2) mod 2B - B) / B``; a zero ``v``
    (chance 2**-18 per gradient) gives NaN as in the original. Then ``p`` is ``0 .. 2B + 1`` with
    ``p[i]`` swapped with ``p[randint(0, 2**31) mod B]`` for ``i = B - 1 .. 0``, and entries
    ``B .. 2B + 1`` copy ``0 .. B + 1`` one by one. The original's one call per gradient and per
    swap draw the same numbers as one call for all of them (legacy ``randint`` below 2**32 keeps
    no state between calls; the tests compare the two).
    """
    b = LATTICE
    v = (rs.randint(low=0, high=2**31, size=(2 * b + 2, 2)) % (2 * b) - b) / b
    # |v| = sqrt(v0 v0 + v1 v1) exactly (multiples of 1/256: no rounding before the sqrt)
    norm = np.sqrt(v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1])
    with np.errstate(invalid="ignore", divide="ignore"):
        g = v / norm[:, None]
    swaps = rs.randint(low=0, high=2**31, size=b) % b
    p = np.arange(2 * b + 2)
    for k, i in enumerate(range(b - 1, -1, -1)):
        j = swaps[k]
        p[i], p[j] = p[j], p[i]
    for i in range(b + 2):  # one by one: entries 2B, 2B + 1 copy the just-written B, B + 1
        p[b + i] = p[i]
        g[b + i, :] = g[i, :]
    return p, g


@kernel(inline="always", error_model="numpy")
def _lattice(v: float, two: float) -> tuple[int, int, float, float, float]:
    """One coordinate of ``PerlinNoiseGenerator.noise``: ``t = v + N``, the cells
    ``b0 = int(t) mod B`` and ``b0 + 1``, the offsets ``r0 = t mod 1`` and ``r0 - 1``, and
    ``s_curve(r0) = r0 ** 2 (3 - 2 r0)`` (libm ``pow``)."""
    t = v + _N
    b0 = int(t) % 256
    b1 = (b0 + 1) % 256
    r0 = np.fmod(t, 1.0)  # t > 0: NumPy's t % 1 is fmod
    return b0, b1, r0, r0 - 1.0, r0**two * (3.0 - 2.0 * r0)


@kernel(error_model="numpy")
def perlin_turbulence(
    p: np.ndarray,
    g: np.ndarray,
    m00: float,
    m11: float,
    octaves: float,
    gain: float,
    bias: float,
    two: float,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """PerlinNoise's per-pixel ``kernel``: at ``(y m00, x m11)`` (``np.matmul((y, x), m)`` with a
    diagonal ``m``), ``turbulence = sum over f = 1, 2, 4, ... <= octaves of |noise(f p)| / f``,
    then ``clip(gain turbulence + bias, 0, 1)`` into ``out`` (H x W float64; NaN where a
    gradient is NaN, as in the original).

    ``noise`` splits into a part per row and a part per column (the lattice cell, offsets and
    s-curve of each coordinate), computed once per octave; each pixel then combines them with
    the original's arithmetic.
    """
    h, w = out.shape
    count = 0
    f = 1.0
    while f <= octaves:
        count += 1
        f = f * 2
    row_cell = np.empty((count, h, 2), np.int64)
    row_frac = np.empty((count, h, 3))
    col_cell = np.empty((count, w, 2), np.int64)
    col_frac = np.empty((count, w, 3))
    f = 1.0
    for o in range(count):
        for y in range(h):
            b0, b1, r0, r1, s = _lattice(f * (y * m00), two)
            row_cell[o, y, 0], row_cell[o, y, 1] = b0, b1
            row_frac[o, y, 0], row_frac[o, y, 1], row_frac[o, y, 2] = r0, r1, s
        for x in range(w):
            b0, b1, r0, r1, s = _lattice(f * (x * m11), two)
            col_cell[o, x, 0], col_cell[o, x, 1] = b0, b1
            col_frac[o, x, 0], col_frac[o, x, 1], col_frac[o, x, 2] = r0, r1, s
        f = f * 2
    for y in range(h):
        for x in range(w):
            t = 0.0
            f = 1.0
            for o in range(count):
                # noise(f * row coordinate, f * column coordinate): its "x" is the row
                i = p[row_cell[o, y, 0]]
                j = p[row_cell[o, y, 1]]
                by0 = col_cell[o, x, 0]
                by1 = col_cell[o, x, 1]
                rx0, rx1, sx = row_frac[o, y, 0], row_frac[o, y, 1], row_frac[o, y, 2]
                ry0, ry1, sy = col_frac[o, x, 0], col_frac[o, x, 1], col_frac[o, x, 2]
                b00 = p[i + by0]
                b10 = p[j + by0]
                b01 = p[i + by1]
                b11 = p[j + by1]
                u = rx0 * g[b00, 0] + ry0 * g[b00, 1]
                v = rx1 * g[b10, 0] + ry0 * g[b10, 1]
                a = u + sx * (v - u)
                u = rx0 * g[b01, 0] + ry1 * g[b01, 1]
                v = rx1 * g[b11, 0] + ry1 * g[b11, 1]
                bb = u + sx * (v - u)
                t += abs(1.5 * (a + sy * (bb - a))) / f
                f = f * 2
            v = gain * t + bias
            if v < 0.0:  # np.clip, which keeps NaN
                v = 0.0
            elif v > 1.0:
                v = 1.0
            out[y, x] = v

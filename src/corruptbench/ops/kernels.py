"""Kernel and map builders: the defocus disk and the plasma fractal.

References: ``disk`` (imagenet_c/corruptions.py:26-38 of imagenet-c 0.0.3) and ``plasma_fractal``
(:55-101).

* :func:`disk` — the defocus kernel (reference ``disk``), and :func:`trimmed_disk` — the same
  without its all-zero outer rows and columns
* :func:`plasma_fractal` — the diamond-square fog map (reference ``plasma_fractal``), and
  :func:`plasma_raw_map` — its compiled core with the map's min/max
* :func:`next_pow2` — the map size that covers an image
"""

from __future__ import annotations

import functools
from typing import Any

import cv2
import numpy as np

from .jit import kernel

__all__ = [
    "disk",
    "trimmed_disk",
    "plasma_fractal",
    "plasma_raw_map",
    "plasma_rows",
    "plasma_extremes",
    "PLASMA_DRAWS_PER_CALL",
    "next_pow2",
]


def disk(radius: float, alias_blur: float, dtype: Any = np.float32) -> np.ndarray:
    """Anti-aliased disk kernel of the reference ``disk(radius, alias_blur)``.

    ``L = -8..8`` (ksize 3) when ``radius <= 8`` else ``-radius..radius`` (ksize 5);
    ``K = GaussianBlur(1[X^2 + Y^2 <= r^2] / count, ksize, sigma=alias_blur)`` (OpenCV, REFLECT_101).
    The blurred kernel is *not* renormalised (sums ~1.013 at r = 8): a reference quirk kept on purpose.
    Returns a new array (the result of a cached computation, safe to modify).
    """
    return _disk_cached(float(radius), float(alias_blur), np.dtype(dtype).str).copy()


@functools.lru_cache(maxsize=64)
def _disk_cached(radius: float, alias_blur: float, dtype: str) -> np.ndarray:
    coords: np.ndarray
    if radius <= 8:
        coords = np.arange(-8, 8 + 1)
        ksize = (3, 3)
    else:
        # np.arange(-r, r + 1) as the reference (a float radius gives float coordinates)
        r = int(radius) if float(radius).is_integer() else radius
        coords = np.arange(-r, r + 1)
        ksize = (5, 5)
    xx, yy = np.meshgrid(coords, coords)
    aliased = np.array((xx**2 + yy**2) <= radius**2, dtype=dtype)
    aliased /= np.sum(aliased)
    out = cv2.GaussianBlur(aliased, ksize=ksize, sigmaX=alias_blur)
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=64)
def trimmed_disk(radius: float, alias_blur: float) -> np.ndarray:
    """:func:`disk` (float32) without its symmetric all-zero outer rows and columns (they add
    nothing to a correlation); centred, read-only, cached. Defocus blur's kernel, on the CPU and
    in the torch backend."""
    kernel = disk(radius, alias_blur)
    n = kernel.shape[0]
    t = 0
    while (
        t < n // 2
        and not kernel[t].any()
        and not kernel[n - 1 - t].any()
        and not kernel[:, t].any()
        and not kernel[:, n - 1 - t].any()
    ):
        t += 1
    out = np.ascontiguousarray(kernel[t : n - t, t : n - t])
    out.flags.writeable = False
    return out


def next_pow2(n: int) -> int:
    """Smallest power of two >= n."""
    return 1 << max(0, int(n - 1).bit_length())


# ------------------------------------------------------------------------------------------------
# Plasma fractal
# ------------------------------------------------------------------------------------------------


@kernel
def plasma_rows(m, step, part, i0, u, w):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Rows ``i0 ..`` of one part of one diamond-square level of :func:`plasma_fractal`, in
    place on the n x n float64 map ``m``, *before* its normalisation.

    ``step``: the level's step (``k = n // step`` points a side); ``part``: 0 the squares
    ``m[half::step, half::step]``, 1 the diamonds ``m[0::step, half::step]``, 2 the diamonds
    ``m[half::step, 0::step]`` (the reference's order within a level); ``u``: the
    ``random_sample()`` draws of ``len(u) // k`` rows of that part, in C order; ``w``: the
    level's wibble. A point is ``A / 4 + w * (-w + (w - -w) * u)`` with ``A`` summed in the
    reference's order (its ``np.roll`` pairs); the neighbours wrap around (``% k``), handled at
    the last row/column instead of by a modulo per point. The points of one part depend only on
    the earlier parts and levels, so its rows can be made in any grouping.
    """
    n = m.shape[0]
    half = step // 2
    k = n // step
    lo = -w
    span = w - lo
    for r in range(u.shape[0] // k):
        i = i0 + r
        base = r * k
        if part == 0:  # squares: corners above/below, left/right
            r0 = m[i * step]
            r1 = m[((i + 1) % k) * step]
            out = m[half + i * step]
            for j in range(k):
                j1 = (j + 1) * step if j + 1 < k else 0
                a = (r0[j * step] + r1[j * step]) + (r0[j1] + r1[j1])
                out[half + j * step] = a / 4 + w * (lo + span * u[base + j])
        elif part == 1:  # diamonds m[0::step, half::step]: dr above/below, ul left/right
            d0 = m[half + i * step]
            d1 = m[half + ((i - 1) % k) * step]
            ul = m[i * step]
            for j in range(k):
                j1 = (j + 1) * step if j + 1 < k else 0
                a = (d0[half + j * step] + d1[half + j * step]) + (ul[j * step] + ul[j1])
                ul[half + j * step] = a / 4 + w * (lo + span * u[base + j])
        else:  # diamonds m[half::step, 0::step]
            d0 = m[half + i * step]
            u0 = m[i * step]
            u1 = m[((i + 1) % k) * step]
            for j in range(k):
                j0 = (j - 1) * step if j > 0 else (k - 1) * step
                a = (d0[half + j * step] + d0[half + j0]) + (u0[j * step] + u1[j * step])
                d0[j * step] = a / 4 + w * (lo + span * u[base + j])


@kernel
def plasma_extremes(m):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``(min, max)`` of the float64 map ``m``."""
    lo_v = m[0, 0]
    hi_v = m[0, 0]
    for i in range(m.shape[0]):
        row = m[i]
        for j in range(m.shape[1]):
            v = row[j]
            lo_v = min(lo_v, v)
            hi_v = max(hi_v, v)
    return lo_v, hi_v


#: random draws per ``random_sample`` call of :func:`plasma_raw_map` (512 KiB of float64): the
#: draws of a large map come in row groups instead of one array as large as the map
PLASMA_DRAWS_PER_CALL = 1 << 16


class _Draws:
    """``random_sample`` values of ``rng`` handed out in order, ``total`` in all, drawn compiled
    (:func:`~corruptbench.ops.legacy_random.legacy_uniform` on ``[0, 1)``: ``0 + 1 * u``, the same
    doubles) in chunks of at most :data:`PLASMA_DRAWS_PER_CALL` (or one group's size): a 256 map's
    65,535 in one call instead of one NumPy call per level and part."""

    def __init__(self, rng: np.random.RandomState, total: int) -> None:
        self.rng = rng
        self.left = total  # not drawn yet
        self.pool = np.empty(0)
        self.at = 0

    def take(self, n: int) -> np.ndarray:
        from .legacy_random import legacy_uniform

        if self.at + n > self.pool.size:
            rest = self.pool[self.at :]
            size = min(max(PLASMA_DRAWS_PER_CALL, n - rest.size), self.left)
            fresh = legacy_uniform(self.rng, 0.0, 1.0, size)
            self.left -= size
            self.pool = np.concatenate([rest, fresh]) if rest.size else fresh
            self.at = 0
        out = self.pool[self.at : self.at + n]
        self.at += n
        return out


def plasma_raw_map(
    mapsize: int, wibbledecay: float, rng: np.random.RandomState
) -> tuple[np.ndarray, float, float]:
    """The unnormalised plasma map of a ``RandomState`` and its ``(min, max)``: ``(m, lo, hi)``.

    The reference's per-level ``uniform(-w, w, (k, k))`` calls, three per level (squares, then
    the two diamond sets), are the legacy stream's ``random_sample`` draws in the same order
    (``uniform(lo, hi)`` is ``lo + (hi - lo) * random_sample()``); they are drawn here, compiled,
    in chunks of at most :data:`PLASMA_DRAWS_PER_CALL` values (consecutive ``random_sample`` calls
    continue one stream: the same values as one call) and made into rows by :func:`plasma_rows`
    in groups of at most that many. Memory: the map and one chunk of draws.
    """
    m = np.empty((mapsize, mapsize), dtype=np.float64)
    m[0, 0] = 0.0
    draws = _Draws(rng, mapsize * mapsize - 1)  # 3 k^2 per level: k = 1, 2, .., mapsize / 2
    wibble = 100.0
    step = mapsize
    while step >= 2:
        k = mapsize // step
        rows = max(1, PLASMA_DRAWS_PER_CALL // k)
        for part in range(3):
            for i0 in range(0, k, rows):
                plasma_rows(m, step, part, i0, draws.take(min(rows, k - i0) * k), wibble)
        step //= 2
        wibble /= wibbledecay
    lo, hi = plasma_extremes(m)
    return m, float(lo), float(hi)


def plasma_fractal(mapsize: int, wibbledecay: float, rng: Any) -> np.ndarray:
    """Diamond-square plasma fractal in [0, 1], shape (mapsize, mapsize), float64.

    The "wibbled mean" is ``A / 4 + w * U(-w, w)`` — the amplitude is ``w**2`` (reference quirk).
    Random draws (legacy order): per level one uniform array for the squares, then two for the
    diamonds, each ``(mapsize / s) x (mapsize / s)``. With a ``RandomState`` they come from
    ``random_sample`` calls in row groups (the same stream: legacy ``uniform(lo, hi)`` is
    ``lo + (hi - lo) * random_sample()``) and the levels run compiled (:func:`plasma_raw_map`);
    other sources are called level by level as the reference does.
    """
    if mapsize < 2 or mapsize & (mapsize - 1):
        raise ValueError(f"mapsize must be a power of two >= 2, got {mapsize}")
    if isinstance(rng, np.random.RandomState):
        m = plasma_raw_map(mapsize, wibbledecay, rng)[0]
    else:
        m = np.empty((mapsize, mapsize), dtype=np.float64)
        m[0, 0] = 0
        _plasma_levels_numpy(m, wibbledecay, rng)
    m -= m.min()
    return m / m.max()


def _plasma_levels_numpy(m: np.ndarray, wibbledecay: float, rng: Any) -> None:
    mapsize = m.shape[0]
    step = mapsize
    wibble = 100.0

    def wibbled(a: np.ndarray) -> np.ndarray:
        return a / 4 + wibble * rng.uniform(-wibble, wibble, a.shape)

    while step >= 2:
        half = step // 2
        corners = m[0:mapsize:step, 0:mapsize:step]
        sq = corners + np.roll(corners, shift=-1, axis=0)
        sq += np.roll(sq, shift=-1, axis=1)
        m[half:mapsize:step, half:mapsize:step] = wibbled(sq)
        dr = m[half:mapsize:step, half:mapsize:step]
        ul = m[0:mapsize:step, 0:mapsize:step]
        m[0:mapsize:step, half:mapsize:step] = wibbled(
            (dr + np.roll(dr, 1, axis=0)) + (ul + np.roll(ul, -1, axis=1))
        )
        m[half:mapsize:step, 0:mapsize:step] = wibbled(
            (dr + np.roll(dr, 1, axis=1)) + (ul + np.roll(ul, -1, axis=0))
        )
        step //= 2
        wibble /= wibbledecay

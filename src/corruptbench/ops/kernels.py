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
def plasma_raw(m, u, wibbles):  # type: ignore[no-untyped-def]  # pragma: no cover
    """The diamond-square levels of :func:`plasma_fractal`, in place on the
    n x n float64 map ``m`` (``m[0, 0] = 0`` set here), *before* its normalisation; returns
    ``(min, max)`` of the map.

    ``u``: all the ``random_sample()`` draws in call order (per level: squares, diamonds of the
    first set, diamonds of the second set, each ``k x k`` in C order); ``wibbles``: the per-level
    ``w``. A point is ``A / 4 + w * (-w + (w - -w) * u)`` with ``A`` summed in the reference's
    order (its ``np.roll`` pairs); the neighbours wrap around (``% k``), handled here at the last
    row/column instead of by a modulo per point.
    """
    n = m.shape[0]
    m[0, 0] = 0.0
    step = n
    level = 0
    pos = 0
    while step >= 2:
        half = step // 2
        k = n // step
        w = wibbles[level]
        lo = -w
        span = w - lo
        for i in range(k):  # squares: m[half::step, half::step]
            r0 = m[i * step]
            r1 = m[((i + 1) % k) * step]
            out = m[half + i * step]
            base = pos + i * k
            for j in range(k):
                j1 = (j + 1) * step if j + 1 < k else 0
                a = (r0[j * step] + r1[j * step]) + (r0[j1] + r1[j1])
                out[half + j * step] = a / 4 + w * (lo + span * u[base + j])
        pos += k * k
        for i in range(k):  # diamonds m[0::step, half::step]: dr above/below, ul left/right
            d0 = m[half + i * step]
            d1 = m[half + ((i - 1) % k) * step]
            ul = m[i * step]
            base = pos + i * k
            for j in range(k):
                j1 = (j + 1) * step if j + 1 < k else 0
                a = (d0[half + j * step] + d1[half + j * step]) + (ul[j * step] + ul[j1])
                ul[half + j * step] = a / 4 + w * (lo + span * u[base + j])
        pos += k * k
        for i in range(k):  # diamonds m[half::step, 0::step]
            d0 = m[half + i * step]
            u0 = m[i * step]
            u1 = m[((i + 1) % k) * step]
            base = pos + i * k
            for j in range(k):
                j0 = (j - 1) * step if j > 0 else (k - 1) * step
                a = (d0[half + j * step] + d0[half + j0]) + (u0[j * step] + u1[j * step])
                d0[j * step] = a / 4 + w * (lo + span * u[base + j])
        pos += k * k
        step //= 2
        level += 1
    lo_v = m[0, 0]
    hi_v = m[0, 0]
    for i in range(n):
        row = m[i]
        for j in range(n):
            v = row[j]
            lo_v = min(lo_v, v)
            hi_v = max(hi_v, v)
    return lo_v, hi_v


def plasma_raw_map(
    mapsize: int, wibbledecay: float, rng: np.random.RandomState
) -> tuple[np.ndarray, float, float]:
    """The unnormalised plasma map of a ``RandomState`` and its ``(min, max)``: ``(m, lo, hi)``.

    All levels' draws come from one ``random_sample`` call (the legacy stream of the reference's
    per-level ``uniform`` calls), then :func:`plasma_raw` builds the map.
    """
    wibbles = []
    wibble = 100.0
    total = 0
    step = mapsize
    while step >= 2:
        wibbles.append(wibble)
        total += 3 * (mapsize // step) ** 2
        step //= 2
        wibble /= wibbledecay
    u = rng.random_sample(total)
    m = np.empty((mapsize, mapsize), dtype=np.float64)
    lo, hi = plasma_raw(m, u, np.array(wibbles, dtype=np.float64))
    return m, float(lo), float(hi)


def plasma_fractal(mapsize: int, wibbledecay: float, rng: Any) -> np.ndarray:
    """Diamond-square plasma fractal in [0, 1], shape (mapsize, mapsize), float64.

    The "wibbled mean" is ``A / 4 + w * U(-w, w)`` — the amplitude is ``w**2`` (reference quirk).
    Random draws (legacy order): per level one uniform array for the squares, then two for the
    diamonds, each ``(mapsize / s) x (mapsize / s)``. With a ``RandomState`` all of them come from
    one ``random_sample`` call (the same stream: legacy ``uniform(lo, hi)`` is
    ``lo + (hi - lo) * random_sample()``) and the levels run compiled; other sources are called
    level by level as the reference does.
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

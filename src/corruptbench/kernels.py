"""Kernel and map builders shared by several corruptions (construction only, no application).

* :func:`disk` — the defocus kernel (reference ``disk``; spec §1.1)
* :func:`plasma_fractal` — the diamond-square fog map (reference ``plasma_fractal``)
* :func:`clipped_zoom` — centre-crop-and-zoom used by zoom blur and snow
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from scipy.ndimage import zoom as _scizoom

__all__ = ["disk", "plasma_fractal", "clipped_zoom", "next_pow2"]


def disk(radius: float, alias_blur: float, dtype: Any = np.float32) -> np.ndarray:
    """Anti-aliased disk kernel of the reference ``disk(radius, alias_blur)``.

    ``L = -8..8`` (ksize 3) when ``radius <= 8`` else ``-radius..radius`` (ksize 5);
    ``K = GaussianBlur(1[X^2 + Y^2 <= r^2] / count, ksize, sigma=alias_blur)`` (OpenCV, REFLECT_101).
    The blurred kernel is *not* renormalised (sums ~1.013 at r = 8): a reference quirk kept on purpose.
    """
    if radius <= 8:
        coords = np.arange(-8, 8 + 1)
        ksize = (3, 3)
    else:
        coords = np.arange(-radius, radius + 1)
        ksize = (5, 5)
    xx, yy = np.meshgrid(coords, coords)
    aliased = np.array((xx**2 + yy**2) <= radius**2, dtype=dtype)
    aliased /= np.sum(aliased)
    return cv2.GaussianBlur(aliased, ksize=ksize, sigmaX=alias_blur)


def next_pow2(n: int) -> int:
    """Smallest power of two >= n."""
    return 1 << max(0, int(n - 1).bit_length())


def plasma_fractal(mapsize: int, wibbledecay: float, rng: Any) -> np.ndarray:
    """Diamond-square plasma fractal in [0, 1], shape (mapsize, mapsize), float64.

    The "wibbled mean" is ``A / 4 + w * U(-w, w)`` — the amplitude is ``w**2`` (reference quirk).
    Random draws (legacy order): per level one uniform array for the squares, then two for the
    diamonds, each ``(mapsize / s) x (mapsize / s)``.
    """
    if mapsize < 2 or mapsize & (mapsize - 1):
        raise ValueError(f"mapsize must be a power of two >= 2, got {mapsize}")
    m = np.empty((mapsize, mapsize), dtype=np.float64)
    m[0, 0] = 0
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
    m -= m.min()
    return m / m.max()


def clipped_zoom(img: np.ndarray, zoom_factor: float) -> np.ndarray:
    """Zoom the centre of ``img`` (H x W x C) by ``zoom_factor`` and crop back to H x W.

    ``ch = ceil(h / z)``, ``top = (h - ch) // 2``; bilinear ``scipy.ndimage.zoom`` (order 1, mode
    'constant') of the centre crop; then a centred trim ``(out - h) // 2``. Rows and columns are
    handled independently, which at a square size is exactly the reference.
    """
    h, w = img.shape[:2]
    ch = int(np.ceil(h / zoom_factor))
    cw = int(np.ceil(w / zoom_factor))
    top = (h - ch) // 2
    left = (w - cw) // 2
    crop = img[top : top + ch, left : left + cw]
    out = _scizoom(crop, (zoom_factor, zoom_factor) + (1,) * (img.ndim - 2), order=1)
    trim_top = (out.shape[0] - h) // 2
    trim_left = (out.shape[1] - w) // 2
    return out[trim_top : trim_top + h, trim_left : trim_left + w]

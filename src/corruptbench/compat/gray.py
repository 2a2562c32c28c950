"""imagecorruptions 1.1.2's grayscale branches, for a mode-L PIL image (or an ``(H, W)`` array)
given to a :mod:`corruptbench.compat` function.

imagecorruptions' functions read the image with ``np.array(x)`` and take their ``len(x.shape) < 3``
branches: the result is ``(H, W)`` (a mode-L image for pixelate and jpeg_compression), and the
random draws have the image's 2-D shape. imagenet-c 0.0.3 has no grayscale output (most of its
functions fail on one), so compat follows those branches at every size, with its own algorithms
where they differ for colour images too (ImageMagick's motion blur in snow). Where a branch is the
colour computation of one channel, the library's corruption of the image replicated to 3 channels
gives it (its first channel); the other branches are written out here:

* ``gaussian_blur`` / ``glass_blur``: ``gaussian(x, sigma, multichannel=True)`` on a 2-D array
  takes the last axis for channels, so only the rows are blurred (axis 0); glass blur's pixel
  "swap" exchanges two scalars here, a true swap (for colour it only copies).
* ``brightness``: ``clip(x + c, 0, 1)`` without HSV; ``saturate``: the image itself (a gray pixel
  has saturation 0 and hue 0, so the HSV round trip returns V); ``contrast``: the mean of the 2-D
  array.
* ``frost`` and ``spatter``: their colour layer through imagecorruptions' ``rgb2gray``
  (``0.2989, 0.5870, 0.1140``; frost applies it to the texture's BGR channels).
* ``motion_blur`` (imagecorruptions raises ``IndexError``: its gray branch reads ``shape[2]``):
  the blurred gray image, after the same one draw.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..corruptions.weather import water_drops
from ..ops.blas_dot import dot3_fma
from ..ops.gaussian import gaussian_filter_nearest
from ..ops.legacy_random import legacy_normal
from ..registry import get_corruption
from ..rng import NumpyDraws
from ..tables.corruptions import get_params
from . import variants
from .dispatch import NOISE, as_returned, imagecorruptions_table
from .randomness import copy_of_global, global_state

__all__ = ["call_gray", "rgb2gray", "RGB2GRAY"]

#: imagecorruptions' ``rgb2gray`` weights
RGB2GRAY = (0.2989, 0.5870, 0.1140)
_TABLE = variants.TABLE


def _unit(gray: np.ndarray) -> np.ndarray:
    return gray / 255.0  # the reference's np.array(x) / 255. (float64)


def _rows_blurred(x: np.ndarray, sigma: float) -> np.ndarray:
    """``gaussian(x, sigma, multichannel=True)`` of a 2-D float64 ``x``: SciPy's Gaussian along
    axis 0 only (mode 'nearest', truncate 4), as scikit-image computes it."""
    from scipy.ndimage import gaussian_filter1d  # imported when first used

    return gaussian_filter1d(x, sigma, axis=0, mode="nearest", truncate=4.0)


def gaussian_blur(gray: np.ndarray, severity: int, rng: Any) -> np.ndarray:
    """``clip(rows_gaussian(x / 255, c), 0, 1) * 255``."""
    sigma = get_params("gaussian_blur", severity, _TABLE)
    return np.clip(_rows_blurred(_unit(gray), sigma), 0, 1) * 255


def _swap_pixels(x: np.ndarray, max_delta: int, iterations: int, offsets: np.ndarray) -> None:
    """glass blur's loop on a 2-D uint8 ``x``, in place: ``x[h, w]`` and ``x[h + dy, w + dx]``
    exchanged, ``(dx, dy) = offsets[k]`` for the k-th visit (rows, then columns, both from the
    end down to ``d + 1``)."""
    height, width = x.shape
    d = max_delta
    flat = x.reshape(-1).tolist()  # a Python list: ~4x faster to index than the array
    pairs = offsets.tolist()
    k = 0
    for _ in range(iterations):
        for h in range(height - d, d, -1):
            row = h * width
            for w in range(width - d, d, -1):
                dx, dy = pairs[k]
                k += 1
                a, b = row + w, (h + dy) * width + w + dx
                flat[a], flat[b] = flat[b], flat[a]
    x.reshape(-1)[:] = flat


def glass_blur(gray: np.ndarray, severity: int, rng: Any) -> np.ndarray:
    """``x = uint8(rows_gaussian(x / 255, sigma) * 255)``; the swap loop with ``randint(-d, d,
    size=2)`` per visit (drawn at once: the same stream); ``clip(rows_gaussian(x / 255, sigma),
    0, 1) * 255``."""
    sigma, d, iterations = get_params("glass_blur", severity, _TABLE)
    x = (_rows_blurred(_unit(gray), sigma) * 255).astype(np.uint8)  # np.uint8(...): truncation
    h, w = x.shape
    visits = iterations * max(0, h - 2 * d) * max(0, w - 2 * d)
    if visits:
        offsets = np.asarray(rng.randint(-d, d, size=(visits, 2)))
        _swap_pixels(x, d, iterations, offsets)
    return np.clip(_rows_blurred(x / 255.0, sigma), 0, 1) * 255


def brightness(gray: np.ndarray, severity: int, rng: Any) -> np.ndarray:
    """``clip(x / 255 + c, 0, 1) * 255``."""
    c = get_params("brightness", severity, _TABLE)
    return np.clip(np.clip(_unit(gray) + c, 0, 1), 0, 1) * 255


def saturate(gray: np.ndarray, severity: int, rng: Any) -> np.ndarray:
    """``clip(x / 255, 0, 1) * 255``: the HSV round trip of a gray pixel returns its V."""
    return np.clip(_unit(gray), 0, 1) * 255


def contrast(gray: np.ndarray, severity: int, rng: Any) -> np.ndarray:
    """``clip((x - m) c + m, 0, 1) * 255`` with ``m = mean(x)`` (NumPy's sum over the 2-D array)."""
    c = get_params("contrast", severity, _TABLE)
    x = _unit(gray)
    means = np.mean(x, axis=(0, 1), keepdims=True)
    return np.clip((x - means) * c + means, 0, 1) * 255


def rgb2gray(rgb: np.ndarray) -> np.ndarray:
    """imagecorruptions' ``np.dot(rgb[..., :3], [0.2989, 0.5870, 0.1140])`` (float64), with the
    arithmetic of OpenBLAS's Haswell ``dgemv`` kernel on every CPU (:func:`ops.blas_dot.dot3_fma`):
    NumPy's ``dot`` and ``einsum`` order and fuse the three products by CPU (AVX2 or AVX-512),
    which moves the last bit of about a third of the values."""
    return dot3_fma(rgb, np.array(RGB2GRAY))


def frost(gray: np.ndarray, severity: int, rng: Any) -> np.ndarray:
    """``clip(c0 x + c1 rgb2gray(crop as BGR), 0, 255)`` with imagecorruptions' texture and draws."""
    c0, c1 = get_params("frost", severity, _TABLE)
    h, w = gray.shape
    idx, x0, y0 = variants.frost_crop_origin(rng, h, w)
    tex = variants.frost_texture(idx, h, w)
    crop = tex[x0 : x0 + h, y0 : y0 + w, ::-1]  # the BGR order cv2.imread gave it
    return np.clip(c0 * gray + c1 * rgb2gray(crop), 0, 255)


def spatter(gray: np.ndarray, severity: int, rng: Any) -> np.ndarray:
    """imagecorruptions' gray spatter: the colour layer of water (``m`` times (175, 238, 238)/255,
    clipped) or mud (``(63, 42, 20)/255`` times the float32-smoothed mask ``m``) through
    ``rgb2gray``, added to ``x (1 - m)`` for mud; ``clip(., 0, 1) * 255`` (float64)."""
    from scipy.ndimage import gaussian_filter  # imported when first used

    loc, scale, sigma, threshold, intensity, mode = get_params("spatter", severity, _TABLE)
    h, w = gray.shape
    x = gray.astype(np.float32) / np.float32(255.0)
    liquid = gaussian_filter_nearest(legacy_normal(rng, loc, scale, (h, w)), sigma, truncate=4.0)
    liquid[liquid < threshold] = 0
    if mode == 0:
        layer = water_drops(np.zeros((h, w, 3), np.float32), liquid, intensity)
        return np.clip(x + rgb2gray(np.clip(layer, 0, 1)), 0, 1) * 255
    # scikit-image >= 0.19 keeps float32 input float32: SciPy's float32 Gaussian
    mask = (liquid > threshold).astype(np.float32)
    m = gaussian_filter(mask, intensity, mode="nearest", truncate=4.0)
    m[m < 0.8] = 0
    colour = np.array([63, 42, 20]) / 255.0 * m[:, :, None]  # float64, as imagecorruptions'
    x *= 1 - m
    return np.clip(x + rgb2gray(colour), 0, 1) * 255


def _on_rgb(name: str) -> Callable[[np.ndarray, int, Any], np.ndarray]:
    """The branch that is the colour computation of one channel: the first channel of the
    library's corruption of the image replicated to RGB (a uint8 result)."""

    def run(gray: np.ndarray, severity: int, rng: Any) -> np.ndarray:
        rgb = np.repeat(gray[:, :, None], 3, axis=2)
        rgb.flags.writeable = False
        spec = get_corruption(name)
        return spec.func(rgb, severity, profile=imagecorruptions_table(gray.shape), rng=rng)[..., 0]

    return run


def _snow(gray: np.ndarray, severity: int, rng: Any) -> np.ndarray:
    rgb = np.repeat(gray[:, :, None], 3, axis=2)
    return variants.snow(rgb, severity, rng, gray=True)[..., 0]


def _elastic(gray: np.ndarray, severity: int, rng: Any) -> np.ndarray:
    rgb = np.repeat(gray[:, :, None], 3, axis=2)
    return variants.elastic_transform(rgb, severity, rng)[..., 0]


def _noise(name: str) -> Callable[[np.ndarray, int, Any], np.ndarray]:
    """The noise corruptions on ``(H, W, 1)``: draws of the 2-D shape, the float result."""

    def run(gray: np.ndarray, severity: int, rng: Any) -> np.ndarray:
        table = imagecorruptions_table(gray.shape)
        out = get_corruption(name).func(
            gray[:, :, None], severity, profile=table, rng=NumpyDraws(rng)
        )
        return np.asarray(out)[:, :, 0]

    return run


_BRANCHES: dict[str, Callable[[np.ndarray, int, Any], np.ndarray]] = {
    **{name: _noise(name) for name in NOISE},
    "gaussian_blur": gaussian_blur,
    "glass_blur": glass_blur,
    "brightness": brightness,
    "saturate": saturate,
    "contrast": contrast,
    "frost": frost,
    "spatter": spatter,
    "snow": _snow,
    "elastic_transform": _elastic,
    **{name: _on_rgb(name) for name in ("defocus_blur", "motion_blur", "zoom_blur", "fog")},
}


def call_gray(name: str, gray: np.ndarray, severity: int) -> Any:
    """A corruption function's result for a read-only 2-D uint8 image, typed as imagecorruptions'
    grayscale result: a float64 / float32 ``(H, W)`` array. (pixelate and jpeg_compression:
    :data:`corruptbench.compat.dispatch.ON_PIL`.)"""
    # impulse noise: scikit-image's own generator in imagecorruptions, a copy of the state here
    rng = copy_of_global() if name == "impulse_noise" else global_state()
    out = _BRANCHES[name](gray, severity, rng)
    # a library result (uint8): its float type, of those values; the branches here: float64
    return as_returned(out, name, severity, gray=True) if out.dtype == np.uint8 else out

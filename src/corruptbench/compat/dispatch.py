"""Which computation a :mod:`corruptbench.compat` call runs, and what it returns.

At 224 x 224, where imagenet-c 0.0.3 defines the output, an RGB image gets imagenet-c's pixels
(the library's corruptions with the ImageNet table); at any other size the steps that depend on
the size follow imagecorruptions 1.1.2 (:mod:`corruptbench.compat.variants`, and the fog map of
:func:`imagecorruptions_table`). Random draws come from NumPy's global state and leave it where
imagecorruptions leaves it (:mod:`corruptbench.compat.randomness`), unless ``corrupt`` is given
its own ``rng``.
"""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any

import numpy as np
from PIL import Image

from ..profiles import PROFILES, Profile
from ..registry import get_corruption
from ..rng import NumpyDraws
from ..tables.corruptions import get_params
from ..tables.imagecorruptions import return_kind
from . import variants
from .randomness import advance_uniform, copy_of_global, global_state

__all__ = [
    "REFERENCE_SHAPE",
    "NOISE",
    "imagecorruptions_table",
    "corrupt_rgb",
    "call_rgb",
    "as_returned",
    "jpeg_file",
    "ON_PIL",
]

#: the one size imagenet-c 0.0.3 runs at (its hard-coded 224 x 224)
REFERENCE_SHAPE = (PROFILES["imagenet"].size, PROFILES["imagenet"].size)
#: the corruptions whose functions return their float result itself (not that of the uint8 one)
NOISE = ("gaussian_noise", "shot_noise", "impulse_noise", "speckle_noise")
#: the corruptions that follow imagecorruptions' size rules away from 224 x 224
_SIZED = {
    "frost": variants.frost,
    "snow": variants.snow,
    "elastic_transform": variants.elastic_transform,
}


def imagecorruptions_table(shape: tuple[int, ...]) -> Profile:
    """The ImageNet profile with imagecorruptions' fog map: ``next_power_of_2(max(shape))``, the
    shape as imagecorruptions' ``np.array(x).shape`` (channels included; at least 2). 256 at
    224 px as in imagenet-c; 128 for a 96 px image, where the library keeps at least 256."""
    side = max(2, max(int(v) for v in shape))
    return replace(PROFILES["imagenet"], fog_mapsize=1 << (side - 1).bit_length())


def _library(name: str, rgb: np.ndarray, severity: int, rng: Any, *, floats: bool) -> Any:
    spec = get_corruption(name)
    draws = NumpyDraws(rng) if floats and name in NOISE else rng
    return spec.func(rgb, severity, profile=imagecorruptions_table(rgb.shape), rng=draws)


def _pixels(name: str, rgb: np.ndarray, severity: int, rng: Any, *, floats: bool) -> Any:
    """The corruption of an RGB image: uint8, or the float noise result with ``floats``.
    ``rng=None``: the global state, as imagecorruptions leaves it."""
    h, w = rgb.shape[:2]
    source = global_state() if rng is None else rng
    if (h, w) != REFERENCE_SHAPE and name in _SIZED:
        return _SIZED[name](rgb, severity, source)
    if rng is not None or name not in ("impulse_noise", "frost", "elastic_transform"):
        return _library(name, rgb, severity, source, floats=floats)
    # imagenet-c's draws from a copy; then the global state moves as imagecorruptions moves it
    out = _library(name, rgb, severity, copy_of_global(), floats=floats)
    if name == "frost":
        variants.frost_crop_origin(source, h, w)  # randint(5) and its two crop offsets
    elif name == "elastic_transform":
        advance_uniform(source, 2 * h * w)  # its two uniform(size=(H, W)) fields
    return out


def corrupt_rgb(name: str, rgb: np.ndarray, severity: int, rng: Any = None) -> np.ndarray:
    """``corrupt``'s uint8 ``(H, W, 3)`` result for a read-only RGB image."""
    if name == "pixelate":
        return np.asarray(variants.pixelate(Image.fromarray(rgb), severity))
    return np.asarray(_pixels(name, rgb, severity, rng, floats=False))


def call_rgb(name: str, rgb: np.ndarray, severity: int) -> Any:
    """A corruption function's result for a read-only RGB image, typed as imagecorruptions'
    (:func:`as_returned`). (pixelate and jpeg_compression: :data:`ON_PIL`.)"""
    out = _pixels(name, rgb, severity, None, floats=True)
    return out if name in NOISE else as_returned(out, name, severity)


def as_returned(out: Any, name: str, severity: int, *, gray: bool = False) -> Any:
    """A uint8 result as imagecorruptions' function returns it: a float64 or float32 array of
    the same values, or a PIL image (mode RGB, L for a 2-D array)."""
    arr = np.asarray(out)
    kind = return_kind(name, severity, gray=gray)
    if kind == "pil":
        return Image.fromarray(arr.astype(np.uint8, copy=False))
    return arr.astype(np.dtype(kind), copy=False)


def jpeg_file(image: Image.Image, severity: int) -> Image.Image:
    """imagecorruptions' ``jpeg_compression`` of a PIL image (mode RGB or L): saved as a JPEG at the
    severity's quality (Pillow, its defaults) and opened again: the ``JpegImageFile``
    (``.format == "JPEG"``) for RGB; for mode L the RGB round trip converted to L (an ``Image``)."""
    quality = int(get_params("jpeg_compression", severity, variants.TABLE))
    buf = io.BytesIO()
    gray = image.mode != "RGB"
    (image.convert("RGB") if gray else image).save(buf, "JPEG", quality=quality)
    buf.seek(0)
    opened = Image.open(buf)
    return opened.convert("L") if gray else opened


#: the functions that run Pillow on the PIL image itself, as imagecorruptions does (an array is
#: made a PIL image first): no conversion to an array and back
ON_PIL = {"pixelate": variants.pixelate, "jpeg_compression": jpeg_file}

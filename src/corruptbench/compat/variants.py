"""imagecorruptions 1.1.2's size rules, for the sizes where imagenet-c 0.0.3 has no output.

imagenet-c 0.0.3 hard-codes 224 x 224; imagecorruptions 1.1.2 runs the same corruptions at any
size, with its own rules for the size-dependent steps. :mod:`corruptbench.compat` follows
imagenet-c at 224 x 224 and these rules at every other size (its own algorithms otherwise:
ImageMagick's motion blur, the library's kernels), so that its output there is imagecorruptions':

* ``frost`` (:func:`frost`): the texture scaled as imagecorruptions does (:func:`frost_texture`),
  then the random crop and blend of imagenet-c.
* ``snow`` (:func:`snow`): the zoomed flake layer is kept whole (``clipped_zoom`` without the
  centred trim), motion-blurred, then cut to the image at the top-left.
* ``elastic_transform`` (:func:`elastic_transform`): displacements ``U(-0.005 H, 0.005 H)``
  smoothed with ``sigma = 0.01 (H, W)`` and scaled by imagecorruptions' alpha; no affine stage.
* ``pixelate`` (:func:`pixelate`, at every size): BOX down, NEAREST back up, with Pillow as
  imagecorruptions calls it (imagenet-c's BOX up gives the same pixels at 224 x 224).

The fog map (``next_power_of_2`` of the largest side, cropped at the top-left) is the library's
fog with that map size; glass blur's loops, zoom blur's per-axis crops and the other corruptions
have no step where the two differ.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from PIL import Image

from ..corruptions.weather import (
    frost_lookup_table,
    motion_blur_layer,
    snow_compose_u8,
    snow_gray,
    snow_layer_u8,
)
from ..corruptions.weather import (
    frost_texture as decoded_frost_texture,
)
from ..ops import weather_stages as wk
from ..ops.legacy_random import legacy_uniform
from ..ops.scipy_ndimage import map_coordinates_reflect_u8
from ..tables.corruptions import get_params
from ..tables.imagecorruptions import (
    ELASTIC_ALPHA,
    ELASTIC_SHIFT_FRACTION,
    ELASTIC_SIGMA_FRACTION,
    FROST_MARGIN,
)
from .inputs import CompatValueError

__all__ = [
    "frost_texture_size",
    "frost_texture",
    "frost_crop_origin",
    "frost",
    "snow_flakes",
    "snow",
    "elastic_displacements",
    "elastic_transform",
    "pixelate_size",
    "pixelate",
]

#: the parameter table compat uses (the ImageNet one, at every size)
TABLE = "imagenet"


def frost_texture_size(index: int, height: int, width: int) -> tuple[int, int]:
    """``(rows, columns)`` of frost texture ``index`` (0-based) as imagecorruptions 1.1.2 scales it
    for an image of ``height x width``: ``s = 1`` when the texture covers the image, else the ratio
    of the sides it is short of (the larger one when both are); ``s *= 1.1`` always; the texture
    becomes ``ceil(Ht s) x ceil(Wt s)``."""
    th, tw = decoded_frost_texture(index).shape[:2]
    scale: float = 1
    if th < height and tw >= width:
        scale = height / th
    elif th >= height and tw < width:
        scale = width / tw
    elif th < height and tw < width:
        scale = max(height / th, width / tw)
    scale *= FROST_MARGIN
    return math.ceil(th * scale), math.ceil(tw * scale)


@lru_cache(maxsize=32)
def frost_texture(index: int, height: int, width: int) -> np.ndarray:
    """Frost texture ``index`` scaled to :func:`frost_texture_size` with ``cv2.resize(...,
    INTER_CUBIC)``, as imagecorruptions does (read-only RGB uint8, cached). OpenCV's cubic resize
    changed after 3.4 by at most one level on about one value in 100,000, so the texture is that
    of the installed OpenCV, as imagecorruptions' is."""
    rows, cols = frost_texture_size(index, height, width)
    out = cv2.resize(decoded_frost_texture(index), (cols, rows), interpolation=cv2.INTER_CUBIC)
    out.flags.writeable = False
    return out


def frost_crop_origin(rng: Any, height: int, width: int) -> tuple[int, int, int]:
    """imagecorruptions' draws of frost: ``idx = randint(5)``, ``x0 = randint(0, Ht - H)``,
    ``y0 = randint(0, Wt - W)`` on its scaled texture (:func:`frost_texture_size`); returns
    ``(idx, x0, y0)``."""
    idx = int(rng.randint(5))
    rows, cols = frost_texture_size(idx, height, width)
    x0 = int(rng.randint(0, rows - height))
    y0 = int(rng.randint(0, cols - width))
    return idx, x0, y0


def frost(image: np.ndarray, severity: int, rng: Any) -> np.ndarray:
    """imagecorruptions' frost of an RGB image: ``clip(c0 image + c1 crop, 0, 255)`` truncated to
    uint8, the crop from :func:`frost_crop_origin` (the library's lookup-table kernel)."""
    c0, c1 = get_params("frost", severity, TABLE)
    h, w = image.shape[:2]
    idx, x0, y0 = frost_crop_origin(rng, h, w)
    out = np.empty(image.shape, dtype=np.uint8)
    table = frost_lookup_table(float(c0), float(c1))
    wk.frost_u8(np.ascontiguousarray(image), frost_texture(idx, h, w), x0, y0, table, out)
    return out


def snow_flakes(shape: tuple[int, int], severity: int, rng: Any) -> np.ndarray:
    """Snow's motion-blurred uint8 flake layer of an ``H x W`` image, imagecorruptions' geometry:
    the whole zoomed layer (up to ``zoom`` rows and columns larger than the image) is blurred
    (ImageMagick's motion blur, as imagenet-c) and then cut to ``H x W`` at the top-left.
    Draws ``normal(size=(H, W))`` then ``uniform(-135, -45)``."""
    loc, scale, zoom, threshold, radius, sigma, _ = get_params("snow", severity, TABLE)
    layer8 = snow_layer_u8(shape, loc, scale, zoom, threshold, rng, trim=False)
    angle = rng.uniform(-135, -45)
    blurred = motion_blur_layer(layer8, radius, sigma, angle)
    return np.ascontiguousarray(blurred[: shape[0], : shape[1]])


def snow(image: np.ndarray, severity: int, rng: Any, *, gray: bool = False) -> np.ndarray:
    """Snow of an RGB image with :func:`snow_flakes`, uint8. ``gray``: the image is a gray one
    replicated to 3 channels, brightened with itself (imagecorruptions' grayscale branch) instead
    of OpenCV's RGB2GRAY."""
    blend = get_params("snow", severity, TABLE)[6]
    flakes = snow_flakes(image.shape[:2], severity, rng)
    if gray:
        lum = np.ascontiguousarray(image[:, :, 0], dtype=np.float32) / np.float32(255.0)
    else:
        lum = snow_gray(image)
    return snow_compose_u8(image, lum, flakes, blend)


def elastic_displacements(
    shape: tuple[int, int], severity: int, rng: Any
) -> tuple[np.ndarray, np.ndarray]:
    """imagecorruptions' elastic displacement fields ``(dx, dy)`` (float32 ``H x W``):
    ``float32(gaussian(U(-m, m, (H, W)), sigma, mode='reflect', truncate=3) * alpha)`` with
    ``m = 0.005 H``, ``sigma = 0.01 (H, W)`` (scikit-image's ``gaussian``, i.e. SciPy's
    ``gaussian_filter`` in float64). Draws two ``uniform(-m, m, (H, W))``."""
    from scipy.ndimage import gaussian_filter  # imported when first used

    h, w = shape
    alpha = ELASTIC_ALPHA[severity - 1]
    sigma = (h * ELASTIC_SIGMA_FRACTION, w * ELASTIC_SIGMA_FRACTION)
    shift = h * ELASTIC_SHIFT_FRACTION
    fields = []
    for _ in range(2):
        raw = legacy_uniform(rng, -shift, shift, (h, w))
        smooth = gaussian_filter(raw, sigma, mode="reflect", truncate=3.0)
        fields.append(np.ascontiguousarray((smooth * alpha).astype(np.float32)))
    return fields[0], fields[1]


def elastic_transform(image: np.ndarray, severity: int, rng: Any) -> np.ndarray:
    """imagecorruptions' elastic transform of an RGB image, uint8: ``map_coordinates(x, (y + dy,
    x + dx, z), order=1, mode='reflect')`` of ``x = float32(image) / 255`` with
    :func:`elastic_displacements`, clipped, ``* 255`` and truncated (the library's fused
    sampling, SciPy's arithmetic)."""
    h, w = image.shape[:2]
    dx, dy = elastic_displacements((h, w), severity, rng)
    # x = image / 255 in float32, held in float64 (exact) with a zero 4th channel: the layout
    # the library's sampling kernel takes
    x = np.zeros((h, w, 4))
    x[:, :, :3] = np.asarray(image, dtype=np.float32) / np.float32(255.0)
    out = np.empty((h, w, 3), dtype=np.uint8)
    map_coordinates_reflect_u8(x, dx, dy, out)
    return out


def pixelate_size(shape: tuple[int, ...], severity: int, name: str = "x") -> tuple[int, int]:
    """``(int(W c), int(H c))``, pixelate's small size, or :class:`CompatValueError` where a side
    would be 0 (imagecorruptions: Pillow's ``ValueError``)."""
    c = get_params("pixelate", severity, TABLE)
    h, w = shape[:2]
    size = (int(w * c), int(h * c))
    if min(size) < 1:
        raise CompatValueError(
            f"{name} of {h} x {w} pixels is too small for pixelate at severity {severity}: it "
            f"would shrink to {size[1]} x {size[0]}"
        )
    return size


def pixelate(image: Image.Image, severity: int) -> Image.Image:
    """imagecorruptions' pixelate, by the same Pillow calls: ``resize((int(W c), int(H c)), BOX)``
    then ``resize((W, H), NEAREST)`` of the PIL image (mode RGB or L).

    At 224 x 224 these are imagenet-c's pixels (its BOX upsampling gives the same as NEAREST for
    all five severities, and square BOX resizes are the same in every Pillow version). Elsewhere
    they are imagecorruptions' under the installed Pillow (Pillow 13 may box-filter the columns
    before the rows when both sides shrink, which moves a few values by 1 from Pillow 10's).
    """
    w, h = image.size
    return image.resize(pixelate_size((h, w), severity), Image.Resampling.BOX).resize(
        (w, h), Image.Resampling.NEAREST
    )

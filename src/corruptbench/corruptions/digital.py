"""Digital corruptions: contrast, elastic_transform, pixelate, jpeg_compression; saturate (extra);
and brightness, which belongs to the weather family (the paper's Figure 1) but shares its HSV
kernel with saturate.

References: ``imagenet_c/corruptions.py`` of the imagenet-c 0.0.3 package (PyPI) and
``ImageNet-C/create_c/make_imagenet_c.py`` of github.com/hendrycks/robustness (line numbers at
commit 8190fe3), which hold the same functions.

Fidelity notes:

* brightness / saturate use the compiled scikit-image-exact HSV kernels of :mod:`corruptbench.ops.hsv`.
* contrast is a per-channel 256-entry lookup table built with the reference's float64 formula.
* pixelate resizes with a compiled copy of Pillow's BOX resampling
  (:mod:`corruptbench.ops.pillow_resize`); jpeg_compression encodes with Pillow exactly as the
  reference does (Pillow's defaults).
* elastic_transform reproduces the reference pipeline numerically: ``cv2.getAffineTransform``, then
  OpenCV 3.4's ``warpAffine`` bilinear algorithm (:mod:`corruptbench.ops.opencv_warp`: newer OpenCV
  releases compute ``warpAffine`` differently), the displacement fields of
  ``skimage.filters.gaussian(mode='reflect', truncate=3)`` and ``scipy.ndimage.map_coordinates(
  order=1, mode='reflect')`` with SciPy's exact coordinate folding, weights and summation order
  (:mod:`corruptbench.ops.scipy_ndimage`).
  The steps are fused where that keeps every float operation: ``image / 255`` is read through a
  256-entry float32 table, the warp writes a zero-padded 4-channel float64 copy of its float32
  results (vector sums over the lanes, here and in the sampling), each displacement field's
  ``* alpha`` and float32 cast run in the filter's last pass, and the sampling writes the clipped
  uint8 result directly. The warp and the sampling run in groups of output rows, each warping
  only the rows its samples read, and the filters in blocks of lines: beyond the image and the
  result, the transform holds the two float32 fields and one float64 field (about 16 bytes a
  pixel, ``benchmarks/memory.py``), with the bytes of whole-image passes.
"""

from __future__ import annotations

import io
from typing import Any

import cv2
import numpy as np
import simplejpeg
from PIL import Image

from ..ops.hsv import hsv_adjust_uint8
from ..ops.jit import kernel
from ..ops.legacy_random import legacy_uniform
from ..ops.opencv_warp import (
    invert_affine_cv,
    warp_affine_inverse_into,
    warp_affine_u8_rows_into,
)
from ..ops.pillow_resize import pil_box_resize
from ..ops.scipy_ndimage import (
    gaussian_filter_reflect_f32,
    map_coordinates_reflect_u8,
    sampled_rows,
)
from ..profiles import Profile
from ..registry import register_corruption
from .params import NONNEGATIVE, severity_params, whole_param

__all__ = [
    "brightness",
    "contrast",
    "elastic_transform",
    "pixelate",
    "jpeg_compression",
    "saturate",
    "brightness_p",
    "contrast_p",
    "elastic_transform_p",
    "pixelate_p",
    "jpeg_compression_p",
    "saturate_p",
    "elastic_source_points",
]

_UNIT = np.arange(256) / 255.0  # value / 255. for every uint8 value
_UNIT32 = np.arange(256, dtype=np.uint8).astype(np.float32) / 255.0  # float32 image / 255.0


# --------------------------------------------------------------------------------------------
# brightness, saturate, contrast
# --------------------------------------------------------------------------------------------


def brightness_p(image: np.ndarray, *, delta: float) -> np.ndarray:
    """Brightness: HSV ``V = clip(V + delta, 0, 1)``, back to RGB, ``clip * 255``.

    Reference: imagenet_c/corruptions.py:353-361, make_imagenet_c.py:497-505.

    HSV as ``skimage.color.rgb2hsv`` / ``hsv2rgb`` (float64, bit-identical). No random draws;
    any image size (per-pixel operation).

    Args:
        image: read-only uint8 H x W x 3.
        delta: added to the HSV value (full range 1), in [-1, 1]. Published: 0.1 .. 0.5
            (imagenet), 0.05 .. 0.3 (cifar).

    Returns:
        uint8 H x W x 3 (the reference's float result, truncated).
    """
    return hsv_adjust_uint8(image, v_add=delta)


@register_corruption(
    "brightness",
    family="weather",
    order=10,
    random=False,
    params=("delta",),
    apply=brightness_p,
    bounds={"delta": (-1.0, 1.0, False)},
)
def brightness(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Brightness: HSV ``V = clip(V + c, 0, 1)``, back to RGB, ``clip * 255``.

    :func:`brightness_p` with ``delta = c``, the profile's table entry at ``severity``.
    """
    return brightness_p(image, **severity_params("brightness", severity, profile))


def saturate_p(image: np.ndarray, *, factor: float, offset: float) -> np.ndarray:
    """Saturation: HSV ``S = clip(S * factor + offset, 0, 1)``, back to RGB, ``clip * 255``.

    Reference: imagenet_c/corruptions.py:364-372, make_imagenet_c.py:508-516.

    No random draws; any image size (per-pixel operation).

    Args:
        image: read-only uint8 H x W x 3.
        factor: ``c0``, the saturation's multiplier, >= 0 (< 1 desaturates). Published: 0.3,
            0.1, 2, 5, 20 (imagenet).
        offset: ``c1``, added after, in [-1, 1]. Published: 0 .. 0.2.

    Returns:
        uint8 H x W x 3 (the reference's float result, truncated).
    """
    return hsv_adjust_uint8(image, s_mul=factor, s_add=offset)


@register_corruption(
    "saturate",
    family=None,
    order=18,
    extra=True,
    random=False,
    params=("factor", "offset"),
    apply=saturate_p,
    bounds={"factor": NONNEGATIVE, "offset": (-1.0, 1.0, False)},
)
def saturate(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Saturation: HSV ``S = clip(S * c0 + c1, 0, 1)``, back to RGB, ``clip * 255``.

    An extra (validation) corruption, not part of mCE. :func:`saturate_p` with ``(factor,
    offset) = (c0, c1)``, the profile's table entry at ``severity``.
    """
    return saturate_p(image, **severity_params("saturate", severity, profile))


def contrast_p(image: np.ndarray, *, factor: float) -> np.ndarray:
    """Contrast: ``clip((x - mean) * factor + mean, 0, 1) * 255`` per channel.

    Reference: imagenet_c/corruptions.py:345-350, make_imagenet_c.py:489-494.

    ``x = image / 255.``; ``mean`` is each channel's spatial mean (``np.mean(x, axis=(0, 1))``
    summed in NumPy's order, so it is bit-identical). The formula is evaluated once per channel
    and uint8 value (a lookup table). No random draws; any image size.

    Args:
        image: read-only uint8 H x W x 3.
        factor: ``c``, the contrast kept, >= 0 (1: unchanged, 0: each channel's mean).
            Published: 0.4 .. 0.05 (imagenet), 0.75 .. 0.15 (cifar).

    Returns:
        uint8 H x W x 3 (the reference's float result, truncated).
    """
    c = factor
    img = np.ascontiguousarray(image)
    means = _channel_sums(img, _UNIT) / (img.shape[0] * img.shape[1])
    # (the same float64 operations per channel and value, broadcast over the 3 channels)
    lut = (np.clip((_UNIT[:, None] - means) * c + means, 0, 1) * 255).astype(np.uint8)
    # out[..., ch] = lut[img[..., ch], ch]: OpenCV's lookup with a 3-channel table
    return cv2.LUT(img, np.ascontiguousarray(lut).reshape(256, 1, 3))


@register_corruption(
    "contrast",
    family="digital",
    order=11,
    random=False,
    params=("factor",),
    apply=contrast_p,
    bounds={"factor": NONNEGATIVE},
)
def contrast(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Contrast: ``clip((x - mean) * c + mean, 0, 1) * 255`` per channel.

    :func:`contrast_p` with ``factor = c``, the profile's table entry at ``severity``.
    """
    return contrast_p(image, **severity_params("contrast", severity, profile))


@kernel
def _channel_sums(img: np.ndarray, unit: np.ndarray) -> np.ndarray:
    # np.sum(img / 255., axis=(0, 1)) in NumPy's order for this layout: a sequential float64
    # accumulation over the pixels (the reduced axes are outer; asserted equal in the tests)
    sums = np.zeros(3)
    flat = img.reshape(-1, 3)
    for k in range(flat.shape[0]):
        for ch in range(3):
            sums[ch] += unit[flat[k, ch]]
    return sums


# --------------------------------------------------------------------------------------------
# pixelate, jpeg_compression
# --------------------------------------------------------------------------------------------


def pixelate_p(image: np.ndarray, *, factor: float) -> np.ndarray:
    """Pixelation: Pillow BOX resize to ``(int(W c), int(H c))`` and BOX back to ``(W, H)``.

    Reference: imagenet_c/corruptions.py:385-391, make_imagenet_c.py:529-535.

    The reference
    hard-codes its native size ``S`` for both sides; here width and height follow the
    actual image (identical at the native size), with at least one pixel. Both resizes run
    :func:`pil_box_resize`, a compiled copy of Pillow's 8-bit BOX resampling (bit-identical to
    the reference's ``Image.resize(..., Image.BOX)``, about twice as fast). No random draws.

    Args:
        image: read-only uint8 H x W x 3.
        factor: ``c``, the size of the small image relative to the image, in (0, 1] (at least
            one pixel is kept). Published: 0.6 .. 0.25 (imagenet), 0.95 .. 0.65 (cifar).

    Returns:
        uint8 H x W x 3.
    """
    c = factor
    h, w = image.shape[:2]
    small = pil_box_resize(image, (max(1, int(w * c)), max(1, int(h * c))))
    return pil_box_resize(small, (w, h))


@register_corruption(
    "pixelate",
    family="digital",
    order=13,
    random=False,
    params=("factor",),
    apply=pixelate_p,
    bounds={"factor": (0.0, 1.0, True)},
)
def pixelate(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Pixelation: Pillow BOX resize to ``(int(W c), int(H c))`` and BOX back to ``(W, H)``.

    :func:`pixelate_p` with ``factor = c``, the profile's table entry at ``severity``.
    """
    return pixelate_p(image, **severity_params("pixelate", severity, profile))


def jpeg_compression_p(image: np.ndarray, *, quality: int) -> np.ndarray:
    """JPEG round trip at ``quality`` (Pillow encoder with its defaults: 4:2:0, no optimize).

    Reference: imagenet_c/corruptions.py:375-382, make_imagenet_c.py:519-526.

    Encoded with Pillow as the reference, in memory; decoded with libjpeg-turbo through
    ``simplejpeg`` straight into an RGB array (the same decoder defaults as Pillow's — accurate
    integer DCT, fancy upsampling —: the same pixels, checked against Pillow's decode in the
    tests, and faster than ``Image.open`` + array conversion). (The dataset scripts then store the
    result as a quality-85 JPEG: that second compression belongs to the dataset writer, not to this
    function.) No random draws; any size.

    Args:
        image: read-only uint8 H x W x 3.
        quality: Pillow's JPEG quality, a whole number in 1..100.
            Published: 25 .. 7 (imagenet), 80 .. 40 (cifar).

    Returns:
        uint8 H x W x 3.
    """
    q = whole_param(quality, "jpeg_compression's quality", 1, 100)
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image)).save(buf, "JPEG", quality=q)
    return simplejpeg.decode_jpeg(
        buf.getbuffer(), colorspace="RGB", fastdct=False, fastupsample=False
    )


@register_corruption(
    "jpeg_compression",
    family="digital",
    order=14,
    random=False,
    params=("quality",),
    apply=jpeg_compression_p,
)
def jpeg_compression(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """JPEG round trip at quality ``c`` (Pillow encoder with its defaults: 4:2:0, no optimize).

    :func:`jpeg_compression_p` with ``quality = c``, the profile's table entry at ``severity``.
    """
    return jpeg_compression_p(image, **severity_params("jpeg_compression", severity, profile))


# --------------------------------------------------------------------------------------------
# elastic_transform
# --------------------------------------------------------------------------------------------


def elastic_source_points(height: int, width: int) -> np.ndarray:
    """The reference's ``pts1`` of elastic transform for an ``H x W`` image (float32 3 x 2).

    ``centre = float32([H, W]) // 2`` and ``square = min(H, W) // 3``: the points
    ``centre + square``, ``[centre[0] + square, centre[1] - square]``, ``centre - square`` (the
    centre ``[H // 2, W // 2]`` used as cv2 ``(x, y)`` points, as the reference does). Shared with
    the torch backend.
    """
    center = np.array((height, width), dtype=np.float32) // 2
    square = min(height, width) // 3
    return np.array(
        [center + square, [center[0] + square, center[1] - square], center - square],
        dtype=np.float32,
    )


#: output rows of elastic transform sampled per group: each group warps only the rows of the
#: image its samples read (its rows plus the displacements' reach), so no float copy of the
#: whole image exists
_ELASTIC_ROWS = 64


def elastic_transform_p(
    image: np.ndarray, *, alpha: float, sigma: float, jitter: float, rng: Any
) -> np.ndarray:
    """Elastic transform: random affine + smoothed random displacement.

    Reference: imagenet_c/corruptions.py:395-424, make_imagenet_c.py:539-568.

    With the tables' ``(alpha, sigma, jitter)`` (244x the base triples at 224 px, a reference
    quirk kept: "244 should have been 224, but ultimately nothing is incorrect",
    imagenet_c/corruptions.py:396): ``x = image / 255`` (float32); ``pts1`` around ``centre =
    float32([H, W]) // 2`` at ``± min(H, W) // 3``; ``pts2 = pts1 + U(-jitter, jitter, (3, 2))``;
    ``x = warpAffine(x, getAffineTransform(pts1, pts2), (W, H), BORDER_REFLECT_101)``; ``dx, dy =
    float32(gaussian(U(-1, 1, (H, W)), sigma, mode='reflect', truncate=3) * alpha)``; ``out =
    map_coordinates(x, (y + dy, x + dx, z), order=1, mode='reflect')``; ``clip * 255``. Draws:
    uniform (3, 2), uniform (H, W), uniform (H, W). Non-square images follow the reference's shape
    logic literally (the centre ``[H // 2, W // 2]`` is used as cv2 ``(x, y)`` points, like the
    reference code does).

    Args:
        image: read-only uint8 H x W x 3.
        alpha: the displacement fields' scale in pixels (a smoothed field of values in [-1, 1]
            times ``alpha``), >= 0. Published: 488 .. 12.2 (imagenet), 0 .. 3.2 (cifar).
        sigma: the fields' Gaussian smoothing in pixels, > 0 (larger: smoother, smaller
            displacements). Published: 170.8 .. 2.44 (imagenet), 0 .. 0.96 (cifar, where a 0
            leaves the uniform noise unsmoothed).
        jitter: the largest move of each of the affine map's 3 points, in pixels, >= 0.
            Published: 24.4 .. 4.88 (imagenet), 2.56 .. 0.96 (cifar).
        rng: legacy random source.

    Returns:
        uint8 H x W x 3.
    """
    h, w = image.shape[:2]
    pts1 = elastic_source_points(h, w)
    pts2 = pts1 + np.asarray(rng.uniform(-jitter, jitter, size=pts1.shape)).astype(np.float32)
    inverse = invert_affine_cv(cv2.getAffineTransform(pts1, pts2))

    # rng.uniform(-1, 1, size=(h, w)) twice, compiled for a RandomState (same values and state);
    # the filter may use the fresh field as its own scratch
    dx = gaussian_filter_reflect_f32(
        legacy_uniform(rng, -1, 1, (h, w)), sigma, alpha, overwrite_field=True
    )
    dy = gaussian_filter_reflect_f32(
        legacy_uniform(rng, -1, 1, (h, w)), sigma, alpha, overwrite_field=True
    )
    src = np.ascontiguousarray(image)
    if src.dtype != np.uint8:  # (not from corrupt(): whole-image float passes)
        return _warp_and_sample_float(src, inverse, dx, dy)
    return _warp_and_sample(src, inverse, dx, dy)


@register_corruption(
    "elastic_transform",
    family="digital",
    order=12,
    params=("alpha", "sigma", "jitter"),
    apply=elastic_transform_p,
    bounds={"alpha": NONNEGATIVE, "sigma": NONNEGATIVE, "jitter": NONNEGATIVE},
)
def elastic_transform(
    image: np.ndarray, severity: int, *, profile: Profile, rng: Any
) -> np.ndarray:
    """Elastic transform: random affine + smoothed random displacement.

    :func:`elastic_transform_p` with ``(alpha, sigma, jitter)``, the profile's table entry at
    ``severity`` (the base triples times :data:`corruptbench.tables.corruptions.ELASTIC_SCALE`).
    """
    return elastic_transform_p(
        image, **severity_params("elastic_transform", severity, profile), rng=rng
    )


def _warp_and_sample_float(
    src: np.ndarray, inverse: np.ndarray, dx: np.ndarray, dy: np.ndarray
) -> np.ndarray:
    """:func:`_warp_and_sample` of an image of another dtype (``x = float32(image) / 255``), in
    whole-image passes."""
    x32 = src.astype(np.float32) / 255.0
    x = np.empty(x32.shape)
    warp_affine_inverse_into(x32, inverse, x)
    out = np.empty(src.shape, np.uint8)
    map_coordinates_reflect_u8(x, dx, dy, out)
    return out


def _warp_and_sample(
    src: np.ndarray, inverse: np.ndarray, dx: np.ndarray, dy: np.ndarray
) -> np.ndarray:
    """``uint8(clip(map_coordinates(warpAffine(src / 255), (y + dy, x + dx)), 0, 1) * 255)``,
    :data:`_ELASTIC_ROWS` output rows at a time.

    Each group of rows warps just the rows of the image its samples read
    (:func:`corruptbench.ops.scipy_ndimage.sampled_rows`): a warped row depends only on its
    index, and a sampled one only on the rows it reads, so the result is the one of whole-image
    passes. ``src / 255`` (float32) is read through a 256-entry table; the warped float32 values
    are held as float64, exactly, with RGB padded by a zero lane (4-lane vector sums in the
    warp's output and in the sampling).
    """
    h, w, channels = src.shape
    lanes = 4 if channels == 3 else channels
    out = np.empty((h, w, channels), np.uint8)
    buf = np.empty((0, w, lanes))
    for r0 in range(0, h, _ELASTIC_ROWS):
        r1 = min(h, r0 + _ELASTIC_ROWS)
        lo, hi = sampled_rows(dy, r0, r1)
        lo, hi = (lo, hi) if hi >= lo else (0, 0)
        if buf.shape[0] < hi - lo + 1:
            buf = np.empty((hi - lo + 1, w, lanes))
        band = buf[: hi - lo + 1]
        warp_affine_u8_rows_into(src, _UNIT32, inverse, lo, band)
        map_coordinates_reflect_u8(band, dx, dy, out[r0:r1], image_row0=lo, out_row0=r0)
    return out

"""Reference preprocessing with torchvision-0.2 semantics, on PIL images / uint8 arrays.

* :func:`resize_short` — ``transforms.Resize(256)``: short side -> size, long side
  ``int(size * long / short)``, PIL bilinear; unchanged when the short side already equals size.
* :func:`center_crop` — ``transforms.CenterCrop(s)``: offset ``int(round((dim - s) / 2))``.
* :func:`profile_preprocess` — what make-c applies per profile (imagenet: Resize(256) +
  CenterCrop(224); inception: central 87.5 % crop then 299 x 299; tiny: Resize((64, 64)); cifar: none).
* :func:`upsampling` — whether that enlarges an image of a given size (make-c lists such inputs).
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from ..profiles import PROFILES

__all__ = [
    "resize_short",
    "center_crop",
    "resize_exact",
    "inception_crop",
    "profile_preprocess",
    "upsampling",
    "to_pil",
]


def to_pil(img: Image.Image | np.ndarray) -> Image.Image:
    return img if isinstance(img, Image.Image) else Image.fromarray(np.asarray(img))


def resize_short(img: Image.Image | np.ndarray, size: int) -> Image.Image:
    """torchvision ``Resize(size)`` with an int: the short side becomes ``size`` (bilinear)."""
    im = to_pil(img)
    w, h = im.size
    if (w <= h and w == size) or (h <= w and h == size):
        return im
    if w < h:
        ow, oh = size, int(size * h / w)
    else:
        oh, ow = size, int(size * w / h)
    return im.resize((ow, oh), Image.Resampling.BILINEAR)


def resize_exact(img: Image.Image | np.ndarray, size: tuple[int, int]) -> Image.Image:
    """torchvision ``Resize((h, w))``: squash to exactly (h, w), bilinear."""
    h, w = size
    return to_pil(img).resize((w, h), Image.Resampling.BILINEAR)


def center_crop(img: Image.Image | np.ndarray, size: int) -> Image.Image:
    """torchvision ``CenterCrop(size)``: offsets ``int(round((dim - size) / 2))`` (banker's rounding).

    If the image is smaller than ``size`` the crop box extends past the border and PIL fills black,
    as torchvision 0.2 did.
    """
    im = to_pil(img)
    w, h = im.size
    i = int(round((h - size) / 2.0))
    j = int(round((w - size) / 2.0))
    return im.crop((j, i, j + size, i + size))


def inception_crop(
    img: Image.Image | np.ndarray, size: int = 299, fraction: float = 0.875
) -> Image.Image:
    """``resized_center_crop`` of the 299 script: central 87.5 % of each side, then squash to size."""
    im = to_pil(img)
    w, h = im.size
    th, tw = int(fraction * h), int(fraction * w)
    i = int(round((h - th) / 2.0))
    j = int(round((w - tw) / 2.0))
    return im.crop((j, i, j + tw, i + th)).resize((size, size), Image.Resampling.BILINEAR)


def upsampling(width: int, height: int, profile: str) -> str:
    """A warning when :func:`profile_preprocess` must blow a ``width x height`` image up beyond
    its own resolution, else ``""``.

    That is when the part of the image that ends up in the output has fewer pixels across than
    the output (``size``): imagenet: the short side is below 224 (``Resize(256)`` enlarges any
    short side below 256; the slight enlargement of 224..255 px images is how the benchmark was
    made and is not flagged); inception: the central 87.5 % is below 299 on a side; tiny: a side
    is below 64; cifar never resizes.
    """
    prof = PROFILES.get(profile)
    if prof is None:
        raise ValueError(f"unknown profile {profile!r}")
    s = prof.size
    if profile == "imagenet":
        assert prof.resize_short is not None
        small = min(width, height) < s
        how = f"Resize({prof.resize_short}) + CenterCrop({s})"
    elif profile == "inception":
        small = min(int(0.875 * width), int(0.875 * height)) < s
        how = f"central 87.5 % resized to {s} x {s}"
    elif profile == "tiny":
        small = min(width, height) < s
        how = f"resized to {s} x {s}"
    else:
        return ""
    if not small:
        return ""
    return f"upsampled: {width}x{height} is smaller than the {profile} profile's {s} px ({how})"


def profile_preprocess(img: Image.Image | np.ndarray, profile: str) -> np.ndarray:
    """Apply make-c's per-profile preprocessing to an RGB image and return uint8 H x W x 3.

    Sizes from :data:`corruptbench.profiles.PROFILES`: imagenet ``Resize(resize_short)`` +
    ``CenterCrop(size)``; inception the central 87.5 % squashed to ``size``; tiny squashed to
    ``size x size``; cifar the image as it is (it must be ``size x size``).
    """
    im = to_pil(img)
    if im.mode != "RGB":
        im = im.convert("RGB")
    prof = PROFILES.get(profile)
    if prof is None:
        raise ValueError(f"unknown profile {profile!r}")
    s = prof.size
    if profile == "imagenet":
        assert prof.resize_short is not None
        out = center_crop(resize_short(im, prof.resize_short), s)
    elif profile == "inception":
        out = inception_crop(im, s)
    elif profile == "tiny":
        out = resize_exact(im, (s, s))
    else:  # cifar
        if im.size != (s, s):
            raise ValueError(
                f"the cifar profile takes {s} x {s} images as they are; got {im.size[0]}x{im.size[1]}"
            )
        out = im
    return np.asarray(out, dtype=np.uint8)

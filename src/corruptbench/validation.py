"""Input checks shared by every entry point (messages name the argument and the problem)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from .errors import Arg, ArgumentError, InputTypeError

__all__ = ["check_image", "check_severity", "check_int", "check_quality", "DATASET_QUALITY"]

#: the JPEG quality of the released ImageNet-C / Tiny-ImageNet-C images and of ImageNet-C-bar
#: (``make_imagenet_c.py`` of hendrycks/robustness, ImageNet-C/create_c, saves with
#: ``quality=85, optimize=True``): make-c's default, and ``corruptbench corrupt``'s for .jpg
DATASET_QUALITY = 85


def check_int(value: Any, name: str, lo: int, hi: int) -> int:
    """``value`` as a Python int in ``lo..hi``, or :class:`~corruptbench.errors.InputTypeError`
    (a ``TypeError``) / :class:`~corruptbench.errors.ArgumentError` (a ``ValueError``) naming
    the argument ``name``: ``severity`` from Python, ``--severity`` on the command line.

    Accepts what Python accepts as an index: ``int``, NumPy integers (``np.int64(3)``) and 0-d
    integer arrays; refuses bools, floats (``3.0``) and strings.
    """
    if isinstance(value, (bool, np.bool_)):
        raise InputTypeError(Arg(name), f" must be an int in {lo}..{hi}, got the bool {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise InputTypeError(
            Arg(name), f" must be an int in {lo}..{hi}, got {type(value).__name__} {value!r}"
        ) from None
    if not lo <= number <= hi:
        raise ArgumentError(Arg(name), f" must be in {lo}..{hi}, got {number}")
    return number


def check_quality(quality: Any) -> int:
    """A JPEG quality as an int in 1..100, or :class:`~corruptbench.errors.ArgumentError` naming
    ``quality``. (Pillow's scale is 0..100; its documentation calls 95 the useful maximum: above
    it files grow for little gain, and 100 turns off parts of the compression.)"""
    try:
        return check_int(quality, "quality", 1, 100)
    except (TypeError, ValueError):
        raise ArgumentError(
            Arg("quality"),
            f" must be an int in 1..100, got {quality!r} (Pillow's JPEG scale; above 95 files "
            "grow for little gain)",
        ) from None


def check_severity(severity: Any) -> int:
    """Return ``severity`` as an int in 1..5 or raise (:func:`check_int`). (The reference maps 0
    to 5 silently: we refuse.)"""
    return check_int(severity, "severity", 1, 5)


def _to_gray(rgb: np.ndarray) -> np.ndarray:
    # ITU-R 601-2 luma rounded half up: L = (R*299 + G*587 + B*114 + 500) // 1000 (the formula
    # PIL documents for convert("L"); PIL computes it in 16-bit fixed point and rounds some .5
    # ties down, so its result can be one lower)
    r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
    return ((r * 299 + g * 587 + b * 114 + 500) // 1000).astype(np.uint8)


def check_image(
    image: Any, *, name: str = "image"
) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """Validate an image and return ``(rgb, restore)``.

    ``rgb`` is a read-only C-contiguous H x W x 3 uint8 array: a view of ``image`` when it is
    already C-contiguous RGB, else a new array — the caller's array is never modified.
    ``restore`` maps an H x W x 3 uint8 result back to the input's layout:

    * H x W (grayscale): the image is replicated to 3 channels, corrupted, and converted back to
      one channel with PIL's luma formula ``L = (299 R + 587 G + 114 B) / 1000`` (rounded).
    * H x W x 1: as grayscale, returned as H x W x 1.
    * H x W x 4 (RGBA): the RGB channels are corrupted; the alpha channel is returned unchanged.
    """
    if not isinstance(image, np.ndarray):
        if hasattr(image, "mode") and hasattr(image, "size"):  # a PIL image
            raise InputTypeError(
                Arg(name),
                " must be a numpy array; convert a PIL image with np.asarray(img.convert('RGB'))",
            )
        raise InputTypeError(Arg(name), f" must be a numpy uint8 array, got {type(image).__name__}")
    if image.dtype != np.uint8:
        hint = ""
        if np.issubdtype(image.dtype, np.floating):
            hint = (
                "; for a float image in [0, 1] convert exactly with "
                "np.clip(np.round(image * 255), 0, 255).astype(np.uint8)"
            )
        raise InputTypeError(Arg(name), f" must have dtype uint8, got {image.dtype}{hint}")
    if image.ndim == 2:
        layout = "gray"
        rgb = np.repeat(image[:, :, None], 3, axis=2)
    elif image.ndim == 3 and image.shape[2] in (1, 3, 4):
        if image.shape[2] == 1:
            layout = "gray1"
            rgb = np.repeat(image, 3, axis=2)
        elif image.shape[2] == 4:
            layout = "rgba"
            rgb = np.ascontiguousarray(image[:, :, :3])
        else:
            layout = "rgb"
            # one array type for the kernels: C-contiguous and read-only (a strided view, e.g.
            # ``rgba[:, :, :3]``, would otherwise compile every kernel a second time)
            rgb = image.view() if image.flags.c_contiguous else np.ascontiguousarray(image)
    else:
        raise ArgumentError(
            Arg(name),
            f" must be H x W (grayscale), H x W x 3 (RGB) or H x W x 4 (RGBA), got shape {image.shape}",
        )
    if rgb.shape[0] == 0 or rgb.shape[1] == 0:
        raise ArgumentError(Arg(name), f" is empty (shape {image.shape})")
    rgb.flags.writeable = False
    alpha = image[:, :, 3].copy() if layout == "rgba" else None

    def restore(out: np.ndarray) -> np.ndarray:
        if layout == "rgb":
            return out
        if layout == "gray":
            return _to_gray(out)
        if layout == "gray1":
            return _to_gray(out)[:, :, None]
        return np.concatenate([out, alpha[:, :, None]], axis=2)  # type: ignore[index]

    return rgb, restore

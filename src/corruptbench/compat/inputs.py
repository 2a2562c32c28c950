"""The arguments of :mod:`corruptbench.compat`, read as imagecorruptions 1.1.2 reads them, and its
error types.

imagecorruptions' ``corrupt`` (``imagecorruptions/__init__.py``) checks, in this order: the type
(``AttributeError``), the dtype, the number of dimensions, the size (at least 32 x 32) and the
channels (1 or 3), then ``severity in [1, 2, 3, 4, 5]`` (so ``True`` counts as 1), then picks the
function by ``corruption_dict[name]`` (``KeyError``) or ``corruption_tuple[number]`` (Python
indexing: a negative number counts from the end, a float is a ``TypeError``, outside -19..18 an
``IndexError``). Its functions take a PIL image and read it with ``np.array(x)``: a mode-L image
runs their grayscale branches. Each error raised here is an instance of imagecorruptions'
exception type and of the Python type that describes it.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from ..validation import check_severity

__all__ = [
    "MIN_SIDE",
    "CompatTypeError",
    "CompatValueError",
    "UnknownCorruptionError",
    "CorruptionNumberError",
    "Picture",
    "read_corrupt_image",
    "read_function_image",
    "read_function_pil",
    "read_severity",
    "read_number",
]

#: the smallest height and width imagecorruptions' ``corrupt`` accepts (its functions take any)
MIN_SIDE = 32


class CompatTypeError(TypeError, AttributeError):
    """Bad input type (imagecorruptions raises ``AttributeError``)."""


class CompatValueError(ValueError, AttributeError):
    """Bad input shape, size or severity (imagecorruptions raises ``AttributeError``)."""


class UnknownCorruptionError(ValueError, KeyError):
    """An unknown corruption name (imagecorruptions raises ``KeyError``)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return ValueError.__str__(self)


class CorruptionNumberError(ValueError, IndexError):
    """``corruption_number`` outside -19..18 (imagecorruptions raises ``IndexError``)."""


@dataclass(frozen=True)
class Picture:
    """An image given to a corruption function: ``pixels`` is C-contiguous read-only uint8,
    ``(H, W, 3)`` RGB or ``(H, W)`` grayscale; ``channel_axis`` is true for an ``(H, W, 1)``
    array (returned with that shape)."""

    pixels: np.ndarray
    channel_axis: bool = False

    @property
    def gray(self) -> bool:
        return self.pixels.ndim == 2


def _uint8_array(image: Any, name: str) -> np.ndarray:
    if not isinstance(image, np.ndarray):
        raise CompatTypeError(f"{name} must be a numpy uint8 array, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise CompatTypeError(
            f"{name} must have dtype uint8, got {image.dtype} (for a float image in [0, 1]: "
            "np.clip(np.round(image * 255), 0, 255).astype(np.uint8))"
        )
    if image.ndim not in (2, 3):
        raise CompatValueError(f"{name} must be H x W or H x W x C, got shape {image.shape}")
    return image


def _channels(image: np.ndarray, name: str) -> None:
    if image.ndim == 3 and image.shape[2] not in (1, 3):
        raise CompatValueError(
            f"{name} must have 1 or 3 channels (last dimension), got {image.shape[2]}"
        )


def _frozen(image: np.ndarray) -> np.ndarray:
    out = np.ascontiguousarray(image)
    out = out.view() if out is image else out
    out.flags.writeable = False
    return out


def read_corrupt_image(image: Any) -> np.ndarray:
    """``corrupt``'s image as a read-only C-contiguous uint8 ``(H, W, 3)`` array (gray replicated),
    with imagecorruptions' checks in its order (including its 32 x 32 minimum)."""
    image = _uint8_array(image, "image")
    h, w = image.shape[:2]
    if h < MIN_SIDE or w < MIN_SIDE:
        raise CompatValueError(
            f"image must be at least {MIN_SIDE} x {MIN_SIDE} pixels (as imagecorruptions' corrupt), "
            f"got {h} x {w}"
        )
    _channels(image, "image")
    if image.ndim == 2 or image.shape[2] == 1:
        return _frozen(np.repeat(image.reshape(h, w, 1), 3, axis=2))
    return _frozen(image)


def read_function_image(x: Any, name: str = "x") -> Picture:
    """A function's image: a PIL image (mode L: grayscale; RGB; any other mode converted to RGB)
    or a uint8 array ``(H, W)``, ``(H, W, 1)`` (grayscale) or ``(H, W, 3)``, of any size."""
    if isinstance(x, Image.Image):
        x = np.asarray(x if x.mode in ("L", "RGB") else x.convert("RGB"))
    image = _uint8_array(x, name)
    _channels(image, name)
    if image.shape[0] == 0 or image.shape[1] == 0:
        raise CompatValueError(f"{name} is empty (shape {image.shape})")
    if image.ndim == 3 and image.shape[2] == 1:
        return Picture(_frozen(image[:, :, 0]), channel_axis=True)
    return Picture(_frozen(image))


def read_function_pil(x: Any, name: str = "x") -> Image.Image:
    """A function's image as a PIL image of mode RGB or L (pixelate and jpeg_compression run Pillow
    on it, as imagecorruptions): a PIL image as it is (another mode converted to RGB), an array
    as :func:`read_function_image` reads it (grayscale: mode L)."""
    if isinstance(x, Image.Image):
        img = x if x.mode in ("L", "RGB") else x.convert("RGB")
        if 0 in img.size:
            raise CompatValueError(f"{name} is empty (size {img.size})")
        return img
    return Image.fromarray(read_function_image(x, name).pixels)


def read_severity(severity: Any) -> int:
    """``severity`` as an int in 1..5; ``True`` is 1 (``True in [1, ..., 5]`` for imagecorruptions,
    and its functions index their tables with ``severity - 1``). Floats, strings and out-of-range
    values raise (imagecorruptions' functions take 0 and -1 as severities 5 and 4: refused)."""
    if isinstance(severity, (bool, np.bool_)) and severity:
        return 1
    try:
        return check_severity(severity)
    except TypeError as exc:
        raise CompatTypeError(str(exc)) from None
    except ValueError as exc:
        raise CompatValueError(str(exc)) from None


def read_number(corruption_number: Any, count: int) -> int:
    """``corruption_number`` as a position in ``0..count - 1``, by Python's indexing rules as
    ``corruption_tuple[corruption_number]``: a bool is 0 or 1, a negative number counts from the
    end; a non-integer is a ``TypeError``, a number outside ``-count..count - 1`` an
    ``IndexError`` (:class:`CorruptionNumberError`)."""
    try:
        number = operator.index(corruption_number)
    except TypeError:
        raise TypeError(
            f"corruption_number must be an int in 0..{count - 1} (negative: from the end), got "
            f"{type(corruption_number).__name__} {corruption_number!r}"
        ) from None
    if not -count <= number < count:
        raise CorruptionNumberError(
            f"corruption_number must be in 0..{count - 1} (or -{count}..-1, from the end), "
            f"got {number}"
        )
    return number % count

"""Reading one image file: every reader of the package (make-c, make-p, eval-c, eval-p, the CLI's
``corrupt`` / ``perturb``, the report's sample photo) goes through :func:`decode_image`.

* :func:`decode_image` — the decoded image in an 8-bit mode, or :class:`ImageLoadError` with a
  short reason (unreadable, truncated, not an image, too large, a sample format it will not guess).
* :func:`load_image` — the same as RGB (``.convert('RGB')`` like the reference loader).
* :func:`load_array` — the same as a uint8 array in the layout :func:`corruptbench.corrupt` keeps:
  H x W for grayscale, H x W x 4 when the file has an alpha channel, else H x W x 3.
* :func:`load_image_native` — the same as a uint8 array in the file's own layout (gray + alpha
  stays H x W x 2), for make-c's native-size tree layout, which writes each image back in its mode.

**Bit depth.** Pillow's own ``convert`` clips samples above 255, which turns a 16-bit grayscale
image (Pillow modes ``I;16``, ``I;16B``, ...) into pure white. Here 16-bit samples become 8-bit by
keeping their high byte (``v >> 8``), which is what Pillow does with 16-bit colour PNGs. A 32-bit
integer image (mode ``I``: 16-bit PGM files, some TIFFs) is read the same way when its values lie
in 0..65535, and refused otherwise; a 32-bit float image (mode ``F``) is refused, because its
range is unknown: convert such files to 8 bits yourself.
"""

from __future__ import annotations

import os
from typing import IO

import numpy as np
from PIL import Image

__all__ = [
    "ImageLoadError",
    "to_8bit",
    "decode_image",
    "load_image",
    "load_array",
    "load_image_native",
    "image_size",
]

#: Pillow's 16-bit single-channel modes
_MODES_16 = frozenset({"I;16", "I;16L", "I;16B", "I;16N"})


class ImageLoadError(Exception):
    """An input file could not be used as an image; ``str(exc)`` is a short reason."""


def to_8bit(im: Image.Image) -> Image.Image:
    """``im`` in an 8-bit mode: 16-bit grayscale as ``L`` (high byte), other modes unchanged.

    Raises:
        ImageLoadError: mode ``F`` (32-bit float), or mode ``I`` with values outside 0..65535.
    """
    if im.mode in _MODES_16 or im.mode == "I":
        a = np.asarray(im)
        if im.mode == "I" and a.size and (int(a.min()) < 0 or int(a.max()) > 65535):
            raise ImageLoadError(
                "32-bit integer image (Pillow mode 'I') with values outside 0..65535: "
                "convert it to 8 bits first"
            )
        return Image.fromarray((a.astype(np.uint32) >> 8).astype(np.uint8), mode="L")
    if im.mode == "F":
        raise ImageLoadError(
            "32-bit float image (Pillow mode 'F'): its range is unknown, convert it to 8 bits first"
        )
    return im


def decode_image(path: str | os.PathLike[str] | IO[bytes]) -> Image.Image:
    """Open ``path`` (or a binary file object, e.g. a tar member) fully and return the decoded
    image in an 8-bit mode (:func:`to_8bit`).

    Truncated files are errors (unless the caller set ``ImageFile.LOAD_TRUNCATED_IMAGES``); images
    over PIL's decompression-bomb limit too. Animated files give their first frame. EXIF
    orientation is not applied (as in the reference). Raises :class:`ImageLoadError`.
    """
    try:
        with Image.open(path) as im:
            im.load()  # the first frame of an animated file
            out = to_8bit(im)
            if out is im:
                out = im.copy()  # usable after the file is closed
    except _PIL_ERRORS as exc:
        raise _load_error(exc) from None
    if out.width < 1 or out.height < 1:  # pragma: no cover - PIL refuses these already
        raise ImageLoadError("empty image")
    return out


#: what Pillow raises for a file it cannot open or decode
_PIL_ERRORS = (OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombError)


def _load_error(exc: BaseException) -> ImageLoadError:
    """The one-line :class:`ImageLoadError` of a Pillow error."""
    if isinstance(exc, FileNotFoundError):
        return ImageLoadError("file not found")
    if isinstance(exc, Image.UnidentifiedImageError):
        return ImageLoadError("not an image (unidentified format)")
    if isinstance(exc, Image.DecompressionBombError):
        return ImageLoadError(f"image too large: {exc}")
    msg = str(exc) or type(exc).__name__
    if "truncated" in msg.lower() or isinstance(exc, EOFError):
        return ImageLoadError(f"truncated image: {msg}")
    return ImageLoadError(f"cannot decode: {msg}")


def image_size(path: str | os.PathLike[str]) -> tuple[int, int]:
    """``(width, height)`` of an image file read from its header, without decoding it: the size
    :func:`decode_image` gives (no EXIF rotation either). Raises :class:`ImageLoadError`."""
    try:
        with Image.open(path) as im:
            return im.size
    except _PIL_ERRORS as exc:
        raise _load_error(exc) from None


def load_image(path: str | os.PathLike[str] | IO[bytes]) -> Image.Image:
    """:func:`decode_image` converted to RGB with ``.convert('RGB')`` like the reference loader.

    Grayscale, CMYK, palette and RGBA inputs are converted by Pillow (alpha is dropped, not
    composited); 16-bit input as :func:`to_8bit` says. Raises :class:`ImageLoadError`.
    """
    im = decode_image(path)
    return im if im.mode == "RGB" else im.convert("RGB")


def load_array(path: str | os.PathLike[str] | IO[bytes]) -> np.ndarray:
    """:func:`decode_image` as a uint8 array in the layouts :func:`corruptbench.corrupt` keeps.

    Grayscale (``L``, ``1``, 16-bit) -> H x W; an alpha channel (``RGBA``, ``LA``, a palette with
    transparency, ...) -> H x W x 4 (RGBA); anything else -> H x W x 3 (RGB). Raises
    :class:`ImageLoadError`.
    """
    im = decode_image(path)
    if im.mode in ("L", "1"):
        return np.asarray(im.convert("L"))
    has_alpha = "A" in im.getbands() or "a" in im.getbands() or "transparency" in im.info
    return np.asarray(im.convert("RGBA" if has_alpha else "RGB"))


#: Pillow modes :func:`load_image_native` keeps as they are (H x W, x 3, x 4, x 2)
_NATIVE_MODES = frozenset({"RGB", "L", "RGBA", "LA"})


def load_image_native(path: str | os.PathLike[str]) -> np.ndarray:
    """:func:`decode_image` as a uint8 array in its own layout, at its own size.

    * gray (``L``; 1-bit as 0/255; 16-bit by :func:`to_8bit`) -> ``H x W``; gray + alpha (``LA``)
      -> ``H x W x 2``;
    * ``RGB`` -> ``H x W x 3``; ``RGBA`` -> ``H x W x 4``;
    * palette -> RGB, or RGBA when it has transparency; premultiplied alpha -> straight alpha;
      CMYK / YCbCr / LAB / HSV -> RGB; any other mode -> :class:`ImageLoadError`.
    """
    im = decode_image(path)
    mode = im.mode
    if mode == "1":
        im = im.convert("L")
    elif mode in ("P", "PA"):
        im = im.convert("RGBA" if mode == "PA" or "transparency" in im.info else "RGB")
    elif mode in ("RGBa", "La"):
        im = im.convert("RGBA" if mode == "RGBa" else "LA")
    elif mode in ("CMYK", "YCbCr", "LAB", "HSV", "RGBX"):
        im = im.convert("RGB")
    elif mode not in _NATIVE_MODES:
        raise ImageLoadError(f"{mode} image: convert it to 8-bit gray, RGB or RGBA first")
    return np.asarray(im, dtype=np.uint8)

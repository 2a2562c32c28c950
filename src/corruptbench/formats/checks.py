"""Checks of single files: a cheap structural check by default, a full decode on request.

Cheap checks read a few bytes at each end of the file (two ``pread`` calls), so a tree of
millions of files is checked at the speed of listing it:

* JPEG: starts with the SOI marker ``FF D8 FF`` and has the EOI marker ``FF D9`` within its
  last 64 bytes (ITU-T T.81 §B.1.1.3: inside entropy-coded data ``FF`` is always followed by
  ``00`` or a restart marker, so ``FF D9`` there can only be the end of the image). Catches
  zero-byte and truncated files, and files that are not JPEGs; not damage inside the data.
* PNG: the 8-byte signature and the ``IEND`` chunk as the last 12 bytes (PNG spec §5.6).
* MP4: the top-level ISO-BMFF boxes, ``ftyp`` first, whose sizes add up to exactly the file
  size (ISO/IEC 14496-12 §4.2): a truncated or padded file does not.
* ``.npy``: the header's shape and dtype (NumPy's ``format.read_array_header_*``) and a file size
  equal to header + shape x item size.

``--decode`` (``decode=True``) decodes every file completely: JPEGs with simplejpeg
(libjpeg-turbo, which turns libjpeg's "corrupt data" warnings into errors, so damaged Huffman
tables, corrupt entropy-coded data and data that ends early are caught; Pillow would repair those
silently), PNGs with Pillow (its CRC and zlib checks), MP4s frame by frame with PyAV. Neither check
sees a flipped bit that still decodes: only a hash does (``--hash`` where one is published).
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable

import numpy as np

__all__ = [
    "CHEAP_CHECKS",
    "check_jpeg",
    "check_png",
    "check_mp4",
    "npy_header",
    "check_npy",
    "decode_jpeg",
    "decode_image",
    "decode_mp4",
    "file_problem",
]

_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"
_JPEG_TAIL = 64


def _pread(path: str, spans: tuple[tuple[int, int], ...]) -> list[bytes]:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        return [os.pread(fd, n, off) for off, n in spans]
    finally:
        os.close(fd)


def check_jpeg(path: str, size: int) -> str | None:
    """None if ``path`` looks like a whole JPEG, else what is wrong (see the module docstring)."""
    head, tail = _pread(path, ((0, 3), (max(0, size - _JPEG_TAIL), _JPEG_TAIL)))
    if head != b"\xff\xd8\xff":
        return "not a JPEG (no start-of-image marker)"
    if b"\xff\xd9" not in tail:
        return "truncated JPEG (no end-of-image marker)"
    return None


def check_png(path: str, size: int) -> str | None:
    """None if ``path`` starts with the PNG signature and ends with ``IEND``."""
    head, tail = _pread(path, ((0, 8), (max(0, size - 12), 12)))
    if head != _PNG_SIG:
        return "not a PNG (no signature)"
    if tail != _PNG_END:
        return "truncated PNG (no IEND chunk at the end)"
    return None


def check_mp4(path: str, size: int) -> str | None:
    """None if the top-level boxes of ``path`` (``ftyp`` first) exactly fill the file."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        pos, first = 0, True
        while pos < size:
            hdr = os.pread(fd, 16, pos)
            if len(hdr) < 8:
                return f"truncated MP4 (box header at byte {pos})"
            box, kind = struct.unpack(">I4s", hdr[:8])
            if first and kind != b"ftyp":
                return "not an MP4 (no ftyp box first)"
            first = False
            if box == 1:
                if len(hdr) < 16:
                    return f"truncated MP4 (box header at byte {pos})"
                box = struct.unpack(">Q", hdr[8:16])[0]
            elif box == 0:  # the last box, up to the end of the file
                return None
            if box < 8:
                return f"damaged MP4 (box of {box} bytes at byte {pos})"
            pos += box
    finally:
        os.close(fd)
    if pos != size:
        return f"truncated MP4 (the boxes need {pos} bytes, the file has {size})"
    return None


def npy_header(path: str) -> tuple[tuple[int, ...], np.dtype, int]:
    """``(shape, dtype, data offset)`` of a ``.npy`` file, from its header only.

    Raises:
        ValueError: not a ``.npy`` file.
    """
    with open(path, "rb") as fh:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
        else:
            shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
        return tuple(shape), dtype, fh.tell()


def check_npy(path: str, size: int) -> str | None:
    """None if the data after the header of ``path`` has exactly the size its shape needs."""
    try:
        shape, dtype, offset = npy_header(path)
    except (ValueError, OSError, EOFError) as exc:
        return f"not a .npy file ({exc})"
    need = offset + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if size != need:
        return f"{'truncated' if size < need else 'oversized'} .npy ({size} bytes, its header needs {need})"
    return None


def decode_jpeg(path: str, size: int) -> str | None:
    """None if libjpeg-turbo decodes the whole JPEG without a warning, else its message."""
    import simplejpeg

    with open(path, "rb") as fh:
        data = fh.read()
    try:
        colorspace = simplejpeg.decode_jpeg_header(data)[2]
        out = {"GRAY": "GRAY", "CMYK": "CMYK", "YCCK": "CMYK"}.get(colorspace, "RGB")
        simplejpeg.decode_jpeg(data, colorspace=out)
    except ValueError as exc:
        return f"undecodable ({exc})"
    return None


def decode_image(path: str, size: int) -> str | None:
    """None if Pillow decodes the whole image, else its error."""
    from PIL import Image

    try:
        with Image.open(path) as im:
            im.load()
    except Exception as exc:  # noqa: BLE001 - any decoder error means "undecodable"
        return f"undecodable ({type(exc).__name__}: {exc})"
    return None


def decode_mp4(path: str, size: int) -> str | None:
    """None if PyAV decodes every frame of the video (at least one), else its error."""
    from ..extras import require

    av = require("av", "verify --decode of MP4 files")
    try:
        with av.open(path) as box:
            frames = sum(1 for _ in box.decode(video=0))
    except Exception as exc:  # noqa: BLE001 - any decoder error means "undecodable"
        return f"undecodable ({type(exc).__name__}: {exc})"
    return None if frames else "undecodable (no video frame)"


#: lower-case extension -> cheap check
CHEAP_CHECKS: dict[str, Callable[[str, int], str | None]] = {
    ".jpeg": check_jpeg,
    ".jpg": check_jpeg,
    ".png": check_png,
    ".mp4": check_mp4,
    ".npy": check_npy,
}
_DECODERS: dict[str, Callable[[str, int], str | None]] = {
    ".jpeg": decode_jpeg,
    ".jpg": decode_jpeg,
    ".png": decode_image,
    ".mp4": decode_mp4,
}


def file_problem(path: str, size: int, *, decode: bool = False) -> str | None:
    """What is wrong with one file (None: nothing found): ``"zero bytes"``, or the cheap check
    of its extension (and with ``decode`` the full decode as well)."""
    if size == 0:
        return "zero bytes"
    ext = os.path.splitext(path)[1].lower()
    check = CHEAP_CHECKS.get(ext)
    problem = check(path, size) if check else None
    if problem is None and decode and ext in _DECODERS:
        problem = _DECODERS[ext](path, size)
    return problem

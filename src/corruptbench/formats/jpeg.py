"""Byte-exact fast path for ``Image.save(..., "JPEG", quality=q, optimize=True)``.

Pillow's ``optimize=True`` makes libjpeg-turbo run its (non-SIMD) Huffman
statistics pass over a buffered copy of all coefficients.  Here the image is
encoded once with libjpeg's standard Huffman tables instead -- by OpenCV, whose
bundled libjpeg-turbo quantises exactly the same DCT coefficients and writes the
same headers as Pillow's, with less per-call overhead -- and the entropy-coded
segment is then given optimal Huffman tables in numba, as libjpeg computes them
(:mod:`corruptbench.formats.jpeg_transcoder`).

The result is byte-identical to Pillow's optimised output (checked on 500
ImageNet photos at 224/299/64/32 px, crops from 1 x 1 to 300 x 8, grayscale,
every corruption at every severity, flat and random-noise images, and every
quality 1..100).  The first call for each quality checks it again on a few
probe images (falling back to Pillow's own standard-table encoder as the base,
then to Pillow's optimised save).  Routed to Pillow itself: arrays other than
2-D or (H, W, 3) uint8, sides over 65500 px, qualities that are not an ``int``
in 1..100, and any base stream the transcoder does not understand (it never
happens with libjpeg's baseline output).
"""

from __future__ import annotations

import io
import threading

import cv2
import numpy as np
from PIL import Image

from .jpeg_transcoder import transcode

__all__ = ["encode_jpeg", "jpeg_quality"]


def _pillow_bytes(arr: np.ndarray, quality: int, optimize: bool) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="JPEG", quality=quality, optimize=optimize)
    return buf.getvalue()


def _opencv_bytes(arr: np.ndarray, quality: int) -> bytes:
    """Standard-table JPEG (4:2:0 for colour, as Pillow) from OpenCV's libjpeg-turbo."""
    img = cv2.cvtColor(arr, cv2.COLOR_RGB2BGR) if arr.ndim == 3 else arr
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("OpenCV could not encode the image")
    return enc.tobytes()


def _pillow_plain(arr: np.ndarray, quality: int) -> bytes:
    return _pillow_bytes(arr, quality, optimize=False)


def _probe_images() -> list[np.ndarray]:
    rng = np.random.default_rng(20260601)
    ramp = np.add.outer(np.arange(40), np.arange(56)).astype(np.uint8)
    return [
        rng.integers(0, 256, (37, 45, 3), dtype=np.uint8),
        np.stack([ramp, ramp.T[:40, :40].repeat(2, 1)[:, :56], 255 - ramp], axis=2),
        rng.integers(0, 256, (23, 17), dtype=np.uint8),
        np.full((8, 8, 3), 200, dtype=np.uint8),
    ]


_BASES = (_opencv_bytes, _pillow_plain)
_base_for_quality: dict[int, int] = {}  # quality -> index into _BASES, -1: Pillow only
_base_lock = threading.Lock()


def _choose_base(quality: int) -> int:
    """The first base encoder whose transcoded output equals Pillow's on the probes."""
    with _base_lock:
        choice = _base_for_quality.get(quality)
        if choice is None:
            choice = -1
            probes = _probe_images()
            for i, base in enumerate(_BASES):
                try:
                    ok = all(
                        transcode(base(p, quality)) == _pillow_bytes(p, quality, optimize=True)
                        for p in probes
                    )
                except Exception:  # noqa: BLE001 - any failure disqualifies the base
                    ok = False
                if ok:
                    choice = i
                    break
            _base_for_quality[quality] = choice
        return choice


def encode_jpeg(arr: np.ndarray, quality: int) -> bytes:
    """Bytes identical to ``Image.fromarray(arr).save(buf, "JPEG", quality=quality, optimize=True)``."""
    fast = (
        isinstance(arr, np.ndarray)
        and arr.dtype == np.uint8
        and (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[2] == 3))
        and 0 < arr.shape[0] <= 65500  # JPEG's size limit
        and 0 < arr.shape[1] <= 65500
        and type(quality) is int
        and 1 <= quality <= 100
    )
    if fast:
        choice = _base_for_quality.get(quality)
        if choice is None:
            choice = _choose_base(quality)
        if choice >= 0:
            try:
                base = _BASES[choice](np.ascontiguousarray(arr), quality)
            except (cv2.error, ValueError, OSError):  # e.g. over JPEG's size limit
                base = b""
            out = transcode(base) if base else None
            if out is not None:
                return out
    return _pillow_bytes(arr, quality, optimize=True)


# libjpeg's standard tables (ITU T.81 Annex K), row-major as Pillow reports ``im.quantization``
_STD_LUMA = np.array(
    [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
     14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
     18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
     49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99],
    dtype=np.int64,
)  # fmt: skip
_STD_CHROMA = np.array(
    [17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
     24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99] + [99] * 32,
    dtype=np.int64,
)  # fmt: skip


def _scaled(base: np.ndarray, quality: int) -> np.ndarray:
    # libjpeg jcparam.c: jpeg_quality_scaling + jpeg_add_quant_table(force_baseline=TRUE)
    scale = 5000 // quality if quality < 50 else 200 - 2 * quality
    return np.clip((base * scale + 50) // 100, 1, 255)


def jpeg_quality(image: Image.Image) -> int | None:
    """The quality a JPEG was written at, when its tables are libjpeg's standard ones scaled.

    libjpeg (and Pillow, OpenCV, ImageMagick and most software built on it) writes the standard
    luminance / chrominance tables of ITU T.81 Annex K scaled by ``quality`` (1..100).
    The quality whose scaled tables equal the file's (all of them: one luminance table, and the
    chrominance table when present) is returned; None when no quality gives exactly the file's
    tables (another encoder's tables, e.g. some cameras and Photoshop) or the image is not a JPEG.

    Args:
        image: an opened PIL image (only its header is read).
    """
    tables = getattr(image, "quantization", None)
    if not tables or 0 not in tables:
        return None
    luma = np.asarray(tables[0], dtype=np.int64)
    chroma = [np.asarray(t, dtype=np.int64) for k, t in tables.items() if k != 0]
    if luma.shape != (64,) or any(t.shape != (64,) for t in chroma):
        return None
    for q in range(1, 101):
        if np.array_equal(_scaled(_STD_LUMA, q), luma) and all(
            np.array_equal(_scaled(_STD_CHROMA, q), t) for t in chroma
        ):
            return q
    return None

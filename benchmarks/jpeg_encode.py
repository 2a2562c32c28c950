"""CPU time of make-c's JPEG writes: Pillow ``optimize=True`` vs :func:`corruptbench.formats.jpeg.encode_jpeg`.

Encodes the 95 outputs (19 corruptions x 5 severities, 224 px) of one real photo at quality 85,
as make-c does, with both encoders and prints the milliseconds per encode (CPU time of this
thread, minimum over the interleaved repeats), the ratio, and whether every output is
byte-identical.

Usage::

    .venv/bin/python benchmarks/jpeg_encode.py [--repeats 15] [--photo PATH]
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import PHOTO, synthetic  # isort: split

import argparse
import io
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

QUALITY = 85


def pillow_optimized(arr: np.ndarray, quality: int) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="JPEG", quality=quality, optimize=True)
    return buf.getvalue()


def pillow_plain(arr: np.ndarray, quality: int) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def ms_per_encode(
    fns: dict[str, Callable[[np.ndarray, int], bytes]], images: list[np.ndarray], repeats: int
) -> dict[str, float]:
    """CPU ms per encode of each function, the repeats interleaved (fair on a shared machine)."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.thread_time()
            for img in images:
                fn(img, QUALITY)
            best[name] = min(best[name], time.thread_time() - t0)
    return {name: 1e3 * t / len(images) for name, t in best.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--photo", type=Path, default=PHOTO)
    args = ap.parse_args(argv)

    from corruptbench import ALL_CORRUPTIONS, corrupt
    from corruptbench.formats.jpeg import encode_jpeg
    from corruptbench.ops.preprocess import profile_preprocess

    if args.photo.is_file():
        with Image.open(args.photo) as im:
            src = profile_preprocess(im.convert("RGB"), "imagenet")
        what = args.photo.name
    else:
        src, what = synthetic(224, 224), "synthetic 224x224 (photo absent)"
    images = [
        np.ascontiguousarray(corrupt(src, name, sev, rng=sev))
        for name in ALL_CORRUPTIONS
        for sev in range(1, 6)
    ]
    identical = all(encode_jpeg(a, QUALITY) == pillow_optimized(a, QUALITY) for a in images)
    ms = ms_per_encode(
        {"before": pillow_optimized, "plain": pillow_plain, "after": encode_jpeg},
        images,
        args.repeats,
    )
    before, plain, after = ms["before"], ms["plain"], ms["after"]
    print(f"{len(images)} outputs of {what}, quality {QUALITY}, CPU ms per encode:")
    print(f"  Pillow optimize=True  (before) {before:7.3f}")
    print(f"  Pillow optimize=False (context){plain:7.3f}")
    print(f"  _jpeg.encode_jpeg     (after)  {after:7.3f}")
    print(
        f"  speed-up {before / after:.2f}x, {95 * (before - after):.1f} ms saved per source image"
    )
    print(f"  byte-identical to Pillow optimize=True: {identical}")
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())

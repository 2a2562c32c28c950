"""``corruptbench corrupt IN OUT --corruption NAME --severity S [--profile P] [--seed K]``.

The image keeps its layout, as with :func:`corruptbench.corrupt`: grayscale stays grayscale, an
alpha channel passes through unchanged (except into a JPEG, which cannot store one).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
from PIL import Image

from ..api import ALL_CORRUPTIONS, corrupt
from ..datasets.images import ImageLoadError, load_array, load_image
from ..fileio import write_atomic
from ..kernel_cache import compile_estimate
from ..ops import jit
from ..registry import canonical_name
from ..safe_text import printable
from ..validation import DATASET_QUALITY, check_quality
from .options import add_quality_argument, check_output

_FORMATS = {
    ".png": "PNG",
    ".jpg": "JPEG",
    ".jpeg": "JPEG",
    ".bmp": "BMP",
    ".tif": "TIFF",
    ".tiff": "TIFF",
    ".webp": "WEBP",
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "corrupt",
        help="corrupt one image file",
        description="Corrupt one image file. Grayscale stays grayscale and an alpha channel is "
        "kept unchanged, as with corruptbench.corrupt (a JPEG output has no alpha channel).",
    )
    p.add_argument("input", help="any image file Pillow reads (16-bit grayscale: the high byte)")
    p.add_argument("output", help="output file; format from the extension (.png, .jpg, ...)")
    p.add_argument(
        "--corruption", "-c", required=True, help=f"one of: {', '.join(ALL_CORRUPTIONS)}"
    )
    p.add_argument("--severity", "-s", type=int, required=True, help="1..5")
    p.add_argument(
        "--profile",
        default="auto",
        help="parameter tables: auto (by size) | imagenet | inception | tiny | cifar",
    )
    p.add_argument(
        "--seed", type=int, default=None, help="seed (reference-compatible stream; default: random)"
    )
    add_quality_argument(
        p, f"JPEG quality when writing .jpg (default {DATASET_QUALITY})", default=DATASET_QUALITY
    )
    p.set_defaults(func=run)


def load_rgb(path: str | os.PathLike[str]) -> np.ndarray:
    """Read any image Pillow understands as uint8 RGB (like the reference's ``.convert('RGB')``;
    16-bit input as :mod:`corruptbench.datasets.images` says)."""
    return np.asarray(_load(path, rgb=True))


def _load(path: str | os.PathLike[str], *, rgb: bool) -> np.ndarray:
    if not Path(path).exists():
        raise FileNotFoundError(f"input image not found: {path}")
    try:
        return np.asarray(load_image(path)) if rgb else load_array(path)
    except ImageLoadError as exc:
        raise ValueError(f"cannot read image {path}: {exc}") from None


def save_image(
    arr: np.ndarray, path: str | os.PathLike[str], quality: int = DATASET_QUALITY
) -> None:
    """Write atomically (temporary file + rename) into an existing folder; JPEG at ``quality``
    with optimize, like ImageNet-C.

    H x W is written as grayscale, H x W x 4 as RGBA (into a JPEG: the alpha channel is dropped).
    """
    path = Path(path)
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(
            f"unsupported output extension {path.suffix!r} (use one of {', '.join(_FORMATS)})"
        )
    kwargs = {"quality": check_quality(quality), "optimize": True} if fmt == "JPEG" else {}
    img = Image.fromarray(arr)
    if fmt == "JPEG" and img.mode == "RGBA":
        img = img.convert("RGB")
    write_atomic(path, lambda fh: img.save(fh, format=fmt, **kwargs))


def check_output_folder(path: str | os.PathLike[str]) -> None:
    """The folder ``path`` goes into must exist: a mistyped folder is an error, not a new folder.

    Raises:
        FileNotFoundError: it does not exist (or is not a folder), named.
    """
    parent = Path(path).parent
    if not parent.is_dir():
        what = "is not a folder" if parent.exists() else "does not exist"
        raise FileNotFoundError(
            f"the output's folder {parent} {what}; create it first (or check the path)"
        )


def run(args: argparse.Namespace) -> int:
    check_quality(args.quality)
    check_output_folder(args.output)
    check_output(args.output, "OUTPUT", writes="image", inputs=[("the INPUT image", args.input)])
    jit.announce(compile_estimate([canonical_name(str(args.corruption))]))
    img = _load(args.input, rgb=False)
    out = corrupt(img, args.corruption, args.severity, profile=args.profile, rng=args.seed)
    save_image(out, args.output, quality=args.quality)
    layout = {2: "grayscale", 4: "RGBA"}.get(out.shape[2] if out.ndim == 3 else 2, "")
    print(
        f"wrote {printable(args.output)} ({args.corruption}, severity {args.severity}, "
        f"{out.shape[1]}x{out.shape[0]}{', ' + layout if layout else ''})"
    )
    if out.ndim == 3 and out.shape[2] == 4 and _FORMATS[Path(args.output).suffix.lower()] == "JPEG":
        print("note: JPEG has no alpha channel; the alpha channel was dropped", file=sys.stderr)
    return 0

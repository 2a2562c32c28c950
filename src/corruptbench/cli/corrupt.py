"""``corruptbench corrupt IN OUT --corruption NAME --severity S [--profile P] [--seed K]``."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

from ..api import ALL_CORRUPTIONS, corrupt
from ..kernel_cache import compile_estimate
from ..ops import jit
from ..registry import canonical_name

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
    p = sub.add_parser("corrupt", help="corrupt one image file")
    p.add_argument("input", help="any image file Pillow reads")
    p.add_argument("output", help="output file; format from the extension (.png, .jpg, ...)")
    p.add_argument(
        "--corruption", "-c", required=True, help=f"one of: {', '.join(ALL_CORRUPTIONS)}"
    )
    p.add_argument("--severity", "-s", type=int, required=True, help="1..5")
    p.add_argument("--profile", default="auto", help="auto|imagenet|inception|tiny|cifar")
    p.add_argument("--seed", type=int, default=None, help="seed (reference-compatible stream)")
    p.add_argument(
        "--quality", type=int, default=85, help="JPEG quality when writing .jpg (default 85)"
    )
    p.set_defaults(func=run)


def load_rgb(path: str | os.PathLike[str]) -> np.ndarray:
    """Read any image Pillow understands as uint8 RGB (like the reference's ``.convert('RGB')``)."""
    try:
        with Image.open(path) as im:
            im.load()
            return np.asarray(im.convert("RGB"))
    except FileNotFoundError:
        raise FileNotFoundError(f"input image not found: {path}") from None
    except (UnidentifiedImageError, OSError) as exc:
        raise ValueError(f"cannot read image {path}: {exc}") from None


def save_image(arr: np.ndarray, path: str | os.PathLike[str], quality: int = 85) -> None:
    """Write atomically (temporary file + rename); JPEG at ``quality`` with optimize, like ImageNet-C."""
    path = Path(path)
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(
            f"unsupported output extension {path.suffix!r} (use one of {', '.join(_FORMATS)})"
        )
    kwargs = {"quality": quality, "optimize": True} if fmt == "JPEG" else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            Image.fromarray(arr).save(fh, format=fmt, **kwargs)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def run(args: argparse.Namespace) -> int:
    jit.announce(compile_estimate([canonical_name(str(args.corruption))]))
    img = load_rgb(args.input)
    out = corrupt(img, args.corruption, args.severity, profile=args.profile, rng=args.seed)
    save_image(out, args.output, quality=args.quality)
    print(
        f"wrote {args.output} ({args.corruption}, severity {args.severity}, {out.shape[1]}x{out.shape[0]})"
    )
    return 0

"""``corruptbench perturb IN OUTDIR --perturbation NAME [--profile P] [--difficulty D] [--seed K]
[--format png|mp4|npy]``: one ImageNet-P sequence from one image file.

Outputs in OUTDIR (created if needed), named after the input file's stem:

* ``png``: ``<stem>_<perturbation>/img00.png .. img<T-1>.png``, numbered with as many digits as
  the last frame needs (``img00`` .. ``img30``), so that they sort in frame order;
* ``npy``: ``<stem>_<perturbation>.npy``, uint8 (T, S, S, 3);
* ``mp4``: ``<stem>_<perturbation>.mp4``, H.264 with the reference's settings (crf 20, or
  ``tune=grain`` for the noise perturbations) via :func:`corruptbench.formats.video.write_mp4`
  (needs PyAV).

For difficulty 2 and 3 of the noise perturbations the name gets the reference's ``_2`` / ``_3``
suffix.
"""

from __future__ import annotations

import argparse
import os
from functools import partial
from pathlib import Path

import numpy as np
from PIL import Image

from ..fileio import write_atomic
from ..registry import canonical_name
from ..safe_text import printable
from .corrupt import load_rgb

_FORMATS = ("png", "npy", "mp4")


def register(sub: argparse._SubParsersAction) -> None:
    from ..perturbations import ALL_PERTURBATIONS

    p = sub.add_parser("perturb", help="make one ImageNet-P perturbation sequence from an image")
    p.add_argument(
        "input",
        help="any image file Pillow reads (the full source image; 16-bit grayscale: the high byte)",
    )
    p.add_argument("outdir", help="output folder")
    p.add_argument(
        "--perturbation", "-p", required=True, help=f"one of: {', '.join(ALL_PERTURBATIONS)}"
    )
    p.add_argument(
        "--profile", default="imagenet", help="imagenet (224, default) | inception | tiny | cifar"
    )
    p.add_argument(
        "--difficulty",
        "-d",
        type=int,
        default=1,
        help="1..3 (noise level of the noise perturbations)",
    )
    p.add_argument(
        "--seed", type=int, default=None, help="random seed (noise, snow, spatter; default: random)"
    )
    p.add_argument(
        "--format", "-f", choices=_FORMATS, default="png", help="png frames (default), npy or mp4"
    )
    p.set_defaults(func=run)


def write_sequence(
    frames: np.ndarray, outdir: str | os.PathLike[str], stem: str, fmt: str, *, noise: bool
) -> Path:
    """Write ``frames`` (uint8 T x S x S x 3) under ``outdir`` as ``fmt``; return the path written."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    if fmt == "npy":
        path = out / f"{stem}.npy"
        write_atomic(path, lambda fh: np.save(fh, frames))
        return path
    if fmt == "mp4":
        from ..extras import require
        from ..formats.video import write_mp4

        require("av", "perturb --format mp4")
        path = out / f"{stem}.mp4"
        write_mp4(path, frames, noise=noise)
        return path
    if fmt == "png":
        folder = out / stem
        folder.mkdir(parents=True, exist_ok=True)
        digits = len(str(max(len(frames) - 1, 0)))
        for i, frame in enumerate(frames):
            image = Image.fromarray(frame)
            write_atomic(folder / f"img{i:0{digits}d}.png", partial(image.save, format="PNG"))
        return folder
    raise ValueError(f"unknown format {fmt!r} (choices: {', '.join(_FORMATS)})")


def run(args: argparse.Namespace) -> int:
    from ..kernel_cache import compile_estimate
    from ..ops import jit
    from ..perturbations import is_noise, perturb

    jit.announce(compile_estimate(perturbations=[canonical_name(str(args.perturbation))]))
    img = load_rgb(args.input)
    frames = perturb(
        img, args.perturbation, profile=args.profile, difficulty=args.difficulty, rng=args.seed
    )
    name = canonical_name(args.perturbation)
    noise = is_noise(name)
    suffix = f"_{args.difficulty}" if noise and args.difficulty > 1 else ""
    stem = f"{Path(args.input).stem}_{name}{suffix}"
    path = write_sequence(frames, args.outdir, stem, args.format, noise=noise)
    t, s = frames.shape[0], frames.shape[1]
    print(
        f"wrote {printable(path)} ({name}, difficulty {args.difficulty}, {args.profile}: {t} "
        f"frames of {s}x{s})"
    )
    return 0

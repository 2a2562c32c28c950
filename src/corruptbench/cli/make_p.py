"""``corruptbench make-p SRC OUT``: build an ImageNet-P style dataset (perturbation sequences) as
H.264 MP4 videos or CIFAR-10-P style ``.npy`` arrays. See :mod:`corruptbench.builders`."""

from __future__ import annotations

import argparse

from ..builders.formats import FORMATS
from ..formats.video import DEFAULT_PIX_FMT, DEFAULT_PRESET, PIX_FMTS
from ..profiles import PROFILES
from .options import (
    add_build_args,
    add_list_argument,
    build_interrupted,
    execute_build,
    parse_levels,
    parse_names,
)

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "make-p",
        help="build an ImageNet-P / CIFAR-10-P style dataset",
        description=(
            "Generate perturbation sequences for every image of SRC: mp4 = "
            "OUT/<perturbation>[_<difficulty>]/<class>/<stem>.mp4 (H.264, 1 fps; crf 20, noise: tune=grain crf 23), "
            "npy = OUT/<perturbation>[_<difficulty>].npy (N,T,H,W,3), webdataset = tar shards "
            "OUT/<perturbation>-<difficulty>-<shard>.tar, one sequence per sample (<key>.cls/.json and "
            "the same .mp4 bytes; .npy frames for the cifar profile). Difficulties 2 and 3 exist only for "
            "the noise perturbations (gaussian_noise, shot_noise, speckle_noise). Resumable like make-c."
        ),
    )
    p.add_argument(
        "src",
        help="image folder (<class>/<file> or flat), or a CIFAR python batch file (trusted files only: it is a pickle)",
    )
    p.add_argument(
        "out", help="output folder (new, empty, or a previous run with the same parameters)"
    )
    p.add_argument(
        "--profile",
        choices=list(PROFILES),
        default="imagenet",
        help="frame size and parameter tables (default imagenet)",
    )
    p.add_argument(
        "--format",
        dest="fmt",
        choices=list(FORMATS["p"]),
        default=None,
        help="default: npy for cifar, else mp4",
    )
    add_list_argument(
        p,
        "--perturbations",
        default=["all"],
        metavar="NAME",
        help="perturbation names and groups: all (default), test, validation",
    )
    add_list_argument(
        p,
        "--difficulty",
        "--difficulties",
        dest="difficulty",
        default=["1"],
        metavar="D",
        help="noise difficulties to build, e.g. 1 (default), 1-3",
    )
    p.add_argument(
        "--preset",
        default=None,
        help=f"x264 preset (default {DEFAULT_PRESET}; the reference used veryslow, ~4x slower)",
    )
    p.add_argument(
        "--pix-fmt",
        default=None,
        choices=PIX_FMTS,
        help=f"default {DEFAULT_PIX_FMT} (like the reference)",
    )
    add_build_args(p)
    p.set_defaults(func=run, on_interrupt=build_interrupted)


def run(args: argparse.Namespace) -> int:
    fmt = args.fmt or ("npy" if args.profile == "cifar" else "mp4")
    names = parse_names(args.perturbations, "p")
    diffs = parse_levels(args.difficulty, "p")
    video = {"preset": args.preset, "pix_fmt": args.pix_fmt} if fmt != "npy" else {}
    if fmt == "npy" and (args.preset or args.pix_fmt):
        raise ValueError("--preset and --pix-fmt apply to the MP4 formats (mp4, webdataset) only")
    return execute_build("p", args, fmt=fmt, names=names, levels=diffs, **video)

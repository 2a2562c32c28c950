"""``corruptbench make-c SRC OUT``: build an ImageNet-C style dataset (all 19 corruptions x 5
severities by default) from an image folder or a CIFAR python batch. See :mod:`corruptbench.build`."""

from __future__ import annotations

import argparse

from ..profiles import PROFILES
from .options import (
    add_build_args,
    add_list_argument,
    add_quality_argument,
    build_interrupted,
    execute_build,
    parse_corruptions,
    parse_levels,
)

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "make-c",
        help="build an ImageNet-C / CIFAR-10-C style dataset",
        description=(
            "Corrupt every image of SRC with each corruption and severity and write OUT in the released "
            "layout: jpeg = OUT/<corruption>/<severity>/<class>/<file> (JPEG q85, optimize), npy = "
            "OUT/<corruption>.npy (5N,H,W,3) severity-major + labels.npy. Resumable: re-run the same "
            "command after an interruption. Bad inputs are listed in OUT/skipped.csv."
        ),
    )
    p.add_argument(
        "src",
        help="image folder (<class>/<file> or flat), or a CIFAR python batch file (test_batch; trusted files only: it is a pickle)",
    )
    p.add_argument(
        "out", help="output folder (new, empty, or a previous run with the same parameters)"
    )
    p.add_argument(
        "--profile",
        choices=list(PROFILES),
        default="imagenet",
        help="preprocessing and parameter tables (default imagenet)",
    )
    p.add_argument(
        "--format",
        dest="fmt",
        choices=("jpeg", "npy"),
        default=None,
        help="default: npy for cifar, else jpeg",
    )
    add_list_argument(
        p,
        "--corruptions",
        default=["all"],
        metavar="NAME",
        help="corruption names and subsets: all (default), benchmark, extra, noise, blur, "
        "weather, digital",
    )
    add_list_argument(
        p, "--severities", default=["1-5"], metavar="S", help="severities, e.g. 1-5 (default), 3"
    )
    add_quality_argument(p, "JPEG quality of the outputs (default 85, as ImageNet-C)")
    add_build_args(p)
    p.set_defaults(func=run, on_interrupt=build_interrupted)


def run(args: argparse.Namespace) -> int:
    fmt = args.fmt or ("npy" if args.profile == "cifar" else "jpeg")
    names = parse_corruptions(args.corruptions)
    sevs = parse_levels(args.severities, 1, 5, "severities")
    return execute_build("c", args, fmt=fmt, names=names, levels=sevs, quality=args.quality)

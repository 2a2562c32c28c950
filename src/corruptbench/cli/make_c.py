"""``corruptbench make-c SRC OUT``: build an ImageNet-C style dataset (all 19 corruptions x 5
severities by default) from an image folder or a CIFAR python batch. See :mod:`corruptbench.build`."""

from __future__ import annotations

import argparse

from ..profiles import PROFILES
from .options import add_build_args, execute_build, parse_levels

__all__ = ["register", "run", "parse_corruptions"]


def parse_corruptions(text: str) -> list[str]:
    from ..api import SUBSETS, get_corruption_names
    from ..registry import get_corruption

    key = text.strip().lower()
    if key in SUBSETS or key in ("common", "validation"):
        return get_corruption_names(key)
    names = [get_corruption(n).name for n in text.split(",") if n.strip()]
    if not names:
        raise ValueError("--corruptions is empty")
    return list(dict.fromkeys(names))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "make-c",
        help="build an ImageNet-C / CIFAR-10-C style dataset",
        description=(
            "Corrupt every image of SRC with each corruption and severity and write OUT in the released "
            "layout: jpeg = OUT/<corruption>/<severity>/<class>/<file> (JPEG q85, optimize), npy = "
            "OUT/<corruption>.npy (5N,H,W,3) severity-major + labels.npy, webdataset = tar shards "
            "OUT/<corruption>-<severity>-<shard>.tar of <key>.cls/.jpg/.json samples (the same JPEG "
            "bytes; .png for the cifar profile) listed in OUT/shards.json. Resumable: re-run the same "
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
        choices=("jpeg", "npy", "webdataset"),
        default=None,
        help="default: npy for cifar, else jpeg",
    )
    p.add_argument(
        "--corruptions",
        default="all",
        help="all (default) | benchmark | extra | noise|blur|weather|digital | name,name,...",
    )
    p.add_argument("--severities", default="1-5", help="e.g. 1-5 (default), 3, 1,3,5")
    p.add_argument(
        "--quality", type=int, default=85, help="JPEG quality (default 85, as ImageNet-C)"
    )
    add_build_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    fmt = args.fmt or ("npy" if args.profile == "cifar" else "jpeg")
    names = parse_corruptions(args.corruptions)
    sevs = parse_levels(args.severities, 1, 5, "severities")
    return execute_build("c", args, fmt=fmt, names=names, levels=sevs, quality=args.quality)

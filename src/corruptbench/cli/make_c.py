"""``corruptbench make-c SRC OUT``: build an ImageNet-C style dataset (all 19 corruptions x 5
severities by default; ``--suite cbar``: ImageNet-C-bar or CIFAR-10-C-bar) from an image folder or
a CIFAR python batch, or (``--layout tree``) corrupt any dataset folder at native size. See
:mod:`corruptbench.builders`."""

from __future__ import annotations

import argparse

from ..builders.formats import FORMATS, LAYOUTS
from ..grid import default_subset
from ..layouts.imagenet_c import LEVEL_NAMES
from ..profiles import PROFILES
from ..registry import corruption_suites
from ..validation import DATASET_QUALITY
from .options import (
    add_build_args,
    add_list_argument,
    add_quality_argument,
    build_interrupted,
    execute_build,
    parse_levels,
    parse_names,
)

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "make-c",
        help="build an ImageNet-C / CIFAR-10-C style dataset",
        description=(
            "Corrupt every image of SRC with each corruption and severity and write OUT in the released "
            "layout: jpeg = OUT/<corruption>/<severity>/<class>/<file> (JPEG q85, optimize), npy = "
            "OUT/<corruption>.npy (5N,H,W,3) severity-major + labels.npy, webdataset = tar shards "
            "OUT/<corruption>-<severity>-<shard>.tar of <key>.cls/.jpg/.json samples (the same JPEG "
            "bytes; .png for the cifar profile) listed in OUT/shards.json. --layout tree corrupts "
            "any dataset folder (COCO, VOC, Cityscapes) at native size: OUT/<corruption>/<severity>/"
            "<relative path>, each file in its own format. Resumable: re-run the same "
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
        choices=[f for f in FORMATS["c"] if f != "tree"],
        default=None,
        help="default: npy for cifar, else jpeg",
    )
    _add_suite_arguments(p)
    add_list_argument(
        p, "--severities", default=["1-5"], metavar="S", help="severities, e.g. 1-5 (default), 3"
    )
    _add_tree_arguments(p)
    add_quality_argument(
        p,
        f"JPEG quality of the outputs (default {DATASET_QUALITY}, as ImageNet-C; --layout tree: each "
        "source's own "
        "quality when its quantisation tables are libjpeg's scaled tables, else 95)",
        default=None,
    )
    add_build_args(p)
    p.set_defaults(func=run, on_interrupt=build_interrupted)


def _add_suite_arguments(p: argparse.ArgumentParser) -> None:
    """--suite, --corruptions and --level-names: which corruptions, and how their level folders
    are named."""
    p.add_argument(
        "--suite",
        choices=corruption_suites(),
        default="imagenet_c",
        help="imagenet_c (default): the 19 of ImageNet-C; cbar: the 30 of ImageNet-C-bar / "
        "CIFAR-10-C-bar (Mintun et al. 2021), at the levels of the profile's table (cifar: "
        "CIFAR-10-C-bar's, else ImageNet-C-bar's)",
    )
    add_list_argument(
        p,
        "--corruptions",
        default=None,
        metavar="NAME",
        help="corruption names and subsets of --suite: imagenet_c: all (default), benchmark, "
        "extra, noise, blur, weather, digital; cbar: imagenet_c_bar (default), cifar10_c_bar "
        "(default with --profile cifar), all, benchmark, extra, a family",
    )
    p.add_argument(
        "--level-names",
        choices=LEVEL_NAMES,
        default=None,
        help="--format jpeg: level folders 1..5 (severity, default; ImageNet-C and the released "
        "ImageNet-C-bar) or named by the original level, as make_imagenet_c_bar.py writes them "
        "(value: caustic_refraction/2.35/; --suite cbar only)",
    )


def _add_tree_arguments(p: argparse.ArgumentParser) -> None:
    """--layout and the options of --layout tree."""
    p.add_argument(
        "--layout",
        choices=LAYOUTS,
        default="imagenet",
        help="imagenet (default): <class>/<file> sources, the profile's resize + crop, the released "
        "layouts; tree: every image under SRC at any depth, at its own size and in its own format "
        "(PNG stays PNG, JPEG stays JPEG, gray stays gray), OUT/<corruption>/<severity>/<relative path>",
    )
    p.add_argument(
        "--copy-files",
        nargs="+",
        default=[],
        metavar="GLOB",
        help="--layout tree: files copied once to OUT/<relative path> instead of corrupted "
        "(annotations, label masks): globs matched against each path under SRC and its folders, "
        "e.g. annotations 'labels/*.txt' gtFine",
    )
    p.add_argument(
        "--no-links",
        action="store_true",
        help="--layout tree: do not link the copied files into each OUT/<corruption>/<severity>/",
    )


def run(args: argparse.Namespace) -> int:
    if args.layout == "tree":
        if args.fmt is not None:
            raise ValueError(
                "--format does not apply to --layout tree (each file keeps its format)"
            )
        fmt = "tree"
    else:
        if args.copy_files or args.no_links:
            raise ValueError("--copy-files and --no-links apply to --layout tree only")
        fmt = args.fmt or ("npy" if args.profile == "cifar" else "jpeg")
    if args.level_names is not None and fmt != "jpeg":
        raise ValueError("--level-names applies to --format jpeg only")
    chosen = args.corruptions or [default_subset(args.suite, args.profile)]
    names = parse_names(chosen, "c", args.suite)
    sevs = parse_levels(args.severities, "c")
    tree = {"copy_files": args.copy_files, "links": not args.no_links} if fmt == "tree" else {}
    if fmt == "npy" and args.quality is not None:
        raise ValueError("--quality applies to JPEG outputs (jpeg, webdataset, --layout tree) only")
    named = {"level_names": args.level_names} if args.level_names is not None else {}
    return execute_build(
        "c",
        args,
        fmt=fmt,
        names=names,
        levels=sevs,
        quality=args.quality,
        suite=args.suite,
        **tree,
        **named,
    )

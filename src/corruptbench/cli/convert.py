"""``corruptbench convert SRC OUT --to webdataset``: an existing ImageNet-C folder (the released
data, extracted) or CIFAR-10-C arrays to WebDataset tar shards. See :mod:`corruptbench.builders.convert`."""

from __future__ import annotations

import argparse
import sys

from ..safe_text import printable
from .options import add_list_argument, build_interrupted, parse_levels, parse_names

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "convert",
        help="convert an ImageNet-C / CIFAR-10-C folder to WebDataset shards",
        description=(
            "Pack an ImageNet-C style folder SRC (<corruption>/<severity>/<wnid>/<file>, e.g. the "
            "released ImageNet-C after extracting its tarballs) into WebDataset tar shards "
            "OUT/<corruption>-<severity>-<shard>.tar: the JPEG bytes are copied unchanged, with the "
            "class index (.cls) and metadata (.json), as make-c --format webdataset writes them. A "
            "CIFAR-10-C folder (<corruption>.npy + labels.npy) gives lossless .png samples. "
            "Resumable: re-run the same command after an interruption."
        ),
    )
    p.add_argument("src", help="ImageNet-C style folder, or CIFAR-10-C folder with labels.npy")
    p.add_argument("out", help="output folder (new, empty, or an earlier run of this conversion)")
    p.add_argument("--to", choices=("webdataset",), default="webdataset", help="output format")
    p.add_argument(
        "--shard-size",
        type=int,
        default=None,
        metavar="N",
        help="samples per shard (default: images per cell / 64, within 100..1000, as make-c)",
    )
    add_list_argument(
        p,
        "--corruptions",
        default=None,
        metavar="NAME",
        help="corruption names and subsets (default: every corruption folder present)",
    )
    add_list_argument(
        p, "--severities", default=["1-5"], metavar="S", help="severities, e.g. 1-5 (default), 3"
    )
    p.add_argument("--strict", action="store_true", help="exit non-zero if any file was skipped")
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress display (a bar on a terminal, else a line every ~10 s or 5 %%)",
    )
    p.set_defaults(func=run, on_interrupt=build_interrupted)


def run(args: argparse.Namespace) -> int:
    from ..builders.convert import convert, format_convert_summary

    names = None if args.corruptions is None else parse_names(args.corruptions, "c")
    summary = convert(
        args.src,
        args.out,
        to=args.to,
        corruptions=names,
        severities=parse_levels(args.severities, "c"),
        shard_size=args.shard_size,
        progress="off" if args.no_progress else "auto",
    )
    print(printable(format_convert_summary(summary), keep_newlines=True))
    if args.strict and summary.skipped:
        print(f"--strict: {len(summary.skipped)} file(s) skipped", file=sys.stderr)
        return 1
    return 0

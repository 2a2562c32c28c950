"""``corruptbench make-c SRC OUT``: build an ImageNet-C style dataset (all 19 corruptions x 5
severities by default) from an image folder or a CIFAR python batch. See :mod:`corruptbench.build`."""

from __future__ import annotations

import argparse
import os
import sys

from .. import build as engine

PROFILES = ("imagenet", "inception", "tiny", "cifar")


def parse_levels(text: str, lo: int, hi: int, what: str) -> list[int]:
    """``"1-5"`` / ``"1,3,5"`` / ``"2"`` -> sorted unique ints within [lo, hi]."""
    out: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        try:
            if "-" in part:
                a, b = (int(x) for x in part.split("-", 1))
                out.update(range(a, b + 1))
            else:
                out.add(int(part))
        except ValueError:
            raise ValueError(f"bad {what} list {text!r} (use e.g. 1-5 or 1,3,5)") from None
    bad = sorted(v for v in out if not lo <= v <= hi)
    if bad or not out:
        raise ValueError(f"{what} must be in {lo}..{hi}, got {text!r}")
    return sorted(out)


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


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seed", type=int, default=0, help="base seed of the per-item seeds (default 0)"
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="local worker processes (default: all available cores; 1 = in-process); with --ray auto: CPUs for the local Ray",
    )
    p.add_argument(
        "--ray",
        default=None,
        metavar="auto|ADDRESS",
        help="run shards as Ray tasks: 'auto' = ray.init() (local, or the cluster in RAY_ADDRESS), or a cluster address; OUT must be shared",
    )
    p.add_argument(
        "--limit", type=int, default=None, help="only the first N source images (sorted order)"
    )
    p.add_argument("--strict", action="store_true", help="exit non-zero if any input was skipped")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


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
        choices=PROFILES,
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
    p.add_argument(
        "--corruptions",
        default="all",
        help="all (default) | benchmark | extra | noise|blur|weather|digital | name,name,...",
    )
    p.add_argument("--severities", default="1-5", help="e.g. 1-5 (default), 3, 1,3,5")
    p.add_argument(
        "--quality", type=int, default=85, help="JPEG quality (default 85, as ImageNet-C)"
    )
    add_common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    fmt = args.fmt or ("npy" if args.profile == "cifar" else "jpeg")
    names = parse_corruptions(args.corruptions)
    sevs = parse_levels(args.severities, 1, 5, "severities")
    return execute("c", args, fmt=fmt, names=names, levels=sevs, quality=args.quality)


def execute(kind: str, args: argparse.Namespace, **kwargs: object) -> int:
    workers = args.workers if args.workers is not None else default_workers()
    if workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    summary = engine.build(
        kind,
        args.src,
        args.out,
        profile=args.profile,
        seed=args.seed,
        workers=workers,
        ray=args.ray,
        limit=args.limit,
        progress=not args.no_progress and sys.stderr.isatty(),
        **kwargs,  # type: ignore[arg-type]
    )
    print(engine.format_summary(summary))
    if summary.failed:
        return 1
    if args.strict and summary.skipped:
        print(f"--strict: {len(summary.skipped)} input(s) skipped", file=sys.stderr)
        return 1
    return 0

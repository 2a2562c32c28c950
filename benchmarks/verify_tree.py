"""Files per second of ``corruptbench verify`` on a make-c build of the shared photos.

Usage::

    python benchmarks/verify_tree.py [BUILD] [--rounds 3] [--decode]

BUILD is an existing make-c folder build (e.g. ``make-c ../shared/data/imagenet-sample OUT``,
500 photos x 19 x 5 = 47,500 JPEGs). Without it, one is built into a temporary folder from the
first 100 shared photos with the four digital corruptions (2,000 JPEGs). Each round runs
``verify`` in this process with the page cache warm (the first, untimed pass reads the tree; the
cache is never dropped: the machine is shared), and prints files/s of the cheap checks and, with
``--decode``, of the full decode; the table gives the best and median round.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import _common  # the shared paths (and the single-thread set-up)
from corruptbench.verify import format_report, verify

_SAMPLE = _common.SHARED / "data" / "imagenet-sample"


def _small_build(tmp: Path) -> Path:
    from corruptbench.builders import build

    if not _SAMPLE.is_dir():
        sys.exit(f"no BUILD given and {_SAMPLE} is absent")
    src = tmp / "src"
    src.mkdir()
    for f in sorted(_SAMPLE.iterdir())[:100]:
        shutil.copy(f, src / f.name)
    out = tmp / "out"
    names = ["contrast", "elastic_transform", "pixelate", "jpeg_compression"]
    build(
        "c",
        src,
        out,
        profile="imagenet",
        fmt="jpeg",
        names=names,
        levels=[1, 2, 3, 4, 5],
        seed=0,
        workers=1,
        progress=False,
    )
    return out


def _rates(root: Path, rounds: int, decode: bool) -> tuple[int, list[float]]:
    verify(root, decode=decode, progress_mode="off")  # warm the page cache
    rates = []
    files = 0
    for _ in range(rounds):
        report = verify(root, decode=decode, progress_mode="off")
        if not report.ok:
            sys.exit(format_report(report))
        files = report.files_checked
        rates.append(report.files_per_second)
    return files, rates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", nargs="?", default=None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--decode", action="store_true", help="also time --decode")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.build) if args.build else _small_build(Path(tmp))
        print(f"verify {root} ({args.rounds} rounds, warm page cache, one process)")
        print(f"{'mode':<8} {'files':>8} {'best files/s':>13} {'median files/s':>15}")
        for mode in ["cheap", *(["decode"] if args.decode else [])]:
            files, rates = _rates(root, args.rounds, mode == "decode")
            print(f"{mode:<8} {files:>8} {max(rates):>13,.0f} {statistics.median(rates):>15,.0f}")


if __name__ == "__main__":
    main()

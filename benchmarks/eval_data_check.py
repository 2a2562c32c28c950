"""What eval-c's check that every cell holds the same, undamaged images costs when it opens an
ImageNet-C folder (:mod:`corruptbench.evaluation.layouts.same_images`).

Usage::

    python benchmarks/eval_data_check.py [--per-cell 100] [--rounds 3]

Writes a synthetic ImageNet-C tree (19 corruptions x 5 severities, ``--per-cell`` copies of one
shared photo per cell in 10 classes) into a temporary folder, then opens it as eval-c does
(:func:`~corruptbench.evaluation.layouts.open_c_layout`: scan, fingerprints, and the checks)
with the checks and with them switched off, alternating, the page cache warm. Prints the best and
median seconds of each, the files per second, and the ratio (checks on / off).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from unittest import mock

import _common  # the shared paths (and the single-thread set-up)
from corruptbench.corruptions import ALL_CORRUPTIONS
from corruptbench.evaluation.layouts import Selection, imagenet_c, open_c_layout
from corruptbench.formats.imagenet import imagenet_wnids

_SAMPLE = _common.SHARED / "data" / "imagenet-sample"


def _tree(root: Path, per_cell: int) -> int:
    data = sorted(_SAMPLE.iterdir())[0].read_bytes()
    wnids = imagenet_wnids()[:10]
    n = 0
    for name in ALL_CORRUPTIONS:
        for sev in range(1, 6):
            for i in range(per_cell):
                d = root / name / str(sev) / wnids[i % len(wnids)]
                d.mkdir(parents=True, exist_ok=True)
                (d / f"ILSVRC2012_val_{i:08d}.JPEG").write_bytes(data)
                n += 1
    return n


def _open(root: Path) -> float:
    sel = Selection(list(ALL_CORRUPTIONS), [1, 2, 3, 4, 5])
    t0 = time.perf_counter()
    open_c_layout(root, sel, 1000, "imagenet")
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-cell", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = _tree(root, args.per_cell)
        _open(root)  # warm the page cache
        on: list[float] = []
        off: list[float] = []
        for _ in range(args.rounds):
            on.append(_open(root))
            with (
                mock.patch.object(imagenet_c, "_damaged", lambda *a: []),
                mock.patch.object(imagenet_c, "check_same_images", lambda *a, **k: None),
                mock.patch.object(imagenet_c, "check_build_counts", lambda *a, **k: None),
            ):
                off.append(_open(root))
    print(
        f"eval-c opening an ImageNet-C folder of {files:,} files (95 cells), {args.rounds} rounds"
    )
    print(f"{'':<16}{'best s':>9}{'median s':>10}{'files/s':>12}")
    for label, ts in (("checks on", on), ("checks off", off)):
        best = min(ts)
        print(f"{label:<16}{best:>9.2f}{statistics.median(ts):>10.2f}{files / best:>12,.0f}")
    print(f"ratio on / off (best): {min(on) / min(off):.2f}")


if __name__ == "__main__":
    main()

"""Throughput of ``make-c --layout tree`` at COCO size: images per core-second for every image
corrupted at its own size (no resize, no crop; the COCO-C convention), JPEG decode of the source,
the corruptions x 5 severities and the JPEG encodes + atomic writes included.

Usage::

    .venv/bin/python benchmarks/make_c_tree.py                          # 6 photos at 640 x 480, 1 worker
    .venv/bin/python benchmarks/make_c_tree.py --size 640x480 --images 8 --rounds 3 \
        --corruptions all,benchmark --json make_c_tree.json

The source is a ``val2017/``-like folder of real photos (``../shared/data/imagenet-sample``)
resized to W x H with bicubic resampling and saved as JPEG q90 (COCO val2017 images are 640 px on
the long side, most 640 x 480 or 480 x 640). Outputs are JPEGs at the source's own quality (90).

Runs :func:`corruptbench.builders.build_tree` with ``workers=1`` (in this process, as
``make-c --layout tree --workers 1``). The figure is images per CPU-second of the build
(``time.process_time`` around each build, so it stays meaningful on a shared machine); each round
builds every subset once, interleaved, and the table gives the median and the range over rounds.
A warm-up build of one image first loads the numba caches, frost textures and imports; it is not
timed. Speed of the ImageNet layout: ``benchmarks/make_c.py``.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402

cv2.setNumThreads(1)

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO.parent / "shared" / "data" / "imagenet-sample"
COCO_VAL = 5_000  # images in COCO val2017


def make_source(dst: Path, n: int, width: int, height: int) -> None:
    """Write ``n`` real photos resized to ``width`` x ``height`` as JPEG q90 into ``dst/val2017``."""
    from PIL import Image

    (dst / "val2017").mkdir(parents=True)
    for i, f in enumerate(sorted(SAMPLE.iterdir())[:n]):
        with Image.open(f) as im:
            im = im.convert("RGB").resize((width, height), Image.Resampling.BICUBIC)
            im.save(dst / "val2017" / f"{i:012d}.jpg", quality=90)


def time_tree(src: Path, out: Path, corruptions: str) -> dict[str, float]:
    """Build ``src`` into ``out`` with one worker in this process; CPU and wall seconds."""
    from corruptbench.builders import build_tree

    c0, t0 = time.process_time(), time.perf_counter()
    s = build_tree(src, out, corruptions=corruptions, workers=1)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    assert not s.failed and not s.skipped, (s.failed, s.skipped)
    return {"images": s.processed, "outputs": s.written, "cpu_seconds": cpu, "seconds": wall}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="640x480", help="W x H of the source images (640x480)")
    ap.add_argument("--images", type=int, default=6, help="number of real photos (default 6)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    ap.add_argument(
        "--corruptions",
        default="all,benchmark",
        help="comma-separated subsets to time: all (19), benchmark (the 15 of COCO-C), a family",
    )
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    subsets = [c.strip() for c in args.corruptions.split(",") if c.strip()]
    if not SAMPLE.is_dir():
        print(f"benchmark needs real photos: {SAMPLE} is absent", file=sys.stderr)
        return 2

    from corruptbench import get_corruption_names
    from corruptbench.builders import build_tree

    work = Path(tempfile.mkdtemp(prefix="corruptbench-bench-tree-"))
    try:
        make_source(work / "src", args.images, width, height)
        make_source(work / "warm-src", 1, width, height)
        build_tree(work / "warm-src", work / "warm-out", corruptions="all", workers=1)

        runs: dict[str, list[dict[str, float]]] = {c: [] for c in subsets}
        for r in range(args.rounds):
            for c in subsets:
                out = work / f"out-{c}-{r}"
                runs[c].append(time_tree(work / "src", out, c))
                shutil.rmtree(out)

        print(
            f"make-c --layout tree at {width} x {height} (native size), {args.images} real photos "
            f"(JPEG q90 in, q90 out; decode + corruption + JPEG encode incl.), 5 severities, 1 worker,"
            f" median [min-max] of {args.rounds} interleaved rounds"
        )
        print(f"{'subset':>10} {'corr.':>5} {'img/core-s':>22} {'cpu s/img':>9} {'core-h 5k':>9}")
        results = []
        for c in subsets:
            rates = [x["images"] / x["cpu_seconds"] for x in runs[c]]
            med = statistics.median(rates)
            results.append(
                {
                    "subset": c,
                    "corruptions": len(get_corruption_names(c)),
                    "images_per_core_second": round(med, 3),
                    "min": round(min(rates), 3),
                    "max": round(max(rates), 3),
                    "core_hours_coco_val": round(COCO_VAL / med / 3600, 3),
                    "runs": runs[c],
                }
            )
            print(
                f"{c:>10} {len(get_corruption_names(c)):>5} "
                f"{med:>9.3f} [{min(rates):.3f}-{max(rates):.3f}] {1 / med:>9.2f} "
                f"{COCO_VAL / med / 3600:>9.2f}"
            )
        print(
            f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
            "(CPU time is robust to load, but a loaded machine still slows each core)"
        )
        if args.json:
            Path(args.json).write_text(
                json.dumps(
                    {"size": [width, height], "images": args.images, "results": results}, indent=2
                )
                + "\n"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Throughput of ``make-c``: images per core-second for the full 19 corruptions x 5 severities at
224 px, including JPEG decode of the source, Resize(256)+CenterCrop(224), the 95 corruptions and
the 95 JPEG q85 encodes + atomic writes. Extrapolates the core-hours for the 50,000 ImageNet
validation images (the reference needed about 68 core-hours: spec §1, 4.5 s per image for the 15
benchmark corruptions on one thread, ~4.9 s with the 4 extra ones, x 50,000).

Usage::

    .venv/bin/python benchmarks/make_c.py                     # 10 real images, 1 and 2 workers
    .venv/bin/python benchmarks/make_c.py --images 20 --workers 1,2 --json make_c.json

Runs :func:`corruptbench.build.build` exactly as the CLI does (``--workers 1`` runs in this process,
more workers are a process pool with one thread each). The per-core figure uses the CPU time the
workers report (``time.process_time`` per shard), so it stays meaningful on a shared machine; the
wall-clock speed-up needs an idle one. A warm-up build on one image first loads the
numba caches, frost textures and imports; it is not timed. Images come from
``../shared/data/imagenet-sample`` (real ImageNet JPEGs, short side ~256).

Layout: the ImageNet validation set has 50 images in each of its 1,000 class folders, so make-c
creates each of the 95 output folders of a class once per 50 images. By default
(``--per-class 50``) the benchmark places its images in class folders of up to 50 images, as in the
real source, so folder creation is charged as in the real run; ``--per-class 1`` puts every image
in its own class (the worst case: 95 new folders per image, ~10-20 ms more per image on this disk).
The labels of the photos play no part in make-c's jpeg output.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402

cv2.setNumThreads(1)

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO.parent / "shared" / "data" / "imagenet-sample"
REFERENCE_CORE_HOURS = 68.0
TARGET_CORE_HOURS = 3.0
N_VAL = 50_000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--images", type=int, default=10, help="number of real images (default 10)")
    ap.add_argument("--workers", default="1,2", help="worker counts to time, e.g. 1,2 (default)")
    ap.add_argument(
        "--per-class",
        type=int,
        default=50,
        help="images per class folder (ImageNet val: 50, the default; 1: worst case)",
    )
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    if not SAMPLE.is_dir():
        print(f"benchmark needs real photos: {SAMPLE} is absent", file=sys.stderr)
        return 2

    from corruptbench import ALL_CORRUPTIONS
    from corruptbench.build import build

    names = list(ALL_CORRUPTIONS)
    work = Path(tempfile.mkdtemp(prefix="corruptbench-bench-"))
    try:
        src = work / "src"
        src.mkdir()
        files = sorted(SAMPLE.iterdir())[: args.images]
        per_class = max(1, args.per_class)
        for i, f in enumerate(files):
            wnid = files[i - i % per_class].name.split("_")[0]  # ImageNet val layout <wnid>/<file>
            (src / wnid).mkdir(exist_ok=True)
            (src / wnid / f.name).symlink_to(f)
        warm = work / "warm-src"
        warm.mkdir()
        (warm / files[0].name).symlink_to(files[0])
        build(
            "c",
            warm,
            work / "warm-out",
            profile="imagenet",
            fmt="jpeg",
            names=names,
            levels=[1, 2, 3, 4, 5],
            workers=1,
            progress=False,
        )

        results = []
        for w in (int(x) for x in args.workers.split(",")):
            out = work / f"out-{w}"
            t0 = time.perf_counter()
            s = build(
                "c",
                src,
                out,
                profile="imagenet",
                fmt="jpeg",
                names=names,
                levels=[1, 2, 3, 4, 5],
                workers=w,
                progress=False,
            )
            dt = time.perf_counter() - t0
            assert not s.failed and not s.skipped, (s.failed, s.skipped)
            # CPU time of the workers (robust when the machine is shared) and wall-clock figures
            per_core_s = s.processed / s.cpu_seconds
            core_hours = N_VAL / per_core_s / 3600
            results.append(
                {
                    "workers": w,
                    "images": s.processed,
                    "outputs": s.written,
                    "seconds": round(dt, 3),
                    "images_per_second": round(s.processed / dt, 3),
                    "cpu_seconds": round(s.cpu_seconds, 3),
                    "images_per_core_second": round(per_core_s, 3),
                    "images_per_wall_core_second": round(s.processed / (dt * w), 3),
                    "core_hours_50k": round(core_hours, 3),
                }
            )
        base = results[0]["images_per_second"]
        print(
            f"make-c imagenet 224, 19 corruptions x 5 severities, {args.images} real images (decode + JPEG encode incl.),"
            f" up to {per_class} per class folder"
        )
        print(
            "img/core-s = images per CPU-second of the workers; wall speed-up = img/s vs 1 worker"
        )
        print(
            f"{'workers':>7} {'wall s':>8} {'cpu s':>8} {'img/s':>7} {'img/core-s':>10} {'wall speed-up':>13} {'core-h 50k':>10}"
        )
        for r in results:
            print(
                f"{r['workers']:>7} {r['seconds']:>8.2f} {r['cpu_seconds']:>8.2f} {r['images_per_second']:>7.2f}"
                f" {r['images_per_core_second']:>10.3f} {r['images_per_second'] / base:>13.2f} {r['core_hours_50k']:>10.2f}"
            )
        print(
            f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall figures need an idle machine)"
        )
        best = results[0]["core_hours_50k"]
        print(
            f"single-worker extrapolation: {best:.2f} core-hours for 50,000 images "
            f"(target < {TARGET_CORE_HOURS:g}; reference ~{REFERENCE_CORE_HOURS:g}: {REFERENCE_CORE_HOURS / best:.0f}x)"
        )
        if args.json:
            Path(args.json).write_text(
                json.dumps(
                    {"results": results, "images": args.images, "per_class": per_class}, indent=2
                )
                + "\n"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

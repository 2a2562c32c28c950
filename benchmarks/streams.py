"""Test-time-adaptation streams: images per second per core for each setting at 224 and 32 px.

For each setting (canonical order, severity 5; gradual 1..5..1): the time to build the stream
(open the data, order every block) and the process CPU time of ``--images`` images read as
batches of 2 spread evenly over the stream (``workers=0``: one core), corrupted on the fly from real photos
(../shared/data/imagenet-sample at 224, prepared as make-c does; ../shared/data/cifar10-test at
32), as ``eval-stream --on-the-fly`` feeds a model. Images per CPU-second is images per second
per core: ``W`` workers give about ``W`` times that (the pixels do not depend on ``W``).
``--gpu-rate R`` (a model's images per second on its GPU, e.g. a ResNet-50 measured there)
prints how many cores keep it busy: ``R / rate``.

    python benchmarks/streams.py                 # small: 12 images per setting and size
    python benchmarks/streams.py --images 200    # large
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import _common  # noqa: F401  (single-thread set-up first)
from corruptbench.evaluation.layouts import OnTheFly
from corruptbench.streams import SETTINGS, stream

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def _source(size: int) -> tuple[OnTheFly, str]:
    folder = SHARED / ("imagenet-sample" if size == 224 else "cifar10-test")
    if folder.is_dir():
        return OnTheFly(str(folder)), str(folder)
    rs = np.random.RandomState(0)
    images = rs.randint(0, 256, size=(64, size, size, 3), dtype=np.uint8)
    return OnTheFly(images, labels=np.arange(64) % 10), f"64 random {size} px images (no ../shared)"


def _measure(setting: str, size: int, images: int) -> tuple[float, float, int]:
    data, _ = _source(size)
    dataset = "imagenet_c" if size == 224 else "cifar10_c"
    kwargs = {"rounds": 2} if SETTINGS[setting].recurring else {}
    t0 = time.perf_counter()
    st = stream(data, dataset, setting, image_list="data", batch_size=2, **kwargs)
    build = time.perf_counter() - t0
    # batches of 2 spread evenly over the stream: every part of the order is sampled
    total = st.num_batches()
    picks = sorted({int(k) for k in np.linspace(0, total - 1, max(1, images // 2))})
    done = 0
    c0 = time.process_time()
    for k in picks:
        done += len(next(st.batches(start=k)).labels)
    cpu = time.process_time() - c0
    return build, done / cpu if cpu > 0 else float("inf"), len(st)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--images", type=int, default=12, help="images read per setting and size")
    ap.add_argument("--sizes", default="224,32")
    ap.add_argument("--settings", default=",".join(SETTINGS))
    ap.add_argument(
        "--gpu-rate",
        type=float,
        default=None,
        metavar="R",
        help="a model's images/s on its GPU: print the cores that keep it busy",
    )
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    for size in sizes:
        print(f"{size} px: {_source(size)[1]}, {args.images} images per setting")
    print(
        f"{'setting':<28} {'px':>4} {'samples':>9} {'build s':>8} {'img/s/core':>11}"
        + ("  cores for GPU" if args.gpu_rate else "")
    )
    for setting in args.settings.split(","):
        for size in sizes:
            build, rate, n = _measure(setting, size, args.images)
            line = f"{setting:<28} {size:>4} {n:>9,} {build:>8.2f} {rate:>11.1f}"
            if args.gpu_rate:
                line += f"  {args.gpu_rate / rate:>13.1f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()

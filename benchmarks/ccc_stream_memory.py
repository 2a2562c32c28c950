"""A CCC run made on the fly with worker processes: peak memory and the first batch's wait against
the shard size, this version and (``--against``) another checkout's, in the same run.

Usage::

    .venv/bin/python benchmarks/ccc_stream_memory.py                       # shards of 300 and 1,200
    .venv/bin/python benchmarks/ccc_stream_memory.py --shards 300,1500,3000 --workers 2
    .venv/bin/python benchmarks/ccc_stream_memory.py --against /tmp/old/src   # a previous version
    .venv/bin/python benchmarks/ccc_stream_memory.py --backend torch

Each case runs in a fresh Python process (``PYTHONPATH`` = this checkout's ``src`` or the
``--against`` one): a :class:`~corruptbench.ccc.runs.CCCStream` of three shards of ``S`` images
(steps of 300 of the test photos, ``fog`` + ``contrast`` at 1 + 1) read as batches of 64 with
``--workers`` processes, NumPy backend (``--backend torch``: the corruptions on torch's CPU
device, the crops in the workers). Printed per case: images per second (wall clock), the
seconds to the first batch, and the peak resident set (``ru_maxrss``) of the consuming process
and of the largest worker. A full run's shards hold 25,000 images (26,000 at speed 2000): what
grows with ``S`` here grows ~20x more there.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PHOTOS = REPO.parent / "shared" / "data" / "imagenet-sample"

CHILD = r"""
import json, resource, sys, time
from corruptbench.ccc.generate import scan_source
from corruptbench.ccc.plan import RunPlan, Step, group_shards
from corruptbench.ccc.runs import CCCStream

per, workers, folder, backend = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
speed = 300
steps = [Step(k, "fog", "contrast", 1.0, 1.0) for k in range(3 * per // speed)]
plan = RunPlan(20.0, speed, 0, 3 * per, per, (), group_shards(steps, speed, per))
stream = CCCStream(plan, scan_source(folder), backend=backend)
t0 = time.perf_counter()
first, n = None, 0
for b in stream.batches(64, workers=workers):
    first = time.perf_counter() - t0 if first is None else first
    n += len(b.labels)
wall = time.perf_counter() - t0
mb = lambda who: resource.getrusage(who).ru_maxrss / 1024
print(json.dumps({"images": n, "rate": n / wall, "first": first,
                  "self_mb": mb(resource.RUSAGE_SELF), "worker_mb": mb(resource.RUSAGE_CHILDREN)}))
"""


def run_case(src: str, per: int, workers: int, backend: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=src, OMP_NUM_THREADS="1")
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(per), str(workers), str(PHOTOS), backend],
        env=env, capture_output=True, text=True, check=True, cwd="/",
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shards", default="300,1200", help="images per shard, comma-separated")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--against", help="another checkout's src folder, run in the same loop")
    parser.add_argument(
        "--backend", choices=("numpy", "torch"), default="numpy", help="the stream's corruptions"
    )
    args = parser.parse_args()
    if not PHOTOS.is_dir():
        print(f"needs the test photos at {PHOTOS}")
        return 1
    versions = [("this", str(REPO / "src"))] + ([("against", args.against)] if args.against else [])
    print(
        f"{'version':8s} {'shard':>6s} {'images/s':>9s} {'first s':>8s} {'self MB':>8s} {'worker MB':>10s}"
    )
    for per in (int(x) for x in args.shards.split(",")):
        for name, src in versions:
            r = run_case(src, per, args.workers, args.backend)
            print(
                f"{name:8s} {per:6d} {r['rate']:9.0f} {r['first']:8.1f} {r['self_mb']:8.0f} "
                f"{r['worker_mb']:10.0f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

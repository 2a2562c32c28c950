"""What do calibration statistics cost per image, next to what eval-c already does with the logits?

For batches of float32 logits ``(batch, classes)`` (ImageNet: 1000 classes) times, single-threaded,
in interleaved rounds (median of the rounds):

* ``argmax``: ``(logits.argmax(1) == labels).sum()``, eval-c's own per-batch work today;
* ``update``: :meth:`CalibrationStats.update` (float64 log-softmax, NLL, Brier, confidence, ranks,
  bins, exact integer sums);
* ``merge``: merging two cells' statistics and their ``to_dict`` / ``from_dict`` round trip.

It prints microseconds per image and the ratio update / argmax; for scale, EfficientNet-Lite0's
forward pass takes a few milliseconds per image on one CPU core.

Usage: ``python benchmarks/calibration.py [--batch 64] [--classes 1000] [--rounds 7]``
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import _common  # noqa: F401  (single-threaded set-up first)
from corruptbench.metrics.calibration import CalibrationStats


def _timed(fn, repeat: int) -> float:
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=20, help="calls per round")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    logits = rng.normal(0, 3, size=(args.batch, args.classes)).astype(np.float32)
    labels = rng.integers(0, args.classes, size=args.batch)
    stats = CalibrationStats(30)

    def argmax() -> int:
        return int((logits.argmax(1) == labels).sum())

    def update() -> None:
        stats.update(logits, labels)

    other = CalibrationStats(30).update(logits, labels)

    def merge_json() -> None:
        CalibrationStats.from_dict((stats.copy().merge(other)).to_dict())

    times: dict[str, list[float]] = {"argmax": [], "update": [], "merge + JSON": []}
    for _ in range(args.rounds):  # interleaved: the machine's drift hits all alike
        times["argmax"].append(_timed(argmax, args.repeat) / args.batch)
        times["update"].append(_timed(update, args.repeat) / args.batch)
        times["merge + JSON"].append(_timed(merge_json, args.repeat))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"batch {args.batch} x {args.classes} classes, float32 logits, 1 thread, "
        f"median of {args.rounds} rounds of {args.repeat} calls"
    )
    print(f"  argmax (eval-c today)   {1e6 * med['argmax']:8.2f} us / image")
    print(
        f"  CalibrationStats.update {1e6 * med['update']:8.2f} us / image   "
        f"({med['update'] / med['argmax']:.1f}x argmax)"
    )
    print(f"  merge + to/from_dict    {1e6 * med['merge + JSON']:8.2f} us / cell")


if __name__ == "__main__":
    main()

"""Single-thread timing of every ImageNet-P perturbation sequence.

Usage::

    .venv/bin/python benchmarks/perturbations.py                      # imagenet profile, 5 repeats
    .venv/bin/python benchmarks/perturbations.py --profiles imagenet tiny cifar inception
    .venv/bin/python benchmarks/perturbations.py --repeats 10 --json perturb_timings.json

For each profile prints milliseconds per ``corruptbench.perturb`` call (one whole sequence, all
frames, from the full source image: the minimum over ``--repeats`` timed calls after one untimed
warm-up call, which also absorbs numba compilation) as wall time and as process CPU time (the
better figure on a busy machine), the number of frames, and the total for the 14 perturbations.
Sequences whose CPU time exceeds the 300 ms target are marked. The source is a real ImageNet
photo (500 x 375 -> Resize(256) = 341 x 256) when /work/shared is present, otherwise a synthetic
341 x 256 image; the cifar profile uses a 32 x 32 CIFAR-10 test image (or a synthetic one).

Everything runs on one thread: ``OMP/OPENBLAS/MKL/NUMBA_NUM_THREADS=1`` are set before NumPy,
OpenCV and numba load, and ``cv2.setNumThreads(1)``.
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import CIFAR_DIR, PHOTO, synthetic  # isort: split

import argparse
import json
import time
from pathlib import Path

import numpy as np
from PIL import Image

from corruptbench.perturbations import ALL_PERTURBATIONS, EXTRA_PERTURBATIONS, perturb

TARGET_MS = 300.0


def source_image(profile: str) -> tuple[np.ndarray, str]:
    if profile == "cifar":
        if CIFAR_DIR.is_dir():
            f = sorted(CIFAR_DIR.iterdir())[0]
            with Image.open(f) as im:
                return np.asarray(im.convert("RGB")), f.name
        return synthetic(32, 32), "synthetic 32x32"
    if PHOTO.is_file():
        with Image.open(PHOTO) as im:
            arr = np.asarray(im.convert("RGB"))
        return arr, f"{PHOTO.name} ({arr.shape[1]}x{arr.shape[0]})"
    return synthetic(256, 341), "synthetic 341x256"


def time_sequence(
    img: np.ndarray, name: str, profile: str, repeats: int
) -> tuple[float, float, int]:
    """Minimum wall and CPU seconds per ``perturb`` call over ``repeats`` calls (after a warm-up).

    The CPU time (``time.process_time``) of this single-threaded process is the better figure on a
    busy machine: it leaves out the time the process waited for a core.
    """
    frames = perturb(img, name, profile=profile, rng=0)
    best = best_cpu = float("inf")
    for k in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        perturb(img, name, profile=profile, rng=k)
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best, best_cpu, frames.shape[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--profiles",
        nargs="+",
        default=["imagenet"],
        choices=["imagenet", "inception", "tiny", "cifar"],
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None, help="also write the timings here")
    args = parser.parse_args(argv)

    results: dict[str, dict[str, float]] = {}
    for profile in args.profiles:
        img, label = source_image(profile)
        print(
            f"\nprofile {profile}: source {label}; ms per sequence (min of {args.repeats}), one thread"
        )
        print(
            f"  {'perturbation':<20} {'frames':>6} {'wall ms':>9} {'cpu ms':>9} {'cpu ms/frame':>13}"
        )
        total = total_cpu = 0.0
        results[profile] = {}
        for name in ALL_PERTURBATIONS:
            secs, cpu, frames = time_sequence(img, name, profile, args.repeats)
            ms, cpu_ms = secs * 1000, cpu * 1000
            total += ms
            total_cpu += cpu_ms
            results[profile][name] = cpu_ms
            results[profile][name + ":wall"] = ms
            flag = "  > target" if cpu_ms > TARGET_MS else ""
            tag = " (val)" if name in EXTRA_PERTURBATIONS else ""
            print(
                f"  {name + tag:<20} {frames:>6} {ms:>9.1f} {cpu_ms:>9.1f} {cpu_ms / frames:>13.2f}{flag}"
            )
        print(f"  {'total (14)':<20} {'':>6} {total:>9.1f} {total_cpu:>9.1f}")
        slow = [n for n, v in results[profile].items() if ":" not in n and v > TARGET_MS]
        print(f"  sequences over {TARGET_MS:.0f} ms: {', '.join(slow) if slow else 'none'}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

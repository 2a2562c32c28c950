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

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

cv2.setNumThreads(1)

from corruptbench.perturbations import ALL_PERTURBATIONS, EXTRA_PERTURBATIONS, perturb  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
PHOTO = SHARED / "data" / "imagenet-sample" / "n01440764_tench.JPEG"
CIFAR_DIR = SHARED / "data" / "cifar10-test" / "airplane"
TARGET_MS = 300.0


def _synthetic(h: int, w: int) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.stack([xx * 255 // max(1, w - 1), yy * 255 // max(1, h - 1), (xx + yy) % 256], axis=2)
    img = img.astype(np.uint8)
    img[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4] = (200, 40, 90)
    return img


def source_image(profile: str) -> tuple[np.ndarray, str]:
    if profile == "cifar":
        if CIFAR_DIR.is_dir():
            f = sorted(CIFAR_DIR.iterdir())[0]
            with Image.open(f) as im:
                return np.asarray(im.convert("RGB")), f.name
        return _synthetic(32, 32), "synthetic 32x32"
    if PHOTO.is_file():
        with Image.open(PHOTO) as im:
            arr = np.asarray(im.convert("RGB"))
        return arr, f"{PHOTO.name} ({arr.shape[1]}x{arr.shape[0]})"
    return _synthetic(256, 341), "synthetic 341x256"


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

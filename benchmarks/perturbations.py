"""Single-thread timing of every ImageNet-P perturbation sequence.

Usage::

    .venv/bin/python benchmarks/perturbations.py                      # imagenet profile, 5 repeats
    .venv/bin/python benchmarks/perturbations.py --profiles imagenet tiny cifar inception
    .venv/bin/python benchmarks/perturbations.py --repeats 10 --json perturb_timings.json

For each profile prints milliseconds per ``corruptbench.perturb`` call (one whole sequence, all
frames, from the full source image: the minimum over ``--repeats`` timed calls after one untimed
warm-up call, which also absorbs numba compilation), the number of frames, and the total for the 14
perturbations. Sequences slower than the 300 ms target are marked. The source is a real ImageNet
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


def time_sequence(img: np.ndarray, name: str, profile: str, repeats: int) -> tuple[float, int]:
    """Minimum seconds per ``perturb`` call over ``repeats`` timed calls (after one warm-up)."""
    frames = perturb(img, name, profile=profile, rng=0)
    best = float("inf")
    for k in range(repeats):
        t0 = time.perf_counter()
        perturb(img, name, profile=profile, rng=k)
        best = min(best, time.perf_counter() - t0)
    return best, frames.shape[0]


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
        print(f"  {'perturbation':<16} {'frames':>6} {'ms':>9} {'ms/frame':>9}")
        total = 0.0
        results[profile] = {}
        for name in ALL_PERTURBATIONS:
            secs, frames = time_sequence(img, name, profile, args.repeats)
            ms = secs * 1000
            total += ms
            results[profile][name] = ms
            flag = "  > target" if ms > TARGET_MS else ""
            tag = " (val)" if name in EXTRA_PERTURBATIONS else ""
            print(f"  {name + tag:<16} {frames:>6} {ms:>9.1f} {ms / frames:>9.2f}{flag}")
        print(f"  {'total (14)':<16} {'':>6} {total:>9.1f}")
        slow = [n for n, v in results[profile].items() if v > TARGET_MS]
        print(f"  sequences over {TARGET_MS:.0f} ms: {', '.join(slow) if slow else 'none'}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

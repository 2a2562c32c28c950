"""CPU cost of ``make-p``: each ImageNet-P sequence (perturbation frames + MP4 encode + atomic write),
and the core-hours of a full build of the 50,000 validation images.

Usage::

    .venv/bin/python benchmarks/make_p.py                 # 3 real images, imagenet profile
    .venv/bin/python benchmarks/make_p.py --images 5 --json make_p.json

For each (perturbation, difficulty) that make-p writes — the 10 test perturbations (gaussian_noise
and shot_noise at difficulties 1, 2 and 3: 14 sequences) and the 4 validation ones (speckle_noise at
1, 2, 3: 6 sequences) — prints the CPU milliseconds per source image of ``perturb`` (the frames, as
``PerturbStep.apply`` computes them from the full source image) and of the MP4 encode and write
(``Mp4TreeWriter.write``: libx264 with the reference's settings, one thread, SSE2: bytes that do
not depend on the machine), after one untimed warm-up round. Totals per image and the
extrapolation to 50,000 images: the test set (what the released ImageNet-P holds) and test +
validation. CPU time of this process (``time.process_time``): the dev machine is shared.
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import SHARED  # isort: split

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

SAMPLE = SHARED / "data" / "imagenet-sample"
N_VAL = 50_000


def _cells() -> list[tuple[str, int]]:
    """Every (perturbation, difficulty) make-p writes: difficulties 2, 3 only for the noise ones."""
    from corruptbench.perturbations import ALL_PERTURBATIONS, NOISE_PERTURBATIONS

    return [
        (n, d) for n in ALL_PERTURBATIONS for d in (1, 2, 3) if d == 1 or n in NOISE_PERTURBATIONS
    ]


def _time_cells(work: Path, n_images: int, cells: list) -> tuple[int, dict, dict]:  # type: ignore[type-arg]
    """CPU ms per source image of the frames and of the MP4 encode + write, per cell, after an
    untimed warm-up round: ``(images, frames_ms, encode_ms)``."""
    from corruptbench.builders.writers import Mp4TreeWriter
    from corruptbench.pipeline import item_step, open_source

    src = work / "src" / "n0"
    src.mkdir(parents=True)
    for f in sorted(SAMPLE.iterdir())[:n_images]:
        (src / f.name).symlink_to(f)
    items = open_source(work / "src").items
    step = item_step("p", "imagenet", 0)
    writer = Mp4TreeWriter(str(work / "out"))
    clock = time.process_time
    frames_ms = dict.fromkeys(cells, 0.0)
    encode_ms = dict.fromkeys(cells, 0.0)
    for rnd in range(2):  # round 0: warm-up (numba cache loads, first x264 calls)
        for it in items:
            img = step.prepare(it)
            for name, level in cells:
                t0 = clock()
                frames = step.apply_item(img, name, level, it.rel)
                t1 = clock()
                writer.write(writer.target(name, level, it.rel), frames, name)
                t2 = clock()
                if rnd:
                    frames_ms[(name, level)] += (t1 - t0) * 1e3 / len(items)
                    encode_ms[(name, level)] += (t2 - t1) * 1e3 / len(items)
    return len(items), frames_ms, encode_ms


def _print_rows(cells: list, frames_ms: dict, encode_ms: dict, n_images: int) -> tuple[list, dict]:  # type: ignore[type-arg]
    """The table per sequence: ``(rows, per-image sums of the test and validation sets)``."""
    from corruptbench.perturbations import TEST_PERTURBATIONS

    print(
        f"make-p imagenet: CPU ms per source image ({n_images} real images), per sequence"
        " written; MP4: libx264 (reference settings, 1 thread, SSE2)"
    )
    print(f"{'sequence':20s} {'set':>10s} {'frames':>8s} {'mp4':>8s} {'total':>8s}")
    sums = {"test": 0.0, "validation": 0.0}
    rows = []
    for name, level in cells:
        kind = "test" if name in TEST_PERTURBATIONS else "validation"
        f, e = frames_ms[(name, level)], encode_ms[(name, level)]
        sums[kind] += f + e
        label = name if level == 1 else f"{name}_{level}"
        rows.append({"sequence": label, "set": kind, "frames_ms": f, "mp4_ms": e})
        print(f"{label:20s} {kind:>10s} {f:8.1f} {e:8.1f} {f + e:8.1f}")
    return rows, sums


def _print_totals(cells: list, frames_ms: dict, encode_ms: dict, sums: dict) -> tuple[float, float]:  # type: ignore[type-arg]
    """Per-image totals and the core-hours of 50,000 images: ``(test, test + validation)``."""
    from corruptbench.perturbations import NOISE_PERTURBATIONS

    frames_total = sum(frames_ms.values())
    encode_total = sum(encode_ms.values())
    noise = sum(frames_ms[c] + encode_ms[c] for c in cells if c[0] in NOISE_PERTURBATIONS) / (
        frames_total + encode_total
    )
    test_h = sums["test"] * N_VAL / 3.6e6
    all_h = (sums["test"] + sums["validation"]) * N_VAL / 3.6e6
    print(
        f"per image: test {sums['test']:.0f} ms (14 sequences), validation"
        f" {sums['validation']:.0f} ms (6); frames {frames_total:.0f} ms, MP4 {encode_total:.0f}"
        f" ms ({100 * encode_total / (frames_total + encode_total):.0f} %); the 9 noise"
        f" sequences: {100 * noise:.0f} % of the time"
    )
    print(
        f"50,000 images: test set {test_h:.1f} core-hours, test + validation {all_h:.1f}"
        f" core-hours (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
    )
    return test_h, all_h


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--images", type=int, default=3, help="number of real images (default 3)")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    if not SAMPLE.is_dir():
        print(f"benchmark needs real photos: {SAMPLE} is absent", file=sys.stderr)
        return 2
    cells = _cells()
    work = Path(tempfile.mkdtemp(prefix="corruptbench-bench-p-"))
    try:
        n_images, frames_ms, encode_ms = _time_cells(work, args.images, cells)
        rows, sums = _print_rows(cells, frames_ms, encode_ms, n_images)
        test_h, all_h = _print_totals(cells, frames_ms, encode_ms, sums)
        if args.json:
            figures = {
                "images": n_images,
                "rows": rows,
                "core_hours_test": test_h,
                "core_hours_all": all_h,
            }
            Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

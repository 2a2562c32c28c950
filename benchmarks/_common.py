"""Shared set-up of the single-thread benchmark scripts (imported first, before NumPy or OpenCV).

Importing this module sets ``OMP/OPENBLAS/MKL/NUMBA_NUM_THREADS=1`` (before NumPy, OpenCV and
numba load) and ``cv2.setNumThreads(1)``, and defines the paths of the test images in
/work/shared and a synthetic stand-in for when it is absent.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

cv2.setNumThreads(1)

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
PHOTO = SHARED / "data" / "imagenet-sample" / "n01440764_tench.JPEG"
CIFAR_DIR = SHARED / "data" / "cifar10-test" / "airplane"


def synthetic(h: int, w: int) -> np.ndarray:
    """A uint8 h x w x 3 test image: colour ramps with a flat block in the middle."""
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.stack([xx * 255 // max(1, w - 1), yy * 255 // max(1, h - 1), (xx + yy) % 256], axis=2)
    img = img.astype(np.uint8)
    img[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4] = (200, 40, 90)
    return img

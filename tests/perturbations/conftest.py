"""Source images of the ImageNet-P tests."""

from __future__ import annotations

import numpy as np
import pytest

from support import PHOTO_NAMES, load_photo


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    """A full-resolution real photo (the source image of a sequence)."""
    return np.asarray(load_photo(PHOTO_NAMES[0]))


@pytest.fixture(scope="module")
def photo2() -> np.ndarray:
    return np.asarray(load_photo(PHOTO_NAMES[1]))


@pytest.fixture(scope="module")
def synth() -> np.ndarray:
    """A non-square synthetic source image (no shared data needed)."""
    yy, xx = np.mgrid[0:150, 0:200]
    img = np.stack([xx * 255 // 199, yy * 255 // 149, (xx + yy) % 256], axis=2).astype(np.uint8)
    img[40:110, 60:140] = (200, 40, 90)
    return img

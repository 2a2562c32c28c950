"""ImageNet-C-bar's distortions (corruptbench.corruptions.cbar_distortion). Byte identity with the
original: test_cbar_reference.py."""

from __future__ import annotations

import numpy as np
import pytest

import corruptbench
from support import cbar_test_images

NAMES = ("pinch_and_twirl", "caustic_refraction", "fish_eye", "water_drop", "ripple")


@pytest.fixture(scope="module")
def images() -> list[np.ndarray]:
    return cbar_test_images()


def test_pinch_and_twirl_cells(images):
    # 3 x 3 cells of S // 3 px: the last row and column of a 32 px image (32 = 3 x 10 + 2) stay
    img = images[0]
    out = corruptbench.corrupt(img, "pinch_and_twirl", 5, profile="cifar", rng=1)
    assert np.array_equal(out[30:], img[30:]) and np.array_equal(out[:, 30:], img[:, 30:])
    assert not np.array_equal(out[:30, :30], img[:30, :30])
    # one twirl direction per cell: 9 choices drawn at 32 px, 12 on a 40 x 72 image (3 + 3 cells
    # of 13 px along the long side)
    for img, cells in ((images[0], 9), (images[2], 3 * 5)):
        rs = np.random.RandomState(4)
        corruptbench.corrupt(img, "pinch_and_twirl", 2, rng=rs)
        ref = np.random.RandomState(4)
        for _ in range(cells):
            ref.choice([1, -1])
        assert rs.uniform() == ref.uniform()


def test_warps_move_pixels_but_keep_the_palette(images):
    img = images[1]
    for name in ("water_drop", "ripple", "fish_eye"):
        out = corruptbench.corrupt(img, name, 5, rng=2)
        assert not np.array_equal(out, img)
        # bilinear resampling (0 outside the image): never brighter than the image
        assert out.max() <= img.max(), name

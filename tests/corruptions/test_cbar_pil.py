"""ImageNet-C-bar's Pillow-based corruptions (corruptbench.corruptions.cbar_pil). Byte identity with
the original: test_cbar_reference.py."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageEnhance

import corruptbench
from support import cbar_test_images

NAMES = ("color_balance", "quadrilateral_no_bars", "perspective_no_bars")


@pytest.fixture(scope="module")
def images() -> list[np.ndarray]:
    return cbar_test_images()


def test_color_balance_is_pillows_enhance(images):
    img = images[0]
    rs = np.random.RandomState(5)
    sign = rs.choice([-1, 1])
    expected = np.array(ImageEnhance.Color(Image.fromarray(img)).enhance(1.0 + sign * 0.2))
    # ImageNet-C-bar level 1 of our choice: 1.0 (factor 1 +- 0.1); CIFAR level 1: 1.0; severity 2
    # of the ImageNet levels (1, 3, 5, 7, 9) is 3.0
    out = corruptbench.corrupt(img, "color_balance", 2, profile="imagenet", rng=5)
    expected = np.array(ImageEnhance.Color(Image.fromarray(img)).enhance(1.0 + sign * 0.3))
    assert np.array_equal(out, expected)


def test_warps_leave_no_bars(images):
    # where the source point falls outside the image, the original pixel shows (no black)
    img = np.full((40, 72, 3), 200, np.uint8)
    for name in ("quadrilateral_no_bars", "perspective_no_bars"):
        for k in range(4):
            out = corruptbench.corrupt(img, name, 5, rng=k)
            assert out.min() >= 199, name
    out = corruptbench.corrupt(images[0], "quadrilateral_no_bars", 5, rng=1)
    assert not np.array_equal(out, images[0])

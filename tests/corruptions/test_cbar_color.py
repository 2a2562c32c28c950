"""ImageNet-C-bar's colour corruptions (corruptbench.corruptions.cbar_color). Byte identity with the
original: test_cbar_reference.py."""

from __future__ import annotations

import numpy as np
import pytest

import corruptbench
from corruptbench.corruptions.cbar_color import dither_table
from support import cbar_test_images

NAMES = ("bleach_bypass", "technicolor", "pseudocolor", "hue_shift", "color_dither")


@pytest.fixture(scope="module")
def images() -> list[np.ndarray]:
    return cbar_test_images()


def test_dither_table():
    # 14 - int(level) levels: 2 levels map to 0 / 255 with the threshold at 128
    t = dither_table(2)
    assert t[127] == 0 and t[128] == 255 and set(t.tolist()) == {0, 255}
    t = dither_table(11)
    assert len(set(t.tolist())) == 11 and t[0] == 0 and t[255] == 255


def test_color_dither_uses_the_levels(images):
    img = images[1]
    for sev, levels in ((1, 11), (5, 3)):  # ImageNet-C-bar levels 3, 11 (ours): 14 - int(level)
        out = corruptbench.corrupt(img, "color_dither", sev, rng=0)
        assert set(np.unique(out).tolist()) <= set(dither_table(levels).tolist())


def test_deterministic_ones_ignore_the_rng(images):
    img = images[0]
    for name in ("bleach_bypass", "technicolor", "color_dither"):
        a = corruptbench.corrupt(img, name, 4, rng=1)
        assert np.array_equal(a, corruptbench.corrupt(img, name, 4, rng=2)), name


def test_hue_shift_keeps_grey_and_turns_colour(images):
    grey = np.full((16, 16, 3), 90, np.uint8)
    assert np.array_equal(corruptbench.corrupt(grey, "hue_shift", 5, rng=1), grey)
    img = images[0]
    assert not np.array_equal(corruptbench.corrupt(img, "hue_shift", 5, rng=1), img)

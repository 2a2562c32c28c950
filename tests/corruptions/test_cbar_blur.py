"""ImageNet-C-bar's blurs (corruptbench.corruptions.cbar_blur). Byte identity with the original:
test_cbar_reference.py."""

from __future__ import annotations

import numpy as np
import pytest

import corruptbench
from support import cbar_test_images

NAMES = (
    "scatter",
    "chromatic_abberation",
    "transverse_chromatic_abberation",
    "circular_motion_blur",
)


@pytest.fixture(scope="module")
def images() -> list[np.ndarray]:
    return cbar_test_images()


def test_circular_motion_blur_draws_nothing_and_blurs_more_with_severity(images):
    img = images[1]
    rs = np.random.RandomState(0)
    a = corruptbench.corrupt(img, "circular_motion_blur", 2, rng=rs)
    assert rs.uniform() == np.random.RandomState(0).uniform()
    b = corruptbench.corrupt(img, "circular_motion_blur", 5, rng=9)
    centre = img.shape[0] // 2
    # the centre barely moves under a rotation about it; the corners move most
    assert np.abs(b.astype(int) - img)[centre, centre].max() <= np.abs(b.astype(int) - img).max()
    assert np.abs(b.astype(int) - img).mean() > np.abs(a.astype(int) - img).mean()


def test_transverse_chromatic_abberation_draws_a_permutation(images):
    # the scales 1, 1 + s / 2 and 1 + s go to the channels in the order of permutation(3)
    img = images[0]
    rs = np.random.RandomState(3)
    corruptbench.corrupt(img, "transverse_chromatic_abberation", 5, profile="cifar", rng=rs)
    ref = np.random.RandomState(3)
    ref.permutation(3)
    assert rs.uniform() == ref.uniform()
    out = corruptbench.corrupt(img, "transverse_chromatic_abberation", 5, profile="cifar", rng=3)
    assert out.shape == img.shape and not np.array_equal(out, img)

"""ImageNet-C-bar's occlusions (corruptbench.corruptions.cbar_obscure). Byte identity with the
original: test_cbar_reference.py."""

from __future__ import annotations

import numpy as np
import pytest

import corruptbench
from support import cbar_test_images

NAMES = ("checkerboard_cutout", "lines", "blue_noise_sample")


@pytest.fixture(scope="module")
def images() -> list[np.ndarray]:
    return cbar_test_images()


def test_checkerboard_greys_some_squares(images):
    for img in images[:3]:
        for sev in (1, 5):
            out = corruptbench.corrupt(img, "checkerboard_cutout", sev, profile="cifar", rng=sev)
            kept = np.all(out == img, axis=2)
            grey = np.all(out == 128, axis=2)
            assert np.all(kept | grey) and grey.any()
    # more squares go grey at higher levels (each kept with probability level / 10)
    img = images[0]
    frac = [
        np.mean(np.all(corruptbench.corrupt(img, "checkerboard_cutout", s, rng=k) == 128, axis=2))
        for s in (1, 5)
        for k in range(8)
    ]
    assert np.mean(frac[8:]) > np.mean(frac[:8])


def test_blue_noise_sample_blacks_out_pixels(images):
    img = images[0]
    prev = 0.0
    for sev in range(1, 6):
        out = corruptbench.corrupt(img, "blue_noise_sample", sev, profile="cifar", rng=3)
        black = np.all(out == 0, axis=2)
        assert np.all(black | np.all(out == img, axis=2))
        assert black.mean() >= prev
        prev = black.mean()
    assert prev > 0.05


def test_lines_blend_towards_grey(images):
    img = images[2]  # non-square: lines end at the image's edges on both axes
    out = corruptbench.corrupt(img, "lines", 5, profile="cifar", rng=7)
    changed = np.any(out != img, axis=2)
    assert changed.any() and not changed.all()
    # a changed value moved towards 128 (or was truncated by one in the blend)
    d_in = np.abs(img.astype(int) - 128)
    d_out = np.abs(out.astype(int) - 128)
    assert np.all(d_out <= d_in + 1)

"""ImageNet-C-bar's additive noises (corruptbench.corruptions.cbar_noise): the corrupt() contract at
any size, and properties of each. Byte identity with the original: test_cbar_reference.py."""

from __future__ import annotations

import numpy as np
import pytest

import corruptbench
from support import cbar_test_images

NAMES = (
    "single_frequency_greyscale",
    "cocentric_sine_waves",
    "plasma_noise",
    "voronoi_noise",
    "caustic_noise",
    "perlin_noise",
    "blue_noise",
    "brownish_noise",
    "sparkles",
    "inverse_sparkles",
)


@pytest.fixture(scope="module")
def images() -> list[np.ndarray]:
    return cbar_test_images()


def test_sparkles_only_brighten_and_inverse_sparkles_whiten_the_edges(images):
    img = images[0]
    for sev in range(1, 6):
        out = corruptbench.corrupt(img, "sparkles", sev, profile="cifar", rng=sev)
        assert np.all(out >= img) and np.any(out > img)
    out = corruptbench.corrupt(img, "inverse_sparkles", 5, profile="cifar", rng=1)
    assert out[0, 0].min() > 200 and out[-1, -1].min() > 200  # white outside the burst


def test_levels_grow_with_severity(images):
    img = images[0]
    for name in ("single_frequency_greyscale", "brownish_noise", "perlin_noise"):
        dist = [
            np.abs(
                corruptbench.corrupt(img, name, s, profile="cifar", rng=4).astype(int) - img
            ).mean()
            for s in (1, 5)
        ]
        assert dist[1] > dist[0] > 0, name

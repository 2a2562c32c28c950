"""The imagenet_c / imagecorruptions drop-in (corruptbench.compat)."""

from __future__ import annotations

import numpy as np
import pytest

import corruptbench
from corruptbench import compat

ALL = corruptbench.ALL_CORRUPTIONS


def _img(h: int = 40, w: int = 48, seed: int = 0) -> np.ndarray:
    return np.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype(np.uint8)


def test_compat_matches_the_reference_call() -> None:
    x = _img(224, 224)
    np.random.seed(3)  # noqa: NPY002 - the legacy global stream is the point
    a = compat.corrupt(x, severity=2, corruption_name="shot_noise")
    np.random.seed(3)  # noqa: NPY002 - the legacy global stream is the point
    b = compat.corrupt(x, severity=2, corruption_number=1)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, corruptbench.corrupt(x, "shot_noise", 2, rng=3))
    assert compat.get_corruption_names() == list(corruptbench.CORRUPTIONS)
    assert compat.get_corruption_names("all") == list(ALL)
    with pytest.raises(ValueError, match="corruption_number"):
        compat.corrupt(x, severity=1, corruption_number=19)
    with pytest.raises(ValueError, match="severity must be in 1..5, got 0"):
        compat.corrupt(x, severity=0, corruption_name="fog")  # the reference silently used 5

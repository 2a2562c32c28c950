"""CCC's interpolated parameters equal SciPy's interp1d over the original's tables."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import interpolate

from corruptbench.ccc.params import CCC_CORRUPTIONS, ccc_params, ccc_table
from corruptbench.errors import ArgumentError

# the original's tables as make_imagenet_c.py of CCC writes them (its own literals)
ORIGINAL = {
    "gaussian_noise": [0.0, 0.08, 0.12, 0.18, 0.26, 0.38],
    "shot_noise": [0, 1 / 60, 1 / 25, 1 / 12, 1 / 5, 1 / 3],
    "impulse_noise": [0, 0.03, 0.06, 0.09, 0.17, 0.27],
    "glass_blur": [(0.0, 0.0, 0.0), (0.7, 1, 2), (0.9, 2, 1), (1, 2, 3), (1.1, 3, 2), (1.5, 4, 2)],
    "defocus_blur": [(0.0, 0.0), (3, 0.1), (4, 0.5), (6, 0.5), (8, 0.5), (10, 0.5)],
    "motion_blur": [(0.0, 0.0), (10, 3), (15, 5), (15, 8), (15, 12), (20, 15)],
    "zoom_blur": [
        (1.0, 1.0, 0.01),
        (1, 1.11, 0.01),
        (1, 1.16, 0.01),
        (1, 1.21, 0.02),
        (1, 1.26, 0.02),
        (1, 1.31, 0.03),
    ],
    "fog": [(0.0, 2.0), (1.5, 2), (2, 2), (2.5, 1.7), (2.5, 1.5), (3, 1.4)],
    "frost": [(1.0, 0.0), (1, 0.4), (0.8, 0.6), (0.7, 0.7), (0.65, 0.7), (0.6, 0.75)],
    "snow": [
        (0.1, 0.3, 3, 1.0, 10, 4, 1.0),
        (0.1, 0.3, 3, 0.5, 10, 4, 0.8),
        (0.2, 0.3, 2, 0.5, 12, 4, 0.7),
        (0.55, 0.3, 4, 0.9, 12, 8, 0.7),
        (0.55, 0.3, 4.5, 0.85, 12, 8, 0.65),
        (0.55, 0.3, 2.5, 0.85, 12, 12, 0.55),
    ],
    "contrast": [1.0, 0.4, 0.3, 0.2, 0.1, 0.05],
    "brightness": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5],
    "jpeg": [85, 25, 18, 15, 10, 7],
    "pixelate": [1.0, 0.6, 0.5, 0.4, 0.3, 0.25],
    "elastic": [
        (0, 999, 0),
        (244 * 2, 244 * 0.7, 244 * 0.1),
        (244 * 2, 244 * 0.08, 244 * 0.2),
        (244 * 0.05, 244 * 0.01, 244 * 0.02),
        (244 * 0.07, 244 * 0.01, 244 * 0.02),
        (244 * 0.12, 244 * 0.01, 244 * 0.02),
    ],
}


def test_every_ccc_corruption_has_a_table():
    assert set(ORIGINAL) == set(CCC_CORRUPTIONS)
    for name, rows in ORIGINAL.items():
        np.testing.assert_array_equal(ccc_table(name), np.array(rows, dtype=np.float64))


@pytest.mark.parametrize("name", CCC_CORRUPTIONS)
def test_params_equal_interp1d(name):
    f = interpolate.interp1d([0, 1, 2, 3, 4, 5], ORIGINAL[name], axis=0, kind="linear")
    for s in np.round(np.arange(0, 5.0001, 0.05), 2):
        expected = f(float(s))
        got = ccc_params(name, float(s))
        assert np.array_equal(np.asarray(got, dtype=np.float64), expected), (s, got, expected)


def test_params_are_kept_per_severity_and_handed_out_as_copies():
    # interpolated once per (corruption, severity); a caller changing its array changes nothing
    first = ccc_params("elastic", 1.25)
    first[:] = -1.0
    again = ccc_params("elastic_transform", 1.25)  # the registry's name: the same entry
    assert again.flags.writeable and np.all(again > 0)
    assert np.array_equal(again, ccc_params("elastic", 1.25))


@pytest.mark.parametrize("bad", [-0.25, 5.25, float("nan"), "2", None])
def test_refuses_severity(bad):
    with pytest.raises(ArgumentError, match="severity must be"):
        ccc_params("fog", bad)


def test_refuses_name():
    with pytest.raises(
        ArgumentError, match="name must be one of CCC's corruptions.*got 'speckle_noise'"
    ):
        ccc_params("speckle_noise", 1)

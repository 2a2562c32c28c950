"""The published AlexNet baselines (corruptbench.tables.alexnet) against the published figures.

The table stores only the per-severity errors; these tests hold the numbers published next to
them, written out here: the README's "Average" column (hendrycks/robustness README.md:36-60 at
commits 76d9393..ac836a5, PR #20, also issue #10), a few of its per-severity cells, the reference
order (imagenet_c/__init__.py:5-8 of imagenet-c 0.0.3) and torchvision's documented AlexNet
accuracy (``AlexNet_Weights.IMAGENET1K_V1``: acc@1 56.522).
"""

from __future__ import annotations

import math

import pytest

from corruptbench.tables.alexnet import ALEXNET_C_AVERAGES, ALEXNET_C_ERRORS, ALEXNET_CLEAN_ERROR

#: imagenet_c.corruption_tuple (imagenet_c/__init__.py:5-8)
REFERENCE_ORDER = (
    "gaussian_noise", "shot_noise", "impulse_noise", "defocus_blur", "glass_blur", "motion_blur",
    "zoom_blur", "snow", "frost", "fog", "brightness", "contrast", "elastic_transform", "pixelate",
    "jpeg_compression", "speckle_noise", "gaussian_blur", "spatter", "saturate",
)  # fmt: skip

#: the README's published "Average" column (mean error over severities 1..5)
PUBLISHED_AVERAGES = {
    "gaussian_noise": 0.886428, "shot_noise": 0.894468, "impulse_noise": 0.922640,
    "defocus_blur": 0.819880, "glass_blur": 0.826268, "motion_blur": 0.785948,
    "zoom_blur": 0.798360, "snow": 0.866816, "frost": 0.826572, "fog": 0.819324,
    "brightness": 0.564592, "contrast": 0.853204, "elastic_transform": 0.646056,
    "pixelate": 0.717840, "jpeg_compression": 0.606500, "speckle_noise": 0.845388,
    "gaussian_blur": 0.787108, "spatter": 0.717512, "saturate": 0.658248,
}  # fmt: skip

#: cells of the same table, (corruption, severity) -> error; the non-monotone rows included
PUBLISHED_CELLS = {
    ("gaussian_noise", 1): 0.69528,
    ("impulse_noise", 5): 0.99548,
    ("snow", 2): 0.88392,
    ("snow", 3): 0.86468,  # lower than severity 2, as published
    ("elastic_transform", 3): 0.55686,
    ("brightness", 1): 0.45140,
    ("saturate", 3): 0.51174,  # lower than severity 1, as published
    ("spatter", 5): 0.90182,
}


def test_one_row_per_corruption_in_the_reference_order() -> None:
    assert tuple(ALEXNET_C_ERRORS) == REFERENCE_ORDER
    assert tuple(ALEXNET_C_AVERAGES) == REFERENCE_ORDER
    assert all(len(errs) == 5 for errs in ALEXNET_C_ERRORS.values())


@pytest.mark.parametrize("name", REFERENCE_ORDER)
def test_severities_average_to_the_published_average(name: str) -> None:
    # to 1e-6, so a wrong digit down to the fifth decimal of any severity shows (it moves the
    # mean by at least 2e-6)
    assert math.fsum(ALEXNET_C_ERRORS[name]) / 5 == pytest.approx(
        PUBLISHED_AVERAGES[name], abs=1e-6
    )
    assert ALEXNET_C_AVERAGES[name] == pytest.approx(PUBLISHED_AVERAGES[name], abs=1e-6)


@pytest.mark.parametrize("cell", sorted(PUBLISHED_CELLS))
def test_published_cells(cell: tuple[str, int]) -> None:
    name, severity = cell
    assert ALEXNET_C_ERRORS[name][severity - 1] == PUBLISHED_CELLS[cell]


def test_means_of_the_published_averages() -> None:
    # what the AlexNet-normalised mCE divides by, on average: 15 benchmark corruptions, all 19
    bench = [ALEXNET_C_AVERAGES[n] for n in REFERENCE_ORDER[:15]]
    assert math.fsum(bench) / 15 == pytest.approx(0.788993, abs=1e-6)
    assert math.fsum(ALEXNET_C_AVERAGES.values()) / 19 == pytest.approx(0.781219, abs=1e-6)


def test_clean_error_is_torchvisions_documented_accuracy() -> None:
    assert ALEXNET_CLEAN_ERROR == pytest.approx(1 - 0.56522, abs=1e-12)
    assert round(100 * ALEXNET_CLEAN_ERROR, 1) == 43.5  # as the paper's table rounds it


def test_tables_are_read_only() -> None:
    with pytest.raises(TypeError):
        ALEXNET_C_ERRORS["fog"] = (0.0,) * 5  # type: ignore[index]
    with pytest.raises(TypeError):
        ALEXNET_C_AVERAGES["fog"] = 0.0  # type: ignore[index]

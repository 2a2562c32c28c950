"""The published AlexNet baselines (corruptbench.tables.alexnet)."""

from __future__ import annotations

from corruptbench.corruptions import ALL_CORRUPTIONS
from corruptbench.tables.alexnet import ALEXNET_C_AVERAGES, ALEXNET_C_ERRORS, ALEXNET_CLEAN_ERROR


def test_one_row_per_corruption_in_the_reference_order() -> None:
    assert tuple(ALEXNET_C_ERRORS) == ALL_CORRUPTIONS
    assert all(
        len(errs) == 5 and all(0 < e < 1 for e in errs) for errs in ALEXNET_C_ERRORS.values()
    )
    assert ALEXNET_CLEAN_ERROR == 0.43478


def test_averages_are_the_means_of_the_severities() -> None:
    for name, errs in ALEXNET_C_ERRORS.items():
        assert ALEXNET_C_AVERAGES[name] == sum(errs) / 5.0
    # the published "Average" column (README PR #20), to 1e-6
    assert abs(ALEXNET_C_AVERAGES["gaussian_noise"] - 0.886428) < 1e-6
    assert abs(ALEXNET_C_AVERAGES["saturate"] - 0.658248) < 1e-6

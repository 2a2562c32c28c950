"""What the 30 ImageNet-C-bar corruptions share (corruptbench.corruptions.cbar_common): the
original's parameter helpers, levels, tags, the size rule (the sizes every one takes: the
contract test's ``EXTRA_SIZES``)."""

from __future__ import annotations

import numpy as np

from corruptbench.corruptions import cbar_common
from corruptbench.profiles import PROFILES


def test_parameter_helpers_are_the_originals():
    # corrupt.py: float_parameter(level, maxval) = float(level) * maxval / 10.
    assert cbar_common.float_parameter(2.35, 0.5 * 224) == 2.35 * (0.5 * 224) / 10.0
    assert cbar_common.float_parameter(3, 196) == 58.8
    # int_parameter(level, maxval) = int(level * maxval / 10)
    assert cbar_common.int_parameter(12.0, 10) == 12 and cbar_common.int_parameter(3.7, 10) == 3


def test_levels_come_from_the_profile_s_table():
    assert cbar_common.level_of("sparkles", 2, PROFILES["imagenet"]) == 2.0
    assert cbar_common.level_of("sparkles", 2, PROFILES["tiny"]) == 2.0
    assert cbar_common.level_of("sparkles", 2, PROFILES["cifar"]) == 3.5


def test_tags():
    assert cbar_common.benchmark_tags("sparkles") == ("imagenet_c_bar", "cifar10_c_bar")
    assert cbar_common.benchmark_tags("ripple") == ("cifar10_c_bar",)
    assert cbar_common.benchmark_tags("fish_eye") == ()


def test_short_side():
    assert cbar_common.short_side(np.zeros((40, 72, 3), np.uint8)) == 40

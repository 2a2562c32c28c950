"""The metrics' input checks: forgiving names, rates as fractions."""

from __future__ import annotations

import math

import pytest

from corruptbench.corruptions import ALL_CORRUPTIONS
from corruptbench.metrics.checks import canonical_name, check_rate, mean_present, resolve_name


def test_names() -> None:
    assert canonical_name(" Gaussian-Noise ") == "gaussian_noise"
    assert resolve_name("Motion Blur", ALL_CORRUPTIONS, "corruption") == "motion_blur"
    with pytest.raises(ValueError, match="did you mean 'frost'"):
        resolve_name("frst", ALL_CORRUPTIONS, "corruption")
    with pytest.raises(ValueError, match="known corruptions: gaussian_noise"):
        resolve_name("xyzzy", ALL_CORRUPTIONS, "corruption")
    with pytest.raises(TypeError, match="names must be strings"):
        canonical_name(3)


def test_rates() -> None:
    assert check_rate(0.25, "e", allow_missing=False) == 0.25
    assert check_rate(None, "e", allow_missing=True) is None
    assert check_rate(math.nan, "e", allow_missing=True) is None
    with pytest.raises(ValueError, match="looks like a percentage"):
        check_rate(42.0, "e", allow_missing=False)
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        check_rate(-0.1, "e", allow_missing=False)
    with pytest.raises(TypeError, match="must be a number"):
        check_rate(True, "e", allow_missing=False)
    assert mean_present([None, 0.5, 1.0]) == 0.75 and mean_present([None]) is None

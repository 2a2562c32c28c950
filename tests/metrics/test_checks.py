"""The metrics' input checks: forgiving names, rates as fractions."""

from __future__ import annotations

import math

import pytest

from corruptbench.metrics.checks import check_rate, mean_present


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

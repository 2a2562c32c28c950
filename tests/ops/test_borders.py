"""Border index folding (corruptbench.ops.borders) against NumPy's padding modes."""

from __future__ import annotations

import numpy as np
import pytest

from corruptbench.ops.borders import fold_index

#: our mode -> np.pad's name for it
MODES = {"reflect101": "reflect", "reflect": "symmetric", "nearest": "edge"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "n,before,after", [(1, 2, 3), (2, 5, 0), (5, 2, 2), (7, 20, 13), (16, 3, 40)]
)
def test_fold_index_equals_np_pad(mode: str, n: int, before: int, after: int) -> None:
    idx = fold_index(n, before, after, mode)
    # np.pad folds as often as needed too (and keeps a length-1 axis constant)
    want = np.pad(np.arange(n), (before, after), mode=MODES[mode])
    np.testing.assert_array_equal(idx, want)


def test_unknown_mode() -> None:
    with pytest.raises(ValueError, match="unknown border mode 'wrap'"):
        fold_index(4, 1, 1, "wrap")

"""The seeded subset and labels of class folders (names and cells: tests/test_grid.py)."""

from __future__ import annotations

import pytest

from corruptbench.evaluation import EvalError
from corruptbench.evaluation.common import label_mapper, select_subset
from corruptbench.grid import CLEAN, cell_key


def test_cell_keys_and_subsets() -> None:
    assert cell_key(("fog", 3)) == "fog/3" and cell_key(CLEAN) == "clean"
    keys = [f"k{i}" for i in range(10)]
    assert select_subset(10, keys, None, 0) == list(range(10))
    assert select_subset(10, keys, 20, 0) == list(range(10))
    sub = select_subset(10, keys, 4, 1)
    assert len(sub) == 4 and sub == sorted(sub) and select_subset(10, keys, 4, 1) == sub
    assert select_subset(10, keys, 4, 2) != sub  # another seed, another subset


def test_labels() -> None:
    notes: list[str] = []
    m = label_mapper(["n01440764", "n15075141"], 1000, notes)
    assert m("n15075141") == 999 and "standard ImageNet-1k index" in notes[0]
    m2 = label_mapper(["dog", "cat"], None, notes)
    assert m2("cat") == 0 and m2("dog") == 1 and "index among the 2 sorted" in notes[1]
    with pytest.raises(EvalError, match="the data has 2 classes but the model outputs 1"):
        label_mapper(["dog", "cat"], 1, notes)

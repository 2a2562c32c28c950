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


def test_labels_of_another_label_space_are_refused() -> None:
    # issue 33 item 4: 10 class folders (CIFAR-10's) on a 1000-class model were labelled 0..9
    # by position and scored 100 % error
    cifar = [
        "airplane",
        "automobile",
        "bird",
        "cat",
        "deer",
        "dog",
        "frog",
        "horse",
        "ship",
        "truck",
    ]
    with pytest.raises(
        EvalError, match="the data has 10 classes but the model outputs 1000.*class_map"
    ):
        label_mapper(cifar, 1000, [])
    assert label_mapper(cifar, 10, [])("truck") == 9


def test_label_space_of_integer_labels() -> None:
    from corruptbench.evaluation.common import check_label_space, describe_labels

    assert describe_labels([3, 0, 3]) == "classes {0, 3}"
    assert describe_labels(range(10)) == "classes 0..9"
    assert check_label_space(range(10), 10, "labels.npy") == "classes 0..9"
    assert check_label_space([0, 3], 10, "labels.npy") == "classes {0, 3}"  # sparse: can't tell
    with pytest.raises(
        EvalError, match=r"^labels.npy has classes 0..9 but the model outputs 1000 logits"
    ):
        check_label_space(range(10), 1000, "labels.npy")
    with pytest.raises(EvalError, match="labels.npy has class 12 but the model outputs 10"):
        check_label_space([0, 12], 10, "labels.npy")

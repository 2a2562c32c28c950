"""Cells, the seeded subset, corruption / perturbation name lists, labels of class folders."""

from __future__ import annotations

import pytest

from corruptbench.corruptions import ALL_CORRUPTIONS
from corruptbench.evaluation import EvalError
from corruptbench.evaluation.common import (
    CLEAN,
    cell_key,
    check_names,
    detect_profile,
    label_mapper,
    select_subset,
)
from corruptbench.perturbations import ALL_PERTURBATIONS


def test_cell_keys_and_subsets() -> None:
    assert cell_key(("fog", 3)) == "fog/3" and cell_key(CLEAN) == "clean"
    keys = [f"k{i}" for i in range(10)]
    assert select_subset(10, keys, None, 0) == list(range(10))
    assert select_subset(10, keys, 20, 0) == list(range(10))
    sub = select_subset(10, keys, 4, 1)
    assert len(sub) == 4 and sub == sorted(sub) and select_subset(10, keys, 4, 1) == sub
    assert select_subset(10, keys, 4, 2) != sub  # another seed, another subset


def test_check_names() -> None:
    assert check_names(None, ALL_CORRUPTIONS, "corruption") == list(ALL_CORRUPTIONS)
    assert check_names(["Fog", "gaussian-noise"], ALL_CORRUPTIONS, "corruption") == [
        "gaussian_noise",
        "fog",
    ]
    assert check_names(["extra"], ALL_CORRUPTIONS, "corruption") == list(ALL_CORRUPTIONS[15:])
    assert check_names(["validation"], ALL_PERTURBATIONS, "perturbation") == [
        "speckle_noise",
        "gaussian_blur",
        "spatter",
        "shear",
    ]
    with pytest.raises(EvalError, match="unknown perturbation 'zoom'; did you mean 'zoom_blur'"):
        check_names(["zoom"], ALL_PERTURBATIONS, "perturbation")
    with pytest.raises(EvalError, match="unknown corruption 'xyz'; known: gaussian_noise"):
        check_names(["xyz"], ALL_CORRUPTIONS, "corruption")


def test_labels_and_profiles() -> None:
    notes: list[str] = []
    m = label_mapper(["n01440764", "n15075141"], 1000, notes)
    assert m("n15075141") == 999 and "standard ImageNet-1k index" in notes[0]
    m2 = label_mapper(["dog", "cat"], None, notes)
    assert m2("cat") == 0 and m2("dog") == 1 and "index among the 2 sorted" in notes[1]
    with pytest.raises(EvalError, match="the data has 2 classes but the model outputs 1"):
        label_mapper(["dog", "cat"], 1, notes)
    assert [detect_profile((s, s)) for s in (224, 299, 64, 32, 100)] == [
        "imagenet",
        "inception",
        "tiny",
        "cifar",
        "imagenet",
    ]

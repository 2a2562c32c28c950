"""The ImageNet id lists shipped with the package."""

from __future__ import annotations

from corruptbench.datasets.robustbench import robustbench_image_ids
from corruptbench.streams.idlists import image_list_ids, imagenet_50k_ids
from support import SHARED

REF_LIST = (
    SHARED
    / "reference"
    / "test-time-adaptation"
    / "classification"
    / "datasets"
    / "imagenet_list"
    / "imagenet_val_ids_50k.txt"
)


def test_the_50k_list_is_every_validation_image_once_in_the_references_order() -> None:
    ids = imagenet_50k_ids()
    assert len(ids) == 50000 == len(set(ids))
    assert {int(i.split("_")[-1].split(".")[0]) for i in ids} == set(range(1, 50001))
    assert set(robustbench_image_ids()) <= set(ids)
    assert image_list_ids("robustbench") == robustbench_image_ids()
    if REF_LIST.is_file():
        assert list(ids) == REF_LIST.read_text().splitlines()

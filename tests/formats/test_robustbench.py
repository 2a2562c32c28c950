"""RobustBench's 5,000 ImageNet validation ids, shipped as package data."""

from __future__ import annotations

import hashlib
from importlib import resources

from corruptbench.formats.imagenet import imagenet_wnids
from corruptbench.formats.robustbench import ROBUSTBENCH_IDS_FILE, robustbench_image_ids
from support import SHARED


def test_the_list():
    ids = robustbench_image_ids()
    assert len(ids) == 5000 == len(set(ids))
    assert ids[0] == "n09468604/ILSVRC2012_val_00015253.JPEG"
    wnids = set(imagenet_wnids())
    assert all(i.split("/")[0] in wnids and i.endswith(".JPEG") for i in ids)


def test_shipped_unmodified():
    data = resources.files("corruptbench").joinpath(ROBUSTBENCH_IDS_FILE).read_bytes()
    assert hashlib.md5(data).hexdigest() == "8de8bbba2cf05cb54190e49247375985"
    original = SHARED / "reference/robustbench/imagenet_test_image_ids.txt"
    if original.is_file():
        assert original.read_bytes() == data

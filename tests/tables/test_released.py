"""The released-datasets table: every file has a checksum with its source or says why not."""

from __future__ import annotations

import re

import pytest

from corruptbench.corruptions import ALL_CORRUPTIONS
from corruptbench.download.checks import parse_checksum
from corruptbench.tables.released import IMAGENET_C_PARTS, RELEASED, released_dataset


def test_each_file_has_a_valid_sourced_checksum_or_a_reason():
    for d in RELEASED.values():
        assert d.files and d.default_parts
        for f in d.files:
            assert f.urls and all(u.startswith("https://") for u in f.urls), f.name
            assert bool(f.checksums) != bool(f.unknown), f.name
            for c in f.checksums:
                assert parse_checksum(f"{c.algorithm}:{c.value}", c.source) == c
                assert c.source and "spec" not in c.source
            if f.size is not None:
                assert f.size > 0 and f.size_source


def test_imagenet_c_parts_hold_the_19_corruptions_once():
    held = [c for part in IMAGENET_C_PARTS.values() for c in part]
    assert sorted(held) == sorted(ALL_CORRUPTIONS)
    assert released_dataset("imagenet-c").parts == tuple(IMAGENET_C_PARTS)


def test_the_checksums_that_are_unknown():
    unknown = sorted(f.name for d in RELEASED.values() for f in d.files if not f.checksums)
    assert unknown == ["Tiny-ImageNet-C.tar", "Tiny-ImageNet-P.tar", "imagenet_c_bar.tar.gz"]


def test_names_and_errors():
    assert released_dataset("CIFAR10_C").name == "cifar10-c"
    with pytest.raises(ValueError, match=re.escape("unknown dataset 'x'; known: imagenet-c")):
        released_dataset("x")

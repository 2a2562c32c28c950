"""The one detector (corruptbench.layouts.detect / find), and the deprecated corruptbench.datasets."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

from corruptbench import layouts


def test_detect_each_layout(tmp_path: Path) -> None:
    def at(name: str) -> Path:
        p = tmp_path / name
        p.mkdir()
        return p

    assert layouts.detect(at("empty")) == layouts.Detected(tmp_path / "empty", None, False)
    (at("shards") / "shards.json").write_text("{}")
    np.save(at("cifar") / "labels.npy", np.zeros(5, np.uint8))
    np.save(at("cifarp") / "translate.npy", np.zeros((1, 2, 4, 4, 3), np.uint8))
    (at("inc") / "fog" / "3" / "n01440764").mkdir(parents=True)
    (at("p") / "translate").mkdir()
    (at("tree_and_npy") / "fog" / "3").mkdir(parents=True)
    np.save(tmp_path / "tree_and_npy" / "stray.npy", np.zeros(1))
    found = {p.name: layouts.detect(p).layout for p in tmp_path.iterdir()}
    assert found == {
        "empty": None,
        "shards": "webdataset",
        "cifar": "cifar-c",
        "cifarp": "cifar-p",
        "inc": "tiny-imagenet-c",  # one class folder: at most Tiny ImageNet's 200
        "p": "imagenet-p",
        "tree_and_npy": "imagenet-c",  # a stray array beside a tree: still the tree
    }
    assert set(found.values()) - {None} <= set(layouts.LAYOUT_NAMES)
    (tmp_path / "inc" / "manifest.json").write_text("{}")
    assert layouts.detect(tmp_path / "inc").build


def test_the_layouts_are_found_in_the_package_in_their_order() -> None:
    # a new layout is its module: found by the package, asked in its DETECT_ORDER
    import pkgutil

    mods = [
        importlib.import_module(f"corruptbench.layouts.{m.name}")
        for m in pkgutil.iter_modules(layouts.__path__)
    ]
    with_detect = [m for m in mods if hasattr(m, "detect")]
    assert all(hasattr(m, "DETECT_ORDER") and hasattr(m, "NAME") for m in with_detect)
    ranked = sorted(with_detect, key=lambda m: m.DETECT_ORDER)
    assert layouts.DETECTORS == tuple(m.detect for m in ranked)
    assert len({m.DETECT_ORDER for m in ranked}) == len(ranked)  # no tie decides by name
    assert len(set(layouts.LAYOUT_NAMES)) == len(layouts.LAYOUT_NAMES) == 8
    # the orders that matter: shards.json first, the C-bar set before the generic tree, the
    # CIFAR-P arrays last (a stray .npy beside a tree)
    order = [m.__name__.rsplit(".", 1)[1] for m in ranked]
    assert order[0] == "webdataset" and order[-1] == "cifar_p"
    assert order.index("cbar") < order.index("imagenet_c")


def test_find_looks_into_the_only_sub_folder(tmp_path: Path) -> None:
    (tmp_path / "CIFAR-10-C").mkdir()
    np.save(tmp_path / "CIFAR-10-C" / "labels.npy", np.zeros(5))
    found, notes = layouts.find(tmp_path)
    assert found.root == tmp_path / "CIFAR-10-C" and found.layout == "cifar-c"
    assert notes == ["the data is in CIFAR-10-C/, checked there"]


def test_the_former_datasets_package_still_imports_with_a_warning() -> None:
    for name in [m for m in sys.modules if m.startswith("corruptbench.datasets")]:
        del sys.modules[name]
    with pytest.warns(DeprecationWarning, match="removed in version 0.3.0"):
        old = importlib.import_module("corruptbench.datasets")
    from corruptbench.datasets.imagenet_c import scan_imagenet_c
    from corruptbench.datasets.webdataset import SHARD_INDEX, TarShardWriter

    assert scan_imagenet_c is layouts.imagenet_c.scan_imagenet_c and SHARD_INDEX == "shards.json"
    assert TarShardWriter.__module__ == "corruptbench.formats.webdataset"
    assert old.scan_cifar_c is layouts.cifar_c.scan_cifar_c and old.load_image is not None

"""Sources: image folders, CIFAR batches and arrays; their items, labels and fingerprints."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from builders.support import make_source, write_batch
from corruptbench.pipeline import (
    SourceError,
    arrays_source,
    hash_lines,
    open_source,
    spread_subset,
)


def test_folder_source(tmp_path: Path) -> None:
    src = make_source(tmp_path, 3)
    (src / "n01440764" / "notes.txt").write_text("not an image")
    s = open_source(src)
    assert s.kind == "folder" and s.label_kind == "imagenet" and len(s.items) == 3
    assert [it.rel.split("/")[0] for it in s.items] == ["n01440764", "n01484850", "n01494475"]
    assert [p.name for p in s.ignored] == ["notes.txt"]
    assert s.items[0].where == s.items[0].path and s.items[0].image().mode == "RGB"
    assert s.numeric_labels(s.items).tolist() == [0, 2, 4]
    assert s.fingerprint == open_source(src).fingerprint
    (src / "n01440764" / "ILSVRC2012_val_extra.JPEG").write_bytes(b"x")
    assert open_source(src).fingerprint != s.fingerprint  # paths and sizes


def test_class_names_and_unlabelled_folders(tmp_path: Path) -> None:
    for cls in ("cat", "dog"):
        (tmp_path / "named" / cls).mkdir(parents=True)
        Image.new("RGB", (8, 8)).save(tmp_path / "named" / cls / "a.png")
    named = open_source(tmp_path / "named")
    assert named.label_kind == "classes" and named.numeric_labels(named.items).tolist() == [0, 1]
    (tmp_path / "flat").mkdir()
    Image.new("RGB", (8, 8)).save(tmp_path / "flat" / "a.png")
    flat = open_source(tmp_path / "flat")
    assert flat.label_kind == "none" and flat.numeric_labels(flat.items) is None


def test_cifar_batch_source(tmp_path: Path) -> None:
    images, labels = write_batch(tmp_path / "test_batch", 5)
    s = open_source(tmp_path / "test_batch")
    assert s.kind == "cifar-batch" and s.label_kind == "batch"
    assert [it.rel for it in s.items][:2] == [f"{labels[0]}/00000.png", f"{labels[1]}/00001.png"]
    assert np.array_equal(np.asarray(s.items[3].image()), images[3]) and s.items[3].where == "#3"
    assert s.numeric_labels(s.items).tolist() == labels.tolist()


def test_source_errors_and_arrays(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="source not found"):
        open_source(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="no image files found"):
        open_source(tmp_path / "empty")
    (tmp_path / "file.bin").write_bytes(b"GIF89a")
    with pytest.raises(SourceError, match="not a CIFAR python batch"):
        open_source(tmp_path / "file.bin")
    imgs = [np.full((10, 12, 3), v, np.uint8) for v in (1, 2)]
    a = arrays_source(imgs, names=["x.png", "y.png"], labels=[3, 4])
    assert (
        a.kind == "arrays"
        and a.label_kind == "batch"
        and [it.rel for it in a.items]
        == [
            "x.png",
            "y.png",
        ]
    )
    assert np.array_equal(np.asarray(a.items[1].image()), imgs[1])
    assert arrays_source(imgs).fingerprint == a.fingerprint != arrays_source(imgs[:1]).fingerprint
    assert (
        arrays_source(imgs).label_kind == "none" and arrays_source(imgs).items[0].rel == "00000.png"
    )
    with pytest.raises(ValueError, match="1 names for 2 images"):
        arrays_source(imgs, names=["x"])
    assert hash_lines(["a", "b"]) != hash_lines(["ab"]) and len(hash_lines([])) == 32


def test_spread_subset() -> None:
    imgs = [np.zeros((4, 4, 3), np.uint8)] * 30
    labels = [i // 10 for i in range(30)]  # three classes of ten, sorted as a folder scan is
    items = arrays_source(imgs, labels=labels).items
    for limit in (3, 7, 29):
        sub = spread_subset(items, limit, seed=1)
        counts = np.bincount([it.label for it in sub], minlength=3)  # type: ignore[misc]
        assert len(sub) == limit and counts.max() - counts.min() <= 1
        assert [it.index for it in sub] == sorted(it.index for it in sub)
    assert spread_subset(items, 5, 1) == spread_subset(list(reversed(items)), 5, 1)[::-1]
    assert spread_subset(items, 5, 1) != spread_subset(items, 5, 2)
    assert spread_subset(items, None, 1) == items == spread_subset(items, 30, 1)
    unlabelled = arrays_source(imgs).items
    assert len(spread_subset(unlabelled, 4, 0)) == 4
    small = [it for it in items if it.label != 2][:12]  # class 0: 10 items, class 1: 2
    counts = np.bincount([it.label for it in spread_subset(small, 8, 3)])  # type: ignore[misc]
    assert counts.tolist() == [6, 2]  # a class that runs out leaves the rest to the others


def test_tree_source_depth_copy_patterns_and_errors(tmp_path: Path) -> None:
    from corruptbench.pipeline import open_tree

    root = tmp_path / "ds"
    for d in ("img/a/b", "ann", ".hidden", "img/.cache"):
        (root / d).mkdir(parents=True)
    for rel in ("img/z.jpg", "img/a/b/y.PNG", "ann/x.png", ".hidden/h.jpg", "img/.cache/c.jpg"):
        Image.new("RGB", (20, 20)).save(root / rel, format="PNG")
    (root / "ann" / "train.json").write_text("{}")
    (root / "img" / "notes.md").write_text("-")
    s = open_tree(root, ["ann"])
    assert s.kind == "tree" and s.label_kind == "none"
    assert [it.rel for it in s.items] == ["img/a/b/y.PNG", "img/z.jpg"]
    assert [it.rel for it in s.copied] == ["ann/train.json", "ann/x.png"]  # images too: copied
    assert [p.name for p in s.ignored] == ["notes.md"]
    assert [it.rel for it in open_tree(root, ["*.json"]).copied] == ["ann/train.json"]
    assert [it.rel for it in open_tree(root).items][0] == "ann/x.png"
    fp = s.fingerprint
    (root / "ann" / "train.json").write_text('{"changed": 1}')
    assert open_tree(root, ["ann"]).fingerprint != fp  # copied files count too
    with pytest.raises(SourceError, match="'labels' selects no file"):
        open_tree(root, ["ann", "labels"])
    with pytest.raises(SourceError, match="not a folder"):
        open_tree(root / "img" / "z.jpg")
    with pytest.raises(SourceError, match="no image files"):
        open_tree(root / "ann", ["*"])

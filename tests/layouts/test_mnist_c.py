"""MNIST-C (corruptbench.layouts.mnist_c)."""

from __future__ import annotations

from pathlib import Path

from corruptbench.layouts import mnist_c


def test_detect_and_names(tmp_path: Path) -> None:
    (tmp_path / "fog").mkdir()
    assert mnist_c.detect(tmp_path) is None  # no arrays: not MNIST-C
    (tmp_path / "fog" / mnist_c.images_file("test")).write_bytes(b"")
    assert mnist_c.detect(tmp_path) == "mnist-c"
    assert mnist_c.labels_file("train") == "train_labels.npy" and mnist_c.ROWS["train"] == 60_000

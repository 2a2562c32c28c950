"""CIFAR batches and the CIFAR-10-C / -P layouts (corruptbench.formats.cifar)."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench.formats import cifar
from corruptbench.layouts import cifar_c
from support import CIFAR_TEST


def _cifar_images(n: int) -> tuple[np.ndarray, np.ndarray]:
    if not CIFAR_TEST.is_dir():
        pytest.skip(f"CIFAR-10 test images not available: {CIFAR_TEST} is absent")
    classes = sorted(p.name for p in CIFAR_TEST.iterdir())
    imgs, labels = [], []
    for i in range(n):
        cls = classes[i % len(classes)]
        f = sorted((CIFAR_TEST / cls).iterdir())[i // len(classes)]
        with Image.open(f) as im:
            imgs.append(np.asarray(im.convert("RGB")))
        labels.append(i % len(classes))
    return np.stack(imgs), np.asarray(labels)


def write_cifar_batch(
    path: Path, images: np.ndarray, labels: np.ndarray, key: bytes = b"labels"
) -> None:
    """A CIFAR python batch file like the official ``test_batch`` (channel-planar rows)."""
    data = images.transpose(0, 3, 1, 2).reshape(len(images), -1)
    with open(path, "wb") as fh:
        pickle.dump(
            {
                b"batch_label": b"testing batch 1 of 1",
                key: list(map(int, labels)),
                b"data": data,
                b"filenames": [],
            },
            fh,
            protocol=2,
        )


def test_read_cifar_batch_round_trip(tmp_path: Path) -> None:
    images, labels = _cifar_images(12)
    write_cifar_batch(tmp_path / "test_batch", images, labels)
    got_i, got_l = cifar.read_cifar_batch(tmp_path / "test_batch")
    assert (
        got_i.dtype == np.uint8 and got_i.shape == (12, 32, 32, 3) and np.array_equal(got_i, images)
    )
    assert np.array_equal(got_l, labels) and cifar.is_cifar_batch(tmp_path / "test_batch")
    write_cifar_batch(tmp_path / "test", images, labels, key=b"fine_labels")  # CIFAR-100
    assert np.array_equal(cifar.read_cifar_batch(tmp_path / "test")[1], labels)
    (tmp_path / "junk").write_bytes(b"\x80\x02junk")
    with pytest.raises(ValueError, match="not a CIFAR"):
        cifar.read_cifar_batch(tmp_path / "junk")


def test_class_labels_must_be_whole_non_negative_numbers() -> None:
    ok = cifar.check_class_labels(np.array([0.0, 8.0, 3.0]), "labels.npy")
    assert ok.dtype == np.int64 and ok.tolist() == [0, 8, 3]
    assert cifar.check_class_labels(np.arange(4, dtype=np.uint8), "x").tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match=r"^labels\.npy: label 8\.5 at row 1 is not a whole"):
        cifar.check_class_labels(np.array([0.0, 8.5, 3.0]), "labels.npy")
    with pytest.raises(ValueError, match="label nan at row 0"):
        cifar.check_class_labels(np.array([np.nan]), "labels.npy")
    with pytest.raises(ValueError, match=r"label -2 at row 2 is negative"):
        cifar.check_class_labels(np.array([0, 1, -2], dtype=np.int8), "labels.npy")
    with pytest.raises(ValueError, match="must be integer class indices, got dtype <U1"):
        cifar.check_class_labels(np.array(["a"]), "labels.npy")


@pytest.mark.parametrize(("bad", "why"), [(8.5, "is not a whole number"), (-2, "is negative")])
def test_bad_labels_are_refused_naming_the_file(tmp_path: Path, bad: float, why: str) -> None:
    # issue 22 item 3: 8.5 was truncated to 8 and -2 kept, silently
    n = 4
    np.save(tmp_path / "fog.npy", np.zeros((5 * n, 32, 32, 3), np.uint8))
    labels = np.tile(np.arange(n, dtype=np.float64), 5)
    labels[6] = bad
    np.save(tmp_path / "labels.npy", labels)
    with pytest.raises(ValueError, match=f"^{tmp_path / 'labels.npy'}: label .* at row 6 {why}"):
        cifar_c.load_cifar_c_labels(tmp_path)
    images, good = _cifar_images(3)
    write_cifar_batch(tmp_path / "test_batch", images, good)
    with open(tmp_path / "test_batch", "rb") as fh:
        d = pickle.load(fh)  # noqa: S301 - written above
    d[b"labels"][1] = bad
    with open(tmp_path / "test_batch", "wb") as fh:
        pickle.dump(d, fh, protocol=2)
    with pytest.raises(ValueError, match=f"test_batch: 'labels': label .* at row 1 {why}"):
        cifar.read_cifar_batch(tmp_path / "test_batch")


def test_an_unreadable_array_is_named(tmp_path: Path) -> None:
    """A truncated .npy said only "mmap length is greater than file size"."""
    arr = np.zeros((10, 32, 32, 3), np.uint8)
    np.save(tmp_path / "labels.npy", np.zeros(10, np.uint8))
    np.save(tmp_path / "fog.npy", arr)
    data = (tmp_path / "fog.npy").read_bytes()
    (tmp_path / "fog.npy").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError) as info:
        cifar_c.scan_cifar_c(tmp_path, ["fog"])
    assert str(info.value).startswith(f"cannot read {tmp_path / 'fog.npy'} as a .npy array: ")
    assert "mmap length is greater than file size" in str(info.value)
    (tmp_path / "fog.npy").write_bytes(b"not an array")
    with pytest.raises(ValueError, match=r"cannot read .*fog\.npy as a \.npy array"):
        cifar.load_npy(tmp_path / "fog.npy", mmap=False)
    with pytest.raises(FileNotFoundError):
        cifar.load_npy(tmp_path / "absent.npy")

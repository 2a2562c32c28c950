"""CorruptedDataset (corruptbench.torch.corrupted): equal to make-c builds of the same images, the
same with DataLoader workers and shuffling, item names, input kinds and errors."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

torch = pytest.importorskip("torch")

from corruptbench import corrupt  # noqa: E402
from corruptbench.builders import build  # noqa: E402
from corruptbench.errors import ArgumentError  # noqa: E402
from corruptbench.pipeline import item_seed  # noqa: E402
from corruptbench.torch import CorruptedDataset  # noqa: E402
from photos import photo_arrays, photo_folder  # noqa: E402

CELLS = ["gaussian_noise", "fog", "elastic_transform"]
LEVELS = [2, 5]


class FolderDataset(torch.utils.data.Dataset):
    """A class-folder image dataset with torchvision ImageFolder's interface (``root``,
    ``samples`` of ``(path, class index)``, PIL RGB images); torchvision itself cannot be installed
    next to this project's CPU torch build."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        classes = sorted(d.name for d in root.iterdir() if d.is_dir())
        self.samples = [
            (str(f), i) for i, c in enumerate(classes) for f in sorted((root / c).iterdir())
        ]

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, i: int) -> tuple[Any, int]:
        with Image.open(self.samples[i][0]) as im:
            return im.convert("RGB"), self.samples[i][1]


class ArrayDataset(torch.utils.data.Dataset):
    """Images in memory, target = the item's index (so shuffled batches can be matched up)."""

    def __init__(self, images: list[np.ndarray]) -> None:
        self.images = images

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, i: int) -> tuple[np.ndarray, int]:
        return self.images[i], i


@pytest.fixture(scope="module")
def folder_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """4 bundled photos in wnid folders and make-c --format npy of them (imagenet profile)."""
    base = tmp_path_factory.mktemp("folder")
    src = photo_folder(base / "val", 4)
    out = base / "C"
    build("c", src, out, profile="imagenet", fmt="npy", names=CELLS, levels=LEVELS, progress=False)
    return src, out


def test_equals_make_c_of_the_same_folder(folder_build: tuple[Path, Path]) -> None:
    src, out = folder_build
    ds = FolderDataset(src)
    n = len(ds)
    for c in CELLS:
        built = np.load(out / f"{c}.npy")  # severity-major, source order
        for k, s in enumerate(LEVELS):
            wrapped = CorruptedDataset(ds, c, s)
            for i in range(n):
                image, target = wrapped[i]
                assert isinstance(image, Image.Image) and image.size == (224, 224)
                assert target == ds.samples[i][1]
                assert np.array_equal(np.asarray(image), built[k * n + i]), (c, s, i)
    rel = os.path.relpath(ds.samples[1][0], src).replace(os.sep, "/")
    assert CorruptedDataset(ds, "fog", 2).name(1) == rel
    assert CorruptedDataset(ds, "fog", 2, seed=3).seed_of(1) == item_seed(3, "c", "fog", 2, rel)


def test_generic_dataset_equals_make_c_of_a_flat_folder(tmp_path: Path) -> None:
    images = [a for _, _, a in photo_arrays(3)]
    images = [np.asarray(Image.fromarray(a).resize((300, 260))) for a in images]
    flat = tmp_path / "flat"
    flat.mkdir()
    for i, a in enumerate(images):
        Image.fromarray(a).save(flat / f"{i:05d}.png")
    out = tmp_path / "C"
    build(
        "c",
        flat,
        out,
        profile="imagenet",
        fmt="npy",
        names=["fog"],
        levels=[3],
        seed=7,
        progress=False,
    )
    built = np.load(out / "fog.npy")
    wrapped = CorruptedDataset(ArrayDataset(images), "fog", 3, seed=7)
    assert wrapped.name(2) == "00002.png"
    for i in range(3):
        image, target = wrapped[i]
        assert isinstance(image, np.ndarray) and target == i
        assert np.array_equal(image, built[i])


def test_independent_of_workers_and_shuffling() -> None:
    images = [np.asarray(Image.fromarray(a).resize((64, 64))) for _, _, a in photo_arrays(6)]
    wrapped = CorruptedDataset(ArrayDataset(images), "shot_noise", 4, profile="tiny", seed=1)
    sequential = [wrapped[i][0] for i in range(len(wrapped))]
    assert wrapped[-1][0].tolist() == sequential[-1].tolist()
    loader = torch.utils.data.DataLoader(
        wrapped,
        batch_size=2,
        shuffle=True,
        num_workers=2,
        generator=torch.Generator().manual_seed(5),
        multiprocessing_context="forkserver",
    )
    seen = set()
    for x, idx in loader:
        for img, i in zip(x.numpy(), idx.tolist()):
            assert np.array_equal(img, sequential[i])
            seen.add(i)
    assert seen == set(range(6))
    again = CorruptedDataset(ArrayDataset(images), "shot_noise", 4, profile="tiny", seed=1)
    assert np.array_equal(again[3][0], sequential[3])
    other = CorruptedDataset(ArrayDataset(images), "shot_noise", 4, profile="tiny", seed=2)
    assert not np.array_equal(other[3][0], sequential[3])


def test_input_kinds_names_subset_and_prepare() -> None:
    rgb = np.array(Image.fromarray(photo_arrays(1)[0][2]).resize((32, 32)))
    gray = np.asarray(Image.fromarray(rgb).convert("L"))

    class Kinds(torch.utils.data.Dataset):
        items = [
            Image.fromarray(rgb),
            rgb,
            torch.from_numpy(rgb).permute(2, 0, 1).contiguous(),
            Image.fromarray(gray),
            gray,
        ]

        def __len__(self) -> int:
            return len(self.items)

        def __getitem__(self, i: int) -> tuple[Any, int]:
            return self.items[i], 0

    names = ["same.png"] * 5  # one name: every kind must give the same pixels
    ds = CorruptedDataset(Kinds(), "contrast", 3, profile="cifar", names=names)
    outs = [ds[i][0] for i in range(5)]
    assert isinstance(outs[0], Image.Image) and isinstance(outs[1], np.ndarray)
    assert isinstance(outs[2], torch.Tensor) and outs[2].shape == (3, 32, 32)
    assert np.array_equal(np.asarray(outs[0]), outs[1])
    assert np.array_equal(outs[2].permute(1, 2, 0).numpy(), outs[1])
    assert outs[3].mode == "RGB" and np.array_equal(np.asarray(outs[3]), outs[4])
    expected = corrupt(
        rgb, "contrast", 3, profile="cifar", rng=item_seed(0, "c", "contrast", 3, "same.png")
    )
    assert np.array_equal(outs[1], expected)

    by_fn = CorruptedDataset(
        Kinds(), "gaussian_noise", 2, profile="cifar", names=lambda i: f"x/{i}"
    )
    assert by_fn.name(4) == "x/4"
    sub = torch.utils.data.Subset(ArrayDataset([rgb, rgb[::-1].copy(), rgb]), [1, 0])
    assert CorruptedDataset(sub, "fog", 1, profile="cifar").name(0) == "00001.png"

    # prepare=False: corrupted as it is, at its own size, with the profile's parameters
    big = photo_arrays(1)[0][2][:240, :200]
    raw = CorruptedDataset(ArrayDataset([big]), "fog", 2, prepare=False)[0][0]
    assert raw.shape == big.shape
    assert np.array_equal(raw, corrupt(big, "fog", 2, profile="imagenet", rng=raw_seed()))
    assert "CorruptedDataset(ArrayDataset, corruption='fog', severity=2" in repr(
        CorruptedDataset(ArrayDataset([big]), "fog", 2)
    )


def raw_seed() -> int:
    return item_seed(0, "c", "fog", 2, "00000.png")


def test_errors() -> None:
    ds = ArrayDataset([np.zeros((32, 32, 3), np.uint8)])
    with pytest.raises(ArgumentError, match="dataset must be a map-style dataset"):
        CorruptedDataset(iter([]), "fog", 1)
    with pytest.raises(ValueError, match="unknown corruption"):
        CorruptedDataset(ds, "foggy", 1)
    with pytest.raises(ValueError, match="severity must be in 1..5"):
        CorruptedDataset(ds, "fog", 6)
    with pytest.raises(ArgumentError, match="profile must be one of imagenet"):
        CorruptedDataset(ds, "fog", 1, profile="auto")
    with pytest.raises(ArgumentError, match="names: 2 names for 1 items"):
        CorruptedDataset(ds, "fog", 1, names=["a", "b"])
    floats = ArrayDataset([torch.zeros(3, 32, 32)])  # type: ignore[list-item]
    with pytest.raises(
        ArgumentError, match="float32 tensor .* Convert to tensors after the corruption"
    ):
        CorruptedDataset(floats, "fog", 1, profile="cifar")[0]
    with pytest.raises(ArgumentError, match=r"uint8 pixels \(H, W, 3\); got ndarray float64"):
        CorruptedDataset(ArrayDataset([np.zeros((32, 32, 3))]), "fog", 1, profile="cifar")[0]

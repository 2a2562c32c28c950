"""The data door: a make-c build (npy arrays, WebDataset shards) streams the very pixels the
same clean images give corrupted on the fly, in the same order."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import numpy as np
import pytest

import corruptbench.streams as S
from corruptbench.builders.builder import build
from corruptbench.evaluation.layouts import OnTheFly

NAMES = ["gaussian_noise", "fog"]


@pytest.fixture(scope="module")
def batch_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CIFAR python batch of 12 images."""
    rs = np.random.RandomState(3)
    images = rs.randint(0, 256, size=(12, 32, 32, 3), dtype=np.uint8)
    path = tmp_path_factory.mktemp("batch") / "test_batch"
    data = images.transpose(0, 3, 1, 2).reshape(12, -1)
    with open(path, "wb") as fh:
        pickle.dump({b"data": data, b"labels": [i % 10 for i in range(12)]}, fh, protocol=2)
    return path


@pytest.mark.parametrize("fmt", ["npy", "webdataset"])
def test_make_c_builds_stream_the_on_the_fly_pixels(
    batch_file: Path, tmp_path: Path, fmt: str
) -> None:
    out = tmp_path / fmt
    build(
        "c",
        batch_file,
        out,
        profile="cifar",
        fmt=fmt,
        names=NAMES,
        levels=[1, 2, 3, 4, 5],
        workers=1,
        progress=False,
    )
    kwargs = {"setting": "mixed_domains_correlated", "order": NAMES, "batch_size": 5}
    built = S.stream(out, "cifar10_c", **kwargs)
    live = S.stream(OnTheFly(str(batch_file)), "cifar10_c", **kwargs)
    assert built.data.kind == ("cifar-c" if fmt == "npy" else "webdataset")
    assert list(built.samples) == list(live.samples)
    for a, b in zip(built.batches(), live.batches()):
        assert np.array_equal(a.images, b.images) and a.labels.tolist() == b.labels.tolist()


def test_shards_lacking_a_cell_are_refused(batch_file: Path, tmp_path: Path) -> None:
    build(
        "c",
        batch_file,
        tmp_path / "w",
        profile="cifar",
        fmt="webdataset",
        names=["fog"],
        levels=[5],
        workers=1,
        progress=False,
    )
    with pytest.raises(S.StreamError, match=r"the shards lack 1 cell\(s\) the stream needs: fog/3"):
        S.stream(tmp_path / "w", "cifar10_c", order=["fog"], severities=[3])
    assert len(S.stream(tmp_path / "w", order=["fog"])) == 12  # cifar10_c from the shards' media


def _image_folder(root: Path, side: int, n: int = 10) -> Path:
    """``n`` labelled ``side x side`` PNGs in ten class folders (CIFAR-10's count)."""
    from PIL import Image

    rs = np.random.RandomState(side)
    for k in range(n):
        (root / f"class{k % 10}").mkdir(parents=True, exist_ok=True)
        img = rs.randint(0, 256, size=(side, side, 3), dtype=np.uint8)
        Image.fromarray(img).save(root / f"class{k % 10}" / f"{k}.png")
    return root


def test_a_cifar_sized_folder_streams_at_the_cifar_profile(tmp_path: Path) -> None:
    # as in-memory arrays of the same images do: the dataset's profile, 32 px, CIFAR levels
    folder = _image_folder(tmp_path / "cifar", 32)
    st = S.stream(OnTheFly(str(folder)), "cifar10_c", order=["fog"], batch_size=10)
    assert st.data.profile == "cifar" and st.image_size == 32
    assert next(iter(st.batches())).images.shape == (10, 32, 32, 3)
    assert S.stream(OnTheFly(str(folder)), order=["fog"]).dataset == "cifar10_c"  # by their size


@pytest.mark.parametrize(
    ("side", "dataset", "found"),
    [
        (32, "imagenet_c", "are 32 x 32 (the 'cifar' profile's size)"),
        (32, "tiny_imagenet_c", "are 32 x 32"),
        (80, "cifar10_c", "are photos of other sizes"),
    ],
)
def test_clean_images_of_another_profile_are_refused(
    tmp_path: Path, side: int, dataset: str, found: str
) -> None:
    folder = _image_folder(tmp_path / "imgs", side)
    with pytest.raises(
        S.StreamError, match=rf"^{dataset} streams corrupt .* images of .*{re.escape(found)}"
    ):
        S.stream(OnTheFly(str(folder)), dataset, order=["fog"])


def test_labels_beyond_the_datasets_classes_are_refused(tmp_path: Path) -> None:
    # a CIFAR-100-C folder (no --dataset: cifar10_c by its labels.npy) streamed labels up to 99
    from streams.tta_reference import write_cifar_c

    folder = write_cifar_c(tmp_path / "c100", ["fog"], np.arange(100).repeat(2))
    with pytest.raises(S.StreamError, match=r"labels up to 99, but cifar10_c has 10 classes; give "
                       r"the dataset \(--dataset cifar100_c\?\)"):  # fmt: skip
        S.stream(folder, order=["fog"])
    assert S.stream(folder, "cifar100_c", order=["fog"]).dataset == "cifar100_c"

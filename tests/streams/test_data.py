"""The data door: a make-c build (npy arrays, WebDataset shards) streams the very pixels the
same clean images give corrupted on the fly, in the same order."""

from __future__ import annotations

import pickle
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

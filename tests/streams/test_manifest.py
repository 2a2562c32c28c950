"""Manifests and CSV: the hash is the CSV's, a manifest replays to the same sequence and bytes,
and refuses other data or another version in one line."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import corruptbench.streams as S
from corruptbench.evaluation.layouts import OnTheFly
from corruptbench.streams.manifest import sequence_sha256
from streams.conftest import NAMES


def test_csv_has_the_columns_and_the_manifest_its_sha256(tiny_cifar: Path, tmp_path: Path) -> None:
    st = S.stream(tiny_cifar, "cifar10_c", "correlated", order=NAMES[:2], num_examples=40)
    st.to_csv(tmp_path / "s.csv")
    rows = list(csv.reader((tmp_path / "s.csv").open()))
    assert rows[0] == ["index", "domain", "severity", "id", "label"]
    assert rows[1:] == [
        [str(s.index), s.domain, str(s.severity), s.id, str(s.label)] for s in st.samples
    ]
    doc = S.write_manifest(st, tmp_path / "m.json")
    assert doc["sequence_sha256"] == hashlib.sha256((tmp_path / "s.csv").read_bytes()).hexdigest()
    assert doc["settings"]["setting"] == "correlated" and doc["samples"] == 80
    assert set(doc["data"]["fingerprints"]) == {"labels", *NAMES[:2]}
    assert json.loads((tmp_path / "m.json").read_text()) == doc


def test_replay_gives_the_same_sequence_and_bytes(tiny_cifar: Path, tmp_path: Path) -> None:
    st = S.stream(
        tiny_cifar, "cifar10_c", "mixed_domains_correlated", order=NAMES, delta=0.5, seed=7
    )
    S.write_manifest(st, tmp_path / "m.json")
    copy = shutil.copytree(tiny_cifar, tmp_path / "copy")
    again = S.replay(tmp_path / "m.json", copy)
    assert list(again.samples) == list(st.samples)
    assert [b.images.tobytes() for b in again.batches()] == [
        b.images.tobytes() for b in st.batches()
    ]


def test_replay_on_the_fly_gives_the_same_bytes_with_workers(tmp_path: Path) -> None:
    images = np.random.RandomState(1).randint(0, 256, size=(8, 32, 32, 3), dtype=np.uint8)
    data = OnTheFly(images, labels=np.arange(8))
    st = S.stream(data, "cifar10_c", order=["snow"], batch_size=3, corruption_seed=4)
    doc = st.manifest()
    again = S.replay(doc, OnTheFly(images.copy(), labels=np.arange(8)))
    assert [b.images.tobytes() for b in again.batches(workers=2)] == [
        b.images.tobytes() for b in st.batches()
    ]
    other = images.copy()
    other[3, 0, 0, 0] ^= 1
    with pytest.raises(S.StreamError, match=r"1 part\(s\) differ: clean"):
        S.replay(doc, OnTheFly(other, labels=np.arange(8)))


def test_replay_refuses_other_data_naming_the_parts(tiny_cifar: Path, tmp_path: Path) -> None:
    st = S.stream(tiny_cifar, "cifar10_c", order=NAMES)
    doc = st.manifest()
    copy = shutil.copytree(tiny_cifar, tmp_path / "copy")
    labels = np.load(copy / "labels.npy")
    np.save(copy / "labels.npy", np.roll(labels, 1))
    with pytest.raises(S.StreamError) as info:
        S.replay(doc, copy)
    assert "is not the data of the manifest" in str(info.value)
    assert "1 part(s) differ: labels" in str(info.value)


def test_replay_refuses_another_version_or_dataset(tiny_cifar: Path, tmp_path: Path) -> None:
    st = S.stream(tiny_cifar, "cifar10_c", order=NAMES[:1])
    doc = st.manifest()
    with pytest.raises(
        S.StreamError, match=r"written by corruptbench 0\.0\.1 .* rebuild the stream"
    ):
        S.replay({**doc, "corruptbench": "0.0.1"}, tiny_cifar)
    with pytest.raises(S.StreamError, match="not a corruptbench stream manifest"):
        S.replay({"format": "something"}, tiny_cifar)
    imagenet = S.stream(None, "imagenet_c", order=["fog"]).manifest()
    with pytest.raises(S.StreamError, match="is a CIFAR-C folder .*, not data of imagenet_c"):
        S.replay(imagenet, tiny_cifar)


def test_the_sequence_hash_changes_with_the_seed(tiny_cifar: Path) -> None:
    a = S.stream(tiny_cifar, "cifar10_c", order=NAMES[:1])
    b = S.stream(tiny_cifar, "cifar10_c", order=NAMES[:1], seed=2)
    assert sequence_sha256(a) != sequence_sha256(b)


def test_replay_in_batches_of_another_size(tiny_cifar: Path, tmp_path: Path) -> None:
    st = S.stream(tiny_cifar, "cifar10_c", "gradual", order=NAMES[:2], batch_size=64)
    man = tmp_path / "m.json"
    S.write_manifest(st, man)
    again = S.replay(man, tiny_cifar, batch_size=32)
    assert again.config.batch_size == again.settings["batch_size"] == 32
    assert sequence_sha256(again) == sequence_sha256(st)
    assert S.replay(man, tiny_cifar).config.batch_size == 64
    with pytest.raises(S.StreamError, match="batch_size must be an image count >= 1, got 0"):
        S.replay(man, tiny_cifar, batch_size=0)

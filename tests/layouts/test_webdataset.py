"""A folder of WebDataset shards with shards.json (corruptbench.layouts.webdataset)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from corruptbench.formats.webdataset import (
    TarShardWriter,
    inspect_shard,
    json_bytes,
    png_bytes,
    scan_samples,
    shard_stats,
)
from corruptbench.layouts.webdataset import (
    detect,
    parse_shard_name,
    read_index,
    shard_name,
    shard_problem,
    shard_problems,
)


def _write(path: Path, n: int) -> None:
    w = TarShardWriter(path, path.name)
    rng = np.random.default_rng(0)
    for i in range(n):
        img = rng.integers(0, 256, (8 + i, 9, 3), dtype=np.uint8)
        meta = {"corruption": "fog", "severity": 1, "source": f"n1/im{i}.JPEG", "wnid": "n1"}
        w.add(
            f"n1/im{i}", {"png": png_bytes(img), "cls": str(i).encode(), "json": json_bytes(meta)}
        )
    w.close()


def test_shard_names() -> None:
    assert shard_name("gaussian_noise", 3, 12) == "gaussian_noise-3-000012.tar"
    assert parse_shard_name("gaussian_noise-3-000012.tar") == ("gaussian_noise", 3, 12)
    assert parse_shard_name("fog-1-1234567.tar") == ("fog", 1, 1234567)
    for bad in (
        "fog-1-12.tar",
        "fog-x-000001.tar",
        "fog-1-000001.tgz",
        ".fog-1-000001.tar.1.cbtmp",
    ):
        assert parse_shard_name(bad) is None


def test_shard_problem_names_what_differs(tmp_path: Path) -> None:
    p = tmp_path / "a.tar"
    _write(p, 4)
    stats = shard_stats(p).to_dict()
    assert shard_problem(p, stats) is None and shard_problems(tmp_path, [stats]) == []
    info = inspect_shard(p, hash=True, read=("cls",))
    assert (info.samples, info.size, info.sha256) == (4, stats["bytes"], stats["sha256"])
    assert info.entries == scan_samples(p, read=("cls",))  # one read gives the same scan
    assert inspect_shard(p, hash=False).sha256 is None
    assert shard_problem(tmp_path / "b.tar", stats) == "missing"
    assert shard_problem(p, {**stats, "samples": 5}) == "4 samples, shards.json says 5"
    assert shard_problem(p, {**stats, "bytes": 7}, said="it was written with") == (
        f"{stats['bytes']} bytes, it was written with 7"
    )
    data = bytearray(p.read_bytes())
    offset, size = scan_samples(p)[1].members["png"]
    data[offset + size // 2] ^= 0x55  # inside an image: headers and size unchanged
    p.write_bytes(bytes(data))
    assert shard_problem(p, stats, hash=False) is None  # only the hash sees it
    digest = hashlib.sha256(bytes(data)).hexdigest()
    assert shard_problem(p, stats) == f"sha256 {digest}, shards.json says {stats['sha256']}"
    assert shard_problems(tmp_path, [stats, {**stats, "name": "gone.tar"}]) == [
        ("a.tar", f"sha256 {digest}, shards.json says {stats['sha256']}"),
        ("gone.tar", "missing"),
    ]
    p.write_bytes(b"<html>" * 200)
    assert shard_problem(p, stats).startswith("unreadable tar (")  # type: ignore[union-attr]


@pytest.mark.parametrize("name", ["../x.tar", "/tmp/x.tar", "sub/x.tar", ".x.tar", "x.txt", 3])
def test_read_index_refuses_shard_names_that_are_not_file_names(
    tmp_path: Path, name: object
) -> None:
    p = tmp_path / "a.tar"
    _write(p, 1)
    entry = {**shard_stats(p).to_dict(), "name": name}
    doc = {
        "format": "corruptbench-webdataset-1",
        "kind": "c",
        "name_key": "corruption",
        "level_key": "severity",
        "media": "png",
        "cells": [{"corruption": "fog", "severity": 1, "shards": [entry]}],
    }
    (tmp_path / "shards.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="is not a plain .tar file name") as err:
        read_index(tmp_path)
    assert str(err.value).startswith(str(tmp_path / "shards.json"))
    entry["name"] = "a.tar"
    (tmp_path / "shards.json").write_text(json.dumps(doc))
    assert read_index(tmp_path)["cells"][0]["shards"][0]["name"] == "a.tar"


def test_detect(tmp_path: Path) -> None:
    assert detect(tmp_path) is None
    (tmp_path / "shards.json").write_text("{}")
    assert detect(tmp_path) == "webdataset"

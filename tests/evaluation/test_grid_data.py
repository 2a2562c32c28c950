"""The cells of a built dataset for evaluate_grid: folders (with and without a make-c manifest),
shards, and the datasets it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corruptbench.evaluation import EvalError
from corruptbench.evaluation.grid_data import open_grid_data


def manifest(root: Path, **changes: object) -> Path:
    params = {
        "command": "make-c",
        "format": "tree",
        "corruptions": ["fog", "gaussian_noise"],
        "severities": [1, 2],
        "seed": 0,
    }
    doc = {"tool": "corruptbench", "params": params, "status": "complete"}
    for key, value in changes.items():
        (params if key in params else doc)[key] = value
    for c in params["corruptions"]:  # type: ignore[attr-defined]
        for s in params["severities"]:  # type: ignore[attr-defined]
            (root / c / str(s)).mkdir(parents=True, exist_ok=True)
    (root / "manifest.json").write_text(json.dumps(doc))
    return root


def shards(root: Path, **changes: object) -> Path:
    rows = []
    for c, s in (("fog", 1), ("fog", 2), ("snow", 1)):
        names = [f"{c}-{s}-{k:06d}.tar" for k in range(2)]
        for n in names:
            (root / n).parent.mkdir(parents=True, exist_ok=True)
            (root / n).write_bytes(b"")
        rows.append(
            {
                "corruption": c,
                "severity": s,
                "shards": [{"name": n, "samples": 1, "sha256": n} for n in names],
            }
        )
    doc = {
        "format": "corruptbench-webdataset-1",
        "kind": "c",
        "name_key": "corruption",
        "level_key": "severity",
        "media": "jpg",
        "complete": True,
        "cells": rows,
    }
    doc.update(changes)
    (root / "shards.json").write_text(json.dumps(doc))
    return root


def test_a_make_c_build_is_read_from_its_manifest(tmp_path: Path) -> None:
    root = manifest(tmp_path)
    (root / "snow" / "1").mkdir(parents=True)  # not part of the build: ignored
    data = open_grid_data(root)
    assert data.layout == "tree"
    assert list(data.targets) == [
        ("gaussian_noise", 1),
        ("gaussian_noise", 2),
        ("fog", 1),
        ("fog", 2),
    ]
    assert data.targets[("fog", 2)] == root / "fog" / "2"
    other = open_grid_data(manifest(tmp_path / "b", seed=1))
    assert other.fingerprint != data.fingerprint  # other parameters, other data
    assert open_grid_data(manifest(tmp_path / "c", format="jpeg")).layout == "imagenet"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"status": "running"}, r"the make-c build is 'running', not complete: re-run"),
        ({"format": "npy"}, r"a make-c --format npy build has no folder per cell"),
        ({"command": "make-p"}, r"built by 'make-p', not make-c"),
    ],
)
def test_builds_it_refuses(tmp_path: Path, changes: dict, message: str) -> None:
    with pytest.raises(EvalError, match=message):
        open_grid_data(manifest(tmp_path, **changes))


def test_folders_without_a_manifest(tmp_path: Path) -> None:
    for cell in ("fog/3", "fog/1", "Snow/1", "fog/7", "notes/1"):
        (tmp_path / cell).mkdir(parents=True)
    data = open_grid_data(tmp_path)
    assert data.layout == "folder" and list(data.targets) == [("fog", 1), ("fog", 3)]
    with pytest.raises(EvalError, match=r"no <corruption>/<severity> folders and no shards.json"):
        open_grid_data(tmp_path / "notes")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "manifest.json").write_text("{")
    with pytest.raises(EvalError, match=r"manifest.json: not a readable make-c manifest"):
        open_grid_data(tmp_path / "broken")


def test_shards_give_each_cell_its_shard_files(tmp_path: Path) -> None:
    data = open_grid_data(shards(tmp_path))
    assert data.layout == "webdataset"
    assert data.targets[("fog", 2)] == (
        tmp_path / "fog-2-000000.tar",
        tmp_path / "fog-2-000001.tar",
    )
    assert list(data.targets) == [("snow", 1), ("fog", 1), ("fog", 2)]  # reference order
    with pytest.raises(EvalError, match=r"says the build is not complete"):
        open_grid_data(shards(tmp_path / "a", complete=False))
    with pytest.raises(EvalError, match=r"these shards hold 'p' data"):
        open_grid_data(shards(tmp_path / "b", kind="p"))
    (tmp_path / "fog-1-000001.tar").unlink()
    with pytest.raises(EvalError, match=r"fog-1-000001.tar: listed in shards.json but missing"):
        open_grid_data(tmp_path)

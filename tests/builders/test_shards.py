"""make-c / make-p --format webdataset: the same image bytes as the folder builds, deterministic
shard planning, the index, kill -9 and resume at shard granularity, 1 worker = 2 workers = Ray."""

from __future__ import annotations

import hashlib
import importlib.metadata
import io
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from builders.support import (
    FAST,
    cli_cmd,
    kill_when,
    left_temp,
    make_c_with_ray,
    make_source,
    run_c,
    shorten_shard,
    tamper_jpegs,
    tree,
    write_batch,
)
from corruptbench.builders import build, format_summary, output_name
from corruptbench.builders.shards import WebDatasetCWriter, default_shard_size
from corruptbench.builders.spec import BuildSpec
from corruptbench.cli import main
from corruptbench.formats.imagenet import wnid_to_index
from corruptbench.formats.webdataset import iter_samples, sample_key, shard_stats
from corruptbench.pipeline import CorruptStep, open_source

LEVELS = [1, 3]


def _samples(out: Path, name: str, level: int) -> list[tuple[str, dict[str, bytes], str]]:
    """Every sample of a cell, in shard order: (key, members, shard file name)."""
    rows = []
    for tar in sorted(out.glob(f"{name}-{level}-*.tar")):
        rows.extend((k, m, tar.name) for k, m in iter_samples(tar))
    return rows


def test_default_shard_size() -> None:
    assert default_shard_size(50_000, 100, 1000) == 782  # 64 shards per cell for ImageNet val
    assert default_shard_size(10_000, 100, 1000) == 157
    assert default_shard_size(200_000, 100, 1000) == 1000
    assert default_shard_size(5, 100, 1000) == 100 and default_shard_size(0, 10, 100) == 10


def test_make_c_shards_hold_the_folder_builds_jpeg_bytes(tmp_path: Path) -> None:
    src = make_source(tmp_path, 8)
    folder, shards = tmp_path / "folder", tmp_path / "shards"
    run_c(src, folder, levels=LEVELS)
    s = run_c(src, shards, fmt="webdataset", levels=LEVELS, shard_size=3)
    assert s.processed == 8 and s.written == 8 * 4 and not s.skipped and not s.failed
    items = open_source(src).items
    for name in FAST:
        for level in LEVELS:
            rows = _samples(shards, name, level)
            # shard k holds the sorted items [3k, 3k + 3)
            assert [r[2] for r in rows] == [f"{name}-{level}-{i // 3:06d}.tar" for i in range(8)]
            assert [r[0] for r in rows] == [sample_key(it.rel) for it in items]
            for (_key, members, _), it in zip(rows, items):
                assert sorted(members) == ["cls", "jpg", "json"]
                tree_file = folder / name / str(level) / output_name(it.rel, "jpeg")
                assert members["jpg"] == tree_file.read_bytes()  # byte-identical images
                assert int(members["cls"]) == wnid_to_index(str(it.label))
                meta = json.loads(members["json"])
                assert meta == {
                    "corruption": name,
                    "severity": level,
                    "source": it.rel,
                    "file": output_name(it.rel, "jpeg"),
                    "wnid": it.label,
                    "seed": 0,
                    "item_seed": CorruptStep("imagenet").seed_of(name, level, it.rel),
                }
    index = json.loads((shards / "shards.json").read_text())
    assert index["complete"] and index["media"] == "jpg" and index["labels"] == "imagenet"
    assert index["shard_size"] == 3 and index["totals"]["shards"] == 4 * 3
    assert index["totals"]["samples"] == 32
    for row in index["cells"]:
        assert row["samples"] == 8 and row["pattern"].endswith("{000000..000002}.tar")
        for entry in row["shards"]:
            assert shard_stats(shards / entry["name"]).to_dict() == entry
            assert (
                entry["sha256"] == hashlib.sha256((shards / entry["name"]).read_bytes()).hexdigest()
            )
    manifest = json.loads((shards / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["params"]["format"] == "webdataset"
    assert manifest["params"]["webdataset"] == {"media": "jpg", "shard_size": 3}
    assert not (shards / ".corruptbench").exists()  # bookkeeping removed after a clean build

    # the same build again: nothing to do; a deleted shard is redone alone, identically
    before = tree(shards)
    assert run_c(src, shards, fmt="webdataset", levels=LEVELS, shard_size=3).nothing_to_do
    (shards / "brightness-3-000001.tar").unlink()
    again = run_c(src, shards, fmt="webdataset", levels=LEVELS, shard_size=3)
    assert again.processed == 3 and again.written == 3 and again.already_done == 5
    assert tree(shards) == before
    # another shard size is another dataset
    with pytest.raises(ValueError, match="different parameters"):
        run_c(src, shards, fmt="webdataset", levels=LEVELS, shard_size=4)


def test_cifar_shards_are_lossless_png_of_the_npy_build(tmp_path: Path) -> None:
    images, labels = write_batch(tmp_path / "test_batch", 12)
    kw = dict(profile="cifar", names=["gaussian_noise", "zoom_blur"], levels=[2, 5])
    run_c(tmp_path / "test_batch", tmp_path / "npy", fmt="npy", **kw)
    run_c(tmp_path / "test_batch", tmp_path / "wds", fmt="webdataset", shard_size=5, **kw)
    for name in kw["names"]:
        arr = np.load(tmp_path / "npy" / f"{name}.npy")
        for j, level in enumerate(kw["levels"]):
            rows = _samples(tmp_path / "wds", name, level)
            assert [r[0] for r in rows] == [f"{labels[i]}/{i:05d}" for i in range(12)]
            for i, (_, members, _) in enumerate(rows):
                assert sorted(members) == ["cls", "json", "png"]
                with Image.open(io.BytesIO(members["png"])) as im:
                    assert np.array_equal(np.asarray(im), arr[j * 12 + i])
                assert int(members["cls"]) == labels[i]
                assert json.loads(members["json"])["file"] is None
    assert json.loads((tmp_path / "wds" / "shards.json").read_text())["labels"] == "batch"


def test_make_p_shards_hold_the_folder_builds_mp4_bytes(tmp_path: Path) -> None:
    pytest.importorskip("av")
    src = make_source(tmp_path, 3)
    kw = dict(
        profile="imagenet", names=["translate", "gaussian_noise"], levels=[1, 2], progress=False
    )
    build("p", src, tmp_path / "mp4", fmt="mp4", **kw)  # type: ignore[arg-type]
    build("p", src, tmp_path / "wds", fmt="webdataset", shard_size=2, **kw)  # type: ignore[arg-type]
    items = open_source(src).items
    cells = [("translate", 1), ("gaussian_noise", 1), ("gaussian_noise", 2)]
    assert sorted(p.name for p in (tmp_path / "wds").glob("*.tar")) == sorted(
        f"{n}-{d}-{k:06d}.tar" for n, d in cells for k in (0, 1)
    )
    for name, d in cells:
        rows = _samples(tmp_path / "wds", name, d)
        folder = tmp_path / "mp4" / (name if d == 1 else f"{name}_{d}")
        assert len(rows) == 3
        for (_, members, _), it in zip(rows, items):
            assert sorted(members) == ["cls", "json", "mp4"]
            assert members["mp4"] == (folder / output_name(it.rel, "mp4")).read_bytes()
            meta = json.loads(members["json"])
            assert (meta["perturbation"], meta["difficulty"]) == (name, d)


def test_cifar_p_shards_hold_the_npy_sequences(tmp_path: Path) -> None:
    write_batch(tmp_path / "test_batch", 4)
    kw = dict(profile="cifar", names=["brightness"], levels=[1], progress=False)
    build("p", tmp_path / "test_batch", tmp_path / "npy", fmt="npy", **kw)  # type: ignore[arg-type]
    build("p", tmp_path / "test_batch", tmp_path / "wds", fmt="webdataset", **kw)  # type: ignore[arg-type]
    arr = np.load(tmp_path / "npy" / "brightness.npy")
    rows = _samples(tmp_path / "wds", "brightness", 1)
    got = np.stack([np.load(io.BytesIO(m["npy"]), allow_pickle=False) for _, m, _ in rows])
    assert got.dtype == np.uint8 and np.array_equal(got, arr)


def test_unreadable_images_are_left_out_and_listed(tmp_path: Path) -> None:
    src = make_source(tmp_path, 4)
    bad = sorted(src.rglob("*.JPEG"))[1]
    bad.write_bytes(bad.read_bytes()[:300])  # truncated
    out = tmp_path / "out"
    s = run_c(src, out, fmt="webdataset", names=["brightness"], levels=[1], shard_size=2)
    assert [r.rel for r in s.skipped] == [bad.relative_to(src).as_posix()] and s.exit_code == 0
    rows = _samples(out, "brightness", 1)
    assert len(rows) == 3 and sample_key(bad.relative_to(src).as_posix()) not in [
        r[0] for r in rows
    ]
    assert [r[2] for r in rows] == ["brightness-1-000000.tar"] + ["brightness-1-000001.tar"] * 2
    assert "truncated" in (out / "skipped.csv").read_text()
    index = json.loads((out / "shards.json").read_text())
    assert [s["samples"] for s in index["cells"][0]["shards"]] == [1, 2]
    # resumed after a shard is deleted: the skipped item is still listed once
    (out / "brightness-1-000001.tar").unlink()
    s2 = run_c(src, out, fmt="webdataset", names=["brightness"], levels=[1], shard_size=2)
    assert [r.rel for r in s2.skipped] == [bad.relative_to(src).as_posix()]


def test_dotted_names_that_map_to_one_key_are_refused(tmp_path: Path) -> None:
    src = make_source(tmp_path, 1)
    f = next(src.rglob("*.JPEG"))
    (f.parent / "x.y.JPEG").write_bytes(f.read_bytes())
    (f.parent / "x_y.JPEG").write_bytes(f.read_bytes())
    s = run_c(src, tmp_path / "out", fmt="webdataset", names=["brightness"], levels=[1])
    assert [r.rel.split("/")[-1] for r in s.skipped] == ["x_y.JPEG"]
    assert "collides" in s.skipped[0].reason


@dataclass(frozen=True)
class _FailingStep(CorruptStep):
    """make-c's step, except that ``fail`` (a relative path) raises in the fog cell."""

    fail: str = ""

    def apply_item(self, img: np.ndarray, name: str, level: int, rel: str) -> np.ndarray:
        if name == "fog" and rel == self.fail:
            raise RuntimeError("boom")
        return super().apply_item(img, name, level, rel)


def test_a_cell_that_fails_keeps_its_shard_unfinished(tmp_path: Path) -> None:
    src = make_source(tmp_path, 3)
    items = open_source(src).items
    out = tmp_path / "out"
    writer = WebDatasetCWriter(str(out), label_kind="imagenet")
    cells = (("brightness", 1), ("fog", 1))
    spec = BuildSpec(_FailingStep("imagenet", 0, items[1].rel), writer, cells, 3)
    res = writer.run_shard(spec, 0, items)
    assert [r.status for r in res] == ["written", "failed", "written"]
    assert "fog 1: RuntimeError: boom" in res[1].reason
    assert [r.written for r in res] == [1, 1, 1]  # the fog samples were dropped with the shard
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "brightness-1-000000.tar"
    ]
    assert not list(out.glob(".*.cbtmp"))
    # the next run makes only the missing shard
    spec2 = BuildSpec(CorruptStep("imagenet"), writer, cells, 3)
    before = (out / "brightness-1-000000.tar").stat().st_mtime_ns
    assert [r.status for r in writer.run_shard(spec2, 0, items)] == ["written"] * 3
    assert (out / "brightness-1-000000.tar").stat().st_mtime_ns == before
    assert len(list(iter_samples(out / "fog-1-000000.tar"))) == 3
    # finish: the index; a partial shard left by a task that died (Ray retried it) is removed
    left_temp(out / "fog-1-000000.tar")  # of a task that is gone
    plan = writer.plan(spec2, list(items), set(), False)
    assert not plan.todo and writer.finish(spec2, plan, open_source(src), []) == 0
    assert not list(out.glob(".*.cbtmp"))
    index = json.loads((out / "shards.json").read_text())
    assert index["complete"] and [c["samples"] for c in index["cells"]] == [3, 3]


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_sigkill_never_leaves_a_truncated_shard_and_resumes_to_identical_bytes(
    tmp_path: Path, workers: int
) -> None:
    src = make_source(tmp_path, 12)
    opts = [
        "--corruptions", "glass_blur,gaussian_noise,frost", "--severities", "1,5",
        "--format", "webdataset", "--shard-size", "2", "--no-progress",
    ]  # fmt: skip
    full, killed = tmp_path / "full", tmp_path / "killed"
    assert main(["make-c", str(src), str(full), *opts, "--workers", "1"]) == 0
    assert len(list(full.glob("*.tar"))) == 6 * 6
    cmd = cli_cmd("make-c", str(src), str(killed), *opts, "--workers", str(workers))
    kill_when(cmd, lambda: len(list(killed.glob("*.tar"))) >= 6)
    snapshot = tree(killed)
    time.sleep(1.0)  # no orphaned worker goes on writing after the driver died
    assert tree(killed) == snapshot
    finished = sorted(killed.glob("*.tar"))
    assert 6 <= len(finished) < 36
    for tar in finished:  # every shard under its final name is complete
        assert tar.read_bytes() == (full / tar.name).read_bytes()
    assert json.loads((killed / "manifest.json").read_text())["status"] == "running"
    assert not (killed / "shards.json").exists()
    resumed = subprocess.run(cmd, capture_output=True, text=True)
    assert resumed.returncode == 0
    assert "remade" not in resumed.stdout  # the finished shards match their sidecars
    assert tree(killed) == tree(full)


def test_resume_remakes_shards_that_differ_from_what_was_written(tmp_path: Path) -> None:
    # issue 22 item 1: a resumed make-c took any tar under its final name as complete ("nothing
    # to do" after a shard was shortened or changed in place); now it checks each against the
    # statistics written with it and makes the damaged ones again
    src = make_source(tmp_path, 6)
    kw: dict[str, Any] = dict(names=["brightness"], levels=[1, 2], fmt="webdataset", shard_size=2)
    out = tmp_path / "sw"
    run_c(src, out, **kw)
    good = tree(out)
    shorten_shard(out / "brightness-1-000001.tar", 1)
    tamper_jpegs(out / "brightness-2-000002.tar")
    s = run_c(src, out, **kw)
    assert not s.nothing_to_do and len(s.remade) == 2
    assert s.remade[0] == "brightness-1-000001.tar: 1 samples, it was written with 2"
    assert s.remade[1].startswith("brightness-2-000002.tar: sha256 ")
    assert "it was written with" in s.remade[1]
    assert s.processed == 4  # the two blocks holding them
    assert tree(out) == good
    assert "remade 2 output(s) of an earlier run" in format_summary(s)
    # an unfinished run is checked too
    (out / "manifest.json").write_text(
        (out / "manifest.json").read_text().replace('"complete"', '"running"')
    )
    shorten_shard(out / "brightness-2-000000.tar", 1)
    s = run_c(src, out, **kw)
    assert s.remade == ["brightness-2-000000.tar: 1 samples, it was written with 2"]
    assert tree(out) == good
    assert run_c(src, out, **kw).nothing_to_do


@pytest.mark.slow
def test_one_worker_two_workers_and_ray_give_identical_shards(
    ray_cluster: Any, tmp_path: Path
) -> None:
    src = make_source(tmp_path, 5)
    kw = dict(names=["gaussian_noise", "snow"], levels=[2, 5], fmt="webdataset", shard_size=2)
    one, two, ray_out = tmp_path / "one", tmp_path / "two", tmp_path / "ray"
    run_c(src, one, **kw)
    assert run_c(src, two, workers=2, **kw).processed == 5
    text = make_c_with_ray(
        [str(src), str(ray_out), "--corruptions", "gaussian_noise,snow", "--severities", "2,5",
         "--format", "webdataset", "--shard-size", "2", "--no-progress",
         "--ray", ray_cluster.address], ray_cluster.driver_env(),
    )  # fmt: skip
    assert "5 made in this run" in text and "0 failed" in text, text
    assert tree(one) == tree(two) == tree(ray_out)
    assert len(list(one.glob("*.tar"))) == 4 * 3


@pytest.mark.slow
def test_cbar_shards_on_the_cluster_equal_one_workers(ray_cluster: Any, tmp_path: Path) -> None:
    """ImageNet-C-bar shards built on the loopback cluster: the bytes of one local worker (each
    image drawn from its item seed, wherever it runs)."""
    src = make_source(tmp_path, 3)
    names = ["sparkles", "blue_noise_sample"]
    one, ray_out = tmp_path / "one", tmp_path / "ray"
    run_c(src, one, names=names, levels=[1, 4], suite="cbar", fmt="webdataset", shard_size=2)
    text = make_c_with_ray(
        [str(src), str(ray_out), "--suite", "cbar", "--corruptions",
         ",".join(names), "--severities", "1,4", "--format", "webdataset", "--shard-size", "2",
         "--no-progress", "--ray", ray_cluster.address], ray_cluster.driver_env(),
    )  # fmt: skip
    assert "3 made in this run" in text and "0 failed" in text, text
    assert tree(one) == tree(ray_out)
    assert len(list(one.glob("sparkles-*.tar"))) == 2 * 2


def test_cli_shard_size_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_source(tmp_path, 1)
    assert main(["make-c", str(src), str(tmp_path / "o"), "--shard-size", "5"]) == 2
    assert "--shard-size applies to --format webdataset" in capsys.readouterr().err
    assert (
        main(
            ["make-c", str(src), str(tmp_path / "o"), "--format", "webdataset", "--shard-size", "0"]
        )
        == 2
    )
    assert "--shard-size must be >= 1" in capsys.readouterr().err


_HF_SCRIPT = r"""
import json, os, sys
os.environ["HF_DATASETS_OFFLINE"] = os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_HOME"] = sys.argv[3]
from datasets import Image, load_dataset
ds = load_dataset("webdataset", data_files={"test": sys.argv[1]}, split="test", cache_dir=sys.argv[3])
raw = ds.cast_column(sys.argv[2], Image(decode=False))
print(json.dumps({
    "columns": ds.column_names, "n": len(ds), "cls": list(ds["cls"]), "keys": list(ds["__key__"]),
    "json": list(ds["json"]), "size": list(ds[0][sys.argv[2]].size),
    "bytes": [r[sys.argv[2]]["bytes"].hex() for r in raw],
}))
"""


def _hf_load(pattern: str, media: str, tmp_path: Path) -> dict[str, Any]:
    """``datasets.load_dataset("webdataset", data_files=pattern)`` in a subprocess (keeps the
    pandas / pyarrow imports out of the test process)."""
    env = {**os.environ, "HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", _HF_SCRIPT, pattern, media, str(tmp_path / "hf")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _hf_datasets_or_skip() -> None:
    """Skip unless Hugging Face ``datasets`` is installed. ``importorskip("datasets")`` cannot tell:
    with ``tests/`` on sys.path, ``tests/datasets/`` imports as a namespace package."""
    try:
        importlib.metadata.version("datasets")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(
            "Hugging Face datasets is not installed (pip install 'corruptbench[hf]', ~290 MB); "
            "README 'Sharded datasets' documents load_dataset('webdataset', data_files=...)"
        )


def _fog2_shards(tmp_path: Path) -> tuple[Path, list[tuple[str, dict[str, bytes], str]], str]:
    """make-c --format webdataset, fog 2, 5 images in shards of 2: (folder, samples, pattern)."""
    src = make_source(tmp_path, 5)
    out = tmp_path / "shards"
    run_c(src, out, fmt="webdataset", names=["fog"], levels=[2], shard_size=2)
    pattern = json.loads((out / "shards.json").read_text())["cells"][0]["pattern"]
    assert pattern == "fog-2-{000000..000002}.tar"
    return out, _samples(out, "fog", 2), pattern


def test_the_webdataset_library_reads_make_c_shards(tmp_path: Path) -> None:
    wds = pytest.importorskip("webdataset")
    out, expect, pattern = _fog2_shards(tmp_path)
    # the webdataset library: the brace pattern of the index; bytes unchanged, .cls an int
    raw = list(wds.WebDataset(str(out / pattern), shardshuffle=False))
    assert [s["__key__"] for s in raw] == [k for k, _, _ in expect]
    assert [s["jpg"] for s in raw] == [m["jpg"] for _, m, _ in expect]
    decoded = list(
        wds.WebDataset(str(out / pattern), shardshuffle=False)
        .decode("rgb8")
        .to_tuple("jpg", "cls", "json")
    )
    assert [c for _, c, _ in decoded] == [int(m["cls"]) for _, m, _ in expect]
    assert decoded[0][0].shape == (224, 224, 3) and decoded[0][2]["corruption"] == "fog"


def test_hf_datasets_loads_make_c_shards(tmp_path: Path) -> None:
    _hf_datasets_or_skip()
    out, expect, _ = _fog2_shards(tmp_path)
    # load_dataset("webdataset") takes a glob (not a brace pattern); the JPEG bytes unchanged
    got = _hf_load(str(out / "fog-2-*.tar"), "jpg", tmp_path)
    assert got["columns"] == ["cls", "jpg", "json", "__key__", "__url__"]
    assert got["n"] == 5 and got["keys"] == [k for k, _, _ in expect]
    assert got["cls"] == [int(m["cls"]) for _, m, _ in expect] and got["size"] == [224, 224]
    assert got["json"] == [json.loads(m["json"]) for _, m, _ in expect]
    assert [bytes.fromhex(b) for b in got["bytes"]] == [m["jpg"] for _, m, _ in expect]

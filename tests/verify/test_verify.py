"""verify(): builds with planted defects (missing, extra, truncated, zero-byte, wrong shape) and
clean ones; the released layouts (sparse full-size CIFAR-C arrays, small ImageNet-C-style trees)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from builders.support import FAST, BuildCache, make_source, run_c
from corruptbench.corruptions import ALL_CORRUPTIONS
from corruptbench.verify import VerifyError, format_report, verify
from download.archives import jpeg_bytes


def check(root: Path, **kw: object):
    return verify(root, progress_mode="off", **kw)


def cells(report) -> dict:
    return {c.key: c for c in report.cells}


@pytest.fixture(scope="module")
def jpeg_build(c_builds: BuildCache) -> Path:
    """make-c of 3 shared photos, FAST at 5 levels (the run's shared build, read-only)."""
    return c_builds.c(3, names=FAST)


def test_a_clean_build_passes(jpeg_build, tmp_path):
    report = check(jpeg_build)
    assert report.layout == "make-c build (jpeg)"
    assert report.ok, format_report(report)
    assert len(report.cells) == len(FAST) * 5 and report.files_checked == len(FAST) * 5 * 3
    assert all(c.expected == 3 and c.found == 3 for c in report.cells)
    assert "complete:" in format_report(report).splitlines()[-1]


def test_names_and_levels_select_what_is_checked(jpeg_build, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(jpeg_build, out)
    shutil.rmtree(out / FAST[0] / "2")
    report = check(out, names=[FAST[1]], levels=[1, 3])
    assert [c.key for c in report.cells] == [f"{FAST[1]}/1", f"{FAST[1]}/3"] and report.ok
    assert check(out, names=[FAST[0]]).missing_cells == [f"{FAST[0]}/2"]
    tree = tmp_path / "tree"  # an ImageNet-C style tree (no manifest): the same selection
    shutil.copytree(out, tree, ignore=shutil.ignore_patterns("manifest.json", "skipped.csv"))
    report = check(tree, names=[FAST[0]], levels=[2, 5])
    assert report.missing_cells == [f"{FAST[0]}/2"]
    assert [c.key for c in report.cells] == [f"{FAST[0]}/5"]


def test_every_planted_defect_is_found_and_named(jpeg_build, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(jpeg_build, out)
    files = sorted((out / "brightness/1").rglob("*.JPEG"))
    missing = files[0].relative_to(out / "brightness/1").as_posix()
    files[0].unlink()
    extra = out / "brightness/2" / files[1].parent.name / "ILSVRC2012_val_99999999.JPEG"
    extra.write_bytes(jpeg_bytes(1))
    trunc = sorted((out / "gaussian_noise/3").rglob("*.JPEG"))[0]
    trunc.write_bytes(trunc.read_bytes()[:300])
    empty = sorted((out / "gaussian_noise/5").rglob("*.JPEG"))[1]
    empty.write_bytes(b"")
    shutil.rmtree(out / "brightness/4")
    report = check(out)
    by = cells(report)
    assert not report.ok
    assert by["brightness/1"].missing == [missing]
    assert by["brightness/2"].extra == [extra.relative_to(out / "brightness/2").as_posix()]
    rel = trunc.relative_to(out / "gaussian_noise/3").as_posix()
    assert by["gaussian_noise/3"].broken == [f"{rel}: truncated JPEG (no end-of-image marker)"]
    rel = empty.relative_to(out / "gaussian_noise/5").as_posix()
    assert by["gaussian_noise/5"].broken == [f"{rel}: zero bytes"]
    assert report.missing_cells == ["brightness/4"]
    assert sum(1 for c in report.cells if not c.ok) == 4
    text = format_report(report)
    assert "brightness/1: 2/3 files, 1 problem(s)" in text and text.splitlines()[-1].startswith(
        "INCOMPLETE"
    )


def test_an_unfinished_build_is_reported(jpeg_build, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(jpeg_build, out)
    m = (out / "manifest.json").read_text().replace('"status": "complete"', '"status": "running"')
    (out / "manifest.json").write_text(m)
    report = check(out)
    assert cells(report)["manifest.json"].broken == ["status 'running': the build did not finish"]


def test_webdataset_shards_size_count_and_hash(tmp_path):
    out = tmp_path / "shards"
    run_c(make_source(tmp_path, 3), out, names=["brightness"], levels=[1, 2], fmt="webdataset")
    assert check(out).ok and check(out, hash=True).ok
    shards = sorted(out.glob("*.tar"))
    data = bytearray(shards[0].read_bytes())
    data[700] ^= 0xFF  # same size, same headers: only the hash sees it
    shards[0].write_bytes(bytes(data))
    assert check(out).ok
    (bad,) = cells(check(out, hash=True))["brightness/1"].broken
    assert bad.startswith(f"{shards[0].name}: sha256 ")
    shards[1].write_bytes(shards[1].read_bytes()[:1024])
    shards[1].unlink()
    report = check(out)
    assert cells(report)["brightness/2"].missing == [shards[1].name]


def _cifar(root: Path, shape=(50000, 32, 32, 3), names=ALL_CORRUPTIONS) -> None:
    root.mkdir(parents=True)
    for n in names:  # full size, but sparse: only the headers take disk space
        np.lib.format.open_memmap(root / f"{n}.npy", mode="w+", dtype=np.uint8, shape=shape).flush()
    np.save(root / "labels.npy", np.tile(np.arange(10, dtype=np.uint8), 5000))


def test_cifar_c_clean_and_with_a_wrong_shape_and_a_missing_file(tmp_path):
    _cifar(tmp_path / "CIFAR-10-C")
    report = check(tmp_path)  # the only sub-folder of DIR, as the archive extracts it
    assert report.layout == "cifar10-c" and report.ok, format_report(report)
    assert report.notes[0] == "the data is in CIFAR-10-C/, checked there"
    root = tmp_path / "CIFAR-10-C"
    np.lib.format.open_memmap(
        root / "fog.npy", mode="w+", dtype=np.uint8, shape=(10000, 32, 32, 3)
    ).flush()
    (root / "snow.npy").unlink()
    with open(root / "frost.npy", "r+b") as fh:
        fh.truncate(1000)
    by = cells(check(root))
    assert by["fog.npy"].broken == [
        "fog.npy: shape (10000, 32, 32, 3), expected (50000, 32, 32, 3)"
    ]
    assert by["snow.npy"].missing == ["snow.npy"]
    assert by["frost.npy"].broken[0].startswith("frost.npy: truncated .npy")


def test_cifar_c_hash_uses_the_published_md5(tmp_path):
    _cifar(tmp_path / "c", names=["fog"])
    fog = cells(check(tmp_path / "c", hash=True))["fog.npy"]
    assert fog.broken and "expected 7b397314b5670f825465fbcd1f6e9ccd" in fog.broken[0]


def _imagenet_c_like(
    root: Path, names, levels=("1", "2", "3", "4", "5"), classes=("n01440764", "n01443537")
):
    for n in names:
        for lv in levels:
            for w in classes:
                d = root / n / lv / w
                d.mkdir(parents=True)
                for i in range(2):
                    (d / f"ILSVRC2012_val_{i:08d}.JPEG").write_bytes(jpeg_bytes(i))


def test_a_partial_imagenet_c_is_incomplete_with_counts(tmp_path):
    _imagenet_c_like(tmp_path, ["fog", "snow"])
    report = check(tmp_path)
    assert report.layout == "tiny-imagenet-c"  # 2 classes: not ImageNet's 1000 (detected by count)
    report = check(tmp_path, layout="imagenet-c")
    assert not report.ok
    assert cells(report)["fog/1"].missing_unnamed == 50000 - 4
    assert "gaussian_noise/1" in report.missing_cells and "fog/1" not in report.missing_cells
    only = check(tmp_path, layout="imagenet-c", present_only=True)
    assert only.missing_cells == []


def test_imagenet_c_bar_level_folders(tmp_path):
    _imagenet_c_like(tmp_path, ["sparkles"], levels=("1.00", "2.00", "3.00", "5.00", "6.00"))
    report = check(tmp_path, present_only=True)
    assert report.layout == "imagenet-c-bar"
    assert sorted(cells(report)) == [
        f"sparkles/{v}" for v in ("1.00", "2.00", "3.00", "5.00", "6.00")
    ]


def test_a_cbar_build_with_value_named_levels(tmp_path):
    """make-c --suite cbar --level-names value: verify finds each level under its value folder
    (the manifest's naming and profile) and names a missing one by its folder."""
    out = tmp_path / "out"
    run_c(make_source(tmp_path, 2), out, names=["sparkles"], suite="cbar", level_names="value")
    report = check(out)
    assert report.ok, format_report(report)
    assert [c.key for c in report.cells] == [
        f"sparkles/{v}" for v in ("1.00", "2.00", "3.00", "5.00", "6.00")
    ]
    shutil.rmtree(out / "sparkles" / "3.00")
    assert check(out).missing_cells == ["sparkles/3.00"]


def test_usage_errors(tmp_path):
    with pytest.raises(VerifyError, match="folder not found"):
        check(tmp_path / "nope")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with pytest.raises(VerifyError, match="no known layout"):
        check(tmp_path)
    assert os.path.isdir(tmp_path / "a")

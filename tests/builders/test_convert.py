"""corruptbench convert: an ImageNet-C tree (the released layout) or CIFAR-10-C arrays to shards,
byte-preserving, resumable, kill-safe."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from builders.support import (
    BuildCache,
    cli_cmd,
    kill_when,
    make_source,
    run_c,
    shorten_shard,
    tamper_jpegs,
    tree,
    write_batch,
)
from corruptbench.builders import BuildError
from corruptbench.builders.convert import convert, format_convert_summary
from corruptbench.cli import main
from corruptbench.formats.imagenet import wnid_to_index
from corruptbench.formats.webdataset import iter_samples, sample_key, shard_stats

CELLS = dict(names=["brightness", "gaussian_noise"], levels=[1, 4])


@pytest.fixture(scope="module")
def released(c_builds: BuildCache) -> Path:
    """A small tree in the released ImageNet-C layout, made with make-c (7 photos, 4 cells; the
    run's shared build, read-only)."""
    return c_builds.c(7, **CELLS)


def _cell(out: Path, name: str, level: int) -> list[tuple[str, dict[str, bytes], str]]:
    return [
        (k, m, tar.name)
        for tar in sorted(out.glob(f"{name}-{level}-*.tar"))
        for k, m in iter_samples(tar)
    ]


def test_convert_copies_the_jpeg_bytes(released: Path, tmp_path: Path) -> None:
    out = tmp_path / "shards"
    s = convert(released, out, shard_size=3)
    assert (s.samples, s.shards, s.shards_written, s.skipped) == (28, 12, 12, [])
    assert "28 samples in 12 shards" in format_convert_summary(s)
    for name in CELLS["names"]:
        for level in CELLS["levels"]:
            files = sorted((released / name / str(level)).rglob("*.JPEG"))
            rows = _cell(out, name, level)
            assert [r[2] for r in rows] == [f"{name}-{level}-{i // 3:06d}.tar" for i in range(7)]
            for (key, members, _), f in zip(rows, files):
                rel = f.relative_to(released / name / str(level)).as_posix()
                assert key == sample_key(rel) and sorted(members) == ["cls", "jpg", "json"]
                assert members["jpg"] == f.read_bytes()  # copied, never re-encoded
                assert int(members["cls"]) == wnid_to_index(f.parent.name)
                assert json.loads(members["json"]) == {
                    "corruption": name,
                    "severity": level,
                    "source": rel,
                    "file": rel,
                    "wnid": f.parent.name,
                    "seed": None,
                    "item_seed": None,
                }
    index = json.loads((out / "shards.json").read_text())
    assert index["source"] == "convert" and index["media"] == "jpg" and index["profile"] is None
    for row in index["cells"]:
        for entry in row["shards"]:
            assert shard_stats(out / entry["name"]).to_dict() == entry
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    # again: nothing to do; a deleted shard comes back identically
    before = tree(out)
    assert convert(released, out, shard_size=3).nothing_to_do
    (out / "gaussian_noise-4-000001.tar").unlink()
    again = convert(released, out, shard_size=3)
    assert again.shards_written == 1 and tree(out) == before


def test_the_jpeg_samples_equal_make_c_shards(released: Path, tmp_path: Path) -> None:
    src = make_source(tmp_path, 7)
    run_c(src, tmp_path / "made", fmt="webdataset", shard_size=3, **CELLS)
    convert(released, tmp_path / "conv", shard_size=3)
    for name in CELLS["names"]:
        for level in CELLS["levels"]:
            made, conv = (
                _cell(tmp_path / "made", name, level),
                _cell(tmp_path / "conv", name, level),
            )
            assert [(k, m["jpg"], m["cls"], t) for k, m, t in made] == [
                (k, m["jpg"], m["cls"], t) for k, m, t in conv
            ]


def test_convert_of_value_named_cbar_levels(tmp_path: Path) -> None:
    """ImageNet-C-bar with level folders named by value (``1.50``, make_imagenet_c_bar.py's):
    the shards name the severity and hold make-c's webdataset samples; a folder whose value is
    not a level of the corruption is refused before any work."""
    src = make_source(tmp_path, 3)
    cells = dict(names=["sparkles"], levels=[1, 4], suite="cbar", shard_size=3)
    run_c(src, tmp_path / "value", level_names="value", **cells)
    run_c(src, tmp_path / "made", fmt="webdataset", **cells)
    assert sorted(p.name for p in (tmp_path / "value" / "sparkles").iterdir()) == ["1.00", "5.00"]
    assert convert(tmp_path / "value", tmp_path / "conv", shard_size=3).samples == 6
    for level in (1, 4):
        made, conv = (
            _cell(tmp_path / "made", "sparkles", level),
            _cell(tmp_path / "conv", "sparkles", level),
        )
        assert [(k, m["jpg"], m["cls"]) for k, m, _ in made] == [
            (k, m["jpg"], m["cls"]) for k, m, _ in conv
        ]
    (tmp_path / "value" / "sparkles" / "2.50" / "n01440764").mkdir(parents=True)
    with pytest.raises(BuildError, match="sparkles/2.50: not a level of sparkles"):
        convert(tmp_path / "value", tmp_path / "conv2")
    assert not (tmp_path / "conv2").exists()


def test_convert_selects_cells_and_skips_bad_files(released: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    for f in (released / "brightness" / "1").rglob("*.JPEG"):
        dest = src / "brightness" / "1" / f.relative_to(released / "brightness" / "1")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(f.read_bytes())
    victim = sorted(src.rglob("*.JPEG"))[2]
    victim.write_bytes(b"<html>not a jpeg</html>")
    (src / "fog" / "2" / "n01440764").mkdir(parents=True)
    s = convert(src, tmp_path / "out", corruptions=["brightness"], severities=[1])
    assert [r.rel for r in s.skipped] == [
        f"brightness/1/{victim.parent.name}/{victim.name}"
    ] and "not a JPG file" in s.skipped[0].reason
    assert sorted(p.name for p in (tmp_path / "out").glob("*.tar")) == ["brightness-1-000000.tar"]
    assert len(_cell(tmp_path / "out", "brightness", 1)) == 6
    assert "not a JPG file" in (tmp_path / "out" / "skipped.csv").read_text()


def test_convert_says_what_half_a_release_lacks(
    released: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 22 item 5: a missing severity and a missing class went without a word (exit 0), a
    # truncated JPEG was packed as it was, and the summary counted it while the index did not
    src = tmp_path / "half"
    shutil.copytree(released, src)
    shutil.rmtree(src / "brightness" / "4")
    lost = sorted((src / "gaussian_noise" / "1").iterdir())[0]
    shutil.rmtree(lost)
    trunc = sorted((src / "gaussian_noise" / "4").rglob("*.JPEG"))[2]
    trunc.write_bytes(trunc.read_bytes()[:2000])
    s = convert(src, tmp_path / "out", shard_size=3)
    assert [r.rel for r in s.skipped] == [trunc.relative_to(src).as_posix()]
    assert "truncated JPEG (no end-of-image marker)" in s.skipped[0].reason
    index = json.loads((tmp_path / "out" / "shards.json").read_text())
    assert s.samples == index["totals"]["samples"] == 7 + 6 + 6  # brightness/1, gn/1, gn/4
    lost_file = next(lost_names(released / "gaussian_noise" / "1", lost.name))
    assert s.missing == [
        "the source lacks what a complete make-c build (jpeg) has:",
        "1 cells absent: brightness/4",
        f"gaussian_noise/1: 6 of 7 files (1 missing: {lost_file})",
    ]
    assert main(["convert", str(src), str(tmp_path / "cli"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "19 samples in" in out and "warning: the source lacks what a complete make-c" in out
    # without its manifest the tree is compared with the release its layout looks like
    (src / "manifest.json").unlink()
    s = convert(src, tmp_path / "out2", shard_size=3)
    assert s.missing[0] == "the source lacks what a complete tiny-imagenet-c has:"
    assert s.missing[1].startswith("72 cells absent: gaussian_noise/2, gaussian_noise/3")
    assert "gaussian_noise/1: 6 of 10000 files (9994 missing: " in s.missing[2]
    # a complete source converts without a warning
    assert convert(released, tmp_path / "out3").missing == []


def lost_names(cell: Path, cls: str) -> Iterator[str]:
    """The relative names of the files of class folder ``cls`` in ``cell``."""
    for f in sorted((cell / cls).iterdir()):
        yield f"{cls}/{f.name}"


def test_convert_of_half_a_cifar_c_release(tmp_path: Path) -> None:
    src = tmp_path / "CIFAR-10-C"
    src.mkdir()
    for name in ("fog", "snow"):
        np.save(src / f"{name}.npy", np.zeros((10, 32, 32, 3), np.uint8))
    np.save(src / "labels.npy", np.tile(np.arange(2, dtype=np.uint8), 5))
    s = convert(src, tmp_path / "out", corruptions=["fog", "frost"])
    assert s.missing == [
        "the source lacks what a complete cifar10-c has:",
        "frost.npy: 0 of 1 files (1 missing: frost.npy)",
        "fog.npy: shape (10, 32, 32, 3), expected (50000, 32, 32, 3)",
        "labels.npy: shape (10,), expected (50000)",
    ]


def test_convert_refuses_what_it_cannot_do(released: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="to must be webdataset"):
        convert(released, tmp_path / "o", to="tfrecord")
    with pytest.raises(ValueError, match="not found"):
        convert(tmp_path / "nothing", tmp_path / "o")
    with pytest.raises(ValueError, match="inside it"):
        convert(released, released / "shards")
    with pytest.raises(ValueError, match="none of the requested cells"):
        convert(released, tmp_path / "o", corruptions=["fog"])
    mixed = tmp_path / "mixed" / "fog" / "1" / "n01440764"
    mixed.mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(mixed / "a.png")
    Image.new("RGB", (8, 8)).save(mixed / "b.jpg")
    with pytest.raises(ValueError, match="mixes image types"):
        convert(tmp_path / "mixed", tmp_path / "o2")


def test_convert_cifar_c_gives_the_make_c_samples(tmp_path: Path) -> None:
    write_batch(tmp_path / "test_batch", 10)
    kw = dict(profile="cifar", names=["gaussian_noise", "zoom_blur"], levels=[1, 2, 3, 4, 5])
    run_c(tmp_path / "test_batch", tmp_path / "CIFAR-10-C", fmt="npy", **kw)
    run_c(tmp_path / "test_batch", tmp_path / "made", fmt="webdataset", shard_size=4, **kw)
    s = convert(tmp_path / "CIFAR-10-C", tmp_path / "conv", shard_size=4, severities=[2, 5])
    assert (s.layout, s.samples, s.shards) == ("cifar-c", 40, 12)
    arr = np.load(tmp_path / "CIFAR-10-C" / "zoom_blur.npy")
    conv = _cell(tmp_path / "conv", "zoom_blur", 5)
    made = _cell(tmp_path / "made", "zoom_blur", 5)
    assert [(k, m["png"], m["cls"]) for k, m, _ in conv] == [
        (k, m["png"], m["cls"]) for k, m, _ in made
    ]
    for i, (_, m, _) in enumerate(conv):
        with Image.open(io.BytesIO(m["png"])) as im:
            assert np.array_equal(np.asarray(im), arr[40 + i])
    index = json.loads((tmp_path / "conv" / "shards.json").read_text())
    assert (index["labels"], index["profile"], index["media"]) == ("batch", "cifar", "png")


@pytest.mark.parametrize(("bad", "why"), [(8.5, "is not a whole number"), (-2, "is negative")])
def test_convert_refuses_labels_that_are_not_class_indices(
    tmp_path: Path, bad: float, why: str
) -> None:
    # issue 22 item 3: 8.5 was packed as class 8 and -2 as "-2", without a word
    src = tmp_path / "CIFAR-10-C"
    src.mkdir()
    np.save(src / "fog.npy", np.zeros((10, 32, 32, 3), np.uint8))
    labels = np.tile(np.arange(2, dtype=np.float64), 5)
    labels[3] = bad
    np.save(src / "labels.npy", labels)
    with pytest.raises(ValueError, match=f"labels.npy: label .* at row 3 {why}"):
        convert(src, tmp_path / "out")
    assert main(["convert", str(src), str(tmp_path / "o2"), "--no-progress"]) == 2
    assert not list(tmp_path.glob("o2/*.tar"))


def test_sigkill_during_convert_then_resume(released: Path, tmp_path: Path) -> None:
    # a bigger tree, so the run can be caught in the middle
    big = tmp_path / "big"
    for k in range(40):
        for f in (released / "gaussian_noise" / "4").rglob("*.JPEG"):
            dest = big / "gaussian_noise" / "4" / f.parent.name / f"{f.stem}_{k:02d}.JPEG"
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(f.read_bytes())
    full, killed = tmp_path / "full", tmp_path / "killed"
    opts = ["--shard-size", "2", "--no-progress"]
    assert main(["convert", str(big), str(full), *opts]) == 0
    cmd = cli_cmd("convert", str(big), str(killed), *opts)
    kill_when(cmd, lambda: len(list(killed.glob("*.tar"))) >= 5)
    time.sleep(0.2)
    finished = sorted(killed.glob("*.tar"))
    assert 5 <= len(finished) < len(list(full.glob("*.tar")))
    for tar in finished:
        assert tar.read_bytes() == (full / tar.name).read_bytes()
    resumed = subprocess.run(cmd, capture_output=True, text=True)
    assert resumed.returncode == 0 and "remade" not in resumed.stdout
    assert tree(killed) == tree(full)


def test_resume_remakes_shards_that_differ(released: Path, tmp_path: Path) -> None:
    # issue 22 item 1: a resumed convert took any tar under its final name as complete
    out = tmp_path / "o"
    convert(released, out, shard_size=3)
    good = tree(out)
    shorten_shard(out / "gaussian_noise-4-000001.tar", 2)
    tamper_jpegs(out / "brightness-1-000000.tar")
    s = convert(released, out, shard_size=3)
    assert not s.nothing_to_do and s.shards_written == 2
    assert s.remade[0].startswith("brightness-1-000000.tar: sha256 ")
    assert s.remade[1] == "gaussian_noise-4-000001.tar: 2 samples, it was written with 3"
    assert format_convert_summary(s).startswith("remade 2 shard(s) of an earlier run")
    assert tree(out) == good
    assert convert(released, out, shard_size=3).nothing_to_do


def test_cli(released: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "o"
    assert (
        main(
            [
                "convert",
                str(released),
                str(out),
                "--corruptions",
                "Gaussian-Noise",
                "--severities",
                "4",
                "--no-progress",
            ]
        )
        == 0
    )
    assert "7 samples in 1 shard;" in capsys.readouterr().out  # default size: 100
    assert sorted(p.name for p in out.glob("*.tar"))[0] == "gaussian_noise-4-000000.tar"
    assert main(["convert", str(released), str(out), "--no-progress"]) == 2
    assert "different parameters" in capsys.readouterr().err
    assert main(["convert", str(released), str(tmp_path / "p"), "--shard-size", "0"]) == 2
    assert "--shard-size must be >= 1" in capsys.readouterr().err


def test_convert_takes_the_builders_lock_on_out(released: Path, tmp_path: Path) -> None:
    # issue 33 item 25: convert took no lock; a second writer into OUT stops at once
    import os

    from corruptbench.builders.lock import OutLock

    out = tmp_path / "shards"
    out.mkdir()
    with OutLock(out, out, "make-c"):
        with pytest.raises(
            BuildError, match=f"^{out} is being written by make-c .pid {os.getpid()}"
        ):
            convert(released, out, corruptions=["brightness"], severities=[1])
    assert not list(out.glob("*.tar"))
    summary = convert(released, out, corruptions=["brightness"], severities=[1])  # free again
    assert summary.shards_written >= 1

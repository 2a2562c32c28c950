"""The WebDataset shard format: keys, deterministic tar writing, reading back (ours, the
``webdataset`` library's and Hugging Face ``datasets``')."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench.datasets.webdataset import (
    TarShardWriter,
    UnsafeMemberError,
    inspect_shard,
    iter_samples,
    json_bytes,
    members,
    parse_shard_name,
    png_bytes,
    read_index,
    read_member,
    sample_key,
    scan_samples,
    shard_name,
    shard_problem,
    shard_problems,
    shard_stats,
    split_member,
)
from support import IMAGENET_SAMPLE, need_shared


def test_sample_keys_have_no_dot_in_the_base_name() -> None:
    assert (
        sample_key("n01440764/ILSVRC2012_val_00000293.JPEG") == "n01440764/ILSVRC2012_val_00000293"
    )
    assert sample_key("cls.v2/a.b.c.png") == "cls.v2/a_b_c"  # folders keep their dots
    assert sample_key("photo.jpg") == "photo"
    assert sample_key("noext") == "noext"
    assert sample_key("3/00012.png") == "3/00012"
    for rel in ("n1/x.y.JPEG", "a.b/c.d.e.jpg", "z.png"):
        key = sample_key(rel)
        assert split_member(f"{key}.jpg") == (key, "jpg")  # the key survives WebDataset's split
    assert split_member("d/k.JPG") == ("d/k", "jpg") and split_member("d/k") == ("d/k", "")


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


def _write(path: Path, samples: list[tuple[str, dict[str, bytes]]]) -> None:
    w = TarShardWriter(path, path.name)
    for key, parts in samples:
        w.add(key, parts)
    stats = w.close()
    assert stats.samples == len(samples) and stats.bytes == path.stat().st_size
    assert stats.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert stats == shard_stats(path)


def _samples(n: int) -> list[tuple[str, dict[str, bytes]]]:
    rng = np.random.default_rng(0)
    out = []
    for i in range(n):
        img = rng.integers(0, 256, (8 + i, 9, 3), dtype=np.uint8)
        meta = {"corruption": "fog", "severity": 1, "source": f"n1/im{i}.JPEG", "wnid": "n1"}
        out.append(
            (f"n1/im{i}", {"png": png_bytes(img), "cls": str(i).encode(), "json": json_bytes(meta)})
        )
    return out


def test_tar_writer_is_deterministic_and_reads_back(tmp_path: Path) -> None:
    samples = _samples(5)
    a, b = tmp_path / "a.tar", tmp_path / "b.tar"
    _write(a, samples)
    _write(b, samples)
    assert a.read_bytes() == b.read_bytes()
    with tarfile.open(a) as tf:
        members = tf.getmembers()
    assert [m.name for m in members[:3]] == ["n1/im0.cls", "n1/im0.json", "n1/im0.png"]
    assert {(m.mtime, m.mode, m.uid, m.gid, m.uname, m.gname) for m in members} == {
        (0, 0o644, 0, 0, "", "")
    }
    assert [(k, m) for k, m in iter_samples(a)] == samples
    scanned = scan_samples(a, read=("json",))
    assert [e.key for e in scanned] == [k for k, _ in samples]
    for e, (_, m) in zip(scanned, samples):
        assert read_member(a, *e.members["png"]) == m["png"]
        assert e.small == {"json": m["json"]}


def test_empty_shard_is_a_valid_tar(tmp_path: Path) -> None:
    p = tmp_path / "e.tar"
    _write(p, [])
    assert list(iter_samples(p)) == [] and scan_samples(p) == []


def test_abort_removes_the_file(tmp_path: Path) -> None:
    p = tmp_path / ".x.tar.1.cbtmp"
    w = TarShardWriter(p, "x.tar")
    w.add("k", {"cls": b"1"})
    w.abort()
    assert not p.exists()


def test_non_ascii_and_long_names_round_trip(tmp_path: Path) -> None:
    key = "n1/" + "é" * 3 + "x" * 120
    p = tmp_path / "u.tar"
    _write(p, [(key, {"cls": b"0"})])
    assert [k for k, _ in iter_samples(p)] == [key]


def test_the_webdataset_library_reads_the_shards(tmp_path: Path) -> None:
    wds = pytest.importorskip("webdataset")
    need_shared()
    photos = sorted(IMAGENET_SAMPLE.iterdir())[:6]
    samples = [
        (
            f"{p.name.split('_')[0]}/{sample_key(p.name)}",
            {"jpg": p.read_bytes(), "cls": str(i).encode(), "json": json_bytes({"source": p.name})},
        )
        for i, p in enumerate(photos)
    ]
    _write(tmp_path / "fog-1-000000.tar", samples[:4])
    _write(tmp_path / "fog-1-000001.tar", samples[4:])
    urls = str(tmp_path / "fog-1-{000000..000001}.tar")
    raw = list(wds.WebDataset(urls, shardshuffle=False))
    assert [s["__key__"] for s in raw] == [k for k, _ in samples]
    assert [s["jpg"] for s in raw] == [p.read_bytes() for p in photos]  # bytes unchanged
    decoded = list(
        wds.WebDataset(urls, shardshuffle=False).decode("rgb8").to_tuple("jpg", "cls", "json")
    )
    assert [c for _, c, _ in decoded] == list(range(6))
    assert decoded[0][2] == {"source": photos[0].name}
    with Image.open(photos[0]) as im:
        assert np.array_equal(decoded[0][0], np.asarray(im.convert("RGB")))


def _tarfile_members(path: Path) -> list[tuple[str, int, int]]:
    with tarfile.open(path) as tf:
        return [(m.name, m.offset_data, m.size) for m in tf if m.isfile()]


@pytest.mark.parametrize("fmt", [tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT])
def test_fast_member_reader_agrees_with_tarfile(tmp_path: Path, fmt: int) -> None:
    p = tmp_path / "t.tar"
    rng = np.random.default_rng(1)
    with tarfile.open(p, "w", format=fmt) as tf:
        d = tarfile.TarInfo("n1")
        d.type = tarfile.DIRTYPE
        tf.addfile(d)
        names = ["n1/a.jpg", "n1/" + "p" * 120 + "/b.json", "n1/c" * 40 + ".cls"]
        if fmt != tarfile.USTAR_FORMAT:
            names.append("n1/é-ü.png")
        for i, name in enumerate(names):
            data = rng.integers(0, 256, 700 * i + 3, dtype=np.uint8).tobytes()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("n1/link")
        link.type = tarfile.SYMTYPE
        link.linkname = "x" * (150 if fmt == tarfile.GNU_FORMAT else 10)  # GNU: a 'K' member
        tf.addfile(link)
    assert members(p) == _tarfile_members(p)


def test_fast_member_reader_on_tars_of_other_tools(tmp_path: Path) -> None:
    files = tmp_path / "files" / "n1"
    files.mkdir(parents=True)
    for i in range(3):
        (files / f"s{i}.jpg").write_bytes(bytes(range(256)) * (i + 1))
        (files / f"s{i}.cls").write_text(str(i))
    tar = shutil.which("tar")
    if tar:
        subprocess.run(
            [tar, "-cf", str(tmp_path / "gnu.tar"), "-C", str(tmp_path / "files"), "n1"], check=True
        )
        assert members(tmp_path / "gnu.tar") == _tarfile_members(tmp_path / "gnu.tar")
    wds = pytest.importorskip("webdataset")
    with wds.TarWriter(str(tmp_path / "w.tar")) as sink:
        for i in range(3):
            sink.write({"__key__": f"n1/s{i}", "jpg": b"\xff\xd8\xff" + bytes(i), "cls": i})
    assert members(tmp_path / "w.tar") == _tarfile_members(tmp_path / "w.tar")
    assert [k for k, _ in iter_samples(tmp_path / "w.tar")] == ["n1/s0", "n1/s1", "n1/s2"]


def test_damaged_shards_are_errors(tmp_path: Path) -> None:
    p = tmp_path / "a.tar"
    _write(p, _samples(3))
    data = p.read_bytes()
    (tmp_path / "trunc.tar").write_bytes(data[:1500])
    with pytest.raises(tarfile.ReadError, match="unexpected end"):
        members(tmp_path / "trunc.tar")
    bad = bytearray(data)
    bad[0] ^= 0xFF  # a name byte: the checksum no longer matches
    (tmp_path / "bad.tar").write_bytes(bytes(bad))
    with pytest.raises(tarfile.ReadError, match="checksum"):
        members(tmp_path / "bad.tar")
    (tmp_path / "junk.tar").write_bytes(b"<html>" * 200)
    with pytest.raises((tarfile.TarError, ValueError)):
        members(tmp_path / "junk.tar")


def test_shard_problem_names_what_differs(tmp_path: Path) -> None:
    p = tmp_path / "a.tar"
    _write(p, _samples(4))
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


@pytest.mark.parametrize("fmt", [tarfile.USTAR_FORMAT, tarfile.PAX_FORMAT])
@pytest.mark.parametrize("name", ["../../evil.jpg", "/etc/evil.jpg", "n1/../../evil.jpg"])
def test_members_with_unsafe_names_are_refused(tmp_path: Path, fmt: int, name: str) -> None:
    p = tmp_path / "t.tar"
    with tarfile.open(p, "w", format=fmt) as tf:
        for n in ("n1/ok.jpg", name):
            info = tarfile.TarInfo(n)
            info.size = 3
            tf.addfile(info, io.BytesIO(b"abc"))
    with pytest.raises(UnsafeMemberError, match="has an unsafe name"):
        members(p)
    assert "has an unsafe name" in str(shard_problem(p, {"samples": 2, "bytes": 0, "sha256": ""}))


@pytest.mark.parametrize("name", ["../x.tar", "/tmp/x.tar", "sub/x.tar", ".x.tar", "x.txt", 3])
def test_read_index_refuses_shard_names_that_are_not_file_names(
    tmp_path: Path, name: object
) -> None:
    p = tmp_path / "a.tar"
    _write(p, _samples(1))
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

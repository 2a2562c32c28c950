"""The WebDataset shard format: keys, deterministic tar writing, reading back (ours, the
``webdataset`` library's and Hugging Face ``datasets``')."""

from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
import tarfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench.formats.webdataset import (
    TarShardWriter,
    UnsafeMemberError,
    iter_samples,
    json_bytes,
    members,
    png_bytes,
    read_member,
    sample_key,
    scan_samples,
    shard_stats,
    split_member,
)
from corruptbench.layouts.webdataset import (
    shard_problem,
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

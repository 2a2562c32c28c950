"""Safe, resumable extraction."""

from __future__ import annotations

import io
import zipfile

import pytest

from corruptbench.download.archive import (
    UnsafeArchive,
    extract,
    read_extracted,
    safe_member_path,
    state_path,
)
from download.archives import tar_bytes


def test_safe_member_path():
    assert safe_member_path("./a//b/") == "a/b"
    assert safe_member_path("./") == ""
    for bad in ("../x", "a/../../x", "/etc/passwd", "C:/x", "a\\..\\..\\x"):
        with pytest.raises(UnsafeArchive):
            safe_member_path(bad)


def test_an_interrupted_extraction_skips_the_finished_members(tmp_path):
    arc = tmp_path / "a.tar"
    arc.write_bytes(tar_bytes([(f"d/{i}.txt", f"{i}".encode(), None) for i in range(6)]))
    dest = tmp_path / "out"
    # an earlier run finished the first three (its list of finished members says so)
    ledger = state_path(dest, "a.tar", "members")
    ledger.parent.mkdir(parents=True)
    ledger.write_text("d/0.txt\nd/1.txt\nd/2.txt\n")
    summary = extract(arc, dest, progress_mode="off")
    assert (summary.members, summary.written, summary.skipped) == (6, 3, 3)
    assert sorted(p.name for p in (dest / "d").iterdir()) == ["3.txt", "4.txt", "5.txt"]
    assert read_extracted(dest, "a.tar")["members"] == 6 and not ledger.exists()


def test_links_inside_the_folder_and_through_an_existing_link(tmp_path):
    arc = tmp_path / "a.tar"
    arc.write_bytes(tar_bytes([("d/a.txt", b"a", None), ("d/l", None, "a.txt")]))
    extract(arc, tmp_path / "out", progress_mode="off")
    assert (tmp_path / "out/d/l").read_bytes() == b"a"
    # a folder of DIR that is a link to elsewhere is never written through
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    dest = tmp_path / "out2"
    dest.mkdir()
    (dest / "d").symlink_to(outside)
    with pytest.raises(UnsafeArchive, match="'d/a.txt' would be written through a link"):
        extract(arc, dest, progress_mode="off")
    assert list(outside.iterdir()) == []


def test_zip_members_are_checked_too(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("mnist_c/identity/a.npy", b"1")
        zf.writestr("../x.npy", b"2")
    arc = tmp_path / "m.zip"
    arc.write_bytes(buf.getvalue())
    with pytest.raises(UnsafeArchive, match="'../x.npy' points outside"):
        extract(arc, tmp_path / "out", progress_mode="off")
    # nothing of a refused archive stays: the member before it is removed again
    assert not (tmp_path / "out/mnist_c").exists()
    assert not (tmp_path / "x.npy").exists()


def test_hard_links_to_earlier_members_only(tmp_path):
    import tarfile

    def with_hardlink(target: str) -> bytes:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tf:
            info = tarfile.TarInfo("d/a.txt")
            info.size = 1
            tf.addfile(info, io.BytesIO(b"a"))
            link = tarfile.TarInfo("d/b.txt")
            link.type, link.linkname = tarfile.LNKTYPE, target
            tf.addfile(link)
        return buf.getvalue()

    arc = tmp_path / "h.tar"
    arc.write_bytes(with_hardlink("d/a.txt"))
    extract(arc, tmp_path / "ok", progress_mode="off")
    assert (tmp_path / "ok/d/b.txt").read_bytes() == b"a"
    arc.write_bytes(with_hardlink("../../etc/passwd"))
    with pytest.raises(UnsafeArchive, match="'d/b.txt' is a hard link out of the folder"):
        extract(arc, tmp_path / "bad", progress_mode="off")
    assert not (tmp_path / "bad/d/b.txt").exists()

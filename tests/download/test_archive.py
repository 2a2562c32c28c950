"""Safe, resumable extraction."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

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


def _depth(path: Path) -> int:
    return len(Path(os.path.realpath(path)).parts) - 1


def _escaping_chain(dest: Path, link_first: bool) -> bytes:
    """``a1/../aD/up -> ../..`` (the folder itself) and ``pw -> a1/../aD/up/../..(D)/etc/passwd``:
    lexically inside the folder, through ``up`` at ``/etc/passwd`` (D: the folder's depth)."""
    d = _depth(dest)
    dirs = [("/".join(f"a{i}" for i in range(1, k + 1)), None, None) for k in range(1, d + 1)]
    deep = dirs[-1][0]
    up = (f"{deep}/up", None, "/".join([".."] * d))
    pw = ("pw", None, f"{deep}/up/" + "../" * d + "etc/passwd")
    members = [pw, *dirs, up] if link_first else [*dirs, up, pw]
    return tar_bytes([("ok.txt", b"ok", None), *members])


@pytest.mark.parametrize("link_first", [False, True], ids=["link-last", "link-first"])
def test_a_chain_of_links_out_of_the_folder_is_refused(tmp_path, link_first):
    # issue 33 item 14: DIR/pw was left pointing at /etc/passwd (exit 0). link-first: pw is
    # harmless when written and only leads out once a later link (up) exists, which the
    # 3.11 tarfile.data_filter cannot see
    dest = tmp_path / "out"
    dest.mkdir()
    arc = tmp_path / "chain.tar"
    arc.write_bytes(_escaping_chain(dest, link_first))
    with pytest.raises(UnsafeArchive, match="symbolic link"):
        extract(arc, dest, progress_mode="off")
    assert not os.path.lexists(dest / "pw")
    root = os.path.realpath(dest)
    for p in dest.rglob("*"):
        assert os.path.realpath(p).startswith(root + os.sep), p


def test_an_archive_that_expands_past_its_limit_is_refused(tmp_path):
    # issue 33 item 21: no limit on what an archive may write (a 10 kB archive wrote 2 GB)
    arc = tmp_path / "bomb.tar.gz"
    arc.write_bytes(
        tar_bytes([("a/ok.txt", b"ok", None), ("a/zeros.bin", bytes(8 << 20), None)], gz=True)
    )
    assert arc.stat().st_size < 100_000
    with pytest.raises(UnsafeArchive, match=r"add up to more than 1000000 bytes.*'a/zeros.bin'"):
        extract(arc, tmp_path / "out", max_bytes=1_000_000, progress_mode="off")
    assert not (tmp_path / "out/a").exists()  # the member before it is removed too
    summary = extract(arc, tmp_path / "out", max_bytes=9 << 20, progress_mode="off")
    assert summary.written == 2 and (tmp_path / "out/a/zeros.bin").stat().st_size == 8 << 20


def test_a_tar_cut_at_a_member_boundary_is_refused_and_leaves_nothing(tmp_path):
    # issue 33 item 17: tarfile stops quietly at a cut between members: half an archive
    data = tar_bytes([(f"d/{i}.bin", bytes([i]) * 3000, None) for i in range(6)])
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        cut = [m.offset for m in tf.getmembers()][3]
    arc = tmp_path / "cut.tar"
    arc.write_bytes(data[:cut])
    with pytest.raises(tarfile.ReadError, match="without tar's end-of-archive block"):
        extract(arc, tmp_path / "out", progress_mode="off")
    assert files_of(tmp_path / "out") == []


def files_of(root: Path) -> list[str]:
    return sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if ".corruptbench" not in p.parts
    )


def test_the_bookkeeping_is_never_written_through_a_linked_folder(tmp_path):
    arc = tmp_path / "a.tar"
    arc.write_bytes(tar_bytes([("d/a.txt", b"a", None)]))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / ".corruptbench").symlink_to(elsewhere)
    with pytest.raises(UnsafeArchive, match=r"\.corruptbench is a symbolic link"):
        extract(arc, dest, progress_mode="off")
    assert list(elsewhere.iterdir()) == [] and not (dest / "d").exists()

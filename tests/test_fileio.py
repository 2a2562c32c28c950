"""corruptbench.fileio: atomic writes that follow the umask and name the caller's path."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from corruptbench.fileio import TMP_SUFFIX, temp_path, write_atomic, write_bytes, write_text


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_files_follow_the_umask(tmp_path: Path, umask_027: None) -> None:
    write_bytes(tmp_path / "a.bin", b"abc")
    write_text(tmp_path / "sub" / "b.json", "{}\n", make_parents=True)
    assert (tmp_path / "a.bin").read_bytes() == b"abc"
    assert _mode(tmp_path / "a.bin") == _mode(tmp_path / "sub" / "b.json") == 0o640
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(TMP_SUFFIX)]


def test_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "c.txt"
    target.write_text("old")

    def boom(fh) -> None:  # type: ignore[no-untyped-def]
        fh.write(b"half")
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        write_atomic(target, boom)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]


def test_errors_name_the_callers_path(tmp_path: Path) -> None:
    target = tmp_path / "out.png"
    target.mkdir()  # a folder where the file should go: the rename fails
    with pytest.raises(IsADirectoryError) as info:
        write_bytes(target, b"x")
    assert info.value.filename == str(target) and TMP_SUFFIX not in str(info.value)
    with pytest.raises(FileNotFoundError) as info2:
        write_bytes(tmp_path / "missing" / "x.png", b"x")
    assert info2.value.filename == str(tmp_path / "missing" / "x.png")
    assert not list(tmp_path.rglob(f"*{TMP_SUFFIX}"))


def test_temp_names_are_unique_across_machines_and_hidden(tmp_path: Path) -> None:
    import socket

    names = {temp_path(tmp_path / "x.JPEG") for _ in range(200)}
    assert len(names) == 200
    path = Path(next(iter(names)))
    assert path.parent == tmp_path and path.name.startswith(".x.JPEG.")
    assert path.name.endswith(TMP_SUFFIX)
    host, pid, rand = path.name[len(".x.JPEG.") : -len(TMP_SUFFIX)].split(".")
    label = socket.gethostname().split(".")[0]
    assert host == "".join(c if c.isalnum() or c in "-_" else "_" for c in label)[:24]
    assert pid == str(os.getpid()) and len(rand) == 8


def test_write_bytes_writes_every_byte_of_large_and_buffer_payloads(tmp_path: Path) -> None:
    data = os.urandom(3 << 20)
    write_bytes(tmp_path / "big.bin", data)
    write_bytes(tmp_path / "view.bin", memoryview(data)[5:105])
    assert (tmp_path / "big.bin").read_bytes() == data
    assert (tmp_path / "view.bin").read_bytes() == data[5:105]

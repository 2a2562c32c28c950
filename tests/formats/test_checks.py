"""The single-file checks: what the cheap checks catch, and what only --decode catches."""

from __future__ import annotations

import io
import struct

import numpy as np
from PIL import Image

from corruptbench.formats.checks import check_mp4, check_npy, file_problem


def _jpeg() -> bytes:
    buf = io.BytesIO()
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)).save(buf, "JPEG", quality=85)
    return buf.getvalue()


def _write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data)
    return str(p), len(data)


def test_jpeg_cheap_and_full(tmp_path):
    good = _jpeg()
    assert file_problem(*_write(tmp_path, "a.JPEG", good)) is None
    assert file_problem(*_write(tmp_path, "z.JPEG", b"")) == "zero bytes"
    assert (
        file_problem(*_write(tmp_path, "t.JPEG", good[: len(good) // 2]))
        == "truncated JPEG (no end-of-image marker)"
    )
    assert (
        file_problem(*_write(tmp_path, "n.JPEG", b"GIF89a" + good))
        == "not a JPEG (no start-of-image marker)"
    )
    # damage inside the entropy-coded data keeps both markers: only a full decode sees it
    damaged = bytearray(good)
    sos = damaged.index(b"\xff\xda")
    damaged[sos + 20 : sos + 400] = b"\xff\xd0" * 190
    for data in (bytes(damaged), good[: len(good) // 2] + b"\xff\xd9"):
        path, size = _write(tmp_path, "d.JPEG", data)
        assert file_problem(path, size) is None
        problem = file_problem(path, size, decode=True)
        assert problem is not None and problem.startswith("undecodable (Corrupt JPEG data")
    path, size = _write(tmp_path, "d.JPEG", bytes(damaged))
    assert file_problem(path, size) is None
    problem = file_problem(path, size, decode=True)
    assert problem is not None and problem.startswith("undecodable")


def test_png(tmp_path):
    buf = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buf, "PNG")
    good = buf.getvalue()
    assert file_problem(*_write(tmp_path, "a.png", good)) is None
    assert (
        file_problem(*_write(tmp_path, "b.png", good[:-5]))
        == "truncated PNG (no IEND chunk at the end)"
    )


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def test_mp4_boxes_must_fill_the_file(tmp_path):
    good = (
        _box(b"ftyp", b"isom\x00\x00\x02\x00")
        + _box(b"moov", b"x" * 40)
        + _box(b"mdat", b"y" * 100)
    )
    assert check_mp4(*_write(tmp_path, "a.mp4", good)) is None
    assert "truncated MP4" in check_mp4(*_write(tmp_path, "b.mp4", good[:-10]))
    assert (
        check_mp4(*_write(tmp_path, "c.mp4", _box(b"mdat", b"z")))
        == "not an MP4 (no ftyp box first)"
    )


def test_npy_size_must_match_the_header(tmp_path):
    buf = io.BytesIO()
    np.save(buf, np.zeros((10, 3), np.uint8))
    good = buf.getvalue()
    assert check_npy(*_write(tmp_path, "a.npy", good)) is None
    assert "truncated .npy" in check_npy(*_write(tmp_path, "b.npy", good[:-4]))
    assert check_npy(*_write(tmp_path, "c.npy", b"not numpy")).startswith("not a .npy file")

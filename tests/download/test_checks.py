"""Checksums given by users, Zenodo record documents, the comparison."""

from __future__ import annotations

import hashlib

import pytest

from corruptbench.download.checks import Expected, compare, parse_checksum, zenodo_files
from corruptbench.tables.released import Checksum


def test_parse_checksum_forms_and_errors():
    h = hashlib.md5(b"x").hexdigest()
    assert parse_checksum(f"md5:{h.upper()}", "me") == Checksum("md5", h, "me")
    assert parse_checksum(h, "me").algorithm == "md5"
    assert parse_checksum("a" * 64, "me").algorithm == "sha256"
    with pytest.raises(ValueError, match="md5 needs 32 hex digits"):
        parse_checksum("md5:abc", "me")
    with pytest.raises(ValueError, match="ALGO one of"):
        parse_checksum("crc:1234", "me")


def test_zenodo_record_shapes():
    f = {"key": "a.tar", "size": 3, "checksum": "md5:" + "0" * 32}
    for doc in ({"id": 1, "files": [f]}, {"id": 1, "files": {"entries": {"a.tar": f}}}):
        size, md5 = zenodo_files(doc)["a.tar"]
        assert size == 3 and md5 is not None and md5.value == "0" * 32
        assert md5.source == "Zenodo's record API (record 1)"
    assert zenodo_files({"files": [{"filename": "b", "checksum": "sha1:zz"}]}) == {
        "b": (None, None)
    }


def test_compare_reports_size_first_then_each_digest(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"abc")
    ok = Expected((Checksum("sha256", hashlib.sha256(b"abc").hexdigest(), "s"),), 3, "t")
    assert compare(p, ok, desc="x")[0] == []
    (bad,) = compare(p, Expected((), 4, "the table"), desc="x")[0]
    assert str(bad) == "size is 3 bytes, expected 4 bytes (the table)"
    (bad,) = compare(p, Expected((Checksum("md5", "0" * 32, "src"),)), desc="x")[0]
    assert str(bad) == f"md5 is {hashlib.md5(b'abc').hexdigest()}, expected {'0' * 32} (src)"

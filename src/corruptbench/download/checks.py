"""What a downloaded file must match, and the check itself.

:class:`Expected` is decided per file before any byte is fetched, from (in this order) the
package's table (:mod:`corruptbench.tables.released`), a checksum the user gave
(``--checksum NAME=md5:HEX``, only for files the table has none for), the MD5 that Zenodo's record
API lists for the file (only when fetching from Zenodo itself, never from ``--base-url``: a
mirror's own metadata decides nothing), or ``--accept-unverified``. A file with none of these is
refused before it is downloaded.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..progress import progress
from ..tables.released import Checksum, ReleasedFile
from .http import byte_unit

__all__ = [
    "ALGORITHMS",
    "Expected",
    "Mismatch",
    "parse_checksum",
    "expected_from_table",
    "file_digests",
    "compare",
    "zenodo_files",
]

#: the digest algorithms a checksum may use
ALGORITHMS = ("md5", "sha1", "sha256", "sha512")
_HEX_LEN = {"md5": 32, "sha1": 40, "sha256": 64, "sha512": 128}


@dataclass(frozen=True)
class Expected:
    """What a file must match to be accepted.

    ``checksums`` empty and ``unverified`` True: the user accepted it without a checksum.
    """

    checksums: tuple[Checksum, ...]
    size: int | None = None
    size_source: str = ""
    unverified: bool = False

    @property
    def origin(self) -> str:
        """Where the checksums come from, for messages."""
        if self.unverified:
            return "no checksum (accepted with --accept-unverified)"
        return "; ".join(f"{c.algorithm} from {c.source}" for c in self.checksums)


@dataclass(frozen=True)
class Mismatch:
    """One way a file differs from what was expected."""

    what: str  #: "size" or an algorithm
    expected: str
    got: str
    source: str

    def __str__(self) -> str:
        return f"{self.what} is {self.got}, expected {self.expected} ({self.source})"


def parse_checksum(text: str, source: str) -> Checksum:
    """``md5:HEX`` / ``sha256:HEX`` (a bare 32-digit value is MD5, 64 SHA-256) as a checksum.

    Raises:
        ValueError: an unknown algorithm, or a value that is not hex of the algorithm's length.
    """
    algo, sep, value = text.strip().partition(":")
    if not sep:
        algo, value = {32: "md5", 64: "sha256"}.get(len(algo), ""), algo
    algo, value = algo.lower(), value.lower()
    if algo not in ALGORITHMS:
        raise ValueError(
            f"checksum {text!r}: give ALGO:HEX with ALGO one of {', '.join(ALGORITHMS)}"
        )
    if not re.fullmatch(rf"[0-9a-f]{{{_HEX_LEN[algo]}}}", value):
        raise ValueError(f"checksum {text!r}: {algo} needs {_HEX_LEN[algo]} hex digits")
    return Checksum(algo, value, source)


def expected_from_table(entry: ReleasedFile) -> Expected | None:
    """The table's expectation for ``entry`` (None when it has no checksum)."""
    if not entry.checksums:
        return None
    return Expected(entry.checksums, entry.size, entry.size_source)


def file_digests(
    path: str | Path, algorithms: Iterable[str], *, desc: str, progress_mode: str | bool = "off"
) -> dict[str, str]:
    """Hex digests of ``path`` for each algorithm, in one pass (with progress in bytes)."""
    hashers = {a: hashlib.new(a) for a in dict.fromkeys(algorithms)}
    size = os.path.getsize(path)
    unit, scale = byte_unit(size)
    done = shown = 0
    with (
        progress(size // scale, desc, unit=unit, mode=progress_mode) as bar,
        open(path, "rb") as fh,
    ):
        while chunk := fh.read(1 << 22):
            for h in hashers.values():
                h.update(chunk)
            done += len(chunk)
            if done // scale > shown:
                bar.advance(done // scale - shown)
                shown = done // scale
    return {a: h.hexdigest() for a, h in hashers.items()}


def compare(
    path: str | Path,
    expected: Expected,
    *,
    desc: str,
    progress_mode: str | bool = "off",
    digests: Callable[..., dict[str, str]] = file_digests,
) -> tuple[list[Mismatch], dict[str, str]]:
    """The differences between ``path`` and ``expected`` (empty: accepted) and the file's MD5 and
    SHA-256 (plus the expected algorithms), computed in one read."""
    size = os.path.getsize(path)
    if expected.size is not None and size != expected.size:
        return [
            Mismatch("size", f"{expected.size} bytes", f"{size} bytes", expected.size_source)
        ], {}
    algos = ["md5", "sha256", *(c.algorithm for c in expected.checksums)]
    got = digests(path, algos, desc=desc, progress_mode=progress_mode)
    bad = [
        Mismatch(c.algorithm, c.value, got[c.algorithm], c.source)
        for c in expected.checksums
        if got[c.algorithm] != c.value.lower()
    ]
    return bad, got


def _files_of(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    files = record.get("files")
    if isinstance(files, Mapping):  # the newer API: {"entries": {name: {...}} or [...]}
        files = files.get("entries", [])
    if isinstance(files, Mapping):
        files = list(files.values())
    return [f for f in files or [] if isinstance(f, Mapping)]


def zenodo_files(record: Mapping[str, Any]) -> dict[str, tuple[int | None, Checksum | None]]:
    """``{file name: (size, MD5)}`` from a Zenodo record JSON document (``/api/records/<id>``).

    Reads both shapes Zenodo has served: ``files`` as a list of ``{key, size, checksum}`` and as
    ``{"entries": ...}``; ``checksum`` is ``"md5:<hex>"``. The checksum's source names the record.
    """
    out: dict[str, tuple[int | None, Checksum | None]] = {}
    rec_id = record.get("id") or record.get("recid") or "?"
    for f in _files_of(record):
        name = f.get("key") or f.get("filename")
        if not isinstance(name, str):
            continue
        size = f.get("size", f.get("filesize"))
        checksum = None
        raw = f.get("checksum")
        if isinstance(raw, str) and raw.lower().startswith("md5:"):
            try:
                checksum = parse_checksum(raw, f"Zenodo's record API (record {rec_id})")
            except ValueError:
                checksum = None
        out[name] = (int(size) if isinstance(size, int) else None, checksum)
    return out

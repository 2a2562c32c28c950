"""WebDataset tar shards: the sample convention, deterministic tar writing, reading.

A shard is a plain POSIX tar file. One **sample** is the run of members that share a key, the
member name up to the first dot of its base name (the WebDataset convention), e.g.::

    n01440764/ILSVRC2012_val_00000293.cls     class index, ASCII decimal ("0")
    n01440764/ILSVRC2012_val_00000293.jpg     the image bytes (or .png / .mp4 / .npy)
    n01440764/ILSVRC2012_val_00000293.json    metadata (one fixed set of keys per dataset)

Keys come from relative paths with :func:`sample_key`: the extension is dropped and the other dots
of the base name become ``_`` (a dot would end the key early). Shards are named
``<name>-<level>-<number:06d>.tar`` and listed in ``shards.json``: the folder of shards is a layout,
:mod:`corruptbench.layouts.webdataset` (names, index, the one shard check against it).

Names from the files are data, not paths: :func:`members` refuses a tar member whose name is
absolute or has a ``..`` part (:class:`UnsafeMemberError`).

Writing is deterministic (:class:`TarShardWriter`): PAX format, members in the order given with
their extensions sorted, mtime 0, mode 0644, uid/gid 0 and empty user/group names, so the same
samples always give the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import struct
import tarfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

__all__ = [
    "ShardStats",
    "SampleEntry",
    "UnsafeMemberError",
    "TarShardWriter",
    "sample_key",
    "split_member",
    "json_bytes",
    "png_bytes",
    "shard_stats",
    "members",
    "iter_samples",
    "scan_samples",
    "read_member",
    "file_sha256",
    "ShardInfo",
    "inspect_shard",
    "map_shards",
]


def sample_key(rel: str) -> str:
    """The WebDataset key of the item at relative path ``rel``.

    ``n01440764/ILSVRC2012_val_00000293.JPEG`` -> ``n01440764/ILSVRC2012_val_00000293``;
    ``cls/a.b.png`` -> ``cls/a_b``. The folders are kept (they may contain dots); the base name
    loses its extension and its other dots.
    """
    head, _, base = rel.replace("\\", "/").rpartition("/")
    stem = base.rsplit(".", 1)[0] if "." in base[1:] else base
    stem = stem.replace(".", "_") or "_"
    return f"{head}/{stem}" if head else stem


def split_member(name: str) -> tuple[str, str]:
    """``(key, extension)`` of a tar member name, as WebDataset splits it (extension lower-case;
    ``""`` when the base name has no dot)."""
    head, _, base = name.rpartition("/")
    stem, dot, ext = base.partition(".")
    key = f"{head}/{stem}" if head else stem
    return key, ext.lower() if dot else ""


def json_bytes(meta: Mapping[str, Any]) -> bytes:
    """A sample's ``.json`` member: compact, keys sorted (so the bytes are reproducible)."""
    return json.dumps(dict(meta), sort_keys=True, separators=(",", ":")).encode()


def png_bytes(arr: Any) -> bytes:
    """A lossless ``.png`` member: Pillow's PNG of a uint8 ``(H, W, 3)`` array (default settings)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


@dataclass(frozen=True)
class ShardStats:
    """What the index says about one shard."""

    name: str
    samples: int
    bytes: int
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _HashingFile:
    """Write-through file wrapper that counts and hashes the bytes (tarfile needs write/tell)."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.size = 0
        self.sha = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.fh.write(data)
        self.sha.update(data)
        self.size += len(data)
        return len(data)

    def tell(self) -> int:
        return self.size


class TarShardWriter:
    """Stream samples into one tar file at ``path`` (the caller renames it into place).

    Members are written as they come, so a shard of any size needs only one sample in memory.
    :meth:`close` ends the archive, flushes and fsyncs it and returns its statistics;
    :meth:`abort` closes and deletes the file.
    """

    def __init__(self, path: str | os.PathLike[str], name: str) -> None:
        self.path = os.fspath(path)
        self.name = name
        self.samples = 0
        self._fh = open(self.path, "wb")  # noqa: SIM115 - closed in close()/abort()
        self._out = _HashingFile(self._fh)
        self._tar = tarfile.open(fileobj=self._out, mode="w", format=tarfile.PAX_FORMAT)  # type: ignore[call-overload]

    def add(self, key: str, members: Mapping[str, bytes]) -> None:
        """Append one sample: ``members`` maps extensions (``"jpg"``) to bytes; written in sorted
        extension order."""
        for ext in sorted(members):
            data = members[ext]
            info = tarfile.TarInfo(f"{key}.{ext}")
            info.size = len(data)
            info.mtime = 0
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.type = tarfile.REGTYPE
            self._tar.addfile(info, io.BytesIO(data))
        self.samples += 1

    def close(self) -> ShardStats:
        """End the archive (two zero blocks, padded to tar's record size), fsync, close."""
        self._tar.close()
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        return ShardStats(self.name, self.samples, self._out.size, self._out.sha.hexdigest())

    def abort(self) -> None:
        """Close and delete the unfinished file."""
        try:
            self._fh.close()
        finally:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file (hex), read in 4 MiB chunks (:mod:`hashlib` releases the GIL on
    them, so threads hash several files at once)."""
    sha = hashlib.sha256()
    with open(os.fspath(path), "rb") as fh:
        while chunk := fh.read(1 << 22):
            sha.update(chunk)
    return sha.hexdigest()


def shard_stats(path: str | os.PathLike[str]) -> ShardStats:
    """Statistics of an existing shard, read from the file (samples = distinct keys)."""
    info = inspect_shard(path, hash=True)
    assert info.sha256 is not None
    return ShardStats(Path(path).name, info.samples, info.size, info.sha256)


@dataclass
class ShardInfo:
    """What one read of a shard found: its samples (:func:`scan_samples`), size and SHA-256."""

    entries: list[SampleEntry]
    size: int
    sha256: str | None = None  #: None when not hashed

    @property
    def samples(self) -> int:
        """The sample count, as ``shards.json`` counts it: distinct keys."""
        return len({e.key for e in self.entries})


#: shards up to this size are read whole when hashed (one read, headers parsed in memory)
_WHOLE_READ = 256 << 20


def inspect_shard(
    path: str | os.PathLike[str], *, hash: bool, read: tuple[str, ...] = ()
) -> ShardInfo:
    """Scan a shard's samples (and the members of ``read``) and, with ``hash``, its SHA-256, in
    one read of the file (a shard of up to 256 MiB is read whole and its headers are parsed in
    memory, so hashing costs no second pass).

    Raises:
        UnsafeMemberError: a member name is absolute or has a ``..`` part.
        tarfile.TarError, OSError: not a readable tar archive.
    """
    size = os.path.getsize(path)
    if hash and size <= _WHOLE_READ:
        with open(os.fspath(path), "rb") as fh:
            data = fh.read()
        buf = io.BytesIO(data)
        return ShardInfo(_scan(buf, _members_of(buf), read), len(data), _sha256(data))
    entries = scan_samples(path, read)
    return ShardInfo(entries, size, file_sha256(path) if hash else None)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_T = TypeVar("_T")
_S = TypeVar("_S")


def map_shards(fn: Callable[[_S], _T], shards: Sequence[_S]) -> list[_T]:
    """``[fn(s) for s in shards]`` on up to 8 threads (reading and hashing release the GIL)."""
    if len(shards) < 2:
        return [fn(s) for s in shards]
    with ThreadPoolExecutor(min(len(shards), os.cpu_count() or 1, 8)) as pool:
        return list(pool.map(fn, shards))


class _Unsupported(Exception):
    """A tar feature the fast header reader leaves to :mod:`tarfile`."""


class UnsafeMemberError(tarfile.TarError):
    """A tar member whose name is absolute or has a ``..`` part: a shard never holds one, and a
    reader that used it as a path would leave the folder."""


_UNSAFE_PART = re.compile(r"(^|/)\.\.(/|$)")


def _check_member_name(name: str) -> str:
    if name.startswith("/") or _UNSAFE_PART.search(name.replace("\\", "/")):
        raise UnsafeMemberError(
            f"tar member {name!r} has an unsafe name (absolute, or with a '..' part); refused"
        )
    return name


def _octal(field: bytes) -> int:
    if field[:1] and field[0] & 0x80:  # GNU base-256 number
        raise _Unsupported("base-256 number")
    text = field.replace(b"\0", b" ").strip()
    return int(text, 8) if text else 0


def _signed_sum(hdr: bytes) -> int:
    # some old tar programs summed the header bytes as signed chars
    return sum(struct.unpack("148b8x356b", hdr)) + 256


def _pax(data: bytes) -> dict[str, str]:
    """The records (``"<len> <key>=<value>\\n"``) of a PAX extended header."""
    out: dict[str, str] = {}
    pos = 0
    while pos < len(data) and data[pos : pos + 1] != b"\0":
        sp = data.index(b" ", pos)
        length = int(data[pos:sp])
        key, _, value = data[sp + 1 : pos + length - 1].partition(b"=")
        out[key.decode("utf-8", "surrogateescape")] = value.decode("utf-8", "surrogateescape")
        pos += length
    return out


def _fast_members(fh: BinaryIO) -> list[tuple[str, int, int]]:
    """``(name, data offset, size)`` of each regular member, from the 512-byte headers (ustar,
    PAX and GNU long names; ~10x faster than :mod:`tarfile`, which re-parses every header in
    Python objects). Raises ``tarfile.ReadError`` for a damaged archive, :class:`_Unsupported`
    for what it does not read (sparse files, base-256 sizes, ...)."""
    out: list[tuple[str, int, int]] = []
    end = fh.seek(0, os.SEEK_END)
    pos = 0
    pax: dict[str, str] = {}
    long_name: str | None = None
    while True:
        fh.seek(pos)
        hdr = fh.read(512)
        if len(hdr) < 512 or hdr == bytes(512):
            if hdr and len(hdr) < 512:
                raise tarfile.ReadError("unexpected end of data")
            return out  # end of archive (or of the file)
        chk = _octal(hdr[148:156])
        if chk != sum(hdr[:148]) + 256 + sum(hdr[156:]) and chk != _signed_sum(hdr):
            raise tarfile.ReadError(f"bad header checksum at offset {pos}")
        size = _octal(hdr[124:136])
        if pos + 512 + size > end:
            raise tarfile.ReadError(f"unexpected end of data (member at offset {pos})")
        kind = hdr[156:157]
        data = pos + 512
        if kind in (b"x", b"g", b"L"):
            fh.seek(data)
            payload = fh.read(size)
            if kind == b"x":
                pax = _pax(payload)
            elif kind == b"L":
                long_name = payload.rstrip(b"\0").decode("utf-8", "surrogateescape")
            pos = data + (size + 511) // 512 * 512
            continue
        name = hdr[:100].split(b"\0", 1)[0]
        if hdr[257:262] == b"ustar" and hdr[345:346] != b"\0":
            name = hdr[345:500].split(b"\0", 1)[0] + b"/" + name
        full = pax.get("path") or long_name or name.decode("utf-8", "surrogateescape")
        if "size" in pax:
            size = int(pax["size"])
        if kind in (b"0", b"\0", b"7"):
            out.append((_check_member_name(full), data, size))
        elif kind not in (b"1", b"2", b"3", b"4", b"5", b"6"):  # links, devices, dirs, fifos
            raise _Unsupported(f"member type {kind!r}")
        pax, long_name = {}, None
        pos = data + (size + 511) // 512 * 512


def members(path: str | os.PathLike[str]) -> list[tuple[str, int, int]]:
    """``(name, data offset, size)`` of each regular file in the tar at ``path``, in order.

    Raises:
        UnsafeMemberError: a member name is absolute or has a ``..`` part.
        tarfile.TarError: not a (readable) tar archive.
    """
    with open(os.fspath(path), "rb") as fh:
        return _members_of(fh)


def _members_of(fh: BinaryIO) -> list[tuple[str, int, int]]:
    """:func:`members` of an open file (or an in-memory copy)."""
    try:
        return _fast_members(fh)
    except _Unsupported:
        fh.seek(0)
        with tarfile.open(fileobj=fh, mode="r:") as tf:
            return [(_check_member_name(m.name), m.offset_data, m.size) for m in tf if m.isfile()]


def iter_samples(path: str | os.PathLike[str]) -> Iterator[tuple[str, dict[str, bytes]]]:
    """Yield ``(key, {extension: bytes})`` for each sample of a shard, in order."""
    key: str | None = None
    sample: dict[str, bytes] = {}
    entries = members(path)
    with open(os.fspath(path), "rb") as fh:
        for name, offset, size in entries:
            k, ext = split_member(name)
            if k != key and key is not None:
                yield key, sample
                sample = {}
            key = k
            fh.seek(offset)
            sample[ext] = fh.read(size)
    if key is not None:
        yield key, sample


@dataclass
class SampleEntry:
    """Where one sample's members are inside a shard (for random access).

    ``members`` maps each extension to ``(offset, size)`` of its data in the file; ``small`` holds
    the bytes of the members that were asked for (``.json``, ``.cls``).
    """

    key: str
    members: dict[str, tuple[int, int]] = field(default_factory=dict)
    small: dict[str, bytes] = field(default_factory=dict)


def scan_samples(path: str | os.PathLike[str], read: tuple[str, ...] = ()) -> list[SampleEntry]:
    """The samples of a shard, in order, with their members' offsets; the members whose
    extension is in ``read`` are read as well. Only the tar headers are visited otherwise."""
    with open(os.fspath(path), "rb") as fh:
        return _scan(fh, _members_of(fh), read)


def _scan(
    fh: BinaryIO, entries: list[tuple[str, int, int]], read: tuple[str, ...]
) -> list[SampleEntry]:
    out: list[SampleEntry] = []
    for name, offset, size in entries:
        k, ext = split_member(name)
        if not out or out[-1].key != k:
            out.append(SampleEntry(k))
        out[-1].members[ext] = (offset, size)
        if ext in read:
            fh.seek(offset)
            out[-1].small[ext] = fh.read(size)
    return out


def read_member(path: str | os.PathLike[str], offset: int, size: int) -> bytes:
    """``size`` bytes at ``offset`` of a shard (a member located by :func:`scan_samples`)."""
    with open(os.fspath(path), "rb") as fh:
        fh.seek(offset)
        data = fh.read(size)
    if len(data) != size:
        raise OSError(f"{path}: truncated shard (member at {offset} needs {size} bytes)")
    return data

"""Safe, resumable extraction of the released archives (tar, tar.gz, zip) into a folder.

Safety: every member name is checked before anything is written for it. Refused, with the member
named: absolute paths (``/etc/x``, ``C:/x``), any ``..`` component, symbolic links whose target
is absolute or leaves the folder, hard links to anything but an earlier member, device files and
FIFOs, and any member whose folder resolves (through a symbolic link already on disk) outside
the folder. Files are written through :func:`corruptbench.fileio.write_atomic`, so a member's
file is complete or absent; permissions and owners of the archive are not applied (new files get
the user's umask).

Resume: each finished member's name is appended to ``DIR/.corruptbench/download/<archive>.members``;
a re-run skips those. For an uncompressed tar (all of ImageNet-C / -P and CIFAR-C) skipping costs
a seek per member (:mod:`tarfile` jumps over the data it is not asked to read), so the finished
members are not read again; a compressed tar must be decompressed from the start (gzip cannot
seek), and a zip reads only the members it extracts. When every member is out,
``<archive>.extracted`` (JSON: size, digests, members) replaces the list.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..fileio import write_atomic, write_text
from ..progress import progress
from .http import byte_unit

__all__ = [
    "STATE_DIR",
    "UnsafeArchive",
    "ExtractSummary",
    "safe_member_path",
    "state_path",
    "extract",
    "extracted_marker",
    "read_extracted",
]

#: where the download bookkeeping lives, relative to the target folder
STATE_DIR = os.path.join(".corruptbench", "download")
_FLUSH_EVERY = 500


class UnsafeArchive(ValueError):
    """A member would land outside the target folder (or is a kind of file not extracted)."""


@dataclass
class ExtractSummary:
    """What :func:`extract` did."""

    archive: str
    members: int = 0  #: files, folders and links of the archive
    written: int = 0  #: extracted in this run
    skipped: int = 0  #: finished in an earlier run
    top_level: tuple[str, ...] = ()  #: the first path component of the members


def safe_member_path(name: str) -> str:
    """The member name as a clean relative path (``./a//b`` -> ``a/b``; ``""`` for the root).

    Raises:
        UnsafeArchive: an absolute path or a ``..`` component.
    """
    n = name.replace("\\", "/")
    if n.startswith("/") or (len(n) > 1 and n[1] == ":" and n[0].isalpha()):
        raise UnsafeArchive(f"member {name!r} has an absolute path")
    parts = [p for p in n.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnsafeArchive(f"member {name!r} points outside the folder (..)")
    return "/".join(parts)


def _inside(root: str, path: str) -> bool:
    return os.path.commonpath([root, path]) == root


def _target(root: str, rel: str, name: str) -> str:
    """``root/rel`` after checking that its folder does not resolve outside ``root``."""
    target = os.path.join(root, rel)
    if not _inside(root, os.path.realpath(os.path.dirname(target))):
        raise UnsafeArchive(f"member {name!r} would be written through a link out of the folder")
    return target


def _check_symlink(root: str, rel: str, link: str, name: str) -> None:
    if os.path.isabs(link) or link.startswith("\\"):
        raise UnsafeArchive(f"member {name!r} is a symbolic link to an absolute path ({link})")
    dest = os.path.normpath(os.path.join(root, os.path.dirname(rel), link))
    if not _inside(root, os.path.realpath(dest)) or not _inside(root, dest):
        raise UnsafeArchive(f"member {name!r} is a symbolic link out of the folder ({link})")


def state_path(dest: Path, archive_name: str, suffix: str) -> Path:
    """``dest/.corruptbench/download/<archive_name>.<suffix>``."""
    return dest / STATE_DIR / f"{archive_name}.{suffix}"


def extracted_marker(dest: Path, archive_name: str) -> Path:
    """The file that says ``archive_name`` is fully extracted into ``dest``."""
    return state_path(dest, archive_name, "extracted")


def read_extracted(dest: Path, archive_name: str) -> dict[str, Any] | None:
    """The completion record of an earlier extraction (None: none, or unreadable)."""
    try:
        return dict(json.loads(extracted_marker(dest, archive_name).read_text("utf-8")))
    except (OSError, ValueError):
        return None


class _Ledger:
    """The list of finished members (appended, flushed every few hundred)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.done = set(path.read_text("utf-8", "surrogateescape").splitlines())
        except FileNotFoundError:
            self.done = set()
        self._fh: IO[str] = open(path, "a", encoding="utf-8", errors="surrogateescape")  # noqa: SIM115
        self._pending = 0

    def add(self, rel: str) -> None:
        self._fh.write(rel + "\n")
        self._pending += 1
        if self._pending >= _FLUSH_EVERY:
            self._fh.flush()
            self._pending = 0

    def close(self) -> None:
        self._fh.close()


def _copy_to(target: str, src: IO[bytes]) -> None:
    write_atomic(target, lambda fh: shutil.copyfileobj(src, fh, 1 << 20), make_parents=True)


def _tar_member(tf: tarfile.TarFile, m: tarfile.TarInfo, root: str) -> str:
    """Extract one tar member safely; returns its clean relative path ("" for the root)."""
    rel = safe_member_path(m.name)
    if not rel:
        return rel
    target = _target(root, rel, m.name)
    if m.isdir():
        os.makedirs(target, exist_ok=True)
    elif m.isreg():
        src = tf.extractfile(m)
        assert src is not None
        with src:
            _copy_to(target, src)
    elif m.issym():
        _check_symlink(root, rel, m.linkname, m.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)
        os.symlink(m.linkname, target)
    elif m.islnk():
        try:
            link_rel = safe_member_path(m.linkname)
        except UnsafeArchive:
            raise UnsafeArchive(
                f"member {m.name!r} is a hard link out of the folder ({m.linkname})"
            ) from None
        source = _target(root, link_rel, m.name)
        if not link_rel or not os.path.isfile(source) or os.path.islink(source):
            raise UnsafeArchive(
                f"member {m.name!r} is a hard link to {m.linkname!r}, not a file of the archive"
            )
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(source, target)
    else:
        raise UnsafeArchive(f"member {m.name!r} is a device or FIFO; not extracted")
    return rel


def _iter_tar(raw: IO[bytes]) -> Iterator[tuple[tarfile.TarFile, tarfile.TarInfo]]:
    with tarfile.open(fileobj=raw, mode="r:*") as tf:
        for i, m in enumerate(tf):
            yield tf, m
            if i % 1000 == 999:
                # tarfile keeps every header it has read; ImageNet-C's archives hold 750,000
                tf.members = []  # type: ignore[attr-defined]


def _zip_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, root: str) -> str:
    rel = safe_member_path(info.filename)
    if not rel:
        return rel
    target = _target(root, rel, info.filename)
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise UnsafeArchive(f"member {info.filename!r} is a symbolic link; not extracted")
    if info.is_dir():
        os.makedirs(target, exist_ok=True)
    else:
        with zf.open(info) as src:
            _copy_to(target, src)
    return rel


def _run(
    archive: Path,
    root: str,
    ledger: _Ledger,
    summary: ExtractSummary,
    advance: Callable[[int], None],
) -> None:
    tops: dict[str, None] = {}
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                summary.members += 1
                key = safe_member_path(info.filename)
                if key in ledger.done:
                    summary.skipped += 1
                else:
                    ledger.add(_zip_member(zf, info, root))
                    summary.written += 1
                tops.setdefault(key.split("/")[0])
                advance(info.compress_size)
    else:
        with open(archive, "rb") as raw:
            pos = 0
            for tf, m in _iter_tar(raw):
                summary.members += 1
                key = safe_member_path(m.name)
                if key in ledger.done:
                    summary.skipped += 1
                else:
                    ledger.add(_tar_member(tf, m, root))
                    summary.written += 1
                tops.setdefault(key.split("/")[0])
                advance(raw.tell() - pos)
                pos = raw.tell()
    summary.top_level = tuple(t for t in tops if t)


def extract(
    archive: str | Path,
    dest: str | Path,
    *,
    record: dict[str, Any] | None = None,
    progress_mode: str | bool = "auto",
) -> ExtractSummary:
    """Extract ``archive`` into ``dest`` safely, resuming an interrupted extraction.

    Args:
        archive: A tar (plain or compressed, any format :mod:`tarfile` reads) or zip file.
        dest: The target folder (created).
        record: What to store in the completion marker (the archive's size and digests).
        progress_mode: As :func:`corruptbench.progress.progress` (counted in archive bytes).

    Raises:
        UnsafeArchive: a member that would land outside ``dest`` (the members before it stay
            extracted, all inside ``dest``; a re-run resumes and stops at it again).
        tarfile.TarError / zipfile.BadZipFile: a damaged archive.
    """
    archive, dest = Path(archive), Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    root = os.path.realpath(dest)
    ledger = _Ledger(state_path(dest, archive.name, "members"))
    summary = ExtractSummary(archive.name)
    size = archive.stat().st_size
    unit, scale = byte_unit(size)
    with progress(size // scale, f"extract {archive.name}", unit=unit, mode=progress_mode) as bar:
        carry = [0]

        def advance(n: int) -> None:
            carry[0] += n
            if carry[0] >= scale:
                bar.advance(carry[0] // scale)
                carry[0] %= scale

        try:
            _run(archive, root, ledger, summary, advance)
        finally:
            ledger.close()
    done = {**(record or {}), "archive": archive.name, "members": summary.members}
    done["top_level"] = list(summary.top_level)
    write_text(
        extracted_marker(dest, archive.name), json.dumps(done, indent=2, sort_keys=True) + "\n"
    )
    ledger.path.unlink(missing_ok=True)
    return summary

"""Safe, resumable extraction of the released archives (tar, tar.gz, zip) into a folder.

Safety: every member is checked before anything is written for it, first by our own rules (which
name the member), then by :func:`tarfile.data_filter` (PEP 706; called per member rather than as
``extractall(filter="data")`` because the files are written here: atomically, counted against the
size limit, and listed for resuming). Refused: absolute paths
(``/etc/x``, ``C:/x``), any ``..`` component, symbolic links whose target is absolute or leaves
the folder, hard links to anything but an earlier member, device files and FIFOs, and any member
whose folder resolves (through a symbolic link already on disk) outside the folder. A link's
target is resolved through the whole chain, and every link extracted so far is resolved again
after each new one: a later link can change where an earlier one leads (``a/up -> ..`` turning
``pw -> a/up/../../etc/passwd`` into a way out). Python 3.11's ``data_filter`` predates the 2025
fixes for such chains (CVE-2025-4517, fixed in 3.12.11 / 3.13.4), so this check stays on top.
Files are written through :func:`corruptbench.fileio.write_atomic`, so a member's file is
complete or absent; permissions and owners of the archive are not applied (new files get the
user's umask).

Limits: the members may add up to at most ``max_bytes`` (an archive that expands without bound,
e.g. a sparse tar or a zip bomb, is refused before the member that would pass it is written).
A tar must end with its end-of-archive blocks: one cut at a member boundary is refused instead
of extracting half of it.

Failure: a damaged or unsafe archive leaves nothing behind: the members this and earlier runs
extracted from it are removed, with the list of them.

Resume: each finished member's name is appended to ``DIR/.corruptbench/download/<archive>.members``;
a re-run skips those. For an uncompressed tar (all of ImageNet-C / -P and CIFAR-C) skipping costs
a seek per member (:mod:`tarfile` jumps over the data it is not asked to read), so the finished
members are not read again; a compressed tar must be decompressed from the start (gzip cannot
seek), and a zip reads only the members it extracts. When every member is out,
``<archive>.extracted`` (JSON: size, digests, members) replaces the list.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import json
import lzma
import os
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import Arg, DownloadError
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
    "DAMAGED",
]

#: where the download bookkeeping lives, relative to the target folder
STATE_DIR = os.path.join(".corruptbench", "download")
_FLUSH_EVERY = 500


class UnsafeArchive(DownloadError):
    """A member would land outside the target folder, is a kind of file not extracted, or the
    archive expands past its limit."""


#: what reading a damaged archive raises: a bad tar or zip, a truncated or spliced gzip / xz
#: stream
DAMAGED = (
    tarfile.TarError,
    zipfile.BadZipFile,
    EOFError,
    zlib.error,
    gzip.BadGzipFile,
    lzma.LZMAError,
)


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
    """Refuse a link whose target is absolute or leaves ``root``, lexically or once resolved
    (through any links already on disk: ``realpath`` of the joined path, never normalised
    first, since ``normpath`` would drop a ``link/..`` the system resolves)."""
    if os.path.isabs(link) or link.startswith("\\"):
        raise UnsafeArchive(f"member {name!r} is a symbolic link to an absolute path ({link})")
    joined = os.path.join(root, os.path.dirname(rel), link)
    if not _inside(root, os.path.normpath(joined)) or not _inside(root, os.path.realpath(joined)):
        raise UnsafeArchive(f"member {name!r} is a symbolic link out of the folder ({link})")


def _library_check(member: tarfile.TarInfo, root: str) -> None:
    """:func:`tarfile.data_filter` on ``member`` (PEP 706), its refusal as :class:`UnsafeArchive`
    (Pythons before 3.10.12 / 3.11.4 lack it: our own checks above then stand alone)."""
    if not hasattr(tarfile, "data_filter"):  # pragma: no cover - old Pythons
        return
    try:
        tarfile.data_filter(member, root)
    except tarfile.FilterError as exc:
        raise UnsafeArchive(f"member {member.name!r}: {exc}") from None


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
    """The list of finished members (appended, flushed every few hundred); never opened through
    a symbolic link."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnsafeArchive(
                    f"{path} is a symbolic link; the list of extracted members is never written "
                    "through one (remove it and run again)"
                ) from None
            raise
        self._fh: IO[str] = open(fd, "a+", encoding="utf-8", errors="surrogateescape")  # noqa: SIM115
        self._fh.seek(0)
        self.order = [line for line in self._fh.read().splitlines() if line]
        self.done = set(self.order)
        self._pending = 0

    def add(self, rel: str) -> None:
        self.order.append(rel)
        self._fh.write(rel + "\n")
        self._pending += 1
        if self._pending >= _FLUSH_EVERY:
            self._fh.flush()
            self._pending = 0

    def close(self) -> None:
        self._fh.close()


class _Extraction:
    """The state of one extraction: the folder, the running total, the links made so far."""

    def __init__(self, root: str, ledger: _Ledger, max_bytes: int | None, archive: str) -> None:
        self.root, self.ledger, self.max_bytes, self.archive = root, ledger, max_bytes, archive
        self.total = 0
        self.links: list[str] | None = None  # every link extracted (read lazily on resume)

    def charge(self, size: int, name: str) -> None:
        """Count ``size`` more bytes; refuse the member that passes ``max_bytes``."""
        self.total += size
        if self.max_bytes is not None and self.total > self.max_bytes:
            raise UnsafeArchive(
                f"{self.archive}: the members add up to more than {self.max_bytes} bytes at "
                f"member {name!r} (the limit for this archive); not extracted. If the archive "
                "is what you expect, raise the limit with ",
                Arg("max_extract_bytes", "BYTES"),
            )

    def add_link(self, rel: str, name: str) -> None:
        """Record a new link and resolve every link again (see the module docstring)."""
        if self.links is None:
            self.links = [r for r in self.ledger.order if os.path.islink(self._path(r))]
        self.links.append(rel)
        escaped = [r for r in self.links if not _inside(self.root, os.path.realpath(self._path(r)))]
        if escaped:
            for r in {*escaped, rel}:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self._path(r))
            raise UnsafeArchive(
                f"member {name!r} is a symbolic link that makes "
                + ", ".join(repr(r) for r in escaped)
                + " lead out of the folder (through a chain of links); removed"
            )

    def _path(self, rel: str) -> str:
        return os.path.join(self.root, rel)

    def remove_all(self) -> None:
        """Remove what the ledger lists (newest first), staying inside the folder."""
        for rel in reversed(self.ledger.order):
            path = self._path(rel)
            if not rel or not _inside(self.root, os.path.realpath(os.path.dirname(path))):
                continue
            with contextlib.suppress(OSError):
                if os.path.isdir(path) and not os.path.islink(path):
                    os.rmdir(path)  # only when empty: never what was there before
                else:
                    os.unlink(path)
            parent = os.path.dirname(path)  # the folders made for it, once empty
            while parent != self.root and _inside(self.root, parent):
                try:
                    os.rmdir(parent)
                except OSError:
                    break
                parent = os.path.dirname(parent)


def _copy_to(target: str, src: IO[bytes]) -> None:
    write_atomic(target, lambda fh: shutil.copyfileobj(src, fh, 1 << 20), make_parents=True)


def _tar_member(tf: tarfile.TarFile, m: tarfile.TarInfo, x: _Extraction) -> str:
    """Extract one tar member safely; returns its clean relative path ("" for the root)."""
    rel = safe_member_path(m.name)
    if not rel:
        return rel
    root = x.root
    target = _target(root, rel, m.name)
    if m.issym():
        _check_symlink(root, rel, m.linkname, m.name)
    elif m.islnk():
        try:
            safe_member_path(m.linkname)
        except UnsafeArchive:
            raise UnsafeArchive(
                f"member {m.name!r} is a hard link out of the folder ({m.linkname})"
            ) from None
    elif not (m.isdir() or m.isreg()):
        raise UnsafeArchive(f"member {m.name!r} is a device or FIFO; not extracted")
    _library_check(m, root)
    if m.isdir():
        os.makedirs(target, exist_ok=True)
    elif m.isreg():
        x.charge(m.size, m.name)
        src = tf.extractfile(m)
        assert src is not None
        with src:
            _copy_to(target, src)
    elif m.issym():
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)
        os.symlink(m.linkname, target)
        x.add_link(rel, m.name)
    else:
        source = _target(root, safe_member_path(m.linkname), m.name)
        if not os.path.isfile(source) or os.path.islink(source):
            raise UnsafeArchive(
                f"member {m.name!r} is a hard link to {m.linkname!r}, not a file of the archive"
            )
        x.charge(os.path.getsize(source), m.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(source, target)
    return rel


def _check_end(tf: tarfile.TarFile) -> None:
    """Refuse a tar without its end-of-archive block (cut at a member boundary, where
    :mod:`tarfile` just stops)."""
    fileobj = tf.fileobj
    assert fileobj is not None
    fileobj.seek(tf.offset)
    block = fileobj.read(tarfile.BLOCKSIZE)
    if len(block) < tarfile.BLOCKSIZE or block.count(0) != tarfile.BLOCKSIZE:
        raise tarfile.ReadError(
            f"the archive ends at byte {tf.offset} without tar's end-of-archive block "
            "(it is truncated)"
        )


def _zip_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, x: _Extraction) -> str:
    rel = safe_member_path(info.filename)
    if not rel:
        return rel
    target = _target(x.root, rel, info.filename)
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise UnsafeArchive(f"member {info.filename!r} is a symbolic link; not extracted")
    if info.is_dir():
        os.makedirs(target, exist_ok=True)
    else:
        x.charge(info.file_size, info.filename)
        with zf.open(info) as src:
            _copy_to(target, src)
    return rel


def _run(
    archive: Path, x: _Extraction, summary: ExtractSummary, advance: Callable[[int], None]
) -> None:
    tops: dict[str, None] = {}
    ledger = x.ledger
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                summary.members += 1
                key = safe_member_path(info.filename)
                if key in ledger.done:
                    summary.skipped += 1
                    x.total += info.file_size
                else:
                    ledger.add(_zip_member(zf, info, x))
                    summary.written += 1
                tops.setdefault(key.split("/")[0])
                advance(info.compress_size)
    else:
        with open(archive, "rb") as raw, tarfile.open(fileobj=raw, mode="r:*") as tf:
            pos = 0
            for i, m in enumerate(tf):
                summary.members += 1
                key = safe_member_path(m.name)
                if key in ledger.done:
                    summary.skipped += 1
                    x.total += m.size if m.isreg() else 0
                else:
                    ledger.add(_tar_member(tf, m, x))
                    summary.written += 1
                tops.setdefault(key.split("/")[0])
                advance(raw.tell() - pos)
                pos = raw.tell()
                if i % 1000 == 999:
                    # tarfile keeps every header it has read; ImageNet-C's archives hold 750,000
                    tf.members = []  # type: ignore[attr-defined]
            _check_end(tf)
    summary.top_level = tuple(t for t in tops if t)


def extract(
    archive: str | Path,
    dest: str | Path,
    *,
    record: dict[str, Any] | None = None,
    max_bytes: int | None = None,
    progress_mode: str | bool = "auto",
) -> ExtractSummary:
    """Extract ``archive`` into ``dest`` safely, resuming an interrupted extraction.

    Args:
        archive: A tar (plain or compressed, any format :mod:`tarfile` reads) or zip file.
        dest: The target folder (created).
        record: What to store in the completion marker (the archive's size and digests).
        max_bytes: The most the members may add up to (None: no limit).
        progress_mode: As :func:`corruptbench.progress.progress` (counted in archive bytes).

    Raises:
        UnsafeArchive: a member that would land outside ``dest``, or more than ``max_bytes``.
        tarfile.TarError / zipfile.BadZipFile / EOFError / zlib.error / ...: a damaged archive
            (:data:`DAMAGED`).

        Either way nothing of the archive stays in ``dest`` (see the module docstring).
    """
    archive, dest = Path(archive), Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    root = os.path.realpath(dest)
    for folder in (dest / os.path.dirname(STATE_DIR), dest / STATE_DIR):
        if folder.is_symlink():  # the bookkeeping would be written elsewhere
            raise UnsafeArchive(f"{folder} is a symbolic link; it is never written through")
    ledger = _Ledger(state_path(dest, archive.name, "members"))
    x = _Extraction(root, ledger, max_bytes, archive.name)
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
            _run(archive, x, summary, advance)
        except (UnsafeArchive, *DAMAGED):
            ledger.close()
            x.remove_all()
            ledger.path.unlink(missing_ok=True)
            raise
        finally:
            ledger.close()
    done = {**(record or {}), "archive": archive.name, "members": summary.members}
    done["top_level"] = list(summary.top_level)
    write_text(
        extracted_marker(dest, archive.name), json.dumps(done, indent=2, sort_keys=True) + "\n"
    )
    ledger.path.unlink(missing_ok=True)
    return summary

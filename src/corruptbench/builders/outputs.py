"""Files of a build: atomic writes, the orphan guard, the manifest and ``skipped.csv``.

Every file of a build (images, arrays, MP4s, WebDataset shards, bookkeeping) is written to
``.<name>.<host>.<pid>.<random>.cbtmp`` beside its target (:func:`corruptbench.fileio.temp_path`)
and renamed with :func:`os.replace`, so a target either exists complete or not at all; the name is
unique across the machines of a Ray cluster writing into one shared OUT. :func:`sweep_temps`
removes what a killed run left. Bookkeeping lives at the top of OUT (``manifest.json``,
``skipped.csv``, ``sources.txt`` for a folder built as npy) and in the hidden ``OUT/.corruptbench/``.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import fileio
from ..layouts.build import MANIFEST, SKIPPED, SOURCES
from ..processes import pid_alive
from ..safe_text import csv_cell, csv_uncell
from .spec import BuildError, ItemResult

__all__ = [
    "TMP_SUFFIX",
    "WORK_DIR",
    "LOCK",
    "clear_work",
    "MANIFEST",
    "SKIPPED",
    "SOURCES",
    "set_driver",
    "orphan_check",
    "write_atomic",
    "write_bytes",
    "ensure_dir",
    "forget_dirs",
    "sweep_temps",
    "temp_is_orphan",
    "FOREIGN_TEMP_AGE_S",
    "write_json",
    "check_manifest",
    "write_skipped",
    "read_skipped",
]

TMP_SUFFIX = fileio.TMP_SUFFIX
WORK_DIR = ".corruptbench"
#: the build's lock file in ``OUT/.corruptbench/`` (:mod:`corruptbench.builders.lock`)
LOCK = "lock"

_DRIVER_PID: int | None = None


def set_driver(pid: int) -> None:
    """In a pool worker: remember the driver process, so that :func:`orphan_check` can tell."""
    global _DRIVER_PID
    _DRIVER_PID = pid


def orphan_check() -> None:
    """In a pool worker: exit at once if the driver process is gone (never write as an orphan)."""
    if _DRIVER_PID is not None and os.getppid() != _DRIVER_PID:
        os._exit(1)


def write_atomic(path: str | Path, writer: Callable[[Any], Any]) -> None:
    """:func:`corruptbench.fileio.write_atomic` (``.<name>.<host>.<pid>.<random>.cbtmp`` beside
    ``path``, then rename), after :func:`orphan_check`."""
    orphan_check()
    fileio.write_atomic(path, writer)


def write_bytes(path: str | Path, data: bytes) -> None:
    """:func:`corruptbench.fileio.write_bytes`, after :func:`orphan_check`."""
    orphan_check()
    fileio.write_bytes(path, data)


_MADE_DIRS: set[str] = set()


def ensure_dir(path: str) -> None:
    """``mkdir -p`` once per process and folder (95 outputs per image share ~95 folders)."""
    if path not in _MADE_DIRS:
        os.makedirs(path, exist_ok=True)
        if len(_MADE_DIRS) > 100_000:
            _MADE_DIRS.clear()
        _MADE_DIRS.add(path)


def forget_dirs() -> None:
    """Forget the folders :func:`ensure_dir` made: a new build in this process may write into a
    folder deleted since (an OUT removed and built again, in a notebook or a benchmark)."""
    _MADE_DIRS.clear()


#: a temporary file of another machine (a Ray node writing into a shared OUT) is removed only when
#: it has not been written to for this long: its owner cannot be checked from here, and no live
#: writer of this package leaves a file untouched for hours (a tar shard grows sample by sample)
FOREIGN_TEMP_AGE_S = 6 * 3600.0


def temp_is_orphan(path: str, *, own: bool = False, now: float | None = None) -> bool:
    """Whether the temporary file ``path`` belongs to no running writer (so it can go).

    Its name says who made it (:func:`corruptbench.fileio.temp_owner`): a process of this host
    counts as gone when its pid no longer runs or was reused by a process started after the file
    was last written (:func:`corruptbench.processes.pid_alive`); a file of another host only when
    older than :data:`FOREIGN_TEMP_AGE_S`; a name without a pid (no version of this package
    writes one) always. ``own``: also this process's own files (a run on its way out).
    """
    owner = fileio.temp_owner(os.path.basename(path))
    if owner is None:
        return False
    host, pid = owner
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        return False
    if pid is None:
        return True
    if host not in (None, fileio.this_host()):
        return (now if now is not None else time.time()) - mtime > FOREIGN_TEMP_AGE_S
    if pid == os.getpid():
        return own
    return not pid_alive(pid, since=mtime)


def sweep_temps(out: Path, *, own: bool = False, recursive: bool = True) -> int:
    """Remove the temporary files under ``out`` that no running writer owns (a killed run's, a
    dead Ray task's; :func:`temp_is_orphan`); return how many. ``own``: this process's too (a
    build under its lock, where none of its writes is in progress at the start or the end).
    ``recursive=False``: only those directly in ``out``."""
    n = 0
    now = time.time()
    for dirpath, dirnames, filenames in os.walk(out):
        if not recursive:
            dirnames.clear()
        for f in filenames:
            path = os.path.join(dirpath, f)
            if f.endswith(TMP_SUFFIX) and temp_is_orphan(path, own=own, now=now):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
                    n += 1
    return n


def clear_work(out: Path, *, keep: Sequence[str] = ()) -> None:
    """Remove ``OUT/.corruptbench/`` but for the lock file (held by the running build: removing
    it would let a second build in) and the entries named in ``keep``."""
    work = out / WORK_DIR
    try:
        entries = list(os.scandir(work))
    except OSError:
        return
    for entry in entries:
        if entry.name == LOCK or entry.name in keep:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    with contextlib.suppress(OSError):  # only when nothing else is kept there
        os.rmdir(work)


def write_json(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    write_atomic(path, lambda fh: fh.write(text.encode()))


def check_manifest(out: Path, params: dict[str, Any]) -> dict[str, Any] | None:
    """The manifest of a previous build in ``out`` with the same ``params`` (None for a new OUT).

    Raises:
        BuildError: ``out`` holds other files, or a build with different parameters.
    """
    mpath = out / MANIFEST
    if not mpath.exists():
        visible = (
            [p.name for p in out.iterdir() if not p.name.startswith(".")] if out.is_dir() else []
        )
        if visible:
            raise BuildError(
                f"{out} is not empty and has no {MANIFEST}; refusing to write into it (use a new or empty folder)"
            )
        return None
    try:
        old = json.loads(mpath.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise BuildError(f"cannot read {mpath}: {exc}") from None
    diffs = [
        f"{k}: {old.get('params', {}).get(k)!r} there, {v!r} now"
        for k, v in params.items()
        if old.get("params", {}).get(k) != v
    ]
    if diffs:
        raise BuildError(
            f"{out} was built with different parameters; refusing to mix outputs. Use another OUT "
            f"folder or delete this one. Differences: " + "; ".join(diffs)
        )
    return old


def write_skipped(out: Path, rows: Sequence[ItemResult]) -> None:
    """``OUT/skipped.csv``: ``relative_path,source,status,reason``, sorted by relative path;
    status ``skipped`` / ``failed`` (no output) or ``warning`` (made, with a remark). A cell that a
    spreadsheet would run as a formula (a file named ``=cmd|...``) is written as text
    (:func:`~corruptbench.safe_text.csv_cell`; :func:`read_skipped` undoes it)."""

    def writer(fh: Any) -> None:
        text = io.StringIO()
        w = csv.writer(text, lineterminator="\n")
        w.writerow(["relative_path", "source", "status", "reason"])
        for r in sorted(rows, key=lambda r: r.rel):
            w.writerow([csv_cell(v) for v in (r.rel, r.source, r.status, r.reason)])
        fh.write(text.getvalue().encode("utf-8", "surrogateescape"))

    write_atomic(out / SKIPPED, writer)


def read_skipped(out: Path) -> list[ItemResult]:
    p = out / SKIPPED
    if not p.exists():
        return []
    with open(p, newline="", encoding="utf-8", errors="surrogateescape") as fh:
        rows = [{k: csv_uncell(v or "") for k, v in r.items()} for r in csv.DictReader(fh)]
    return [ItemResult(r["relative_path"], r["status"], 0, r["reason"], r["source"]) for r in rows]

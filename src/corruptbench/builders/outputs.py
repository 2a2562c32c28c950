"""Files of a build: atomic writes, the orphan guard, the manifest and ``skipped.csv``.

Every file of a build (images, arrays, MP4s, WebDataset shards, bookkeeping) is written to
``.<name>.<host>.<pid>.<random>.cbtmp`` beside its target (:func:`corruptbench.fileio.temp_path`)
and renamed with :func:`os.replace`, so a target either exists complete or not at all; the name is
unique across the machines of a Ray cluster writing into one shared OUT. :func:`sweep_temps`
removes what a killed run left. Bookkeeping lives at the top of OUT (``manifest.json``,
``skipped.csv``, ``sources.txt`` for a folder built as npy) and in the hidden ``OUT/.corruptbench/``.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import fileio
from .spec import BuildError, ItemResult

__all__ = [
    "TMP_SUFFIX",
    "WORK_DIR",
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
    "write_json",
    "check_manifest",
    "write_skipped",
    "read_skipped",
]

TMP_SUFFIX = fileio.TMP_SUFFIX
WORK_DIR = ".corruptbench"
MANIFEST = "manifest.json"
SKIPPED = "skipped.csv"
SOURCES = "sources.txt"

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


def sweep_temps(out: Path) -> int:
    """Remove the temporary files a killed run left under ``out``; return how many."""
    n = 0
    for dirpath, _dirnames, filenames in os.walk(out):
        for f in filenames:
            if f.startswith(".") and f.endswith(TMP_SUFFIX):
                try:
                    os.unlink(os.path.join(dirpath, f))
                    n += 1
                except FileNotFoundError:  # pragma: no cover
                    pass
    return n


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
    status ``skipped`` / ``failed`` (no output) or ``warning`` (made, with a remark)."""

    def writer(fh: Any) -> None:
        text = io.StringIO()
        w = csv.writer(text, lineterminator="\n")
        w.writerow(["relative_path", "source", "status", "reason"])
        for r in sorted(rows, key=lambda r: r.rel):
            w.writerow([r.rel, r.source, r.status, r.reason])
        fh.write(text.getvalue().encode("utf-8", "surrogateescape"))

    write_atomic(out / SKIPPED, writer)


def read_skipped(out: Path) -> list[ItemResult]:
    p = out / SKIPPED
    if not p.exists():
        return []
    with open(p, newline="", encoding="utf-8", errors="surrogateescape") as fh:
        return [
            ItemResult(r["relative_path"], r["status"], 0, r["reason"], r["source"])
            for r in csv.DictReader(fh)
        ]

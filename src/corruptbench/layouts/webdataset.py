"""A folder of WebDataset tar shards with ``shards.json``: what ``make-c / make-p --format
webdataset`` and ``corruptbench convert`` write.

Shards are named ``<name>-<level>-<number:06d>.tar`` (:func:`shard_name`, e.g.
``gaussian_noise-3-000012.tar``), and ``shards.json`` (:data:`SHARD_INDEX`) lists every shard with
its sample count, size and SHA-256; :func:`shard_problem` compares a shard on disk with those
numbers (what eval-c, eval-p, a resumed make-c / convert and ``verify`` check). The tar format
itself (writing, reading members) is :mod:`corruptbench.formats.webdataset`.

Names from the files are data, not paths: :func:`read_index` refuses a shard name that is not a
plain file name (``../x.tar``, ``/data/x.tar``).
"""

from __future__ import annotations

import json
import os
import re
import tarfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..formats.webdataset import ShardInfo, UnsafeMemberError, inspect_shard, map_shards

__all__ = [
    "DETECT_ORDER",
    "NAME",
    "SHARD_INDEX",
    "INDEX_FORMAT",
    "detect",
    "shard_name",
    "parse_shard_name",
    "read_index",
    "check_shard_file_name",
    "stats_problem",
    "shard_problem",
    "shard_problems",
]

NAME = "webdataset"
#: where :func:`corruptbench.layouts.detect` asks this layout (lower first; first: shards.json decides)
DETECT_ORDER = 10

SHARD_INDEX = "shards.json"


INDEX_FORMAT = "corruptbench-webdataset-1"


_SHARD_RE = re.compile(r"^(?P<name>[^-/]+)-(?P<level>\d+)-(?P<number>\d{6,})\.tar$")


def shard_name(name: str, level: int, number: int) -> str:
    """``<name>-<level>-<number:06d>.tar``: the corruption (perturbation), severity (difficulty)
    and the shard's number within that cell."""
    return f"{name}-{int(level)}-{int(number):06d}.tar"


def parse_shard_name(fname: str) -> tuple[str, int, int] | None:
    """``(name, level, number)`` of a :func:`shard_name`, or None."""
    m = _SHARD_RE.match(fname)
    if m is None:
        return None
    return m["name"], int(m["level"]), int(m["number"])


def stats_problem(
    info: ShardInfo, expected: Mapping[str, Any], said: str = f"{SHARD_INDEX} says"
) -> str | None:
    """What differs between a read shard and its recorded statistics ``expected`` (a
    :meth:`ShardStats.to_dict`, e.g. an entry of ``shards.json``): the sample count, the size,
    then the SHA-256 when it was computed; None when nothing does. The text reads as
    ``"<path>: <problem>"``, e.g. ``"5 samples, shards.json says 10"`` (``said`` names where
    ``expected`` comes from)."""
    if info.samples != int(expected["samples"]):
        return f"{info.samples} samples, {said} {int(expected['samples'])}"
    if "bytes" in expected and info.size != int(expected["bytes"]):  # an index we write has it
        return f"{info.size} bytes, {said} {int(expected['bytes'])}"
    if info.sha256 is not None and info.sha256 != expected["sha256"]:
        return f"sha256 {info.sha256}, {said} {expected['sha256']}"
    return None


def shard_problem(
    path: str | os.PathLike[str],
    expected: Mapping[str, Any],
    *,
    hash: bool = True,
    said: str = f"{SHARD_INDEX} says",
) -> str | None:
    """What is wrong with the shard at ``path`` against ``expected`` (:func:`stats_problem`):
    ``"missing"``, an unreadable tar or an unsafe member name, a sample count, a size or, with
    ``hash``, a SHA-256 (the full read that finds bytes changed in place, which leave the size and
    the headers as they were); None when nothing is."""
    if not Path(path).is_file():
        return "missing"
    try:
        info = inspect_shard(path, hash=hash)
    except UnsafeMemberError as exc:
        return str(exc)
    except (OSError, ValueError, tarfile.TarError) as exc:
        return f"unreadable tar ({type(exc).__name__}: {exc})"
    return stats_problem(info, expected, said)


def shard_problems(
    root: str | os.PathLike[str],
    shards: Sequence[Mapping[str, Any]],
    *,
    hash: bool = True,
    said: str = f"{SHARD_INDEX} says",
) -> list[tuple[str, str]]:
    """``(name, problem)`` of each shard of ``shards`` (entries of ``shards.json``, files in
    ``root``) that :func:`shard_problem` finds wrong, in their order; several shards are read at
    once (:func:`map_shards`)."""
    found = map_shards(
        lambda s: shard_problem(Path(root, s["name"]), s, hash=hash, said=said), shards
    )
    return [(str(s["name"]), p) for s, p in zip(shards, found) if p is not None]


def read_index(root: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``shards.json`` of a shard folder.

    Raises:
        ValueError: the file is not a corruptbench WebDataset index, or a shard name in it is not
            a plain file name (:func:`check_shard_file_name`).
    """
    p = Path(root) / SHARD_INDEX
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {p}: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != INDEX_FORMAT:
        raise ValueError(f"{p} is not a corruptbench shard index (format {INDEX_FORMAT!r})")
    try:  # the fields the readers use, with their types
        nk, lk = str(doc["name_key"]), str(doc["level_key"])
        for row in doc["cells"]:
            str(row[nk]), int(row[lk])
            for s in row["shards"]:
                str(s["name"]), int(s["samples"]), str(s["sha256"])
        str(doc["media"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{p}: malformed shard index ({type(exc).__name__}: {exc})") from None
    for row in doc["cells"]:
        for s in row["shards"]:
            check_shard_file_name(s["name"], p)
    return doc


def check_shard_file_name(name: Any, index: str | os.PathLike[str]) -> str:
    """``name`` if it is a plain file name ending in ``.tar``, for a shard beside ``index``.

    Raises:
        ValueError: naming ``index`` and the entry: a name with a folder part (``../x.tar``,
            ``sub/x.tar``), an absolute path, a hidden name, or not a string / not ``.tar``.
            Shards live in the index's folder; a name that pointed elsewhere would make a reader
            open files outside it.
    """
    text = str(name) if isinstance(name, str) else ""
    bad = (
        not text
        or "/" in text
        or "\\" in text
        or text.startswith(".")
        or os.path.isabs(text)
        or not text.endswith(".tar")
    )
    if bad:
        raise ValueError(
            f"{index}: shard name {name!r} is not a plain .tar file name in the folder of "
            f"{SHARD_INDEX} (a folder part, '..' or an absolute path would read files outside "
            "it); refused"
        )
    return text


def detect(root: Path) -> str | None:
    """``webdataset`` for a folder with ``shards.json``."""
    return NAME if (root / SHARD_INDEX).is_file() else None

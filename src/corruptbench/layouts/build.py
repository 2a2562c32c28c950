"""A ``make-c`` / ``make-p`` build: ``manifest.json`` beside the data, ``skipped.csv``, and the names
the build's writers give each cell.

The data itself has one of the other layouts (an ImageNet-C tree, ``.npy`` arrays, WebDataset
shards, or ``--layout tree``'s ``<corruption>/<severity>/<relative path>``); the manifest says
which (``params.format``, ``params.layout``), what was asked (names, levels, profile, level folder
naming, copied files) and what the source held (``source.items``). Known count per cell: the
source's items minus those ``skipped.csv`` lists as skipped; the manifest records no per-file
hashes.
"""

from __future__ import annotations

import csv
import fnmatch
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..perturbations import NOISE_PERTURBATIONS
from . import cifar_c, cifar_p
from .imagenet_c import level_dirname
from .imagenet_p import perturbation_dirname

__all__ = [
    "MANIFEST",
    "SKIPPED",
    "SOURCES",
    "BOOKKEEPING",
    "COMPLETE",
    "is_build",
    "read_manifest",
    "manifest_profile",
    "BuildInfo",
    "build_info",
    "skipped_rows",
    "selected_by",
    "link_roots",
    "copied_files",
]

MANIFEST = "manifest.json"
SKIPPED = "skipped.csv"
#: the source list of a build written as ``.npy`` arrays
SOURCES = "sources.txt"
#: the files a build writes beside its data
BOOKKEEPING = (MANIFEST, SKIPPED, SOURCES)
#: the manifest's status of a finished build (``running`` / ``interrupted`` otherwise)
COMPLETE = "complete"


def is_build(root: Path) -> bool:
    """Whether ``root`` holds a make-c / make-p (or convert) ``manifest.json``."""
    return (root / MANIFEST).is_file()


def read_manifest(root: Path) -> dict[str, Any]:
    """The manifest of the build in ``root``.

    Raises:
        ValueError: it cannot be read, or is not a JSON object (naming the file).
    """
    path = root / MANIFEST
    try:
        doc = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: not a JSON object")
    return doc


def manifest_profile(root: Path) -> str | None:
    """The profile a make-c build's ``manifest.json`` records (None: no readable manifest)."""
    try:
        profile = read_manifest(root)["params"]["profile"]
    except (ValueError, KeyError, TypeError):
        return None
    return profile if isinstance(profile, str) else None


def skipped_rows(root: Path) -> list[str]:
    """The relative paths ``skipped.csv`` lists with status ``skipped`` (no output written)."""
    try:
        with open(root / SKIPPED, newline="", encoding="utf-8") as fh:
            return [
                r.get("relative_path") or ""
                for r in csv.DictReader(fh)
                if r.get("status") == "skipped"
            ]
    except OSError:
        return []


def selected_by(rel: str, patterns: Sequence[str]) -> str | None:
    """The first of make-c's ``copy_files`` patterns matching ``rel`` or one of its parent
    folders (:func:`fnmatch.fnmatchcase`, where ``*`` also matches ``/``), else None."""
    parts = rel.split("/")
    prefixes = ["/".join(parts[:k]) for k in range(1, len(parts) + 1)]
    for pat in patterns:
        if any(fnmatch.fnmatchcase(p, pat) for p in prefixes):
            return pat
    return None


def link_roots(copied: Sequence[str], images: Sequence[str]) -> list[str]:
    """The fewest paths ``make-c --layout tree`` links into each corruption / severity folder so
    that every copied file appears at its relative path: a file's first ancestor folder that
    holds no image (or the file itself when every ancestor also holds images)."""
    image_dirs = {
        "/".join(rel.split("/")[:k]) for rel in images for k in range(1, rel.count("/") + 1)
    }
    roots: list[str] = []
    seen: set[str] = set()
    for rel in copied:
        parts = rel.split("/")
        for k in range(1, len(parts) + 1):
            prefix = "/".join(parts[:k])
            if prefix not in image_dirs:
                if prefix not in seen:
                    seen.add(prefix)
                    roots.append(prefix)
                break
    return roots


@dataclass
class BuildInfo:
    """What a build's manifest says about its data.

    Attributes:
        kind: ``c`` (make-c) or ``p`` (make-p).
        format: ``jpeg``, ``npy``, ``webdataset``, ``mp4``, ``tree`` ...
        cells: ``(name, level)`` of every cell asked for.
        status: the manifest's status (:data:`COMPLETE` when the build finished).
        items: the source's items; ``per_cell`` the items minus the skipped ones.
        copied: the relative paths of ``--copy-files`` (copied once, not corrupted), and
            ``links``: whether every cell folder links to them.
    """

    kind: str
    format: str
    cells: list[tuple[str, int]]
    status: str | None
    items: int
    per_cell: int
    params: dict[str, Any] = field(default_factory=dict)
    copy_patterns: list[str] = field(default_factory=list)
    links: bool = False

    def cell_dir(self, name: str, level: int) -> str:
        """The folder of one cell, relative to the build: ``fog/3``, ``caustic_refraction/2.35``
        (``level_names`` ``value``), make-p's ``shot_noise_2``.

        Raises:
            ValueError: the manifest's level naming cannot name this cell.
        """
        if self.kind == "p":
            noisy = level > 1 and name in NOISE_PERTURBATIONS
            return perturbation_dirname(name, level) if noisy else name
        naming = str(self.params.get("level_names") or "severity")
        profile = str(self.params.get("profile") or "imagenet")
        return f"{name}/{level_dirname(name, level, naming, profile)}"

    def array_name(self, name: str, level: int) -> str:
        """The ``.npy`` file of a ``--format npy`` build holding one cell: make-c's
        ``<corruption>.npy`` (every level), make-p's ``<perturbation>[_<d>].npy``."""
        if self.kind == "c":
            return cifar_c.array_name(name)
        return cifar_p.array_name(self.cell_dir(name, level))

    def top_names(self) -> set[str]:
        """The top-level entries the cells own (corruption / perturbation folders)."""
        return {self.cell_dir(n, v).split("/")[0] for n, v in self.cells}


def build_info(root: Path, manifest: dict[str, Any] | None = None) -> BuildInfo:
    """The :class:`BuildInfo` of the build in ``root`` (``manifest``: already read).

    Raises:
        ValueError: the manifest cannot be read.
    """
    doc = manifest if manifest is not None else read_manifest(root)
    params: dict[str, Any] = doc["params"] if isinstance(doc.get("params"), dict) else {}
    kind = "p" if params.get("command") == "make-p" else "c"
    names = params.get("perturbations" if kind == "p" else "corruptions") or []
    levels = params.get("difficulties" if kind == "p" else "severities") or []
    source: dict[str, Any] = doc["source"] if isinstance(doc.get("source"), dict) else {}
    items = int(source.get("items", 0) or 0)
    return BuildInfo(
        kind=kind,
        format=str(params.get("format")),
        cells=[(str(n), int(v)) for n in names for v in levels],
        status=doc.get("status"),
        items=items,
        per_cell=items - len(skipped_rows(root)),
        params=params,
        copy_patterns=[str(p) for p in params.get("copy_files") or []],
        links=bool(params.get("links")),
    )


def copied_files(root: Path, info: BuildInfo) -> list[str]:
    """The files of a ``--layout tree`` build that its ``copy_files`` patterns selected (copied
    once to ``OUT/<relative path>``, outside the cell folders), sorted relative paths."""
    cells = info.top_names()
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and (rel_dir != "." or d not in cells)
        )
        for f in sorted(filenames):
            rel = f if rel_dir == "." else f"{rel_dir}/{f}"
            if not f.startswith(".") and selected_by(rel, info.copy_patterns) is not None:
                out.append(rel)
    return out

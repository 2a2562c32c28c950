"""Folder trees of one file per item and cell (ImageNet-C / -P, Tiny-ImageNet-C, ImageNet-C-bar,
make-c / make-p folder builds): list each cell, check each file, compare the cells' names.

Which names a cell should hold is not written anywhere (the releases ship no file list, a build's
manifest only counts), so the cells vote: a name that is in more than half of the cells is
expected in every cell, and a name in fewer is extra where it appears. A file missing from a
single cell is then found by name; when a known total per cell (50,000 for ImageNet-C) exceeds
the names the cells agree on, the difference is reported as a count, and when the cells agree on
more names than the known total (a build's manifest says 3, every cell holds 4), so is the
surplus.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..formats.checks import file_problem
from ..layouts.common import sorted_entries
from ..progress import Progress
from .report import CellReport

__all__ = ["TreeRules", "CellListing", "list_cell", "check_cells"]


@dataclass(frozen=True)
class TreeRules:
    """What a cell folder holds.

    Attributes:
        extensions: The extensions of its files (others are extra).
        with_classes: Files in class folders (``<class>/<file>``), else directly in the cell.
        any_depth: Files at any depth (``make-c --layout tree``: the source's own tree).
        link_root: The build folder whose copied files the cells link to (``--copy-files`` with
            links): a symbolic link at ``<cell>/<path>`` to ``<link_root>/<path>`` is expected.
        copied: The copied files' paths relative to ``link_root``.
    """

    extensions: Sequence[str]
    with_classes: bool = True
    any_depth: bool = False
    link_root: Path | None = None
    copied: set[str] = field(default_factory=set)

    def is_copy_link(self, path: str, rel: str) -> bool:
        """Whether ``path`` (at ``rel`` in its cell) is a link the build made to a copied file
        or folder (one that leads to ``link_root / rel``)."""
        if self.link_root is None or not os.path.islink(path):
            return False
        target = self.link_root / rel
        if not any(c == rel or c.startswith(rel + "/") for c in self.copied):
            return False
        return os.path.realpath(path) == os.path.realpath(target)


@dataclass
class CellListing:
    """The files found in one cell (relative names) and what is wrong with some of them."""

    key: str
    names: set[str] = field(default_factory=set)
    odd: list[str] = field(default_factory=list)  #: entries that are never expected
    broken: list[str] = field(default_factory=list)


def _check(e: os.DirEntry[str], rel: str, out: CellListing, decode: bool) -> None:
    problem = file_problem(e.path, e.stat().st_size, decode=decode)
    if problem is not None:
        out.broken.append(f"{rel}: {problem}")


def _is_file(e: os.DirEntry[str], exts: tuple[str, ...]) -> bool:
    return e.is_file() and os.path.splitext(e.name)[1].lower() in exts


def _walk(
    path: str, prefix: str, rules: TreeRules, exts: tuple[str, ...], out: CellListing, decode: bool
) -> None:
    """Every file at any depth below ``path`` (``--layout tree``); links the build made to the
    copied files are expected and not followed."""
    for e in sorted_entries(path):
        rel = sys.intern(f"{prefix}{e.name}")
        if rules.is_copy_link(e.path, rel):
            continue
        if e.is_dir(follow_symlinks=False):
            _walk(e.path, rel + "/", rules, exts, out, decode)
        elif _is_file(e, exts):
            out.names.add(rel)
            _check(e, rel, out, decode)
        else:
            out.odd.append(rel + ("/" if e.is_dir() else ""))


def list_cell(key: str, path: str, *, rules: TreeRules, decode: bool) -> CellListing:
    """List and check one cell folder: ``<class>/<file>`` (``with_classes``), ``<file>``, or
    any depth.

    Files whose extension is not in the rules' ``extensions`` and entries at the wrong depth are
    ``odd`` (always extra); hidden entries (temporary files of a running build) are ignored.
    """
    out = CellListing(key)
    exts = tuple(x.lower() for x in rules.extensions)
    if rules.any_depth:
        _walk(path, "", rules, exts, out, decode)
        return out
    for e in sorted_entries(path):
        if rules.with_classes and e.is_dir(follow_symlinks=False):
            for f in sorted_entries(e.path):
                rel = sys.intern(f"{e.name}/{f.name}")
                if not _is_file(f, exts):
                    out.odd.append(rel + ("/" if f.is_dir() else ""))
                    continue
                out.names.add(rel)
                _check(f, rel, out, decode)
        elif not rules.with_classes and _is_file(e, exts):
            rel = sys.intern(e.name)
            out.names.add(rel)
            _check(e, rel, out, decode)
        else:
            out.odd.append(e.name + ("/" if e.is_dir() else ""))
    return out


def check_cells(
    cells: Sequence[tuple[str, str]],
    *,
    expected_per_cell: int | None,
    rules: TreeRules,
    decode: bool,
    bar: Progress,
) -> tuple[list[CellReport], int, list[str]]:
    """Reports of the cells ``(key, folder)``, the number of files checked and notes."""
    listings = []
    for key, path in cells:
        listings.append(list_cell(key, path, rules=rules, decode=decode))
        bar.advance(1, label=f"verify {key}")
    votes = Counter(n for cell in listings for n in cell.names)
    half = len(listings) / 2
    agreed = {n for n, k in votes.items() if k > half}
    short = surplus = 0
    if expected_per_cell is not None:
        short = max(0, expected_per_cell - len(agreed))
        surplus = max(0, len(agreed) - expected_per_cell)
    reports = []
    files = 0
    for cell in listings:
        files += len(cell.names) + len(cell.odd)
        reports.append(
            CellReport(
                key=cell.key,
                expected=expected_per_cell if expected_per_cell is not None else len(agreed),
                found=len(cell.names),
                missing=sorted(agreed - cell.names),
                missing_unnamed=short,
                extra=sorted(cell.names - agreed) + cell.odd,
                extra_unnamed=min(surplus, len(cell.names & agreed)),
                broken=cell.broken,
            )
        )
    return reports, files, []

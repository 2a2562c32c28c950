"""Folder trees of one file per item and cell (ImageNet-C / -P, Tiny-ImageNet-C, ImageNet-C-bar,
make-c / make-p folder builds): list each cell, check each file, compare the cells' names.

Which names a cell should hold is not written anywhere (the releases ship no file list, a build's
manifest only counts), so the cells vote: a name that is in more than half of the cells is
expected in every cell, and a name in fewer is extra where it appears. A file missing from a
single cell is then found by name; when a known total per cell (50,000 for ImageNet-C) exceeds
the names the cells agree on, the difference is reported as a count.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..progress import Progress
from .files import file_problem
from .report import CellReport

__all__ = ["CellListing", "list_cell", "check_cells"]


@dataclass
class CellListing:
    """The files found in one cell (relative names) and what is wrong with some of them."""

    key: str
    names: set[str] = field(default_factory=set)
    odd: list[str] = field(default_factory=list)  #: entries that are never expected
    broken: list[str] = field(default_factory=list)


def _entries(path: str) -> list[os.DirEntry[str]]:
    with os.scandir(path) as it:
        return sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)


def _check(e: os.DirEntry[str], rel: str, out: CellListing, decode: bool) -> None:
    problem = file_problem(e.path, e.stat().st_size, decode=decode)
    if problem is not None:
        out.broken.append(f"{rel}: {problem}")


def list_cell(
    key: str, path: str, *, with_classes: bool, extensions: Sequence[str], decode: bool
) -> CellListing:
    """List and check one cell folder: ``<class>/<file>`` (``with_classes``) or ``<file>``.

    Files whose extension is not in ``extensions`` and entries at the wrong depth are ``odd``
    (always extra); hidden entries (temporary files of a running build) are ignored.
    """
    out = CellListing(key)
    exts = tuple(x.lower() for x in extensions)
    for e in _entries(path):
        if with_classes and e.is_dir(follow_symlinks=False):
            for f in _entries(e.path):
                rel = sys.intern(f"{e.name}/{f.name}")
                if not f.is_file() or os.path.splitext(f.name)[1].lower() not in exts:
                    out.odd.append(rel + ("/" if f.is_dir() else ""))
                    continue
                out.names.add(rel)
                _check(f, rel, out, decode)
        elif not with_classes and e.is_file() and os.path.splitext(e.name)[1].lower() in exts:
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
    with_classes: bool,
    extensions: Sequence[str],
    decode: bool,
    bar: Progress,
) -> tuple[list[CellReport], int, list[str]]:
    """Reports of the cells ``(key, folder)``, the number of files checked and notes."""
    listings = []
    for key, path in cells:
        listing = list_cell(
            key, path, with_classes=with_classes, extensions=extensions, decode=decode
        )
        listings.append(listing)
        bar.advance(1, label=f"verify {key}")
    votes = Counter(n for cell in listings for n in cell.names)
    half = len(listings) / 2
    agreed = {n for n, k in votes.items() if k > half}
    notes = []
    short = 0
    if expected_per_cell is not None:
        short = max(0, expected_per_cell - len(agreed))
        if len(agreed) > expected_per_cell:
            notes.append(
                f"the cells agree on {len(agreed)} files each, more than the {expected_per_cell} "
                "known for this layout"
            )
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
                broken=cell.broken,
            )
        )
    return reports, files, notes

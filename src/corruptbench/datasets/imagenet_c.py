"""Reader of the released ImageNet-C folder layout (also Tiny-ImageNet-C, ImageNet-64x64-C, and what
``corruptbench make-c --format jpeg`` writes).

Layout (hendrycks/robustness ImageNet-C/create_c/make_imagenet_c.py:111-117):
``<root>/<corruption>/<severity 1..5>/<wnid>/<file>``, e.g.
``gaussian_noise/3/n01440764/ILSVRC2012_val_00000293.JPEG``. Any subset of corruptions, severities
and classes may be present; :func:`scan_imagenet_c` reports which requested cells are missing.
Files directly in a severity folder (an unlabelled flat source) are accepted with label None.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..corruptions import ALL_CORRUPTIONS
from ..grid import SEVERITIES, Cell
from .imagenet import IMAGE_EXTENSIONS

__all__ = ["ImageNetCIndex", "scan_imagenet_c", "iter_imagenet_c", "SEVERITIES"]


@dataclass
class ImageNetCIndex:
    """What :func:`scan_imagenet_c` found.

    ``cells[(corruption, severity)]`` is the sorted list of ``(path, wnid)`` (wnid None for files
    directly in the severity folder). ``missing`` lists requested cells that are absent or empty, in
    request order. ``extra_dirs`` are top-level folders that are not corruption folders (ignored).
    """

    root: Path
    cells: dict[Cell, list[tuple[Path, str | None]]] = field(default_factory=dict)
    missing: list[Cell] = field(default_factory=list)
    extra_dirs: list[str] = field(default_factory=list)

    @property
    def corruptions(self) -> list[str]:
        """Corruptions present (reference order first, then others sorted)."""
        names = {c for c, _ in self.cells}
        return [c for c in ALL_CORRUPTIONS if c in names] + sorted(names - set(ALL_CORRUPTIONS))

    @property
    def classes(self) -> list[str]:
        """Sorted wnids seen in any cell."""
        return sorted({w for items in self.cells.values() for _, w in items if w is not None})

    def severities(self, corruption: str) -> list[int]:
        return sorted(s for c, s in self.cells if c == corruption)

    def __len__(self) -> int:
        return sum(len(v) for v in self.cells.values())

    def describe_missing(self) -> str:
        """One line per corruption with missing severities, '' when nothing is missing."""
        by: dict[str, list[int]] = {}
        for c, s in self.missing:
            by.setdefault(c, []).append(s)
        lines = []
        for c, sevs in by.items():
            what = (
                "all severities"
                if sorted(sevs) == list(SEVERITIES)
                else "severity " + ",".join(map(str, sorted(sevs)))
            )
            lines.append(f"{c}: {what} missing")
        return "\n".join(lines)


def _sorted_entries(path: str) -> list[os.DirEntry[str]]:
    with os.scandir(path) as it:
        return sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)


def _scan_cell(path: str, exts: tuple[str, ...]) -> list[tuple[Path, str | None]]:
    out: list[tuple[Path, str | None]] = []
    for e in _sorted_entries(path):
        if e.is_dir():
            for f in _sorted_entries(e.path):
                if f.is_file() and os.path.splitext(f.name)[1].lower() in exts:
                    out.append((Path(f.path), e.name))
        elif e.is_file() and os.path.splitext(e.name)[1].lower() in exts:
            out.append((Path(e.path), None))
    return out


def scan_imagenet_c(
    root: str | os.PathLike[str],
    corruptions: Iterable[str] | None = None,
    severities: Sequence[int] = SEVERITIES,
    *,
    extensions: Sequence[str] = IMAGE_EXTENSIONS,
) -> ImageNetCIndex:
    """Index an ImageNet-C style folder.

    Args:
        root: the folder holding ``<corruption>/<severity>/...``.
        corruptions: names to look for (default: the 19 reference names plus any other top-level
            folder that has numbered severity sub-folders). ``missing`` is computed against this
            request (default request: all 19 x ``severities``).
        severities: severities to look for.
        extensions: file extensions counted as images (case-insensitive).

    Raises:
        FileNotFoundError: ``root`` is not a folder.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"ImageNet-C folder not found: {root}")
    exts = tuple(e.lower() for e in extensions)
    sevs = [int(s) for s in severities]
    present = {e.name: e for e in _sorted_entries(str(root)) if e.is_dir()}
    index = ImageNetCIndex(root)
    if corruptions is None:
        wanted = list(ALL_CORRUPTIONS)
        for name, e in present.items():
            if name in ALL_CORRUPTIONS:
                continue
            if any(s.is_dir() and s.name.isdigit() for s in _sorted_entries(e.path)):
                wanted.append(name)
            else:
                index.extra_dirs.append(name)
    else:
        wanted = list(corruptions)
        index.extra_dirs = sorted(set(present) - set(wanted))
    for c in wanted:
        for s in sevs:
            cell_dir = root / c / str(s)
            items = _scan_cell(str(cell_dir), exts) if cell_dir.is_dir() else []
            if items:
                index.cells[Cell(c, s)] = items
            else:
                index.missing.append(Cell(c, s))
    return index


def iter_imagenet_c(
    root: str | os.PathLike[str],
    corruptions: Iterable[str] | None = None,
    severities: Sequence[int] = SEVERITIES,
) -> Iterator[tuple[str, int, list[tuple[Path, str | None]]]]:
    """Yield ``(corruption, severity, [(path, wnid), ...])`` for every present cell, in order."""
    index = scan_imagenet_c(root, corruptions, severities)
    for (c, s), items in index.cells.items():
        yield c, s, items

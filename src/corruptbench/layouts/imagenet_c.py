"""The ImageNet-C folder layout (also Tiny-ImageNet-C, ImageNet-64x64-C, ImageNet-C-bar, and what
``corruptbench make-c --format jpeg`` writes): detection, level folder names, scanning, counts.

Layout (hendrycks/robustness ImageNet-C/create_c/make_imagenet_c.py:111-117):
``<root>/<corruption>/<severity 1..5>/<wnid>/<file>``, e.g.
``gaussian_noise/3/n01440764/ILSVRC2012_val_00000293.JPEG``. Any subset of corruptions, severities
and classes may be present; :func:`scan_imagenet_c` reports which requested cells are missing.
Files directly in a severity folder (an unlabelled flat source) are accepted with label None.

ImageNet-C-bar (suite ``cbar``) has the same layout with either level folder naming
(:data:`LEVEL_NAMES`): ``1``..``5``, or the original level itself as make_imagenet_c_bar.py
writes it (``"{:.2f}".format(level)``, line 83 of facebookresearch/augmentation-corruption
``imagenet_c_bar/make_imagenet_c_bar.py``, commit ba4d5a5: ``caustic_refraction/2.35/``), mapped
back to severities 1..5 through :mod:`corruptbench.tables.cbar` (:func:`level_severity`).

Known counts: the ILSVRC-2012 validation set, 50 images in each of 1,000 classes = 50,000 per cell
(:data:`IMAGENET_PER_CELL`); Tiny-ImageNet-C holds the Tiny ImageNet validation set, 50 images in
each of 200 classes = 10,000 per cell (:data:`TINY_PER_CELL`), its 15 benchmark corruptions
required and the 4 extra ones optional. The released ImageNet-C-bar: :mod:`.cbar`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..corruptions import ALL_CORRUPTIONS
from ..formats.imagenet import is_wnid
from ..grid import SEVERITIES, Cell, GridError, reference_order, resolve_names, suite_of
from ..tables.cbar import cbar_levels, table_key
from .common import IMAGE_EXTENSIONS, sorted_entries, visible_dirs

__all__ = [
    "DETECT_ORDER",
    "NAMES",
    "NAME",
    "TINY_NAME",
    "IMAGENET_PER_CELL",
    "TINY_PER_CELL",
    "detect",
    "file_name",
    "is_value_named",
    "ImageNetCIndex",
    "scan_imagenet_c",
    "iter_imagenet_c",
    "SEVERITIES",
    "LEVEL_NAMES",
    "level_dirname",
    "level_severity",
    "level_folders",
]

#: how level folders are named: ``severity`` (``1``..``5``: ImageNet-C, and the released
#: ImageNet-C-bar) or ``value`` (the original level, ``"{:.2f}"``: make_imagenet_c_bar.py:83;
#: corruptions of the ``cbar`` suite only)
LEVEL_NAMES = ("severity", "value")

NAME = "imagenet-c"
#: where :func:`corruptbench.layouts.detect` asks this layout (lower first)
DETECT_ORDER = 50
TINY_NAME = "tiny-imagenet-c"
#: the names :func:`detect` gives
NAMES = (NAME, TINY_NAME)
#: images per cell of ImageNet-C (and ImageNet-C-bar): the ILSVRC-2012 validation set
IMAGENET_PER_CELL = 50_000
#: images per cell of Tiny-ImageNet-C: the Tiny ImageNet validation set
TINY_PER_CELL = 10_000
_TINY_CLASSES = 200


_JPEG_EXTS = (".jpg", ".jpeg")


def file_name(rel: str) -> str:
    """The name a JPEG cell gives a source item: ``rel`` kept when its extension is ``.jpg`` /
    ``.jpeg`` in any case (``ILSVRC2012_val_00000293.JPEG`` keeps its name, as in the released
    ImageNet-C), any other extension replaced by ``.jpg`` (the bytes are always JPEG)."""
    stem, ext = os.path.splitext(rel)
    return rel if ext.lower() in _JPEG_EXTS else stem + ".jpg"


def is_value_named(folder: str) -> bool:
    """Whether a level folder is named by the level's value (``2.35``) rather than ``1``..``5``."""
    return not folder.isdigit()


def _has_level_dirs(path: Path) -> bool:
    return any(d.isdigit() or d.replace(".", "", 1).isdigit() for d in visible_dirs(path))


def _first_class_count(root: Path, names: list[str]) -> int:
    for n in names:
        for lv in visible_dirs(root / n):
            return sum(1 for d in visible_dirs(root / n / lv) if is_wnid(d))
    return 0


def detect(root: Path) -> str | None:
    """``imagenet-c`` or ``tiny-imagenet-c`` (at most 200 wnid folders in a cell) for a folder
    with an ImageNet-C corruption folder holding level folders; else None."""
    c_dirs = [d for d in visible_dirs(root) if d in ALL_CORRUPTIONS and _has_level_dirs(root / d)]
    if not c_dirs:
        return None
    return TINY_NAME if 0 < _first_class_count(root, c_dirs) <= _TINY_CLASSES else NAME


def _has_values(name: str) -> bool:
    """Whether ``name`` is a registered corruption with level values (the ``cbar`` suite)."""
    try:
        return suite_of(name) == "cbar"
    except GridError:
        return False


def level_dirname(
    name: str, severity: int, level_names: str = "severity", profile: str = "imagenet"
) -> str:
    """The folder of ``severity`` of corruption ``name``: ``"3"``, or with ``level_names="value"``
    the level of ``profile``'s table formatted as make_imagenet_c_bar.py:83 does
    (``"{:.2f}"``: ``"2.35"``).

    Raises:
        ValueError: ``value`` naming for a corruption without level values (not of suite
            ``cbar``), or an unknown naming.
    """
    if level_names == "severity":
        return str(int(severity))
    if level_names != "value":
        raise ValueError(
            f"level_names must be one of {', '.join(LEVEL_NAMES)}, got {level_names!r}"
        )
    if not _has_values(name):
        raise ValueError(
            f"{name!r} has no level values (only the corruptions of suite 'cbar' do): its "
            "level folders are named 1..5"
        )
    return f"{cbar_levels(name, profile)[int(severity) - 1]:.2f}"


def level_severity(name: str, folder: str, profile: str = "imagenet") -> int | None:
    """The severity a level folder of corruption ``name`` holds: ``"3"`` -> 3; for a corruption
    of suite ``cbar`` a value (a name with a ``.``: ``"2.35"``) -> its position 1..5 in
    ``profile``'s level table (:func:`corruptbench.tables.cbar.cbar_levels`), matched as
    ``"{:.2f}"`` or as a number. ``None`` for a folder that names no level (ignored, as other
    folders of an ImageNet-C tree).

    Raises:
        ValueError: a value that is not one of the corruption's five levels (naming them).
    """
    if folder.isdigit():
        return int(folder)
    if "." not in folder or not _has_values(name):
        return None
    try:
        value = float(folder)
    except ValueError:
        return None
    levels = cbar_levels(name, profile)
    for i, v in enumerate(levels, 1):
        if folder == f"{v:.2f}" or value == v:
            return i
    shown = ", ".join(f"{v:.2f}" for v in levels)
    raise ValueError(
        f"{name}/{folder}: not a level of {name} in {table_key(profile)}.csv ({shown}); the "
        "level folders are named 1..5 or by these values"
    )


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
    #: the folder of each present cell under ``<corruption>/`` (``"3"``, or ``"2.35"``)
    level_dirs: dict[Cell, str] = field(default_factory=dict)

    @property
    def corruptions(self) -> list[str]:
        """Corruptions present (the registry's order first, then others sorted)."""
        names = {c for c, _ in self.cells}
        known = reference_order(list(names))
        return [*known, *sorted(names - set(known))]

    @property
    def value_named(self) -> list[str]:
        """The corruptions whose level folders are named by value (``2.35``)."""
        return [
            c
            for c in self.corruptions
            if any(c == cell.name and is_value_named(d) for cell, d in self.level_dirs.items())
        ]

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


def _scan_cell(path: str, exts: tuple[str, ...]) -> list[tuple[Path, str | None]]:
    out: list[tuple[Path, str | None]] = []
    for e in sorted_entries(path):
        if e.is_dir():
            for f in sorted_entries(e.path):
                if f.is_file() and os.path.splitext(f.name)[1].lower() in exts:
                    out.append((Path(f.path), e.name))
        elif e.is_file() and os.path.splitext(e.name)[1].lower() in exts:
            out.append((Path(e.path), None))
    return out


def level_folders(root: Path, name: str, profile: str = "imagenet") -> dict[int, str]:
    """Severity -> its folder under ``root/name`` (:func:`level_severity`).

    Raises:
        ValueError: a value folder that is no level, or two folders of one severity (``1`` and
            ``2.35``).
    """
    out: dict[int, str] = {}
    top = root / name
    if not top.is_dir():
        return out
    for e in sorted_entries(str(top)):
        if not e.is_dir():
            continue
        sev = level_severity(name, e.name, profile)
        if sev is None:
            continue
        if sev in out:
            raise ValueError(
                f"{top}: the folders {out[sev]} and {e.name} both hold severity {sev}; keep one "
                "naming of the levels"
            )
        out[sev] = e.name
    return out


def scan_imagenet_c(
    root: str | os.PathLike[str],
    corruptions: Iterable[str] | None = None,
    severities: Sequence[int] = SEVERITIES,
    *,
    extensions: Sequence[str] = IMAGE_EXTENSIONS,
    suite: str = "imagenet_c",
    profile: str = "imagenet",
) -> ImageNetCIndex:
    """Index an ImageNet-C style folder.

    Args:
        root: the folder holding ``<corruption>/<severity>/...``.
        corruptions: names to look for (default: every corruption of ``suite``
            (:func:`corruptbench.grid.resolve_names`) plus any other top-level folder that has
            level sub-folders). ``missing`` is computed against this request (default request:
            the suite's names x ``severities``).
        severities: severities to look for.
        extensions: file extensions counted as images (case-insensitive).
        suite: the suite whose names the default request holds (``imagenet_c``: the 19;
            ``cbar``: the 30).
        profile: the level table that value-named folders of ``cbar`` corruptions are read
            with (:func:`level_severity`; ``cifar``: CIFAR-10-C-bar's, else ImageNet-C-bar's).

    Raises:
        FileNotFoundError: ``root`` is not a folder.
        ValueError: a level folder named by a value that is not one of the corruption's levels,
            or two folders of one severity.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"ImageNet-C folder not found: {root}")
    exts = tuple(e.lower() for e in extensions)
    sevs = [int(s) for s in severities]
    present = {e.name: e for e in sorted_entries(str(root)) if e.is_dir()}
    index = ImageNetCIndex(root)
    if corruptions is None:
        wanted = list(resolve_names("c", None, suite=suite))
        for name in present:
            if name in wanted:
                continue
            if level_folders(root, name, profile):
                wanted.append(name)
            else:
                index.extra_dirs.append(name)
    else:
        wanted = list(corruptions)
        index.extra_dirs = sorted(set(present) - set(wanted))
    for c in wanted:
        dirs = level_folders(root, c, profile)
        for s in sevs:
            items = _scan_cell(str(root / c / dirs[s]), exts) if s in dirs else []
            if items:
                index.cells[Cell(c, s)] = items
                index.level_dirs[Cell(c, s)] = dirs[s]
            else:
                index.missing.append(Cell(c, s))
    return index


def iter_imagenet_c(
    root: str | os.PathLike[str],
    corruptions: Iterable[str] | None = None,
    severities: Sequence[int] = SEVERITIES,
    *,
    suite: str = "imagenet_c",
) -> Iterator[tuple[str, int, list[tuple[Path, str | None]]]]:
    """Yield ``(corruption, severity, [(path, wnid), ...])`` for every present cell, in order."""
    index = scan_imagenet_c(root, corruptions, severities, suite=suite)
    for (c, s), items in index.cells.items():
        yield c, s, items

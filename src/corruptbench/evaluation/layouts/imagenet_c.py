"""ImageNet-C folders: ``<root>/<corruption>/<severity>/<wnid>/<file>``.

Also Tiny-ImageNet-C, ImageNet-64x64-C, ImageNet-C 299, ImageNet-C-bar (level folders ``1``..``5``
or named by the level, ``2.35``: :func:`~corruptbench.layouts.imagenet_c.level_severity`) and
what ``make-c`` writes. Labels: a
wnid's standard 1000-class index (position in the sorted list of the 1000 ILSVRC-2012 wnids),
whatever subset of classes is present; for a model with another number of outputs (e.g. Tiny
ImageNet, 200) the index among the sorted wnid folders present. The images are used as they are
(already at the profile size): no ``Resize(256)`` / ``CenterCrop(224)`` again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from ...formats.checks import file_problem
from ...formats.webdataset import map_shards
from ...grid import Cell
from ...layouts.build import manifest_profile
from ...pipeline import Source, SourceItem
from ...profiles import detect_profile
from ...tables.cbar import table_key
from ..common import EvalError, content_digest, files_fingerprint, label_mapper
from ..readers import ImageFileReader
from .base import Item, Layout, Selection, keys_of, select_positions
from .same_images import check_build_counts, check_same_images

__all__ = ["ImageNetCFolder"]


def _damaged(
    entries: list[tuple[Path, str | None]], keys: list[str], rows: list[int], sizes: list[int]
) -> list[str]:
    """``"<key>: <problem>"`` of the selected files that verify's cheap check finds damaged
    (zero bytes, truncated: what the loader would skip)."""
    files = [(str(entries[i][0]), size) for i, size in zip(rows, sizes)]
    problems = map_shards(lambda f: file_problem(*f), files)  # reads on up to 8 threads
    return [f"{keys[i]}: {p}" for i, p in zip(rows, problems) if p is not None]


def _first_files(folder: Path, n: int) -> list[Path]:
    """Up to ``n`` files of ``folder`` or of its first sub-folder (a cell's first class)."""
    entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    files = [p for p in entries if p.is_file()][:n]
    sub = next((p for p in entries if p.is_dir()), None)
    if not files and sub is not None:
        files = sorted(p for p in sub.iterdir() if p.is_file() and not p.name.startswith("."))[:n]
    return files


def _detect(root: Path, names: list[str]) -> str:
    """The profile of the first readable image of the first level folder of a requested
    corruption (its size: :func:`~corruptbench.profiles.detect_profile`); ``imagenet`` when
    there is none."""
    from PIL import Image

    for name in names:
        top = root / name
        levels = sorted(p for p in top.iterdir() if p.is_dir()) if top.is_dir() else []
        if not levels:
            continue
        for path in _first_files(levels[0], 10):
            try:
                with Image.open(path) as im:
                    return detect_profile(im.height, im.width)
            except (OSError, ValueError):
                continue
        break
    return "imagenet"


@dataclass
class ImageNetCFolder(Layout):
    """An ImageNet-C style folder of JPEG (or other image) files."""

    name: ClassVar[str] = "imagenet-c"

    _index: Any = None  #: layouts.imagenet_c.ImageNetCIndex
    _label: Callable[[str | None], int] | None = None
    _keys: set[str] = field(default_factory=set)  #: "<wnid>/<file>" of the selected images
    _rows: dict[Cell, list[int]] = field(default_factory=dict)  #: the selected entries per cell
    _reader: ImageFileReader = field(default_factory=ImageFileReader)

    @staticmethod
    def peek(root: Path) -> tuple[set[str], str | None]:
        """The top-level folder names, and the profile a make-c ``manifest.json`` records."""
        names = {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")}
        return names, manifest_profile(root)

    @classmethod
    def open(
        cls, root: Path, sel: Selection, num_classes: int | None, profile: str | None
    ) -> ImageNetCFolder:
        from ...layouts.imagenet_c import scan_imagenet_c

        profile = profile or _detect(root, sel.names)
        try:
            index = scan_imagenet_c(root, sel.names, sel.levels, profile=profile)
        except ValueError as exc:
            raise EvalError(str(exc)) from None
        if not index.cells:
            raise EvalError(
                f"{root}: no ImageNet-C cells found (expected <corruption>/<severity>/<wnid>/<file> for "
                f"{', '.join(sel.names[:3])}...); is this the right folder?"
            )
        lay = cls(root, profile, cells=list(index.cells), missing=list(index.missing))
        if index.extra_dirs:
            lay.notes.append(
                f"ignored folders (not requested corruptions): {', '.join(index.extra_dirs)}"
            )
        if index.value_named:
            lay.notes.append(
                "level folders named by value (make_imagenet_c_bar.py's '{:.2f}') read as "
                f"severities 1..5 of {table_key(profile)}.csv: {', '.join(index.value_named)}"
            )
        if any(w is None for items in index.cells.values() for _, w in items):
            raise EvalError(
                f"{root}: files directly in a severity folder have no class (wnid) folder, so no label"
            )
        lay._index = index
        lay._label = label_mapper(index.classes, num_classes, lay.notes)
        unlisted = 0
        damaged: dict[Cell, list[str]] = {}
        for cell, entries in index.cells.items():
            keys = keys_of(entries)
            rows = select_positions(keys, sel, str(root / cell.name / index.level_dirs[cell]))
            lay._rows[cell] = rows
            lay._keys.update(keys[i] for i in rows)
            lay.fingerprints[lay.key(cell)] = files_fingerprint(root, (entries[i][0] for i in rows))
            sizes = [entries[i][0].stat().st_size for i in rows]
            lay.contents[lay.key(cell)] = content_digest(zip((keys[i] for i in rows), sizes))
            lay.images_per_cell = max(lay.images_per_cell, len(rows))
            if sel.images is not None:
                unlisted = max(unlisted, len(entries) - len(rows))
            damaged[cell] = _damaged(entries, keys, rows, sizes)
        if sel.images is not None:
            lay.notes.append(sel.images.note(unlisted))
        check_build_counts(root, {c: len(e) for c, e in index.cells.items()})
        check_same_images(
            root, {c: partial(lay._sound_keys, c, damaged[c]) for c in lay._rows}, damaged
        )
        return lay

    def _sound_keys(self, cell: Cell, damaged: list[str]) -> set[str]:
        """The keys of ``cell``'s selected images that are not damaged."""
        keys = keys_of(self._index.cells[cell])
        bad = {d.split(": ", 1)[0] for d in damaged}
        return {keys[i] for i in self._rows[cell]} - bad

    def items(self, cell: Cell) -> list[Item]:
        assert self._label is not None
        entries = self._index.cells[cell]
        return [
            (self._reader, self._label(entries[i][1]), str(entries[i][0])) for i in self._rows[cell]
        ]

    def match_clean(self, source: Source) -> list[SourceItem] | None:
        """The clean images whose ``<wnid>/<file>`` appears among the selected corrupted ones."""
        chosen = [it for it in source.items if it.rel in self._keys]
        if chosen and len(chosen) < len(source.items):
            self.notes.append(
                f"clean error over the {len(chosen)} clean images whose <wnid>/<file> also appears "
                f"in the corrupted data (of {len(source.items)} in the clean folder)"
            )
        return chosen or None

    @property
    def subset_selected(self) -> bool:
        """Whether a selection of images exists (what the clean-matching note mentions)."""
        return bool(self._keys)

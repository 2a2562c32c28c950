"""ImageNet-C folders: ``<root>/<corruption>/<severity>/<wnid>/<file>``.

Also Tiny-ImageNet-C, ImageNet-64x64-C, ImageNet-C 299 and what ``make-c`` writes. Labels: a
wnid's standard 1000-class index (position in the sorted list of the 1000 ILSVRC-2012 wnids),
whatever subset of classes is present; for a model with another number of outputs (e.g. Tiny
ImageNet, 200) the index among the sorted wnid folders present. The images are used as they are
(already at the profile size): no ``Resize(256)`` / ``CenterCrop(224)`` again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ...grid import Cell
from ...pipeline import Source, SourceItem
from ...profiles import detect_profile
from ..common import EvalError, content_digest, files_fingerprint, label_mapper
from ..readers import ImageFileReader
from .base import Item, Layout, Selection, keys_of, select_positions

__all__ = ["ImageNetCFolder"]


@dataclass
class ImageNetCFolder(Layout):
    """An ImageNet-C style folder of JPEG (or other image) files."""

    name: ClassVar[str] = "imagenet-c"

    _index: Any = None  #: datasets.imagenet_c.ImageNetCIndex
    _label: Callable[[str | None], int] | None = None
    _keys: set[str] = field(default_factory=set)  #: "<wnid>/<file>" of the selected images
    _rows: dict[Cell, list[int]] = field(default_factory=dict)  #: the selected entries per cell
    _reader: ImageFileReader = field(default_factory=ImageFileReader)

    @staticmethod
    def detect(root: Path) -> bool:
        """Any folder without a CIFAR ``labels.npy`` (checked last)."""
        return True

    @classmethod
    def open(
        cls, root: Path, sel: Selection, num_classes: int | None, profile: str | None
    ) -> ImageNetCFolder:
        from ...datasets.imagenet_c import scan_imagenet_c

        index = scan_imagenet_c(root, sel.names, sel.levels)
        if not index.cells:
            raise EvalError(
                f"{root}: no ImageNet-C cells found (expected <corruption>/<severity>/<wnid>/<file> for "
                f"{', '.join(sel.names[:3])}...); is this the right folder?"
            )
        if profile is None:
            profile = "imagenet"
            from PIL import Image

            for path, _ in [e for items in index.cells.values() for e in items[:5]][:20]:
                try:
                    with Image.open(path) as im:
                        profile = detect_profile(im.height, im.width)
                    break
                except (OSError, ValueError):
                    continue
        lay = cls(root, profile, cells=list(index.cells), missing=list(index.missing))
        if index.extra_dirs:
            lay.notes.append(
                f"ignored folders (not requested corruptions): {', '.join(index.extra_dirs)}"
            )
        if any(w is None for items in index.cells.values() for _, w in items):
            raise EvalError(
                f"{root}: files directly in a severity folder have no class (wnid) folder, so no label"
            )
        lay._index = index
        lay._label = label_mapper(index.classes, num_classes, lay.notes)
        unlisted = 0
        for cell, entries in index.cells.items():
            keys = keys_of(entries)
            rows = select_positions(keys, sel, str(root / cell.name / str(cell.level)))
            lay._rows[cell] = rows
            lay._keys.update(keys[i] for i in rows)
            lay.fingerprints[lay.key(cell)] = files_fingerprint(root, (entries[i][0] for i in rows))
            lay.contents[lay.key(cell)] = content_digest(
                (keys[i], entries[i][0].stat().st_size) for i in rows
            )
            lay.images_per_cell = max(lay.images_per_cell, len(rows))
            if sel.images is not None:
                unlisted = max(unlisted, len(entries) - len(rows))
        if sel.images is not None:
            lay.notes.append(sel.images.note(unlisted))
        return lay

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

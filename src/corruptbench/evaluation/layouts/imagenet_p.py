"""ImageNet-P folders: ``<perturbation>[_<d>]/<wnid>/<stem>.mp4`` (H.264, read with PyAV).

The noise perturbations have one dataset per difficulty (``gaussian_noise_2``, ...); the others
have one (difficulty 1), and the difficulty is a frame stride at evaluation time
(hendrycks/robustness ImageNet-P/test.py:257-273).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from ...grid import Cell
from ..common import content_digest, files_fingerprint, select_subset
from ..readers import VideoReader
from .base import Item, Layout, Selection, keys_of

__all__ = ["ImageNetPFolder"]


@dataclass
class ImageNetPFolder(Layout):
    """An ImageNet-P style folder of MP4 sequences."""

    name: ClassVar[str] = "imagenet-p"

    _items: dict[str, list[Item]] = field(default_factory=dict)
    _classes: dict[str, list[str | int | None]] = field(default_factory=dict)  #: wnid folders

    @classmethod
    def open(cls, root: Path, sel: Selection, profile: str | None) -> ImageNetPFolder:
        from ...extras import require
        from ...layouts.imagenet_p import scan_imagenet_p
        from ...perturbations import NOISE_PERTURBATIONS

        require("av", "eval-p on ImageNet-P MP4 videos")
        (difficulty,) = sel.levels
        index = scan_imagenet_p(root, sel.names, (difficulty,) if difficulty > 1 else (1,))
        if difficulty > 1:  # non-noise perturbations: difficulty is a stride on the _1 data
            more = scan_imagenet_p(
                root, [n for n in sel.names if n not in NOISE_PERTURBATIONS], (1,)
            )
            index.cells.update(more.cells)
        lay = cls(root, profile or "imagenet")
        reader = VideoReader()
        for p in sel.names:
            d = difficulty if p in NOISE_PERTURBATIONS else 1
            entries = index.cells.get((p, d))
            if not entries:
                lay.missing.append(Cell(p, difficulty))
                continue
            rows = select_subset(len(entries), keys_of(entries), sel.limit, sel.seed)
            chosen = [entries[i][0] for i in rows]
            lay.cells.append(Cell(p, difficulty))
            lay._items[p] = [(reader, 0, str(f)) for f in chosen]
            lay._classes[p] = [entries[i][1] for i in rows]
            lay.fingerprints[p] = files_fingerprint(root, chosen)
            lay.contents[p] = content_digest(
                (key, f.stat().st_size)
                for key, f in zip(keys_of([entries[i] for i in rows]), chosen)
            )
        lay.images_per_cell = max((len(v) for v in lay._items.values()), default=0)
        return lay

    def key(self, cell: Cell) -> str:
        return cell[0]

    def items(self, cell: Cell) -> list[Item]:
        return self._items[cell[0]]

    def classes(self, cell: Cell) -> list[str | int | None]:
        """The class folder (wnid) of each sequence; ``None`` for one directly in the
        perturbation's folder."""
        return self._classes[cell[0]]

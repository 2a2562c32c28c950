"""CIFAR-10-P folders: ``<perturbation>.npy`` / ``<perturbation>_<d>.npy``, uint8
``(N, T, 32, 32, 3)``. The noise perturbations have one array per difficulty; the others one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from ...grid import Cell
from ..common import npy_fingerprint, select_subset
from ..readers import NpyRowReader
from .base import Item, Layout, Selection

__all__ = ["CifarPFolder"]


@dataclass
class CifarPFolder(Layout):
    """A CIFAR-10-P style folder of ``.npy`` sequence arrays."""

    name: ClassVar[str] = "cifar-p"

    _items: dict[str, list[Item]] = field(default_factory=dict)

    @classmethod
    def open(cls, root: Path, sel: Selection, profile: str | None) -> CifarPFolder:
        from ...layouts.cifar_p import array_name, load_cifar_p, scan_cifar_p
        from ...perturbations import NOISE_PERTURBATIONS

        npys = scan_cifar_p(root)
        (difficulty,) = sel.levels
        lay = cls(root, profile or "cifar")
        reader = NpyRowReader(frames=True)
        for p in sel.names:
            noisy = difficulty > 1 and p in NOISE_PERTURBATIONS
            stem = Path(array_name(p, difficulty if noisy else 1)).stem
            if stem not in npys:
                lay.missing.append(Cell(p, difficulty))
                continue
            arr = load_cifar_p(root, stem)
            rows = select_subset(
                arr.shape[0], [str(i) for i in range(arr.shape[0])], sel.limit, sel.seed
            )
            lay.cells.append(Cell(p, difficulty))
            lay._items[p] = [(reader, 0, (str(npys[stem]), i)) for i in rows]
            lay.fingerprints[p] = npy_fingerprint(arr[rows], None)
        lay.images_per_cell = max((len(v) for v in lay._items.values()), default=0)
        return lay

    def key(self, cell: Cell) -> str:
        return cell[0]

    def items(self, cell: Cell) -> list[Item]:
        return self._items[cell[0]]

"""CIFAR-10-C / CIFAR-100-C folders: ``<corruption>.npy`` (5N images, severity-major) and
``labels.npy``. Profile ``cifar``: the 32 x 32 images are used as they are."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ...grid import Cell
from ...pipeline import Source, SourceItem
from ..common import EvalError, check_label_space, npy_fingerprint, select_subset
from ..readers import NpyRowReader
from .base import Item, Layout, Selection

__all__ = ["CifarCFolder"]


@dataclass
class CifarCFolder(Layout):
    """A CIFAR-C style folder of ``.npy`` arrays."""

    name: ClassVar[str] = "cifar-c"

    _sel: list[int] = field(default_factory=list)  #: rows used (per severity)
    _labels: Any = None  #: labels.npy
    _files: dict[str, Path] = field(default_factory=dict)
    _n: int = 0  #: images per severity
    _reader: NpyRowReader = field(default_factory=NpyRowReader)

    @staticmethod
    def peek(root: Path) -> tuple[set[str], str | None]:
        """The ``<corruption>.npy`` names; the profile is ``cifar``."""
        from ...layouts.cifar_c import array_names

        return array_names(root), "cifar"

    @classmethod
    def open(
        cls, root: Path, sel: Selection, num_classes: int | None, profile: str | None
    ) -> CifarCFolder:
        from ...layouts.cifar_c import load_cifar_c, load_cifar_c_labels, scan_cifar_c

        if sel.images is not None:
            raise EvalError(
                f"{root}: {sel.images.name} selects ImageNet images by <wnid>/<file>; "
                "CIFAR-C arrays have no such names"
            )
        index = scan_cifar_c(root, sel.names)
        if index.labels_path is None:
            raise EvalError(
                f"{root}: CIFAR-C layout needs labels.npy next to the <corruption>.npy files"
            )
        if not index.files:
            raise EvalError(f"{root}: none of the requested corruption .npy files is present")
        lay = cls(root, "cifar")
        n = index.n
        rows = select_subset(n, [str(i) for i in range(n)], sel.limit, sel.seed)
        lay.images_per_cell = len(rows)
        lay._sel = rows
        try:
            labels = load_cifar_c_labels(root)
        except ValueError as exc:
            raise EvalError(str(exc)) from None
        lay._labels = labels
        classes = check_label_space(np.unique(labels).tolist(), num_classes, "labels.npy")
        lay.notes.append(f"labels: labels.npy ({classes})")
        for c in sel.names:
            for s in sel.levels:
                if c not in index.files:
                    lay.missing.append(Cell(c, s))
                    continue
                lay.cells.append(Cell(c, s))
                arr = load_cifar_c(root, c, s)
                lay.fingerprints[lay.key(Cell(c, s))] = npy_fingerprint(
                    arr[rows], labels[(s - 1) * n : s * n][rows]
                )
        lay._files = index.files
        lay._n = n
        return lay

    def items(self, cell: Cell) -> list[Item]:
        c, s = cell
        path = str(self._files[c])
        base = (s - 1) * self._n
        return [(self._reader, int(self._labels[base + i]), (path, base + i)) for i in self._sel]

    def match_clean(self, source: Source) -> list[SourceItem] | None:
        """The same rows of a CIFAR batch of N images (the order CIFAR-C was made in)."""
        if source.kind == "cifar-batch" and len(source.items) == self._n:
            return [source.items[i] for i in self._sel]
        return None

    @property
    def subset_selected(self) -> bool:
        return bool(self._sel)

    @property
    def default_baseline(self) -> str:
        return "uniform"

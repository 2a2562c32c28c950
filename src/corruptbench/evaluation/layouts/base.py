"""The interface of a dataset layout, and the clean-source helper the layouts share."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ...pipeline import Source, SourceError, SourceItem, hash_lines, open_source
from ..common import Cell, EvalError, cell_key, label_mapper, select_subset
from ..readers import Reader

__all__ = [
    "Selection",
    "OnTheFly",
    "Item",
    "Layout",
    "open_labelled_source",
    "open_unlabelled_source",
    "select_items",
    "keys_of",
]

Item = tuple[Reader, int, Any]  #: (reader, label, payload) of one image or sequence


@dataclass(frozen=True)
class Selection:
    """What to evaluate: names (corruptions / perturbations), levels (severities / the one
    difficulty), at most ``limit`` items per cell (a subset seeded by ``seed``), and ``seed``,
    the base seed of on-the-fly corruption."""

    names: list[str]
    levels: list[int]
    limit: int | None = None
    seed: int = 0


@dataclass(frozen=True)
class OnTheFly:
    """``data=OnTheFly(src)``: corrupt (or perturb) the clean images of ``src`` (an image folder or
    a CIFAR python batch) inside the data-loader workers, exactly as make-c / make-p do."""

    src: str | os.PathLike[str]


@dataclass
class Layout(ABC):
    """One dataset layout, planned for a :class:`Selection`.

    After :meth:`open`, :attr:`cells` are the requested cells present in the data (in evaluation
    order), :attr:`missing` the requested cells absent from it, :attr:`fingerprints` a digest of
    each present cell's data (results are resumed only where it matches), :attr:`notes` what the
    results file should say about the data. :meth:`items` lists a cell's items.
    """

    name: ClassVar[str]  #: the results' ``dataset.layout``
    heavy: ClassVar[bool] = False  #: items are computed (corrupted) in the loader, not read

    root: Path
    profile: str
    cells: list[Cell] = field(default_factory=list)
    missing: list[Cell] = field(default_factory=list)
    fingerprints: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    images_per_cell: int = 0

    @abstractmethod
    def items(self, cell: Cell) -> list[Item]:
        """The items of ``cell`` (after the selection's ``limit``)."""

    def key(self, cell: Cell) -> str:
        """The cell's key in the results' ``run.cell_fingerprints``."""
        return cell_key(cell)

    def match_clean(self, source: Source) -> list[SourceItem] | None:
        """eval-c ``clean=``: the clean items that correspond to the corrupted images evaluated,
        or None when they cannot be matched one-to-one."""
        return None

    @property
    def subset_selected(self) -> bool:
        """Whether the clean-matching note mentions a seeded subset."""
        return False

    @property
    def default_baseline(self) -> str:
        """eval-c's ``baseline="auto"``: ``alexnet`` (ImageNet) or ``uniform`` (CIFAR data)."""
        return "alexnet"

    def fingerprint(self) -> str:
        """Digest of every cell's fingerprint (the results' ``dataset.fingerprint``)."""
        return hash_lines(f"{k}\t{v}" for k, v in sorted(self.fingerprints.items()))


def open_labelled_source(
    src: Path,
    num_classes: int | None,
    notes: list[str],
    limit: int | None,
    seed: int,
    restrict: Callable[[Source], list[SourceItem] | None] | None = None,
) -> tuple[Source, list[SourceItem], list[int]]:
    """A clean source (folder / CIFAR batch), the selected items and their labels.

    ``restrict(source)`` may return the items to use (e.g. the clean images matching the corrupted
    ones); otherwise the seeded ``limit`` subset is taken. Label notes go to ``notes``.
    """
    source = open_unlabelled_source(src)
    items = restrict(source) if restrict is not None else None
    if items is None:
        items = select_items(source, limit, seed)
    if source.label_kind == "none":
        raise EvalError(
            f"{src}: images have no labels (use class sub-folders named by wnid or class)"
        )
    if source.label_kind == "batch":
        labels = [int(it.label) for it in items]  # type: ignore[arg-type]
        notes.append("labels: from the CIFAR batch file")
    else:
        mapper = label_mapper([str(it.label) for it in source.items], num_classes, notes)
        labels = [mapper(str(it.label)) for it in items]
    if num_classes is not None and labels and max(labels) >= num_classes:
        raise EvalError(f"{src}: label {max(labels)} but the model outputs {num_classes} logits")
    return source, items, labels


def open_unlabelled_source(src: Path) -> Source:
    """:func:`~corruptbench.pipeline.open_source`, its errors as :class:`EvalError`."""
    try:
        return open_source(src)
    except SourceError as exc:
        raise EvalError(*exc.parts) from None


def select_items(source: Source, limit: int | None, seed: int) -> list[SourceItem]:
    """The seeded ``limit`` subset of a source's items (all of them without a limit)."""
    sel = select_subset(len(source.items), [it.rel for it in source.items], limit, seed)
    return [source.items[i] for i in sel]


def keys_of(entries: Sequence[tuple[Path, str | None]]) -> list[str]:
    """``"<wnid>/<file name>"`` of (path, wnid) entries: what the ``limit`` subset is drawn by."""
    return [f"{w}/{p.name}" for p, w in entries]

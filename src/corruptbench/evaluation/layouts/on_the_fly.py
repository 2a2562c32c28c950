"""Clean images corrupted (or perturbed) on the fly, exactly as make-c / make-p do.

A clean image folder (or a CIFAR python batch) is corrupted inside the data-loader workers with the
shared per-item step (:class:`~corruptbench.pipeline.CorruptStep`: the profile's preprocessing, then
``corrupt(..., rng=RandomState(item_seed(seed, "c", corruption, severity, rel)))``). The pixels are
the bytes make-c would encode; the JPEG (q85) step is skipped, which matters at small sizes
(hendrycks/robustness issue #16: Tiny-ImageNet-C Gaussian noise at severity 3 gave about 20 %
accuracy on the released JPEGs and 31 % on regenerated images). The clean error comes from the same
images. For ImageNet-P, :class:`~corruptbench.pipeline.PerturbStep` gives make-p's frames (the MP4
encoding step is skipped).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from ...grid import CLEAN, Cell
from ...pipeline import CorruptStep, PerturbStep, Source, SourceItem, hash_lines
from ...profiles import detect_profile
from ..readers import PreparedReader, RawReader, Reader, StepReader
from .base import (
    Item,
    Layout,
    Selection,
    open_labelled_source,
    select_items,
    select_positions,
)

__all__ = ["SIZE_SAMPLE", "OnTheFlyC", "OnTheFlyP", "default_profile"]


#: files whose headers decide a folder's profile (evenly spaced over it; a header read each)
SIZE_SAMPLE = 64


def default_profile(source: Source) -> str:
    """The profile of a clean source: ``cifar`` for a CIFAR batch; for images in memory or files
    the one of their size when they share one (32 x 32 cifar, 64 x 64 tiny, 299 x 299
    inception: :func:`corruptbench.profiles.detect_profile`; a folder by the headers of up to
    :data:`SIZE_SAMPLE` files spread over it); else ``imagenet``."""
    if source.kind == "cifar-batch":
        return "cifar"
    items = source.items
    if source.kind != "arrays" and len(items) > SIZE_SAMPLE:
        step = (len(items) - 1) / (SIZE_SAMPLE - 1)
        items = [items[round(k * step)] for k in range(SIZE_SAMPLE)]
    sizes = {it.size() for it in items} - {None}
    if len(sizes) == 1:
        width, height = next(iter(sizes))  # type: ignore[misc]
        return detect_profile(height, width)
    return "imagenet"


def _listed_items(sel: Selection) -> Callable[[Source], list[SourceItem] | None] | None:
    """``open_labelled_source``'s ``restrict``: the items whose relative path ``sel.images``
    lists (``None`` without a list)."""
    if sel.images is None:
        return None

    def restrict(source: Source) -> list[SourceItem] | None:
        rels = [it.rel for it in source.items]
        return [source.items[i] for i in select_positions(rels, sel, str(source.root))]

    return restrict


@dataclass
class OnTheFlyC(Layout):
    """ImageNet-C cells (and the clean cell) computed from a clean source."""

    name: ClassVar[str] = "on-the-fly"
    corrupts_in_loader: ClassVar[bool] = True

    _items: list[tuple[SourceItem, int]] = field(default_factory=list)  #: (item, label)
    _step: CorruptStep = field(default_factory=lambda: CorruptStep("imagenet"))
    _on_device: bool = False

    @classmethod
    def open(
        cls, source: Source, sel: Selection, num_classes: int | None, profile: str | None
    ) -> OnTheFlyC:
        notes: list[str] = []
        items, labels = open_labelled_source(
            source, num_classes, notes, sel.limit, sel.seed, _listed_items(sel)
        )
        prof = profile or default_profile(source)
        lay = cls(source.root, prof, notes=notes)
        if sel.images is not None:
            lay.notes.append(sel.images.note(len(source.items) - len(items)))
        lay.notes.append(
            f"corrupted on the fly: same pixels as `corruptbench make-c --seed {sel.seed} --profile {prof}` "
            "would write before JPEG encoding (make-c then saves JPEG q85; that step is skipped here)"
        )
        lay.images_per_cell = len(items)
        lay.cells = [Cell(c, s) for c in sel.names for s in sel.levels]
        base = hash_lines([source.fingerprint, str(sel.seed), prof, *(it.rel for it in items)])
        for cell in lay.cells:
            lay.fingerprints[lay.key(cell)] = hash_lines([base, lay.key(cell)])
        lay._items = list(zip(items, labels))
        lay.fingerprints["clean"] = hash_lines([base, "clean"])
        lay._step = CorruptStep(prof, sel.seed)
        return lay

    def on_device(self) -> None:
        """Corrupt on the model's device instead (:class:`~corruptbench.evaluation.device.DeviceCorruptor`):
        the workers only prepare the clean images."""
        self._on_device = True
        self.fingerprints = {k: hash_lines([v, "device"]) for k, v in self.fingerprints.items()}
        self.notes[-1] = (
            "corrupted on the fly on the model's device with corruptbench.torch.corrupt_batch "
            f"(make-c's preprocessing, profile {self.profile}; random draws from torch "
            "generators seeded per batch, so not the bytes make-c writes)"
        )

    def items(self, cell: Cell) -> list[Item]:
        reader: Reader
        if cell == CLEAN:
            reader = PreparedReader(self._step)
            return [(reader, lab, it) for it, lab in self._items]
        if self._on_device:
            reader = RawReader(self._step)
            return [(reader, lab, it) for it, lab in self._items]
        reader = StepReader(self._step)
        return [(reader, lab, (it, cell[0], cell[1])) for it, lab in self._items]


@dataclass
class OnTheFlyP(Layout):
    """ImageNet-P sequences generated from a clean source (make-p's seeding)."""

    name: ClassVar[str] = "on-the-fly"
    corrupts_in_loader: ClassVar[bool] = True

    _items: list[SourceItem] = field(default_factory=list)
    _step: PerturbStep = field(default_factory=lambda: PerturbStep("imagenet"))
    _labelled: bool = False  #: the source has labels (class folders, a batch's, given ones)

    @classmethod
    def open(
        cls, source: Source, sel: Selection, profile: str | None, notes: list[str]
    ) -> OnTheFlyP:
        items = select_items(source, sel.limit, sel.seed)
        prof = profile or default_profile(source)
        lay = cls(source.root, prof, notes=notes)
        (difficulty,) = sel.levels
        base = hash_lines([source.fingerprint, str(sel.seed), prof, *(it.rel for it in items)])
        for p in sel.names:
            lay.cells.append(Cell(p, difficulty))
            lay.fingerprints[p] = hash_lines([base, p, str(difficulty)])
        lay.notes.append(
            f"sequences generated on the fly: same frames as `corruptbench make-p --seed {sel.seed} "
            f"--profile {prof}` would encode (the MP4 encoding step is skipped)"
        )
        lay._items = items
        lay._labelled = source.label_kind != "none"
        lay._step = PerturbStep(prof, sel.seed)
        lay.images_per_cell = len(items) if lay.cells else 0
        return lay

    def key(self, cell: Cell) -> str:
        return cell[0]

    def items(self, cell: Cell) -> list[Item]:
        reader = StepReader(self._step)
        return [(reader, 0, (it, cell[0], cell[1])) for it in self._items]

    def classes(self, cell: Cell) -> list[str | int | None]:
        """Each clean image's class folder (wnid) or integer label; ``None`` without labels."""
        if not self._labelled:
            return [None] * len(self._items)
        return [it.label for it in self._items]

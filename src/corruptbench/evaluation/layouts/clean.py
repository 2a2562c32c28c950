"""The clean images of an evaluation of stored corrupted data (eval-c ``clean=``).

They get the benchmark's own preparation of clean images — ImageNet: ``Resize(256) +
CenterCrop(224)``; CIFAR: none — so clean and corrupted inputs differ only by the corruption.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ...pipeline import CorruptStep, Source, SourceItem, hash_lines
from ..readers import PreparedReader
from .base import (
    ImageIds,
    Item,
    Layout,
    Selection,
    open_labelled_source,
    open_unlabelled_source,
    select_positions,
)

__all__ = ["CleanImages"]


@dataclass
class CleanImages:
    """The clean items matched to a layout's corrupted images, with labels and a fingerprint."""

    path: Path
    items: list[SourceItem]
    labels: list[int]
    fingerprint: str
    reader: PreparedReader

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        layout: Layout,
        num_classes: int | None,
        limit: int | None,
        seed: int,
        images: ImageIds | None = None,
    ) -> CleanImages:
        """Open ``path`` and pick the clean images that correspond to the corrupted ones
        evaluated (same relative path for an ImageNet-C folder; same index for a CIFAR batch of
        N images), else a seeded ``limit`` subset of the clean source; with ``images``, exactly
        the listed ``<wnid>/<file>`` (:class:`EvalError` when some are absent). Notes go to the
        layout."""

        def restrict(source: Source) -> list[SourceItem] | None:
            if images is not None:
                sel = Selection([], [], images=images)
                rels = [it.rel for it in source.items]
                listed = [source.items[i] for i in select_positions(rels, sel, str(path))]
                layout.notes.append(
                    f"clean error over the {len(listed):,} images of {images.name} in {path} "
                    f"(of {len(source.items):,})"
                )
                return listed
            chosen = layout.match_clean(source)
            if chosen is None:
                layout.notes.append(
                    "the clean images cannot be matched one-to-one to the corrupted ones (different "
                    "names or order), so the clean error is over the clean source itself"
                    + (" (--limit: a seeded subset of it)" if layout.subset_selected else "")
                )
            return chosen

        source = open_unlabelled_source(Path(path))
        items, labels = open_labelled_source(source, num_classes, [], limit, seed, restrict)
        fp = hash_lines([source.fingerprint, layout.profile, *(it.rel for it in items)])
        layout.notes.append(
            f"clean error: {path} prepared like make-c's {layout.profile!r} profile"
            + (" (Resize(256) + CenterCrop(224))" if layout.profile == "imagenet" else "")
        )
        reader = PreparedReader(CorruptStep(layout.profile, seed))
        return cls(Path(path), items, labels, fp, reader)

    def cell_items(self) -> list[Item]:
        return [(self.reader, lab, it) for it, lab in zip(self.items, self.labels)]

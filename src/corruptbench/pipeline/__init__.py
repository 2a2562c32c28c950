"""What make-c / make-p, the evaluation and the demo share: sources and the per-item step.

* :mod:`~corruptbench.pipeline.sources` — :class:`Source` / :class:`SourceItem`: an image folder,
  a CIFAR batch or arrays in memory, with labels and a fingerprint.
* :mod:`~corruptbench.pipeline.items` — :func:`item_seed` and :class:`ItemStep`
  (:class:`CorruptStep`, :class:`PerturbStep`): prepare one item for a profile and corrupt or
  perturb it with its own seed.
"""

from __future__ import annotations

from .items import CorruptStep, ItemStep, PerturbStep, item_rng, item_seed, item_step
from .sources import (
    Source,
    SourceError,
    SourceItem,
    arrays_source,
    batch_rel,
    folder_label_kind,
    hash_lines,
    open_source,
)

__all__ = [
    "Source",
    "SourceError",
    "SourceItem",
    "open_source",
    "arrays_source",
    "hash_lines",
    "folder_label_kind",
    "batch_rel",
    "item_seed",
    "item_rng",
    "ItemStep",
    "CorruptStep",
    "PerturbStep",
    "item_step",
]

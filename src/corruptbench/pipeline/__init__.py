"""What make-c / make-p, the evaluation and the demo share: sources and the per-item step.

* :mod:`~corruptbench.pipeline.sources` — :class:`Source` / :class:`SourceItem`: an image folder,
  a CIFAR batch or arrays in memory, with labels and a fingerprint.
* :mod:`~corruptbench.pipeline.items` — :func:`item_seed` and :class:`ItemStep`
  (:class:`CorruptStep`, :class:`PerturbStep`): prepare one item for a profile and corrupt or
  perturb it with its own seed.
"""

from __future__ import annotations

from .items import (
    ITEM_SEED_FORMULA,
    CorruptStep,
    ItemStep,
    NativeCorruptStep,
    PerturbStep,
    item_rng,
    item_seed,
    item_step,
)
from .sources import (
    Source,
    SourceError,
    SourceItem,
    arrays_source,
    batch_rel,
    folder_label_kind,
    hash_lines,
    open_source,
    open_tree,
    spread_subset,
)

__all__ = [
    "Source",
    "SourceError",
    "SourceItem",
    "open_source",
    "open_tree",
    "arrays_source",
    "hash_lines",
    "spread_subset",
    "folder_label_kind",
    "batch_rel",
    "item_seed",
    "ITEM_SEED_FORMULA",
    "item_rng",
    "ItemStep",
    "CorruptStep",
    "NativeCorruptStep",
    "PerturbStep",
    "item_step",
]

"""PyTorch batch backend of corruptbench: the 19 corruptions on ``(N, 3, H, W)`` tensors, any device.

* :func:`corrupt_batch` — functional API (uint8 or float batches; per-sample randomness from a
  ``torch.Generator``);
* :func:`apply_params` — the same with explicit parameters instead of a severity (the batch
  counterpart of :func:`corruptbench.corruptions.params.apply_params`; CCC's continuous
  severities use it, :mod:`corruptbench.ccc.batch`);
* :class:`Corrupt` — the same as an ``nn.Module`` / torchvision-style transform;
* :class:`RandomCorruption` — samples a corruption and a severity per call (augmentation);
* :class:`ImageNetC`, :class:`CIFAR10C`, :class:`CIFAR100C`, :class:`ImageNetP`,
  :class:`ImageNetCBar`, :class:`CIFAR10CBar` — datasets of the released layouts with the right
  class indices (:mod:`.datasets`);
* :class:`CorruptedDataset` — any dataset of images corrupted item by item exactly as make-c does
  (:mod:`.corrupted`).

PyTorch is optional for corruptbench: this subpackage needs it (``pip install corruptbench[torch]``),
``import corruptbench`` does not. Fidelity and the few steps that run on the CPU on purpose (JPEG,
spatter's water edges) and the CPU library's compiled kernels used for uint8 batches on the CPU
(``backend="auto"``) are described in :mod:`corruptbench.torch.functional`.

Layout: one module per family (:mod:`.noise`, :mod:`.blur`, :mod:`.weather`, :mod:`.digital`,
mirroring :mod:`corruptbench.corruptions`) registers each corruption's batch implementation into
its :class:`~corruptbench.registry.CorruptionSpec` (``spec.batch``, a :class:`BatchImpl`);
:mod:`.ops` holds the batched building blocks (mirroring :mod:`corruptbench.ops`), :mod:`.context`
the batch context and random source, :mod:`.library` the CPU library's per-image path.
"""

from __future__ import annotations

try:
    import torch  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without torch
    raise ImportError(
        "corruptbench.torch needs PyTorch, which is not installed: pip install corruptbench[torch]"
    ) from exc

from .context import BatchImpl
from .corrupted import CorruptedDataset
from .datasets import CIFAR10C, CIFAR100C, CIFAR10CBar, ImageNetC, ImageNetCBar, ImageNetP
from .functional import (
    BACKENDS,
    CPU_LIBRARY_DISPATCH,
    DRAW_KEYS,
    apply_params,
    corrupt_batch,
    corrupt_batch_with_draws,
    cpu_draws,
    cpu_param_draws,
)
from .transforms import Corrupt, RandomCorruption

__all__ = [
    "corrupt_batch",
    "corrupt_batch_with_draws",
    "apply_params",
    "cpu_draws",
    "cpu_param_draws",
    "DRAW_KEYS",
    "BACKENDS",
    "CPU_LIBRARY_DISPATCH",
    "Corrupt",
    "RandomCorruption",
    "BatchImpl",
    "ImageNetC",
    "CIFAR10C",
    "CIFAR100C",
    "ImageNetP",
    "ImageNetCBar",
    "CIFAR10CBar",
    "CorruptedDataset",
]

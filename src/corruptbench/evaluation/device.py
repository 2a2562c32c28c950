"""On-the-fly corruption on the model's device (``corrupt_on="device"``) with the torch backend."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import Arg
from ..grid import CLEAN, Cell
from ..pipeline import item_seed
from .common import EvalError

__all__ = ["require_torch_backend", "DeviceCorruptor"]


def require_torch_backend() -> Any:
    """:func:`corruptbench.torch.corrupt_batch`, or an :class:`EvalError` saying what to do."""
    try:
        from ..torch import corrupt_batch
    except ImportError:
        raise EvalError(
            "on-the-fly corruption on the model's device (",
            Arg("device"),
            " cuda, ",
            Arg("corrupt_on"),
            " device) needs corruptbench.torch.corrupt_batch, which is not available in this "
            "installation. Use ",
            Arg("corrupt_on"),
            " workers (CPU workers corrupt exactly like make-c) or ",
            Arg("device"),
            " cpu, or build the dataset with `corruptbench make-c` and evaluate it with ",
            Arg("data"),
            ".",
        ) from None
    return corrupt_batch


class DeviceCorruptor:
    """Per batch: ``corrupt_batch`` with a generator seeded from (seed, cell, batch number).

    Called as ``fn(uint8 device batch, cell index)``; clean cells pass through.
    """

    def __init__(self, cells: Sequence[Cell], profile: str, seed: int) -> None:
        self.cells = cells
        self.profile = profile
        self.seed = seed
        self.corrupt_batch = require_torch_backend()
        self.counters: dict[int, int] = {}

    def __call__(self, x: Any, cid: int) -> Any:
        import torch

        cell = self.cells[cid]
        if cell == CLEAN:
            return x
        k = self.counters.get(cid, 0)
        self.counters[cid] = k + 1
        g = torch.Generator(device=x.device)
        g.manual_seed(item_seed(self.seed, "c-device", cell[0], cell[1], f"batch-{k}"))
        return self.corrupt_batch(x, cell[0], cell[1], profile=self.profile, generator=g)

"""CCC (Continuously Changing Corruptions; Press et al., RDumb, NeurIPS 2023) without its server.

Re-implements github.com/oripress/CCC (MIT):

- :func:`corrupt`: its corruptions at any severity in [0, 5] (``make_imagenet_c.py``);
  :func:`ccc_params` their interpolated parameters (:mod:`.functions`, :mod:`.params`);
  :func:`corrupt_batch` / :func:`corrupt_pair_batch` the same on torch batches, any device
  (:mod:`.batch`; imported on first use: ``import corruptbench.ccc`` imports no torch).
- :func:`find_walk`: the calibrated walk over severity pairs (``generate.py``'s ``find_path``).
- :func:`calibrate`: a model's accuracy matrices (:mod:`.calibrate`; :mod:`.matrices` stores
  them and reads the original's pickle).
- :func:`generate` / :class:`CCCStream`: a run (baseline, speed, seed) as WebDataset shards or
  on the fly (:mod:`.plan`: steps and shards; :mod:`.generate`: the images; :mod:`.runs`).
"""

from __future__ import annotations

from typing import Any

from .calibrate import calibrate, calibration_images
from .functions import corrupt
from .matrices import load_matrices, save_matrices
from .params import CCC_CORRUPTIONS, ccc_params
from .plan import plan_run
from .runs import CCCStream, generate
from .walk import Walk, find_walk

__all__ = [
    "CCC_CORRUPTIONS",
    "corrupt_batch",
    "corrupt_pair_batch",
    "CCCStream",
    "Walk",
    "calibrate",
    "calibration_images",
    "ccc_params",
    "corrupt",
    "find_walk",
    "generate",
    "load_matrices",
    "plan_run",
    "save_matrices",
]


def __getattr__(name: str) -> Any:
    # the torch functions: torch is imported only when one is used
    if name in ("corrupt_batch", "corrupt_pair_batch"):
        from . import batch

        return getattr(batch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

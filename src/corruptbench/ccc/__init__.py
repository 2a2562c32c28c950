"""CCC (Continuously Changing Corruptions; Press et al., RDumb, NeurIPS 2023) without its server.

- :func:`corrupt`: CCC's corruptions at any severity in [0, 5] (``make_imagenet_c.py``);
  :func:`ccc_params` their interpolated parameters.
- :func:`find_walk`: the calibrated walk over severity pairs (``generate.py``'s ``find_path``).
"""

from __future__ import annotations

from .functions import corrupt
from .params import CCC_CORRUPTIONS, ccc_params
from .walk import Walk, find_walk

__all__ = ["CCC_CORRUPTIONS", "Walk", "ccc_params", "corrupt", "find_walk"]

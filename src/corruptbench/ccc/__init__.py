"""CCC (Continuously Changing Corruptions; Press et al., RDumb, NeurIPS 2023) without its server.

- :func:`find_walk`: the calibrated walk over severity pairs (``generate.py``'s ``find_path``).
"""

from __future__ import annotations

from .walk import Walk, find_walk

__all__ = ["Walk", "find_walk"]

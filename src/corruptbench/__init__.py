"""corruptbench: faithful, fast ImageNet-C / ImageNet-P corruptions, builders, evaluation, reports."""

from __future__ import annotations

from .api import ALL_CORRUPTIONS, CORRUPTIONS, EXTRA_CORRUPTIONS, corrupt, get_corruption_names
from .kernel_cache import warmup
from .profiles import PROFILES

__version__ = "0.1.0"

__all__ = [
    "corrupt",
    "get_corruption_names",
    "CORRUPTIONS",
    "EXTRA_CORRUPTIONS",
    "ALL_CORRUPTIONS",
    "PROFILES",
    "warmup",
    "__version__",
]


def __getattr__(name: str):  # lazy: perturbations pull in more code
    if name in ("perturb", "PERTURBATIONS", "EXTRA_PERTURBATIONS", "ALL_PERTURBATIONS"):
        from . import perturbations

        return getattr(perturbations, name)
    raise AttributeError(f"module 'corruptbench' has no attribute {name!r}")

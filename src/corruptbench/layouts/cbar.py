"""The released ImageNet-C-bar: ``<corruption>/<level>/<wnid>/<file>`` for its 10 corruptions.

The ImageNet-C tree (:mod:`.imagenet_c`) with the level folders named ``1``..``5`` or by the level
itself (make_imagenet_c_bar.py:83, ``"{:.2f}"``: ``caustic_refraction/2.35``); each folder is read
back to its severity by :func:`~.imagenet_c.level_folders` (a ``5`` is always severity 5: the
values ``1.0``..``6.0`` of ``sparkles`` are not folder names). Known counts: the ILSVRC-2012
validation set per cell (:data:`~.imagenet_c.IMAGENET_PER_CELL`); 10 corruptions x 5 levels
(:data:`~corruptbench.tables.released.IMAGENET_C_BAR_LEVELS`).
"""

from __future__ import annotations

from pathlib import Path

from ..tables.released import IMAGENET_C_BAR_LEVELS
from .common import visible_dirs
from .imagenet_c import IMAGENET_PER_CELL

__all__ = ["DETECT_ORDER", "NAME", "CORRUPTIONS", "PROFILE", "PER_CELL", "detect"]

NAME = "imagenet-c-bar"
#: where :func:`corruptbench.layouts.detect` asks this layout (lower first; before imagenet_c: the released C-bar is also a tree)
DETECT_ORDER = 40
#: the released set's corruptions, in its order
CORRUPTIONS: tuple[str, ...] = tuple(IMAGENET_C_BAR_LEVELS)
#: the level table its value-named folders are read with
PROFILE = "imagenet"
PER_CELL = IMAGENET_PER_CELL


def detect(root: Path) -> str | None:
    """``imagenet-c-bar`` for a folder with one of its corruption folders."""
    return NAME if set(visible_dirs(root)) & set(CORRUPTIONS) else None

"""MNIST-C: ``<corruption>/{train,test}_{images,labels}.npy`` for its 16 corruption folders.

Known counts: :data:`~corruptbench.tables.released.MNIST_C_CORRUPTIONS` folders, each with
``train_images.npy`` uint8 ``(60000, 28, 28, 1)``, ``test_images.npy`` ``(10000, 28, 28, 1)`` and
their ``*_labels.npy`` (the MNIST train / test sizes; TFDS' mnist_corrupted reads them as
28 x 28 x 1 uint8 images).
"""

from __future__ import annotations

from pathlib import Path

from ..tables.released import MNIST_C_CORRUPTIONS
from .common import visible_dirs

__all__ = [
    "DETECT_ORDER",
    "NAME",
    "CORRUPTIONS",
    "ROWS",
    "IMAGE_SHAPE",
    "detect",
    "images_file",
    "labels_file",
]

NAME = "mnist-c"
#: where :func:`corruptbench.layouts.detect` asks this layout (lower first)
DETECT_ORDER = 30
CORRUPTIONS = MNIST_C_CORRUPTIONS
#: rows of each split
ROWS = {"train": 60_000, "test": 10_000}
IMAGE_SHAPE = (28, 28, 1)


def images_file(split: str) -> str:
    return f"{split}_images.npy"


def labels_file(split: str) -> str:
    return f"{split}_labels.npy"


def detect(root: Path) -> str | None:
    """``mnist-c`` for a folder with an MNIST-C corruption folder and a ``test_images.npy``."""
    dirs = set(visible_dirs(root))
    if dirs & set(CORRUPTIONS) and any((root / d / images_file("test")).exists() for d in dirs):
        return NAME
    return None

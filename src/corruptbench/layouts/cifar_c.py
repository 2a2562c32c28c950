"""CIFAR-10-C / CIFAR-100-C (and CIFAR-10-C-bar): ``<root>/<corruption>.npy`` + ``labels.npy``.

hendrycks/robustness ImageNet-C/create_c/make_cifar_c.py:460-464: ``<corruption>.npy`` uint8
``(5N, 32, 32, 3)``, severity-major (index ``(severity - 1) * N + i``), and ``labels.npy``
``(5N,)`` (the N test labels repeated 5 times; uint8 in the release). The release has N = 10,000
(:data:`ROWS` = 50,000 rows per file); CIFAR-100-C is told apart by its largest label.
make-c ``--format npy`` writes the same names (:func:`array_name`, :data:`LABELS`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..formats.cifar import check_class_labels, load_npy
from ..grid import resolve_names

__all__ = [
    "DETECT_ORDER",
    "NAME",
    "LABELS",
    "ROWS",
    "IMAGE_SHAPE",
    "detect",
    "which",
    "array_name",
    "array_names",
    "CifarCIndex",
    "scan_cifar_c",
    "load_cifar_c",
    "load_cifar_c_labels",
]

NAME = "cifar-c"
#: where :func:`corruptbench.layouts.detect` asks this layout (lower first)
DETECT_ORDER = 20
#: the labels file beside the arrays
LABELS = "labels.npy"
#: rows of each released array: 5 severities x the 10,000 CIFAR test images
ROWS = 50_000
#: one image of the arrays
IMAGE_SHAPE = (32, 32, 3)


def detect(root: Path) -> str | None:
    """``cifar-c`` for a folder with ``labels.npy`` (the arrays beside it are checked on use)."""
    return NAME if (root / LABELS).is_file() else None


def which(root: Path) -> str:
    """``cifar10-c`` or ``cifar100-c``, from the largest label (CIFAR-100 has 100 classes)."""
    try:
        labels = np.load(root / LABELS, mmap_mode="r", allow_pickle=False)
        return "cifar100-c" if int(np.max(labels)) >= 10 else "cifar10-c"
    except (OSError, ValueError):
        return "cifar10-c"


def array_name(name: str) -> str:
    """The file of one corruption: ``fog.npy``."""
    return f"{name}.npy"


def array_names(root: Path) -> set[str]:
    """The corruption names of the arrays present (every ``.npy`` but the labels)."""
    return {p.stem for p in root.glob("*.npy") if p.name != LABELS}


@dataclass
class CifarCIndex:
    """What :func:`scan_cifar_c` found: ``files[corruption] -> path``, ``n`` images per severity."""

    root: Path
    files: dict[str, Path] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    n: int = 0
    labels_path: Path | None = None


def _load(path: Path, mmap: bool) -> np.ndarray:
    return load_npy(path, mmap=mmap)


def scan_cifar_c(
    root: str | os.PathLike[str],
    corruptions: Iterable[str] | None = None,
    *,
    suite: str = "imagenet_c",
) -> CifarCIndex:
    """Index a CIFAR-10-C style folder (any subset of ``<corruption>.npy`` present; also
    CIFAR-10-C-bar's).

    ``corruptions``: the names to look for (default: every corruption of ``suite``,
    :func:`corruptbench.grid.resolve_names`, then any other ``.npy`` but ``labels.npy``).
    ``n`` (images per severity) comes from ``labels.npy`` when present, else from the first array.
    Raises ValueError when an array does not have the ``(5N, H, W, 3)`` uint8 shape.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"CIFAR-C folder not found: {root}")
    wanted = list(corruptions) if corruptions is not None else None
    index = CifarCIndex(root)
    labels = root / LABELS
    if labels.is_file():
        index.labels_path = labels
        nlab = _load(labels, True).shape[0]
        if nlab % 5:
            raise ValueError(f"{labels}: {nlab} labels is not 5 x N")
        index.n = nlab // 5
    known = resolve_names("c", None, suite=suite)
    names = (
        wanted
        if wanted is not None
        else list(known)
        + sorted(
            p.stem
            for p in root.glob("*.npy")
            if p.name != LABELS and p.stem not in known and not p.name.startswith(".")
        )
    )
    for name in names:
        p = root / array_name(name)
        if not p.is_file():
            index.missing.append(name)
            continue
        arr = _load(p, True)
        if arr.ndim != 4 or arr.shape[-1] != 3 or arr.dtype != np.uint8 or arr.shape[0] % 5:
            raise ValueError(f"{p}: expected uint8 (5N, H, W, 3), got {arr.dtype} {arr.shape}")
        if index.n and arr.shape[0] != 5 * index.n:
            raise ValueError(f"{p}: {arr.shape[0]} images but labels.npy implies 5 x {index.n}")
        index.n = index.n or arr.shape[0] // 5
        index.files[name] = p
    return index


def load_cifar_c(
    root: str | os.PathLike[str], corruption: str, severity: int | None = None, *, mmap: bool = True
) -> np.ndarray:
    """Images of one corruption: all ``(5N, H, W, 3)`` or one severity's ``(N, H, W, 3)`` slice."""
    arr = _load(Path(root) / array_name(corruption), mmap)
    if arr.ndim != 4 or arr.shape[0] % 5:
        raise ValueError(f"{corruption}.npy: expected (5N, H, W, 3), got {arr.shape}")
    if severity is None:
        return arr
    if not 1 <= int(severity) <= 5:
        raise ValueError(f"severity must be 1..5, got {severity}")
    n = arr.shape[0] // 5
    return arr[(int(severity) - 1) * n : int(severity) * n]


def load_cifar_c_labels(root: str | os.PathLike[str], severity: int | None = None) -> np.ndarray:
    """``labels.npy`` as int64: all ``(5N,)`` or the ``(N,)`` labels of one severity.

    Raises:
        ValueError: naming the file, a label that is not a class index (:func:`check_class_labels`).
    """
    path = Path(root) / LABELS
    lab = check_class_labels(_load(path, False), str(path))
    if severity is None:
        return lab
    n = lab.shape[0] // 5
    return lab[(int(severity) - 1) * n : int(severity) * n]

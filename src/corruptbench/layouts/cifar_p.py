"""CIFAR-10-P / CIFAR-10-C-style perturbation arrays: ``<root>/<perturbation>[_<d>].npy``.

hendrycks/robustness ImageNet-P/create_p/make_cifar_p.py: uint8 ``(N, T, 32, 32, 3)``, no labels in
the release; difficulty 2 / 3 noise sequences, when built by corruptbench (make-p ``--format
npy``), are ``<perturbation>_<d>.npy`` (:func:`array_name`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..formats.cifar import load_npy
from .cifar_c import LABELS
from .imagenet_p import perturbation_dirname

__all__ = ["DETECT_ORDER", "NAME", "detect", "array_name", "scan_cifar_p", "load_cifar_p"]

NAME = "cifar-p"
#: where :func:`corruptbench.layouts.detect` asks this layout (lower first; last: a tree with a stray .npy beside it is still the tree)
DETECT_ORDER = 90


def detect(root: Path) -> str | None:
    """``cifar-p`` for a folder of ``.npy`` arrays without the ``labels.npy`` of CIFAR-C."""
    if (root / LABELS).is_file():
        return None
    return NAME if any(not p.name.startswith(".") for p in root.glob("*.npy")) else None


def array_name(name: str, difficulty: int = 1) -> str:
    """The file of one perturbation and difficulty: ``translate.npy``, ``shot_noise_2.npy``."""
    return f"{perturbation_dirname(name, difficulty)}.npy"


def _load(path: Path, mmap: bool) -> np.ndarray:
    return load_npy(path, mmap=mmap)


def scan_cifar_p(root: str | os.PathLike[str]) -> dict[str, Path]:
    """``{name: path}`` of the ``(N, T, H, W, 3)`` arrays in a CIFAR-10-P folder (names incl. ``_2``/``_3``)."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"CIFAR-P folder not found: {root}")
    return {
        p.stem: p
        for p in sorted(root.glob("*.npy"))
        if p.name != LABELS and not p.name.startswith(".")
    }


def load_cifar_p(
    root: str | os.PathLike[str], perturbation: str, *, mmap: bool = True
) -> np.ndarray:
    """One CIFAR-10-P array, uint8 ``(N, T, H, W, 3)``."""
    arr = _load(Path(root) / f"{perturbation}.npy", mmap)
    if arr.ndim != 5 or arr.shape[-1] != 3:
        raise ValueError(f"{perturbation}.npy: expected (N, T, H, W, 3), got {arr.shape}")
    return arr

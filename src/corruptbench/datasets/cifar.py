"""CIFAR-10/100-C and CIFAR-10-P ``.npy`` layouts, and the official CIFAR python test batch.

Layouts (hendrycks/robustness ImageNet-C/create_c/make_cifar_c.py:460-464 and
ImageNet-P/create_p/make_cifar_p.py):

* **CIFAR-10-C / CIFAR-100-C**: ``<root>/<corruption>.npy`` uint8 ``(5N, 32, 32, 3)``, severity-major
  (index ``(severity - 1) * N + i``), and ``<root>/labels.npy`` ``(5N,)`` (the N test labels repeated
  5 times; uint8 in the release).
* **CIFAR-10-P**: ``<root>/<perturbation>.npy`` uint8 ``(N, T, 32, 32, 3)`` (no labels in the release;
  difficulty 2/3 noise sequences, when built by corruptbench, are ``<perturbation>_<d>.npy``).
* **CIFAR python batch**: the ``test_batch`` (CIFAR-10) / ``test`` (CIFAR-100) file of the
  ``cifar-*-python.tar.gz`` archives — a pickled dict with ``data`` (N x 3072, channel-planar) and
  ``labels`` / ``fine_labels``.

Security: :func:`read_cifar_batch` uses :mod:`pickle` (``encoding='bytes'``), as the CIFAR format
requires. Unpickling runs code chosen by whoever wrote the file, so only call it on files you trust
(the CLI only opens the file the user names). The ``.npy`` readers use ``allow_pickle=False``.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..grid import resolve_names

__all__ = [
    "load_npy",
    "CifarCIndex",
    "scan_cifar_c",
    "load_cifar_c",
    "load_cifar_c_labels",
    "load_cifar_p",
    "scan_cifar_p",
    "read_cifar_batch",
    "is_cifar_batch",
    "check_class_labels",
]


@dataclass
class CifarCIndex:
    """What :func:`scan_cifar_c` found: ``files[corruption] -> path``, ``n`` images per severity."""

    root: Path
    files: dict[str, Path] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    n: int = 0
    labels_path: Path | None = None


def load_npy(path: str | os.PathLike[str], *, mmap: bool = True) -> np.ndarray:
    """``np.load`` of one ``.npy`` array (memory-mapped unless ``mmap=False``; no pickles); an
    unreadable file (truncated: "mmap length is greater than file size", a bad header, not an
    array) raises ValueError naming it.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: ``path`` cannot be read as an array, with the file named.
    """
    try:
        return np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
    except FileNotFoundError:
        raise
    except (ValueError, OSError, EOFError) as exc:
        raise ValueError(f"cannot read {os.fspath(path)} as a .npy array: {exc}") from None


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
    labels = root / "labels.npy"
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
            if p.stem != "labels" and p.stem not in known and not p.name.startswith(".")
        )
    )
    for name in names:
        p = root / f"{name}.npy"
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
    arr = _load(Path(root) / f"{corruption}.npy", mmap)
    if arr.ndim != 4 or arr.shape[0] % 5:
        raise ValueError(f"{corruption}.npy: expected (5N, H, W, 3), got {arr.shape}")
    if severity is None:
        return arr
    if not 1 <= int(severity) <= 5:
        raise ValueError(f"severity must be 1..5, got {severity}")
    n = arr.shape[0] // 5
    return arr[(int(severity) - 1) * n : int(severity) * n]


def check_class_labels(values: object, where: str) -> np.ndarray:
    """Class labels as an int64 array, or ``ValueError`` naming ``where`` and the first bad one.

    A label is a class index: an integer >= 0. Integer arrays are taken as they are, float arrays
    only when every value is a whole number (``8.0``); ``8.5`` would otherwise be truncated to 8
    and ``-2`` stored as a class no model outputs, both without a word.
    """
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: labels are not an array of numbers ({exc})") from None
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.floor(arr))
        if bad.any():
            i = int(np.flatnonzero(bad.ravel())[0])
            raise ValueError(
                f"{where}: label {float(arr.ravel()[i])!r} at row {i} is not a whole number (labels are "
                f"class indices; {int(bad.sum())} of {arr.size} are not)"
            )
    elif arr.dtype.kind not in "iub":
        raise ValueError(f"{where}: labels must be integer class indices, got dtype {arr.dtype}")
    out = arr.astype(np.int64).reshape(-1) if arr.size else np.zeros(0, dtype=np.int64)
    if out.size and int(out.min()) < 0:
        i = int(np.argmax(out < 0))
        raise ValueError(
            f"{where}: label {int(out[i])} at row {i} is negative (labels are class indices >= 0)"
        )
    return out


def load_cifar_c_labels(root: str | os.PathLike[str], severity: int | None = None) -> np.ndarray:
    """``labels.npy`` as int64: all ``(5N,)`` or the ``(N,)`` labels of one severity.

    Raises:
        ValueError: naming the file, a label that is not a class index (:func:`check_class_labels`).
    """
    path = Path(root) / "labels.npy"
    lab = check_class_labels(_load(path, False), str(path))
    if severity is None:
        return lab
    n = lab.shape[0] // 5
    return lab[(int(severity) - 1) * n : int(severity) * n]


def scan_cifar_p(root: str | os.PathLike[str]) -> dict[str, Path]:
    """``{name: path}`` of the ``(N, T, H, W, 3)`` arrays in a CIFAR-10-P folder (names incl. ``_2``/``_3``)."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"CIFAR-P folder not found: {root}")
    return {
        p.stem: p
        for p in sorted(root.glob("*.npy"))
        if p.stem != "labels" and not p.name.startswith(".")
    }


def load_cifar_p(
    root: str | os.PathLike[str], perturbation: str, *, mmap: bool = True
) -> np.ndarray:
    """One CIFAR-10-P array, uint8 ``(N, T, H, W, 3)``."""
    arr = _load(Path(root) / f"{perturbation}.npy", mmap)
    if arr.ndim != 5 or arr.shape[-1] != 3:
        raise ValueError(f"{perturbation}.npy: expected (N, T, H, W, 3), got {arr.shape}")
    return arr


def is_cifar_batch(path: str | os.PathLike[str]) -> bool:
    """Cheap check: a regular file that starts like a pickle (protocol 2+ header ``\\x80``)."""
    p = Path(path)
    if not p.is_file():
        return False
    with open(p, "rb") as fh:
        return fh.read(1) == b"\x80"


def read_cifar_batch(path: str | os.PathLike[str]) -> tuple[np.ndarray, np.ndarray]:
    """Read a CIFAR python batch file (``test_batch``, CIFAR-100 ``test``).

    Returns ``(images, labels)``: uint8 ``(N, 32, 32, 3)`` RGB in file order and int64 ``(N,)``
    (``labels`` for CIFAR-10, ``fine_labels`` for CIFAR-100). Uses pickle: trusted files only.
    """
    with open(path, "rb") as fh:
        try:
            d = pickle.load(fh, encoding="bytes")  # noqa: S301 - the CIFAR format is a pickle
        except Exception as exc:  # noqa: BLE001 - any unpickling failure means "not a batch"
            raise ValueError(f"{path}: not a CIFAR python batch file ({exc})") from None
    if not isinstance(d, dict):
        raise ValueError(f"{path}: not a CIFAR python batch file (no dict)")
    d = {k.decode() if isinstance(k, bytes) else k: v for k, v in d.items()}
    if "data" not in d:
        raise ValueError(f"{path}: CIFAR batch without 'data'")
    data = np.asarray(d["data"], dtype=np.uint8)
    if data.ndim != 2 or data.shape[1] != 3072:
        raise ValueError(f"{path}: 'data' must be N x 3072, got {data.shape}")
    key = "labels" if "labels" in d else "fine_labels" if "fine_labels" in d else None
    if key is None:
        raise ValueError(f"{path}: CIFAR batch without 'labels' / 'fine_labels'")
    labels = check_class_labels(d[key], f"{path}: '{key}'")
    if labels.shape != (data.shape[0],):
        raise ValueError(f"{path}: {labels.shape[0]} labels for {data.shape[0]} images")
    images = data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).copy()
    return images, labels

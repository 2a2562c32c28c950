"""``.npy`` arrays and the official CIFAR python test batch (the CIFAR-10-C / -P folder layouts:
:mod:`corruptbench.layouts.cifar_c`, :mod:`corruptbench.layouts.cifar_p`).

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
from pathlib import Path

import numpy as np

__all__ = [
    "load_npy",
    "read_cifar_batch",
    "is_cifar_batch",
    "check_class_labels",
]


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

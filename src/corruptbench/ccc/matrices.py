"""CCC's accuracy matrices: one 21 x 21 array per ordered corruption pair, stored and read back.

The original downloads ``ccc_accuracy_matrix.pickle`` (a mapping ``"n1_<a>_n2_<b>"`` -> 21 x 21
accuracies in percent, ``[i, j]`` at severities ``(i / 4, j / 4)``; generate.py). We write the
same mapping as ``.npz`` (no pickle: :func:`save_matrices`) and read either (:func:`load_matrices`;
a pickle only from a file the user names: unpickling runs code, so only open pickles you trust).
"""

from __future__ import annotations

import io
import os
import pickle
import zipfile
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import Arg, ArgumentError
from ..fileio import write_bytes
from .walk import check_matrix

__all__ = ["pair_key", "save_matrices", "load_matrices", "check_matrices"]


def pair_key(n1: str, n2: str) -> str:
    """The original's key of the ordered pair (``"n1_fog_n2_snow"``)."""
    return f"n1_{n1}_n2_{n2}"


def save_matrices(path: str | os.PathLike[str], matrices: Mapping[str, np.ndarray]) -> None:
    """Write ``matrices`` (key -> 21 x 21) as one ``.npz``, atomically."""
    buf = io.BytesIO()
    arrays: dict[str, Any] = {k: check_matrix(v, k) for k, v in sorted(matrices.items())}
    np.savez(buf, **arrays)
    write_bytes(path, buf.getvalue(), make_parents=True)


def load_matrices(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Read a ``.npz`` of :func:`save_matrices` or the original's pickle; every matrix checked.

    The kind is told by the file's first bytes, not its name: a zip archive is read as ``.npz``
    (never unpickled), a ``.npy`` array is refused, anything else is read as a pickle; a file that
    does not read whole is refused in one line.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise ArgumentError(Arg("matrix"), f" is a folder, not a matrices file: {path}")
    if not os.path.isfile(path):
        raise ArgumentError(Arg("matrix"), f" not found: {path}")
    with open(path, "rb") as f:
        head = f.read(6)
    if head.startswith(b"PK"):
        raw: Mapping[str, Any] = _read_npz(path)
    elif head == b"\x93NUMPY":
        raise ArgumentError(
            Arg("matrix"),
            f" {path} is a single .npy array: give the .npz 'corruptbench ccc calibrate' writes "
            "or the original's ccc_accuracy_matrix.pickle",
        )
    else:
        raw = _read_pickle(path)
    return {str(k): check_matrix(_as_indexed(v), str(k)) for k, v in raw.items()}


def _unreadable(path: str, exc: BaseException) -> ArgumentError:
    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return ArgumentError(Arg("matrix"), f" {path} is damaged or not a matrices file ({msg})")


def _read_npz(path: str) -> dict[str, Any]:
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise _unreadable(path, exc) from None


def _read_pickle(path: str) -> Mapping[str, Any]:
    try:
        with open(path, "rb") as f:
            raw = pickle.load(f)  # noqa: S301 - the user names the file (see the module docstring)
    except (
        OSError,
        EOFError,
        pickle.UnpicklingError,
        ValueError,
        AttributeError,
        ImportError,
    ) as exc:
        raise _unreadable(path, exc) from None
    if not isinstance(raw, Mapping):
        raise ArgumentError(
            Arg("matrix"), f" {path} holds a {type(raw).__name__}, not a mapping of matrices"
        )
    return raw


def _as_indexed(value: Any) -> np.ndarray:
    """The array whose ``[i, j]`` is the original's ``arr[i][j]``: for a pandas DataFrame that is
    column ``i``, row ``j`` (``df[i][j]``), so its values transposed."""
    if hasattr(value, "iloc") and hasattr(value, "columns"):
        return np.asarray(value).T
    return np.asarray(value)


def check_matrices(matrices: Mapping[str, np.ndarray], corruptions: Sequence[str]) -> None:
    """Every ordered pair of ``corruptions`` has its matrix, else one line naming the first gap."""
    missing = [
        pair_key(a, b)
        for a in corruptions
        for b in corruptions
        if a != b and pair_key(a, b) not in matrices
    ]
    if missing:
        raise ArgumentError(
            Arg("matrix"),
            f" lacks {len(missing)} of the {len(corruptions) * (len(corruptions) - 1)} corruption "
            f"pairs the run needs, e.g. {missing[0]}",
        )

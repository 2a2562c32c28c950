"""Border handling by index folding: the source index of every position of a padded axis, for the
border modes of OpenCV and SciPy (used to build the padded views and the filter matrices with the
border folded in)."""

from __future__ import annotations

import numpy as np

__all__ = ["fold_index"]


def fold_index(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """Source index of each position of an axis of length ``n`` padded by ``before`` / ``after``.

    Modes: ``'reflect101'`` (OpenCV ``BORDER_REFLECT_101``: ``dcb|abcd|cba``), ``'reflect'``
    (SciPy / NumPy ``'symmetric'``: ``cba|abcd|dcb``), ``'nearest'`` (``aaa|abcd|ddd``). Folding is
    repeated as often as needed, so the padding may exceed ``n``.
    """
    p = np.arange(-before, n + after, dtype=np.int64)
    if mode == "nearest":
        return np.clip(p, 0, n - 1)
    if mode == "reflect101":
        if n == 1:
            return np.zeros_like(p)
        period = 2 * n - 2
        p = np.abs(p) % period
        return np.where(p >= n, period - p, p)
    if mode == "reflect":
        period = 2 * n
        p = p % period
        return np.where(p >= n, period - 1 - p, p)
    raise ValueError(f"unknown border mode {mode!r}")

"""NumPy's global random state as imagecorruptions 1.1.2 uses it.

imagecorruptions draws from NumPy's global legacy ``RandomState`` (``np.random.normal``, ...),
except ``impulse_noise``: ``skimage.util.random_noise`` (scikit-image >= 0.19) draws from its own
``np.random.default_rng()``, seeded from the operating system, so it leaves the global state
untouched and ``np.random.seed`` does not make it reproducible. :mod:`corruptbench.compat` leaves
the global state after every call where imagecorruptions leaves it, so that a script that seeds
once gets imagecorruptions' images for every corruption whose pixels agree call by call:

* where compat draws what imagecorruptions draws (most corruptions), from the global state itself;
* impulse noise from a *copy* of the global state (:func:`copy_of_global`): the pixels
  imagenet-c 0.0.3 (scikit-image 0.13.1's draws) gives after ``np.random.seed(k)``, reproducible
  from the seed, and the global state untouched, as imagecorruptions leaves it;
* frost and elastic transform at 224 x 224, where compat follows imagenet-c 0.0.3's draws: from a
  copy, then the global state advances by imagecorruptions' own draws (:func:`advance_uniform`,
  frost's three ``randint`` calls).
"""

from __future__ import annotations

import threading

import numpy as np

from ..ops.legacy_random import legacy_uniform

__all__ = ["global_state", "copy_of_global", "advance_uniform"]

_THREAD = threading.local()


def global_state() -> np.random.RandomState:
    """The ``RandomState`` behind ``np.random.seed`` / ``np.random.normal`` / ..."""
    return np.random.mtrand._rand


def copy_of_global() -> np.random.RandomState:
    """A ``RandomState`` in the global one's state (key, position, cached Gaussian): draws from
    it give the global stream's next values and leave the global state where it is. The object
    is kept for this thread and reset by the next call (use it within one corruption)."""
    rs: np.random.RandomState | None = getattr(_THREAD, "copy", None)
    if rs is None:
        rs = _THREAD.copy = np.random.RandomState(0)
    rs.set_state(global_state().get_state())
    return rs


def advance_uniform(rs: np.random.RandomState, count: int) -> None:
    """Advance ``rs`` as ``count`` legacy ``uniform`` / ``random_sample`` values would (two 32-bit
    words each; the cached Gaussian is left alone, as those calls leave it)."""
    if count > 0:
        legacy_uniform(rs, 0.0, 1.0, count)

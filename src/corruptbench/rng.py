"""One helper that turns the ``rng`` argument into the random source a corruption uses.

The fidelity contract: with ``rng`` an int k or ``np.random.RandomState(k)``, corruptions draw from a
legacy :class:`numpy.random.RandomState` in exactly the reference's call order and shapes, so the
output equals the reference run after ``np.random.seed(k)``. A :class:`numpy.random.Generator` is
accepted too (deterministic, but not stream-compatible with the reference); ``None`` draws fresh
OS entropy.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

__all__ = [
    "RNGLike",
    "LegacyRNG",
    "NumpyDraws",
    "as_rng",
    "check_rng",
    "reseeded",
    "scratch_rng",
    "lent_rng",
]

RNGLike = int | np.integer | np.random.RandomState | np.random.Generator | None


class _GeneratorAdapter:
    """Expose the legacy RandomState methods the corruptions call, backed by a Generator."""

    def __init__(self, gen: np.random.Generator) -> None:
        self._gen = gen

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        return self._gen.normal(loc, scale, size)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
        return self._gen.uniform(low, high, size)

    def poisson(self, lam: Any = 1.0, size: Any = None) -> Any:
        return self._gen.poisson(lam, size)

    def randint(self, low: int, high: int | None = None, size: Any = None) -> Any:
        return self._gen.integers(low, high, size)

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None) -> Any:
        return self._gen.choice(a, size=size, replace=replace, p=p)

    def random_sample(self, size: Any = None) -> Any:
        return self._gen.random(size)

    def permutation(self, x: Any) -> Any:
        return self._gen.permutation(x)

    def standard_normal(self, size: Any = None) -> Any:
        return self._gen.standard_normal(size)

    @property
    def is_legacy(self) -> bool:
        return False


class NumpyDraws:
    """A RandomState's legacy methods, called one by one (NumPy's own samplers).

    The corruptions' compiled kernels recognise a ``np.random.RandomState`` and draw from its
    stream inside fused passes that end in uint8. Wrapped in this class the same stream is drawn
    through NumPy's samplers instead: the same values in the same order, the same final state,
    and the corruptions that compute in floats (the noise corruptions) return their float result
    before the uint8 truncation. :mod:`corruptbench.compat` uses it for imagecorruptions' float
    returns.
    """

    def __init__(self, rs: np.random.RandomState) -> None:
        self.rs = rs

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        return self.rs.normal(loc, scale, size)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
        return self.rs.uniform(low, high, size)

    def poisson(self, lam: Any = 1.0, size: Any = None) -> Any:
        return self.rs.poisson(lam, size)

    def randint(self, low: int, high: int | None = None, size: Any = None) -> Any:
        return self.rs.randint(low, high, size)

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None) -> Any:
        return self.rs.choice(a, size=size, replace=replace, p=p)

    def random_sample(self, size: Any = None) -> Any:
        return self.rs.random_sample(size)

    def permutation(self, x: Any) -> Any:
        return self.rs.permutation(x)

    def standard_normal(self, size: Any = None) -> Any:
        return self.rs.standard_normal(size)


LegacyRNG = np.random.RandomState | _GeneratorAdapter | NumpyDraws


def check_rng(rng: RNGLike) -> None:
    """Raise TypeError/ValueError if ``rng`` is not an accepted rng argument (builds nothing)."""
    if rng is None or isinstance(rng, (np.random.RandomState, np.random.Generator)):
        return
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        if not 0 <= rng < 2**32:
            raise ValueError(f"rng seed must be in [0, 2**32), got {rng}")
        return
    raise TypeError(
        f"rng must be None, an int seed, a np.random.RandomState or a np.random.Generator, "
        f"got {type(rng).__name__}"
    )


_THREAD = threading.local()


def _kept(slot: str) -> np.random.RandomState:
    rs: np.random.RandomState | None = getattr(_THREAD, slot, None)
    if rs is None:
        rs = np.random.RandomState()
        setattr(_THREAD, slot, rs)
    return rs


def reseeded(seed: int) -> np.random.RandomState:
    """This thread's ``RandomState``, in exactly the state of ``RandomState(seed)``.

    ``RandomState(k)`` costs ~0.1 ms (its bit generator first seeds itself from OS entropy, then
    is re-seeded); the legacy ``.seed(k)`` of a kept instance gives the identical state (key,
    position, no cached Gaussian) in ~2 us. The object is reused by the next call on this thread,
    so it only suits a draw that ends before then (one make-c item). :func:`lent_rng` keeps its
    own instance, so a ``corrupt(..., rng=int)`` inside such a draw leaves it alone.
    """
    rs = _kept("rs")
    rs.seed(seed)
    return rs


def scratch_rng(seed: int) -> np.random.RandomState:
    """Like :func:`reseeded` (the state of ``RandomState(seed)``, reused by the next call on this
    thread), but a separate instance: for a corruption's own inner generator (ImageNet-C-bar's
    transforms draw a seed, then build ``np.random.RandomState(seed)`` from it), which must never
    re-seed the random source the caller passed in (make-c passes :func:`reseeded`'s)."""
    rs = _kept("scratch_rs")
    rs.seed(seed)
    return rs


@contextmanager
def lent_rng(rng: RNGLike) -> Iterator[LegacyRNG]:
    """``as_rng(rng)`` for draws that end with the ``with`` block (one ``corrupt`` call).

    An int seed re-seeds a ``RandomState`` kept for this thread (the state of
    ``RandomState(seed)``, ~2 us instead of ~0.1 ms), unless an enclosing block on this thread
    holds it (a registered corruption that calls ``corrupt`` itself): then a fresh one, so the
    outer draw's stream is never disturbed. Other arguments as :func:`as_rng`.
    """
    if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)):
        yield as_rng(rng)
        return
    check_rng(rng)
    if getattr(_THREAD, "lent", False):
        yield np.random.RandomState(int(rng))
        return
    rs = _kept("lent_rs")
    rs.seed(int(rng))
    _THREAD.lent = True
    try:
        yield rs
    finally:
        _THREAD.lent = False


def as_rng(rng: RNGLike) -> LegacyRNG:
    """Normalise ``rng`` (None | int | RandomState | Generator) to an object with legacy methods.

    An int seeds a fresh ``RandomState`` (the reference's ``np.random.seed(k)`` stream; see
    :func:`lent_rng` for a kept one); a ``RandomState`` is used as is (and advanced); a
    ``Generator`` is wrapped.
    """
    if rng is None:
        return np.random.RandomState(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(rng, bool):
        raise TypeError("rng must be None, an int seed, a np.random.RandomState or a Generator")
    if isinstance(rng, (int, np.integer)):
        if rng < 0 or rng >= 2**32:
            raise ValueError(f"rng seed must be in [0, 2**32), got {rng}")
        return np.random.RandomState(int(rng))
    if isinstance(rng, np.random.RandomState):
        return rng
    if isinstance(rng, np.random.Generator):
        return _GeneratorAdapter(rng)
    raise TypeError(
        f"rng must be None, an int seed, a np.random.RandomState or a np.random.Generator, "
        f"got {type(rng).__name__}"
    )

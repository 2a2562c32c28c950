"""NumPy's legacy ``RandomState`` stream (MT19937) and samplers, compiled: the one copy.

The reference draws from ``np.random`` after ``np.random.seed(k)``; to give the same numbers the
corruptions and perturbations that draw many values run NumPy's legacy algorithms bit for bit in
numba over the generator's state (numpy/random/src/mt19937 and distributions.c; the legacy stream
is frozen by NumPy's policy, NEP 19):

* ``mt19937_gen`` (the twist) and the tempering; ``next_double``:
  ``((u1 >> 5) * 67108864 + (u2 >> 6)) / 2**53`` — computed a block (624 words, 312 doubles) at a
  time into a buffer by branch-free, vectorised loops (``_refill``), which the samplers read;
* ``legacy_gauss``: the polar method, one value cached between calls, scaled as ``legacy_normal``;
* ``random_poisson``: PTRS, the transformed rejection of Hörmann (1993), with ``random_loggam`` for
  ``lam >= 10``; multiplication of uniforms down to ``exp(-lam)`` for ``0 < lam < 10``; 0 for 0;
* legacy ``randint``'s masked rejection on 32-bit words (``random_bounded_uint64_fill`` for a range
  below 2**32).

The kernels work on the generator's own MT19937 state in place (its ``ctypes.state_address``,
checked once per process against ``get_state``), or on a copy read with ``get_state`` and written
back with ``set_state`` (:class:`LegacyState`; the cached Gaussian is reachable only that way, so
:func:`legacy_normal_u8` lets NumPy draw the values that touch it), so the ``RandomState`` ends
exactly where NumPy's own calls would leave it. Only float64
arithmetic, ``floor``, ``sqrt``, ``log`` and ``exp`` are involved, the last two from the same C
math library NumPy uses; the tests compare with NumPy's samplers value by value and state by state.

The compiled kernels are in :mod:`corruptbench.ops.legacy_random_kernels`, all in that one module
(numba's on-disk cache does not notice changes to compiled functions called from other files); this
module holds the Python side: the generator state and the samplers' entry points.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import numpy as np

from .legacy_random_kernels import (
    MT_WORDS,
    gauss_u8,
    poisson_fill,
    poisson_squeeze,
    poisson_tables,
    uniform_fill,
)

__all__ = [
    "LegacyState",
    "legacy_state",
    "PoissonPlan",
    "legacy_poisson",
    "legacy_normal_u8",
    "legacy_normal",
    "legacy_uniform",
    "choice_threshold",
]

_N = MT_WORDS


class LegacyState:
    """The MT19937 state of a ``RandomState`` in a form the kernels update in place.

    ``key`` (624 uint32), ``ints = [pos, has_gauss]`` (int64) and ``gauss = [cached]`` (float64);
    :meth:`commit` writes them back. Built either from ``get_state`` (a copy, written back with
    ``set_state``) or, without the cached Gaussian, over the generator's own memory (see
    :func:`legacy_state`): then ``key`` is the live key, only ``pos`` is written back, and
    ``ints[1]`` / ``gauss`` are placeholders that must not be used.
    """

    def __init__(
        self,
        rng: np.random.RandomState,
        state: dict[str, Any] | None,
        view: np.ndarray | None = None,
    ) -> None:
        self._rng = rng
        self._state = state
        self._pos: np.ndarray | None = None
        if view is not None:
            self.key = view[:_N]
            self._pos = view[_N:].view(np.int32)
            self.ints = np.array([self._pos[0], 0], dtype=np.int64)
            self.gauss = np.zeros(1, dtype=np.float64)
            return
        assert state is not None
        self.key = np.array(state["state"]["key"], dtype=np.uint32)
        #: [pos, has_gauss] as int64 and the cached gaussian
        self.ints = np.array([state["state"]["pos"], state["has_gauss"]], dtype=np.int64)
        self.gauss = np.array([state["gauss"]], dtype=np.float64)

    def commit(self) -> None:
        """Write the advanced state back into the ``RandomState``."""
        if self._pos is not None:
            self._pos[0] = self.ints[0]
            return
        assert self._state is not None
        self._state["state"]["key"] = self.key
        self._state["state"]["pos"] = int(self.ints[0])
        self._state["has_gauss"] = int(self.ints[1])
        self._state["gauss"] = float(self.gauss[0])
        self._rng.set_state(self._state)


def _raw_view(rng: np.random.RandomState) -> np.ndarray | None:
    """The MT19937 state struct of ``rng``'s bit generator as 625 uint32 (``key[624]``, ``pos``).

    Through the bit generator's documented ``ctypes.state_address`` (NumPy's ``mt19937_state``:
    ``uint32_t key[624]; int pos;``). ``None`` when unavailable.
    """
    bitgen = getattr(rng, "_bit_generator", None)
    if type(bitgen) is not np.random.MT19937:
        return None
    try:
        address = bitgen.ctypes.state_address
    except Exception:  # pragma: no cover - NumPy without the ctypes interface
        return None
    raw = (ctypes.c_uint32 * (_N + 1)).from_address(address)
    return np.frombuffer(memoryview(raw), dtype=np.uint32)


def _raw_view_works() -> bool:
    """Whether :func:`_raw_view` reads and writes the state as ``get_state`` / NumPy see it."""
    probe = np.random.RandomState(20240531)
    probe.random_sample(3)
    view = _raw_view(probe)
    if view is None:
        return False
    state: Any = probe.get_state()
    if not (np.array_equal(view[:_N], state[1]) and int(view[_N]) == state[2] == 6):
        return False
    view[_N] = 11  # move the position through the view: NumPy must draw from word 11 on
    expected = np.random.RandomState()
    expected.set_state(("MT19937", state[1], 11, 0, 0.0))
    return bool(probe.random_sample(700).tobytes() == expected.random_sample(700).tobytes())


_RAW_VIEW_OK: list[bool] = []  # filled on first use: the check above, once per process


def legacy_state(rng: Any, *, gauss: bool = False) -> LegacyState | None:
    """A :class:`LegacyState` for a MT19937 ``RandomState``; ``None`` for anything else.

    Without ``gauss`` (kernels that draw no normals: they neither read nor change the cached
    Gaussian) the state is used in place in the generator's memory, which saves ``get_state`` /
    ``set_state`` (tens of microseconds per call); ``gauss=True`` copies the whole state, cached
    Gaussian included.
    """
    if not isinstance(rng, np.random.RandomState):
        return None
    if not gauss:
        view = _raw_view(rng)
        if view is not None:
            if not _RAW_VIEW_OK:
                _RAW_VIEW_OK.append(_raw_view_works())
            if _RAW_VIEW_OK[0]:
                return LegacyState(rng, None, view)
    state = rng.get_state(legacy=False)
    if state.get("bit_generator") != "MT19937":
        return None
    return LegacyState(rng, state)


#: ``v / 255.`` for every uint8 value ``v`` (the reference's ``np.array(x) / 255.``)
_UNIT = np.arange(256) / 255.0


#: ``scale`` -> (rates, table, loggam table) of :meth:`PoissonPlan.from_uint8` (never modified)
_U8_TABLES: dict[float, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


class PoissonPlan:
    """Repeated ``rs.poisson(lam)`` draws for one fixed rate array (e.g. one per video frame).

    The per-rate constants and a ``loggam`` table are computed once (per *distinct* rate); then
    :meth:`sample` gives, for a MT19937 ``np.random.RandomState``, exactly ``rs.poisson(lam)``
    (values and final generator state). Other random sources call their own ``poisson``.
    """

    def __init__(
        self,
        lam: np.ndarray | None,
        *,
        _values: np.ndarray | None = None,
        _index: np.ndarray | None = None,
        _tables: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        if _values is None or _index is None:
            lam = np.ascontiguousarray(lam, dtype=np.float64)
            if not np.all(np.isfinite(lam)) or np.any(lam < 0):
                raise ValueError("Poisson rates must be finite and >= 0")
            _values, inverse = np.unique(lam, return_inverse=True)
            _index = np.ascontiguousarray(inverse.reshape(lam.shape), dtype=np.int64)
        self._lam = lam
        self.values = np.ascontiguousarray(_values, dtype=np.float64)
        self.index = _index  # the rate of element i is values[index[i]]
        self.shape = _index.shape
        tables = poisson_tables(self.values) if _tables is None else _tables
        self.table: np.ndarray = tables[0]
        self.loggam_k1: np.ndarray = tables[1]
        self._compiled = bool(self.values.size == 0 or self.values.max() <= 1e9)

    @classmethod
    def from_uint8(cls, image: np.ndarray, scale: float) -> PoissonPlan:
        """The plan for ``(image / 255.) * scale`` (uint8 ``image``; the shot-noise rate array).

        Uses the 256 possible rates directly, indexed by the pixel values (same floats: each rate
        is ``(v / 255.) * scale`` for the pixel value ``v``); their tables are kept per ``scale``.
        """
        img = np.asarray(image)
        if img.dtype != np.uint8:
            raise TypeError(f"expected uint8, got {img.dtype}")
        if not (math.isfinite(scale) and scale >= 0):
            raise ValueError("Poisson rates must be finite and >= 0")
        key = float(scale)
        cached = _U8_TABLES.get(key)
        if cached is None:
            values = _UNIT * key
            if len(_U8_TABLES) >= 64:
                _U8_TABLES.clear()
            table, loggam_k1 = poisson_tables(values)
            # (256 rates at most: the squeeze columns of poisson_fill pay off)
            cached = _U8_TABLES[key] = (values, poisson_squeeze(table, loggam_k1), loggam_k1)
        values, table, loggam_k1 = cached
        return cls(
            None, _values=values, _index=np.ascontiguousarray(img), _tables=(table, loggam_k1)
        )

    @property
    def lam(self) -> np.ndarray:
        """The rate array (float64, built on first use)."""
        if self._lam is None:
            self._lam = self.values[self.index]
        return self._lam

    def _state(self, rng: Any) -> LegacyState | None:
        return legacy_state(rng) if self._compiled else None

    def sample(self, rng: Any) -> np.ndarray:
        """One draw of the whole array: ``rng.poisson(lam)`` (int64, ``lam``'s shape)."""
        state = self._state(rng)
        if state is None:
            return np.asarray(rng.poisson(self.lam))
        out = np.empty(self.shape, dtype=np.int64)
        poisson_fill(
            self.index.reshape(-1),
            self.table,
            self.loggam_k1,
            0.0,
            state.key,
            state.ints,
            out.reshape(-1),
        )
        state.commit()
        return out

    def sample_unit_u8(self, rng: Any, scale: float) -> np.ndarray:
        """``uint8(clip(rng.poisson(lam) / scale, 0, 1) * 255)`` (truncation), fused when compiled.

        The shot-noise formula (``lam = x * scale``), without the int64 and float64 temporaries.
        ``scale`` must be > 0.
        """
        if not scale > 0:
            raise ValueError(f"scale must be > 0, got {scale}")
        state = self._state(rng)
        if state is None:
            z = np.asarray(rng.poisson(self.lam)) / float(scale)
            np.clip(z, 0, 1, out=z)
            z *= 255
            return z.astype(np.uint8)
        out = np.empty(self.shape, dtype=np.uint8)
        poisson_fill(
            self.index.reshape(-1),
            self.table,
            self.loggam_k1,
            float(scale),
            state.key,
            state.ints,
            out.reshape(-1),
        )
        state.commit()
        return out


def legacy_poisson(rng: Any, lam: np.ndarray) -> np.ndarray:
    """``rng.poisson(lam)`` for a float64 array of rates; compiled when ``rng`` is a RandomState.

    Returns int64 of ``lam``'s shape. For a ``np.random.RandomState`` on MT19937 the values and
    the final generator state equal ``rng.poisson(lam)``'s; anything else calls ``rng.poisson``.
    """
    return PoissonPlan(lam).sample(rng)


def _u8_pixel(x: float, c: float, g: float, speckle: bool) -> int:
    """One pixel of :func:`gauss_u8` in Python floats (the same IEEE double operations)."""
    noise = 0.0 + c * g
    y = x + x * noise if speckle else x + noise
    return int(min(max(y, 0.0), 1.0) * 255.0)


def legacy_normal_u8(
    rng: Any, values: np.ndarray, c: float, speckle: bool, out: np.ndarray
) -> bool:
    """:func:`gauss_u8` (``x = values / 255.``) with ``rng.normal(scale=c)`` for a RandomState.

    Returns ``False`` (nothing done) unless ``rng`` is a MT19937 ``RandomState``. ``values`` and
    ``out`` are flat uint8 arrays of one size. Same values and final state as NumPy's draws.

    The cached Gaussian lives where only ``get_state`` / ``set_state`` reach it (tens of
    microseconds each), so NumPy handles it itself: the first value is ``rng.standard_normal()``
    (the cached value if there is one: then the stream does not move; else a new pair, whose
    second value is taken by a second call), the kernel draws whole pairs in place on the
    generator's state from no cached value, and for an odd remainder the last value is again
    ``rng.standard_normal()``, which leaves that pair's second value cached exactly as NumPy's
    ``normal`` would. The few pixels of those values are computed here, in the same arithmetic.
    """
    if not isinstance(rng, np.random.RandomState):
        return False
    view = _raw_view(rng)
    if view is not None and not _RAW_VIEW_OK:
        _RAW_VIEW_OK.append(_raw_view_works())
    if view is None or not _RAW_VIEW_OK[0]:
        state = legacy_state(rng, gauss=True)
        if state is None:
            return False
        gauss_u8(values, _UNIT, c, speckle, state.key, state.ints, state.gauss, out, False, 0.0)
        state.commit()
        return True
    n = values.size
    if n == 0:
        return True
    c = float(c)
    pos0 = int(view[_N])
    key0 = view[:_N].copy()
    head = [float(rng.standard_normal())]
    drew = int(view[_N]) != pos0 or not np.array_equal(view[:_N], key0)
    if drew and n > 1:  # a new pair: its second value is cached now
        head.append(float(rng.standard_normal()))
    k0 = len(head)
    even = (n - k0) & ~1
    if even:
        ints = np.array([view[_N], 0], dtype=np.int64)
        gauss = np.zeros(1, dtype=np.float64)
        part = slice(k0, k0 + even)
        gauss_u8(values[part], _UNIT, c, speckle, view[:_N], ints, gauss, out[part], False, 0.0)
        view[_N:].view(np.int32)[0] = ints[0]
    for k, g in enumerate(head):
        out[k] = _u8_pixel(float(_UNIT[values[k]]), c, g, speckle)
    if k0 + even < n:
        g = float(rng.standard_normal())
        out[n - 1] = _u8_pixel(float(_UNIT[values[n - 1]]), c, g, speckle)
    return True


def legacy_normal(rng: Any, loc: float, scale: float, size: int | tuple[int, ...]) -> np.ndarray:
    """``rng.normal(loc, scale, size)`` (float64) for scalar ``loc`` / ``scale``, compiled.

    For a MT19937 ``RandomState`` the values and the final state (cached Gaussian included) equal
    NumPy's: ``loc + scale * legacy_gauss()`` per value, by :func:`gauss_u8`'s polar-method kernel.
    Any other random source (or a negative ``scale``, which NumPy rejects) calls ``rng.normal``.
    """
    shape = (size,) if isinstance(size, int) else tuple(size)
    state = legacy_state(rng, gauss=True) if float(scale) >= 0 else None
    if state is None:
        return np.asarray(rng.normal(loc, scale, shape), dtype=np.float64)
    out = np.empty(shape, dtype=np.float64)
    gauss_u8(
        np.empty(out.size, np.uint8),
        _UNIT,
        float(scale),
        False,
        state.key,
        state.ints,
        state.gauss,
        out.reshape(-1),
        True,
        float(loc),
    )
    state.commit()
    return out


def legacy_uniform(rng: Any, low: float, high: float, size: int | tuple[int, ...]) -> np.ndarray:
    """``rng.uniform(low, high, size)`` (float64) for scalar bounds, compiled.

    For a MT19937 ``RandomState`` the values and the final state equal NumPy's legacy
    ``low + (high - low) * random_sample()``; any other random source calls ``rng.uniform``.
    """
    shape = (size,) if isinstance(size, int) else tuple(size)
    low, high = float(low), float(high)
    span = high - low
    state = legacy_state(rng) if math.isfinite(span) else None
    if state is None:
        return np.asarray(rng.uniform(low, high, shape), dtype=np.float64)
    out = np.empty(shape, dtype=np.float64)
    uniform_fill(low, span, state.key, state.ints, out.reshape(-1))
    state.commit()
    return out


def choice_threshold(p_true: float) -> float:
    """``cdf[0]`` of legacy ``RandomState.choice([True, False], p=[p_true, 1 - p_true])``.

    Legacy ``choice`` with ``p`` computes ``cdf = cumsum(p); cdf /= cdf[-1]``, draws
    ``u = random_sample()`` and picks ``True`` exactly where ``u < cdf[0]``. Shared by impulse
    noise and the torch backend.
    """
    if not 0.0 <= p_true <= 1.0:
        raise ValueError(f"p_true must be a probability, got {p_true}")
    cdf = np.cumsum(np.array([p_true, 1.0 - p_true], dtype=np.float64))
    cdf /= cdf[-1]
    return float(cdf[0])

"""A compiled, stream-identical ``np.random.RandomState.poisson`` (MT19937 + NumPy's samplers).

``RandomState.poisson`` is the bottleneck of the shot-noise sequence (30 frames x 150,528 draws,
~13 ms a frame). :func:`legacy_poisson` produces the **same numbers** and leaves the RandomState in
the **same state** as ``rs.poisson(lam)`` would, several times faster: it reads the MT19937 state
with ``get_state()``, runs NumPy's algorithms in numba, and writes the advanced state back with
``set_state()``.

The algorithms (NumPy ``random/src/distributions/distributions.c``; the legacy RandomState calls
the same ``random_poisson``):

* ``next_double`` of MT19937: ``((u1 >> 5) * 67108864 + (u2 >> 6)) / 2**53``;
* ``lam >= 10``: PTRS, the transformed rejection method of Hörmann (1993), with ``random_loggam``;
* ``0 < lam < 10``: multiplication of uniforms until the product drops to ``exp(-lam)``;
* ``lam == 0``: 0 (no draw).

Only float64 arithmetic, ``floor``, ``sqrt``, ``log``, ``exp`` are involved, the last two from the
same C math library NumPy uses, so results are bit-identical (checked in the tests against
``RandomState.poisson`` on millions of draws). Any other random source (a Generator adapter) falls
back to its own ``poisson``.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

__all__ = ["legacy_poisson", "PoissonPlan"]

_N = 624
_M = 397
_MATRIX_A = np.uint32(0x9908B0DF)
_UPPER = np.uint32(0x80000000)
_LOWER = np.uint32(0x7FFFFFFF)

_LOGGAM_A = np.array(
    [
        8.333333333333333e-02,
        -2.777777777777778e-03,
        7.936507936507937e-04,
        -5.952380952380952e-04,
        8.417508417508418e-04,
        -1.917526917526918e-03,
        6.410256410256410e-03,
        -2.955065359477124e-02,
        1.796443723688307e-01,
        -1.39243221690590e00,
    ]
)


@numba.njit(cache=True)
def _twist(key):  # pragma: no cover - compiled
    for i in range(_N - _M):
        y = (key[i] & _UPPER) | (key[i + 1] & _LOWER)
        key[i] = (
            key[i + _M] ^ (y >> np.uint32(1)) ^ (_MATRIX_A if y & np.uint32(1) else np.uint32(0))
        )
    for i in range(_N - _M, _N - 1):
        y = (key[i] & _UPPER) | (key[i + 1] & _LOWER)
        key[i] = (
            key[i + _M - _N]
            ^ (y >> np.uint32(1))
            ^ (_MATRIX_A if y & np.uint32(1) else np.uint32(0))
        )
    y = (key[_N - 1] & _UPPER) | (key[0] & _LOWER)
    key[_N - 1] = (
        key[_M - 1] ^ (y >> np.uint32(1)) ^ (_MATRIX_A if y & np.uint32(1) else np.uint32(0))
    )


@numba.njit(cache=True, inline="always")
def _next_uint32(key, pos):  # pragma: no cover - compiled
    """Tempered MT19937 output; ``pos`` is passed and returned as a scalar (fast in numba)."""
    if pos >= _N:
        _twist(key)
        pos = 0
    y = key[pos]
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y, pos + 1


@numba.njit(cache=True, inline="always")
def _next_double(key, pos):  # pragma: no cover - compiled
    a, pos = _next_uint32(key, pos)
    b, pos = _next_uint32(key, pos)
    return ((a >> np.uint32(5)) * 67108864.0 + (b >> np.uint32(6))) / 9007199254740992.0, pos


@numba.njit(cache=True)
def _loggam(x, coef):  # pragma: no cover - compiled
    if x == 1.0 or x == 2.0:
        return 0.0
    n = int(7 - x) if x < 7.0 else 0
    x0 = x + n
    x2 = (1.0 / x0) * (1.0 / x0)
    lg2pi = 1.8378770664093453e00
    gl0 = coef[9]
    for k in range(8, -1, -1):
        gl0 *= x2
        gl0 += coef[k]
    gl = gl0 / x0 + 0.5 * lg2pi + (x0 - 0.5) * math.log(x0) - x0
    if x < 7.0:
        for _ in range(n):
            gl -= math.log(x0 - 1.0)
            x0 -= 1.0
    return gl


@numba.njit(cache=True)
def _poisson_indexed(idx, table, loggam_k1, key, pos, coef, out):  # pragma: no cover - compiled
    """``out[i] = poisson(lam[idx[i]])`` in order, with the per-rate constants of ``table``.

    ``table[j] = (lam, sqrt, log, a, b, log(invalpha), vr, exp(-lam))`` of NumPy's samplers for
    the j-th distinct rate, and ``loggam_k1[k] = random_loggam(k + 1)``: the same values NumPy
    computes per draw, computed once. Returns the final MT position.
    """
    nk = loggam_k1.size
    for i in range(idx.size):
        j = idx[i]
        v = table[j, 0]
        if v >= 10:  # PTRS (Hoermann 1993)
            loglam = table[j, 2]
            a = table[j, 3]
            b = table[j, 4]
            loginvalpha = table[j, 5]
            vr = table[j, 6]
            while True:
                u, pos = _next_double(key, pos)
                u -= 0.5
                w, pos = _next_double(key, pos)
                us = 0.5 - abs(u)
                k = int(math.floor((2 * a / us + b) * u + v + 0.43))
                if us >= 0.07 and w <= vr:
                    break
                if k < 0 or (us < 0.013 and w > us):
                    continue
                lg = loggam_k1[k] if k < nk else _loggam(k + 1.0, coef)
                if (math.log(w) + loginvalpha - math.log(a / (us * us) + b)) <= (
                    -v + k * loglam - lg
                ):
                    break
            out[i] = k
        elif v == 0:
            out[i] = 0
        else:  # multiplication method
            enlam = table[j, 7]
            x = 0
            prod = 1.0
            while True:
                d, pos = _next_double(key, pos)
                prod *= d
                if prod > enlam:
                    x += 1
                else:
                    break
            out[i] = x
    return pos


@numba.njit(cache=True)
def _loggam_table(n, coef):  # pragma: no cover - compiled
    out = np.empty(n)
    for k in range(n):
        out[k] = _loggam(k + 1.0, coef)
    return out


class PoissonPlan:
    """Repeated ``rs.poisson(lam)`` draws for one fixed rate array (e.g. one per video frame).

    The per-rate constants and a ``loggam`` table are computed once; :meth:`sample` then gives, for
    a ``np.random.RandomState``, exactly ``rs.poisson(lam)`` (values and final generator state).
    """

    def __init__(
        self,
        lam: np.ndarray,
        *,
        _values: np.ndarray | None = None,
        _index: np.ndarray | None = None,
    ) -> None:
        lam = np.ascontiguousarray(lam, dtype=np.float64)
        if not np.all(np.isfinite(lam)) or np.any(lam < 0):
            raise ValueError("Poisson rates must be finite and >= 0")
        self.lam = lam
        if _values is None or _index is None:
            values, inverse = np.unique(lam, return_inverse=True)
        else:
            values, inverse = _values, _index
        self.idx = np.ascontiguousarray(inverse.reshape(-1), dtype=np.int64)
        table = np.zeros((values.size, 8))
        for j, v in enumerate(values.tolist()):
            # the float operations of NumPy's random_poisson_ptrs / random_poisson_mult, in order
            slam = math.sqrt(v) if v > 0 else 0.0
            b = 0.931 + 2.53 * slam
            a = -0.059 + 0.02483 * b
            invalpha = 1.1239 + 1.1328 / (b - 3.4)
            vr = 0.9277 - 3.6224 / (b - 2)
            table[j] = (
                v,
                slam,
                math.log(v) if v > 0 else 0.0,
                a,
                b,
                math.log(invalpha) if invalpha > 0 else 0.0,
                vr,
                math.exp(-v),
            )
        self.table = table
        top = float(values.max()) if values.size else 0.0
        self.loggam_k1 = _loggam_table(int(top + 12 * math.sqrt(top) + 64), _LOGGAM_A)

    @classmethod
    def from_uint8(cls, image: np.ndarray, scale: float) -> PoissonPlan:
        """The plan for ``(image / 255.) * scale`` (uint8 ``image``; the shot-noise rate array).

        Uses the 256 possible rates directly instead of sorting the array (same floats: each rate
        is ``(v / 255.) * scale`` for the pixel value ``v``).
        """
        img = np.asarray(image)
        if img.dtype != np.uint8:
            raise TypeError(f"expected uint8, got {img.dtype}")
        values = (np.arange(256, dtype=np.uint8) / 255.0) * scale
        return cls(values[img], _values=values, _index=img)

    def sample(self, rng: Any) -> np.ndarray:
        """One draw of the whole array (int64, ``lam``'s shape)."""
        if not isinstance(rng, np.random.RandomState):
            return np.asarray(rng.poisson(self.lam))
        state = rng.get_state(legacy=False)
        if state.get("bit_generator") != "MT19937" or np.any(self.lam > 1e9):
            return np.asarray(rng.poisson(self.lam))
        key = np.array(state["state"]["key"], dtype=np.uint32)
        out = np.empty(self.idx.size, dtype=np.int64)
        pos = _poisson_indexed(
            self.idx, self.table, self.loggam_k1, key, int(state["state"]["pos"]), _LOGGAM_A, out
        )
        state["state"]["key"] = key
        state["state"]["pos"] = int(pos)
        rng.set_state(state)
        return out.reshape(self.lam.shape)


def legacy_poisson(rng: Any, lam: np.ndarray) -> np.ndarray:
    """``rng.poisson(lam)`` for a float64 array of rates; compiled when ``rng`` is a RandomState.

    Returns int64 of ``lam``'s shape. For a ``np.random.RandomState`` on MT19937 the values and
    the final generator state equal ``rng.poisson(lam)``'s; anything else calls ``rng.poisson``.
    """
    return PoissonPlan(lam).sample(rng)

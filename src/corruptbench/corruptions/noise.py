"""Noise corruptions: gaussian_noise, shot_noise, impulse_noise, speckle_noise (extra).

All four work per value in the [0, 1] domain (``x = image / 255.`` in float64) and are size
agnostic: any H x W works with every profile (only the per-severity constant comes from the
profile's table). Each draws one (or two) arrays of the image's shape from ``rng`` exactly as the
reference does (spec §1.2 "RNG draw order"), so with ``rng = RandomState(k)`` the output equals the
reference after ``np.random.seed(k)``.

With a MT19937 ``RandomState`` (the reference-compatible case) the draws and the arithmetic run
in compiled kernels over the generator's state: NumPy's legacy algorithms bit for bit
(``mt19937_gen`` and tempering, ``next_double``, the polar ``legacy_gauss``, ``random_poisson``'s
multiplication and PTRS methods with ``random_loggam``). The state is read with ``get_state`` and
written back with ``set_state``, so the ``RandomState`` ends exactly where NumPy's own calls would
leave it; the legacy stream is frozen by NumPy's policy (NEP 19) and the tests compare with NumPy's
samplers value by value. Other random sources (a ``Generator``) take the plain NumPy path with the
same formulas.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

from .._registry import register_corruption
from ..params import Profile, get_params

__all__ = ["gaussian_noise", "shot_noise", "impulse_noise", "speckle_noise", "choice_true_mask"]

#: (value / 255.) * 255 for every uint8 value — not always exactly ``value`` in float64, and the
#: reference truncates it: impulse noise keeps these values where it does not flip.
_UNIT_255 = (np.arange(256) / 255.0) * 255
_UNIT_255_U8 = _UNIT_255.astype(np.uint8)
_UNIT = np.arange(256) / 255.0


# ---------------------------------------------------------------------------------------------
# NumPy's legacy RandomState stream (MT19937), compiled. Kept in this module on purpose: numba's
# on-disk cache does not track functions inlined from other files.
# ---------------------------------------------------------------------------------------------

_N = 624
_M = 397


class LegacyState:
    """The MT19937 state of a ``RandomState`` in a form the kernels update in place."""

    def __init__(self, rng: np.random.RandomState, state: dict[str, Any]) -> None:
        self._rng = rng
        self._state = state
        self.key = np.array(state["state"]["key"], dtype=np.uint32)
        #: [pos, has_gauss] as int64 and the cached gaussian
        self.ints = np.array([state["state"]["pos"], state["has_gauss"]], dtype=np.int64)
        self.gauss = np.array([state["gauss"]], dtype=np.float64)

    def commit(self) -> None:
        """Write the advanced state back into the ``RandomState``."""
        self._state["state"]["key"] = self.key
        self._state["state"]["pos"] = int(self.ints[0])
        self._state["has_gauss"] = int(self.ints[1])
        self._state["gauss"] = float(self.gauss[0])
        self._rng.set_state(self._state)


def legacy_state(rng: Any) -> LegacyState | None:
    """A :class:`LegacyState` for a MT19937 ``RandomState``; ``None`` for anything else."""
    if not isinstance(rng, np.random.RandomState):
        return None
    state = rng.get_state(legacy=False)
    if state.get("bit_generator") != "MT19937":
        return None
    return LegacyState(rng, state)


@numba.njit(cache=True, nogil=True)
def _generate(key: np.ndarray) -> None:
    upper = np.uint32(0x80000000)
    lower = np.uint32(0x7FFFFFFF)
    matrix = np.uint32(0x9908B0DF)
    one = np.uint32(1)
    zero = np.uint32(0)
    for i in range(_N - _M):
        y = (key[i] & upper) | (key[i + 1] & lower)
        key[i] = key[i + _M] ^ (y >> one) ^ (matrix if y & one else zero)
    for i in range(_N - _M, _N - 1):
        y = (key[i] & upper) | (key[i + 1] & lower)
        key[i] = key[i + _M - _N] ^ (y >> one) ^ (matrix if y & one else zero)
    y = (key[_N - 1] & upper) | (key[0] & lower)
    key[_N - 1] = key[_M - 1] ^ (y >> one) ^ (matrix if y & one else zero)


@numba.njit(cache=True, nogil=True, inline="always")
def _next32(key: np.ndarray, pos: int) -> tuple[Any, int]:
    if pos >= _N:
        _generate(key)
        pos = 0
    y = np.uint32(key[pos])
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y, pos + 1


@numba.njit(cache=True, nogil=True, inline="always")
def _next_double(key: np.ndarray, pos: int) -> tuple[float, int]:
    """One ``random_sample()`` value and the new position."""
    a, pos = _next32(key, pos)
    b, pos = _next32(key, pos)
    hi = np.float64(a >> np.uint32(5))
    lo = np.float64(b >> np.uint32(6))
    return (hi * 67108864.0 + lo) / 9007199254740992.0, pos


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


@numba.njit(cache=True, nogil=True)
def _loggam(x: float) -> float:
    a = _LOGGAM_A
    x0 = x
    n = 0
    if x == 1.0 or x == 2.0:
        return 0.0
    elif x <= 7.0:
        n = int(7 - x)
        x0 = x + n
    x2 = 1.0 / (x0 * x0)
    xp = 2 * math.pi
    gl0 = a[9]
    for k in range(8, -1, -1):
        gl0 *= x2
        gl0 += a[k]
    gl = gl0 / x0 + 0.5 * math.log(xp) + (x0 - 0.5) * math.log(x0) - x0
    if x <= 7.0:
        for _ in range(n):
            gl -= math.log(x0 - 1.0)
            x0 -= 1.0
    return gl


@numba.njit(cache=True, nogil=True)
def _poisson_constants(lams: np.ndarray) -> np.ndarray:
    """Per-rate constants of ``random_poisson``: PTRS (lam >= 10) or ``exp(-lam)`` (below)."""
    consts = np.zeros((lams.size, 6))
    for i in range(lams.size):
        lam = lams[i]
        if lam >= 10:
            slam = math.sqrt(lam)
            b = 0.931 + 2.53 * slam
            a = -0.059 + 0.02483 * b
            consts[i, 0] = math.log(lam)
            consts[i, 1] = b
            consts[i, 2] = a
            consts[i, 3] = math.log(1.1239 + 1.1328 / (b - 3.4))  # log(invalpha)
            consts[i, 4] = 0.9277 - 3.6224 / (b - 2)  # vr
        else:
            consts[i, 5] = math.exp(-lam)
    return consts


@numba.njit(cache=True, nogil=True)
def _gauss_kernel(values, unit, c, speckle, key, ints, gauss, out):  # type: ignore[no-untyped-def]
    """``x + normal(scale=c)`` (or ``x + x * normal(scale=c)``), clip, * 255, truncate.

    The normal draws are NumPy's ``legacy_gauss`` (polar method, one value cached between calls)
    scaled as ``legacy_normal``: ``0.0 + c * g``.
    """
    pos = ints[0]
    has_gauss = ints[1] != 0
    cached = gauss[0]
    for k in range(values.size):
        if has_gauss:
            g = cached
            has_gauss = False
            cached = 0.0
        else:
            while True:
                d1, pos = _next_double(key, pos)
                d2, pos = _next_double(key, pos)
                x1 = 2.0 * d1 - 1.0
                x2 = 2.0 * d2 - 1.0
                r2 = x1 * x1 + x2 * x2
                if r2 < 1.0 and r2 != 0.0:
                    break
            f = math.sqrt(-2.0 * math.log(r2) / r2)
            cached = f * x1
            has_gauss = True
            g = f * x2
        noise = 0.0 + c * g
        x = unit[values[k]]
        y = x + x * noise if speckle else x + noise
        out[k] = int(min(max(y, 0.0), 1.0) * 255.0)
    ints[0] = pos
    ints[1] = has_gauss
    gauss[0] = cached


@numba.njit(cache=True, nogil=True)
def _shot_kernel(values, lams, consts, cf, key, ints, out):  # type: ignore[no-untyped-def]
    """``poisson(x * c) / c``, clip, * 255, truncate; NumPy's ``random_poisson`` per value."""
    pos = ints[0]
    for k in range(values.size):
        v = values[k]
        lam = lams[v]
        count = 0
        if lam >= 10:  # PTRS transformed rejection (Hoermann 1993)
            loglam = consts[v, 0]
            b = consts[v, 1]
            a = consts[v, 2]
            loginvalpha = consts[v, 3]
            vr = consts[v, 4]
            while True:
                u, pos = _next_double(key, pos)
                u -= 0.5
                w, pos = _next_double(key, pos)
                us = 0.5 - abs(u)
                count = int(math.floor((2 * a / us + b) * u + lam + 0.43))
                if us >= 0.07 and w <= vr:
                    break
                if count < 0 or (us < 0.013 and w > us):
                    continue
                lhs = math.log(w) + loginvalpha - math.log(a / (us * us) + b)
                if lhs <= -lam + count * loglam - _loggam(count + 1):
                    break
        elif lam != 0:  # multiplication method
            enlam = consts[v, 5]
            prod = 1.0
            while True:
                u, pos = _next_double(key, pos)
                prod *= u
                if prod > enlam:
                    count += 1
                else:
                    break
        y = count / cf
        out[k] = int(min(max(y, 0.0), 1.0) * 255.0)
    ints[0] = pos


@numba.njit(cache=True, nogil=True)
def _impulse_kernel(values, lut, thr_flip, thr_salt, key, ints, out):  # type: ignore[no-untyped-def]
    """Two full ``random_sample`` masks in order (flipped, then salted), as the two choice calls."""
    pos = ints[0]
    flipped = np.empty(values.size, np.bool_)
    for k in range(values.size):
        u, pos = _next_double(key, pos)
        flipped[k] = u < thr_flip
    for k in range(values.size):
        u, pos = _next_double(key, pos)
        if flipped[k]:
            out[k] = 255 if u < thr_salt else 0
        else:
            out[k] = lut[values[k]]
    ints[0] = pos


def _flat(image: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(image).reshape(-1)


def _unit(image: np.ndarray) -> np.ndarray:
    """``image / 255.`` as a new float64 array (the reference's ``np.array(x) / 255.``)."""
    return image / 255.0


def choice_true_mask(rng: Any, p_true: float, shape: tuple[int, ...]) -> np.ndarray:
    """``rng.choice([True, False], size=shape, p=[p_true, 1 - p_true])``, drawn faster.

    Legacy ``RandomState.choice`` with ``p`` computes ``cdf = cumsum(p); cdf /= cdf[-1]``, draws
    ``u = random_sample(shape)`` and returns ``a[cdf.searchsorted(u, side='right')]``, i.e. ``True``
    exactly where ``u < cdf[0]``. This performs the same single draw and the same comparison, so the
    mask and the stream position are bit-identical to the ``choice`` call (asserted in the tests).
    """
    u = rng.random_sample(shape)
    return np.asarray(u) < _choice_threshold(p_true)


def _choice_threshold(p_true: float) -> float:
    """``cdf[0]`` of legacy ``choice``: ``cumsum([p, 1 - p]) / cdf[-1]``."""
    if not 0.0 <= p_true <= 1.0:
        raise ValueError(f"p_true must be a probability, got {p_true}")
    cdf = np.cumsum(np.array([p_true, 1.0 - p_true], dtype=np.float64))
    cdf /= cdf[-1]
    return float(cdf[0])


@register_corruption("gaussian_noise", family="noise")
def gaussian_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Additive Gaussian noise: ``clip(x + N(0, c^2), 0, 1) * 255`` (spec §1.2 #1).

    ``x = image / 255.``; ``c`` is the noise standard deviation of the profile's table. Draws one
    ``rng.normal(scale=c, size=image.shape)``. Any image size (per-value operation).

    Args:
        image: read-only uint8 H x W x 3.
        severity: 1..5.
        profile: parameter table to use.
        rng: legacy-style random source (``as_rng``).

    Returns:
        uint8 H x W x 3 (legacy ``RandomState``: computed and truncated in one compiled pass) or
        float64 H x W x 3 in [0, 255] (other random sources).
    """
    c = get_params("gaussian_noise", severity, profile.name)
    state = legacy_state(rng)
    if state is not None:
        out = np.empty(image.shape, np.uint8)
        _gauss_kernel(
            _flat(image),
            _UNIT,
            float(c),
            False,
            state.key,
            state.ints,
            state.gauss,
            out.reshape(-1),
        )
        state.commit()
        return out
    x = _unit(image)
    x += rng.normal(size=image.shape, scale=c)
    np.clip(x, 0, 1, out=x)
    x *= 255
    return x


@register_corruption("shot_noise", family="noise")
def shot_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Poisson (shot) noise: ``clip(Poisson(x * c) / c, 0, 1) * 255`` (spec §1.2 #2).

    ``c`` is the "photon count" of the table (smaller = noisier). Draws one
    ``rng.poisson(x * c)`` with the per-value rate array. Any image size.

    Returns:
        uint8 H x W x 3 (legacy ``RandomState``: computed and truncated in one compiled pass) or
        float64 H x W x 3 in [0, 255] (other random sources).
    """
    c = get_params("shot_noise", severity, profile.name)
    state = legacy_state(rng)
    if state is not None:
        lams = _UNIT * c  # the rates x * c of the 256 possible values
        out = np.empty(image.shape, np.uint8)
        _shot_kernel(
            _flat(image),
            lams,
            _poisson_constants(lams),
            float(c),
            state.key,
            state.ints,
            out.reshape(-1),
        )
        state.commit()
        return out
    x = _unit(image)
    x *= c
    out = rng.poisson(x) / float(c)
    np.clip(out, 0, 1, out=out)
    out *= 255
    return out


@register_corruption("impulse_noise", family="noise")
def impulse_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Salt-and-pepper noise of scikit-image 0.13.1 ``random_noise(mode='s&p', amount=c)`` (§1.2 #3).

    Two masks of the image's shape, drawn like the pinned scikit-image with the legacy global RNG:
    ``flipped = choice([True, False], p=[c, 1 - c])`` then ``salted = choice([True, False],
    p=[0.5, 0.5])``; flipped & salted values become 1, flipped & not salted become 0 (per channel
    value, so impulses are coloured); then ``clip * 255``. Newer scikit-image draws from a private
    Generator instead, which ``np.random.seed`` does not control. Any image size.

    Returns:
        uint8 H x W x 3 (legacy ``RandomState``: computed and truncated in one compiled pass) or
        float64 H x W x 3 in [0, 255] (other random sources).
    """
    c = get_params("impulse_noise", severity, profile.name)
    state = legacy_state(rng)
    if state is not None:
        out = np.empty(image.shape, np.uint8)
        thr_flip, thr_salt = _choice_threshold(c), _choice_threshold(0.5)
        _impulse_kernel(
            _flat(image), _UNIT_255_U8, thr_flip, thr_salt, state.key, state.ints, out.reshape(-1)
        )
        state.commit()
        return out
    flipped = choice_true_mask(rng, c, image.shape)
    salted = choice_true_mask(rng, 0.5, image.shape)
    out = _UNIT_255[image]
    out[flipped] = 0.0
    out[flipped & salted] = 255.0
    return out


@register_corruption("speckle_noise", family="noise", extra=True)
def speckle_noise(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Multiplicative (speckle) noise: ``clip(x + x * N(0, c^2), 0, 1) * 255`` (§1.2 #4; extra).

    Draws one ``rng.normal(scale=c, size=image.shape)``. Any image size.

    Returns:
        uint8 H x W x 3 (legacy ``RandomState``: computed and truncated in one compiled pass) or
        float64 H x W x 3 in [0, 255] (other random sources).
    """
    c = get_params("speckle_noise", severity, profile.name)
    state = legacy_state(rng)
    if state is not None:
        out = np.empty(image.shape, np.uint8)
        _gauss_kernel(
            _flat(image), _UNIT, float(c), True, state.key, state.ints, state.gauss, out.reshape(-1)
        )
        state.commit()
        return out
    x = _unit(image)
    noise = rng.normal(size=image.shape, scale=c)
    noise *= x
    x += noise
    np.clip(x, 0, 1, out=x)
    x *= 255
    return x

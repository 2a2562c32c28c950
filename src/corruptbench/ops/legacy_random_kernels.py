"""The compiled kernels of :mod:`corruptbench.ops.legacy_random`: NumPy's legacy MT19937 stream and
samplers, bit for bit (numpy/random/src/mt19937 and distributions.c), over a generator's state.

Every compiled function that draws lives in this module on purpose: numba's on-disk cache does not
notice changes to compiled functions called (or inlined) from other files. The Python side
(:class:`~corruptbench.ops.legacy_random.LegacyState`, the samplers' wrappers) is in
:mod:`corruptbench.ops.legacy_random`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .jit import kernel

__all__ = [
    "MT_WORDS",
    "poisson_tables",
    "poisson_squeeze",
    "poisson_fill",
    "gauss_u8",
    "uniform_fill",
    "impulse_u8",
    "glass_shuffle_mt",
]

#: MT19937 words per block (``key[624]``)
MT_WORDS = 624
_N = MT_WORDS
_M = 397

# --------------------------------------------------------------------------------- MT19937


@kernel(inline="always")
def _twist(a: Any, b: Any, c: Any) -> Any:  # pragma: no cover - compiled
    """One word of the twist: ``c ^ (y >> 1) ^ (0x9908B0DF if y odd)``, ``y`` from ``a`` and ``b``."""
    y = (a & np.uint32(0x80000000)) | (b & np.uint32(0x7FFFFFFF))
    odd = np.uint32(0) - (b & np.uint32(1))  # y's low bit is b's: all ones when set
    return c ^ (y >> np.uint32(1)) ^ (odd & np.uint32(0x9908B0DF))


@kernel
def _generate(key: np.ndarray) -> None:  # pragma: no cover - compiled
    """``mt19937_gen``: the twist of all 624 words, in place (branch-free, vectorised loops).

    Word ``i`` reads the new ``key[i - 227]`` from ``i = 227`` on; the loops are split so that no
    loop reads a word it writes in the same run of 227.
    """
    k = _N - _M  # 227
    for i in range(k):
        key[i] = _twist(key[i], key[i + 1], key[i + _M])
    for i in range(k, 2 * k):
        key[i] = _twist(key[i], key[i + 1], key[i - k])
    for i in range(2 * k, _N - 1):
        key[i] = _twist(key[i], key[i + 1], key[i - k])
    key[_N - 1] = _twist(key[_N - 1], key[0], key[_M - 1])


@kernel(inline="always")
def _temper(y: Any) -> Any:  # pragma: no cover - compiled
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


@kernel(inline="always")
def _to_double(a: Any, b: Any) -> float:  # pragma: no cover - compiled
    """``((a >> 5) * 67108864 + (b >> 6)) / 2**53`` of two tempered words.

    The 53-bit integer is formed exactly and scaled by ``2**-53`` (a power of two: exact), which
    equals NumPy's float expression bit for bit.
    """
    k = (np.int64(a >> np.uint32(5)) << 26) | np.int64(b >> np.uint32(6))
    return np.float64(k) * (1.0 / 9007199254740992.0)


#: capacity of a buffer of doubles filled by :func:`_refill` (one block of words)
_DBUF = _N // 2


@kernel
def _doubles_even(key: np.ndarray, dbuf: np.ndarray) -> None:  # pragma: no cover - compiled
    """``dbuf[i]`` = the double of words ``2i, 2i + 1`` for the 312 pairs of a block."""
    for i in range(_N // 2):
        dbuf[i] = _to_double(_temper(key[2 * i]), _temper(key[2 * i + 1]))


@kernel
def _doubles_odd(key: np.ndarray, dbuf: np.ndarray) -> None:  # pragma: no cover - compiled
    """``dbuf[1 + i]`` = the double of words ``2i + 1, 2i + 2`` for the 311 pairs up to word 622."""
    for i in range(_N // 2 - 1):
        dbuf[1 + i] = _to_double(_temper(key[2 * i + 1]), _temper(key[2 * i + 2]))


@kernel
def _refill(key: np.ndarray, pos: int, dbuf: np.ndarray) -> tuple[int, int]:  # pragma: no cover
    """The next ``random_sample`` values up to the end of the current block, into ``dbuf``.

    Returns ``(n, pos)``: ``n >= 1`` doubles in ``dbuf[:n]`` and the word position after them
    (623 or 624). Twists first when the block is used up; from word 623 (an odd position), the
    double made of word 623 and the next block's word 0 comes first. A caller refills only when it
    needs a double, so that double is always used, and after stopping with ``r`` doubles of the
    buffer unused the generator's position is ``pos - 2 * r`` (all of them lie in the current
    block). Whole blocks go through the two fixed-offset loops (vectorised; a loop at a variable
    offset compiles to much slower code): only a kernel's first refill may take the general loop.
    """
    if pos >= _N:
        _generate(key)
        _doubles_even(key, dbuf)
        return _N // 2, _N
    if pos == _N - 1:
        a = _temper(key[_N - 1])
        _generate(key)
        dbuf[0] = _to_double(a, _temper(key[0]))
        _doubles_odd(key, dbuf)
        return _N // 2, _N - 1
    m = (_N - pos) // 2
    for i in range(m):
        dbuf[i] = _to_double(_temper(key[pos + 2 * i]), _temper(key[pos + 2 * i + 1]))
    return m, pos + 2 * m


@kernel
def _temper_from(key: np.ndarray, start: int, out: np.ndarray) -> None:  # pragma: no cover
    for i in range(start, _N):
        out[i] = _temper(key[i])


# --------------------------------------------------------------------------------- Poisson

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


@kernel
def _loggam(x: float) -> float:  # pragma: no cover - compiled
    """NumPy's ``random_loggam`` (log-gamma by Stirling's series)."""
    a = _LOGGAM_A
    x0 = x
    n = 0
    if x == 1.0 or x == 2.0:
        return 0.0
    elif x < 7.0:
        n = int(7 - x)
        x0 = x + n
    x2 = 1.0 / (x0 * x0)
    gl0 = a[9]
    for k in range(8, -1, -1):
        gl0 *= x2
        gl0 += a[k]
    gl = gl0 / x0 + 0.5 * 1.8378770664093453 + (x0 - 0.5) * math.log(x0) - x0
    if x < 7.0:
        for _ in range(n):
            gl -= math.log(x0 - 1.0)
            x0 -= 1.0
    return gl


@kernel
def poisson_tables(lams: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """Per-rate constants of ``random_poisson`` and a ``random_loggam(k + 1)`` table.

    ``table[j] = (lam, log(lam), a, b, log(invalpha), vr, exp(-lam))``: the float operations of
    NumPy's ``random_poisson_ptrs`` / ``random_poisson_mult`` for the j-th rate, in its order,
    computed once instead of per draw; ``loggam_k1[k]`` covers the counts PTRS can reach in
    practice (beyond it :func:`_loggam` is called).
    """
    table = np.zeros((lams.size, 7))
    top = 0.0
    for j in range(lams.size):
        lam = lams[j]
        top = max(top, lam)
        table[j, 0] = lam
        if lam >= 10:
            slam = math.sqrt(lam)
            b = 0.931 + 2.53 * slam
            a = -0.059 + 0.02483 * b
            table[j, 1] = math.log(lam)
            table[j, 2] = a
            table[j, 3] = b
            table[j, 4] = math.log(1.1239 + 1.1328 / (b - 3.4))  # log(invalpha)
            table[j, 5] = 0.9277 - 3.6224 / (b - 2)  # vr
        else:
            table[j, 6] = math.exp(-lam)
    n = int(top + 12 * math.sqrt(top) + 64) if top >= 10 else 0
    loggam_k1 = np.empty(n)
    for k in range(n):
        loggam_k1[k] = _loggam(k + 1.0)
    return table, loggam_k1


@kernel
def poisson_fill(idx, table, loggam_k1, scale, key, ints, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``random_poisson(table[idx[i], 0])`` for every ``i`` in order, into ``out[i]``.

    ``scale > 0``: ``out[i] = uint8(clip(count / scale, 0, 1) * 255)`` (truncation: the shot-noise
    formula, fused); ``scale == 0``: ``out[i] = count``. (Written as one loop on purpose: a helper
    returning from inside the rejection loop compiles to code about half as fast.)

    The multiplication method takes four doubles at a time when the buffer holds them: the running
    products ``p1 >= p2 >= p3 >= p4`` (each a product with a double below 1, rounded: never larger),
    so when ``p4 <= exp(-lam)`` the count grows by the number of ``p1..p3`` above ``exp(-lam)`` and
    exactly that many doubles plus one are used — the same products and comparisons as one at a time.

    PTRS's final test ``log(w) + log(invalpha) - log(d) <= -lam + k log(lam) - loggam(k + 1)``
    (``d = a / us^2 + b``) costs two logs. ``table`` may carry ``ne`` extra columns (see
    :func:`poisson_squeeze`): ``table[j, 7 + k] ~= exp(rhs(k) - log(invalpha))``; for ``k < ne``
    the test is first decided on ``w / d`` against that bound, and only a ratio within a relative
    1e-9 of it (where the rounding of the logs, below 1e-12, could matter) takes the exact test.
    So every accept / reject is the one NumPy makes.
    """
    pos = ints[0]
    nk = loggam_k1.size
    ne = table.shape[1] - 7  # counts with a squeeze bound
    dbuf = np.empty(_DBUF)
    dn = dq = 0  # dbuf[dq:dn]: the next doubles of the stream
    # scale > 0: the output of each count below _U8_COUNTS by table (one division per count, not
    # per value; the same expression)
    lut = np.empty(_U8_COUNTS if scale > 0 else 0, np.uint8)
    for k in range(lut.size):
        lut[k] = int(min(max(k / scale, 0.0), 1.0) * 255.0)
    for i in range(idx.size):
        j = idx[i]
        lam = table[j, 0]
        count = 0
        if lam >= 10:  # PTRS (Hoermann 1993)
            loglam = table[j, 1]
            a = table[j, 2]
            b = table[j, 3]
            loginvalpha = table[j, 4]
            vr = table[j, 5]
            while True:
                if dq >= dn:
                    dn, pos = _refill(key, pos, dbuf)
                    dq = 0
                u = dbuf[dq] - 0.5
                dq += 1
                if dq >= dn:
                    dn, pos = _refill(key, pos, dbuf)
                    dq = 0
                w = dbuf[dq]
                dq += 1
                us = 0.5 - abs(u)
                count = int(math.floor((2 * a / us + b) * u + lam + 0.43))
                if us >= 0.07 and w <= vr:
                    break
                if count < 0 or (us < 0.013 and w > us):
                    continue
                d = a / (us * us) + b
                if count < ne:
                    # the squeeze of the table's extra columns (see poisson_fill's docstring):
                    # decides without the two logs, except within 1e-9 of the bound
                    q = w / d
                    bound = table[j, 7 + count]
                    if q < bound * _SQUEEZE_LO:
                        break
                    if q > bound * _SQUEEZE_HI:
                        continue
                lg = loggam_k1[count] if count < nk else _loggam(count + 1.0)
                if math.log(w) + loginvalpha - math.log(d) <= (-lam + count * loglam - lg):
                    break
        elif lam != 0:  # multiplication method
            enlam = table[j, 6]
            prod = 1.0
            while True:
                if dq + 4 <= dn:
                    p1 = prod * dbuf[dq]
                    p2 = p1 * dbuf[dq + 1]
                    p3 = p2 * dbuf[dq + 2]
                    p4 = p3 * dbuf[dq + 3]
                    if p4 > enlam:
                        count += 4
                        dq += 4
                        prod = p4
                        continue
                    k = int(p1 > enlam) + int(p2 > enlam) + int(p3 > enlam)
                    count += k
                    dq += k + 1
                    break
                if dq >= dn:
                    dn, pos = _refill(key, pos, dbuf)
                    dq = 0
                prod *= dbuf[dq]
                dq += 1
                if prod > enlam:
                    count += 1
                else:
                    break
        if scale > 0:
            if count < _U8_COUNTS:
                out[i] = lut[count]
            else:
                out[i] = int(min(max(count / scale, 0.0), 1.0) * 255.0)
        else:
            out[i] = count
    ints[0] = pos - 2 * (dn - dq)


#: counts of :func:`poisson_fill`'s uint8 output table (larger ones are computed)
_U8_COUNTS = 512

#: margins of the squeeze in :func:`poisson_fill` (far above the logs' rounding, ~1e-12 absolute)
_SQUEEZE_LO = 1.0 - 1e-9
_SQUEEZE_HI = 1.0 + 1e-9


def poisson_squeeze(table: np.ndarray, loggam_k1: np.ndarray) -> np.ndarray:
    """``table`` (of :func:`poisson_tables`) with the squeeze columns of :func:`poisson_fill`.

    ``out[j, 7 + k] = exp((-lam + k log(lam) - loggam(k + 1)) - log(invalpha))`` for the PTRS
    rates (``lam >= 10``; 0 for the others, never read) and ``k < loggam_k1.size``. Only a bound:
    values within a relative 1e-9 of it are decided by the exact test.
    """
    k = np.arange(loggam_k1.size, dtype=np.float64)
    lam = table[:, :1]
    rhs = (-lam + k[None, :] * table[:, 1:2]) - loggam_k1[None, :]
    with np.errstate(over="ignore", under="ignore"):
        bound = np.exp(rhs - table[:, 4:5])
    bound[table[:, 0] < 10] = 0.0
    return np.ascontiguousarray(np.hstack([table, bound]))


# --------------------------------------------------------------------------------- Gaussian


#: pixels per chunk of :func:`gauss_u8` (Gaussians drawn into a buffer, then one vectorised pass)
_GCHUNK = 2048
#: capacity of the polar method's attempt buffers (one block of doubles and a carried one, + 1)
_ABUF = _DBUF // 2 + 2


@kernel
def gauss_u8(values, unit, c, speckle, key, ints, gauss, out, raw=False, loc=0.0):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``x + normal(scale=c)`` (or ``x + x * normal(scale=c)``), clip, * 255, truncate.

    ``x = unit[values[k]]``. The normal draws are NumPy's ``legacy_gauss`` (polar method, one value
    cached between calls in ``ints[1]`` / ``gauss[0]``) scaled as ``legacy_normal``: ``0.0 + c * g``.
    With ``raw`` the draws themselves are written instead (``out`` float64 of ``values``' size,
    ``values`` unused): ``out[k] = loc + c * g`` — ``legacy_normal(loc, scale=c)``.

    Every polar attempt takes two doubles, accepted or not, so a block of doubles is cut into
    attempts at once: the accepted ``(x1, x2, r2)`` are packed without branches (an odd double
    left over starts the next block's first attempt), then ``f = sqrt(-2 log(r2) / r2)`` for all
    of them; a pair gives ``f * x2`` then ``f * x1``. ``aend`` keeps how many doubles of the stream
    each accepted attempt ends at, so the generator is left just after the last pair used. Per
    chunk of pixels the Gaussians are collected first, then the pixels are computed in one loop.
    """
    n = values.size
    pos = ints[0]
    has_gauss = ints[1] != 0
    cached = gauss[0]
    dbuf = np.empty(_DBUF)
    ax1 = np.empty(_ABUF)
    ax2 = np.empty(_ABUF)
    ar2 = np.empty(_ABUF)
    aend = np.empty(_ABUF, np.int64)
    an = aq = 0  # accepted attempts ax1/ax2/ar2[aq:an] not used yet
    total = used = 0  # doubles drawn from the stream so far; doubles up to the last pair used
    carry = 0.0
    has_carry = False
    g = np.empty(_GCHUNK + 1)
    for start in range(0, n, _GCHUNK):
        m = min(_GCHUNK, n - start)
        j = 0
        if has_gauss:
            g[0] = cached
            j = 1
        while j < m:
            while aq >= an:
                dn, pos = _refill(key, pos, dbuf)
                base = total
                total += dn
                an = aq = 0
                t = 0
                if has_carry:
                    x1 = 2.0 * carry - 1.0
                    x2 = 2.0 * dbuf[0] - 1.0
                    r2 = x1 * x1 + x2 * x2
                    ax1[0] = x1
                    ax2[0] = x2
                    ar2[0] = r2
                    aend[0] = base + 1
                    an = int((r2 < 1.0) & (r2 != 0.0))
                    t = 1
                for p in range((dn - t) // 2):
                    x1 = 2.0 * dbuf[t + 2 * p] - 1.0
                    x2 = 2.0 * dbuf[t + 2 * p + 1] - 1.0
                    r2 = x1 * x1 + x2 * x2
                    ax1[an] = x1
                    ax2[an] = x2
                    ar2[an] = r2
                    aend[an] = base + t + 2 * p + 2
                    an += int((r2 < 1.0) & (r2 != 0.0))
                has_carry = (dn - t) % 2 == 1
                if has_carry:
                    carry = dbuf[dn - 1]
                for q in range(an):
                    r2 = ar2[q]
                    ar2[q] = math.sqrt(-2.0 * math.log(r2) / r2)  # now f
            f = ar2[aq]
            g[j] = f * ax2[aq]
            g[j + 1] = f * ax1[aq]
            used = aend[aq]
            aq += 1
            j += 2
        # the last value of an odd count stays cached (legacy_gauss zeroes it once used)
        has_gauss = j > m
        cached = g[m] if has_gauss else 0.0
        if raw:
            for k in range(m):
                out[start + k] = loc + c * g[k]
        elif speckle:
            for k in range(m):
                x = unit[values[start + k]]
                y = x + x * (0.0 + c * g[k])
                out[start + k] = int(min(max(y, 0.0), 1.0) * 255.0)
        else:
            for k in range(m):
                x = unit[values[start + k]]
                y = x + (0.0 + c * g[k])
                out[start + k] = int(min(max(y, 0.0), 1.0) * 255.0)
    ints[0] = pos - 2 * (total - used)
    ints[1] = has_gauss
    gauss[0] = cached


@kernel
def uniform_fill(low, span, key, ints, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``out[k] = low + span * random_sample()`` in stream order (NumPy's ``random_uniform``)."""
    dbuf = np.empty(_DBUF)
    pos = ints[0]
    k = 0
    n = out.size
    while k < n:
        dn, pos = _refill(key, pos, dbuf)
        m = min(dn, n - k)
        for i in range(m):
            out[k + i] = low + span * dbuf[i]
        k += m
        if m < dn:
            pos -= 2 * (dn - m)
    ints[0] = pos


# --------------------------------------------------------------------------------- uniform


@kernel
def _below_even(key, thr, dst, base):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``dst[base + i] = (double of words 2i, 2i + 1) < thr`` for the 312 pairs of a block."""
    for i in range(_N // 2):
        dst[base + i] = _to_double(_temper(key[2 * i]), _temper(key[2 * i + 1])) < thr


@kernel
def _below_odd(key, thr, dst, base):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``dst[base + i] = (double of words 2i + 1, 2i + 2) < thr`` for the 311 pairs to word 622."""
    for i in range(_N // 2 - 1):
        dst[base + i] = _to_double(_temper(key[2 * i + 1]), _temper(key[2 * i + 2])) < thr


@kernel
def _below(key, pos, thr, dst):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``dst[k] = random_sample() < thr`` for the whole of ``dst``, in order; returns the position.

    Straight from the tempered words: whole blocks from word 0 (or word 1, after the double made of
    word 623 and the next block's word 0) by the two fixed loops above, vectorised; the first and
    last, partial blocks by a general loop (which compiles to much slower code).
    """
    n = dst.size
    k = np.int64(0)  # int64 from the start: a literal 0 would compile _below_even/odd twice
    while k < n:
        if pos >= _N:
            _generate(key)
            pos = 0
        if pos == _N - 1:
            a = _temper(key[_N - 1])
            _generate(key)
            dst[k] = _to_double(a, _temper(key[0])) < thr
            k += 1
            pos = 1
            continue
        cnt = (_N - pos) >> 1  # doubles left in the block (to word 623 or 622)
        if pos == 0 and cnt <= n - k:
            _below_even(key, thr, dst, k)
        elif pos == 1 and cnt <= n - k:
            _below_odd(key, thr, dst, k)
        else:
            cnt = min(cnt, n - k)
            for i in range(cnt):
                dst[k + i] = (
                    _to_double(_temper(key[pos + 2 * i]), _temper(key[pos + 2 * i + 1])) < thr
                )
        pos += 2 * cnt
        k += cnt
    return pos


@kernel
def impulse_u8(values, lut, thr_flip, thr_salt, key, ints, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Salt and pepper: two full ``random_sample`` masks in order (flipped, then salted).

    ``out[k] = 255 if flipped and salted, 0 if flipped only, else lut[values[k]]``, where the masks
    are ``u < thr`` (the two legacy ``choice([True, False], p=...)`` calls), each drawn by
    :func:`_below`.
    """
    n = values.size
    flipped = np.empty(n, np.bool_)
    salted = np.empty(n, np.bool_)
    pos = _below(key, ints[0], thr_flip, flipped)
    ints[0] = _below(key, pos, thr_salt, salted)
    for k in range(n):
        out[k] = lut[values[k]]
    for k in range(n):  # (a separate loop: vectorised)
        salt = np.uint8(255) if salted[k] else np.uint8(0)
        out[k] = salt if flipped[k] else out[k]


# --------------------------------------------------------------------------------- randint


@kernel(inline="always")
def _glass_copy(x, h, w, hp, wp, nc):  # type: ignore[no-untyped-def]  # pragma: no cover
    if nc == 3:
        x[h, w, 0] = x[hp, wp, 0]
        x[h, w, 1] = x[hp, wp, 1]
        x[h, w, 2] = x[hp, wp, 2]
    else:
        for c in range(nc):
            x[h, w, c] = x[hp, wp, c]


@kernel
def _randint_block(key, p, mask, rng, d, acc, src):  # type: ignore[no-untyped-def]  # pragma: no cover
    """The accepted masked words of the rest of the block (twisting first when it is used up).

    ``acc[j] = (word & mask) - d`` for the words with ``word & mask <= rng`` from position ``p``
    to 623, in order, and ``src[j]`` their positions; returns their number (packed without
    branches).
    """
    if p >= _N:
        _generate(key)
        p = 0
    na = 0
    for i in range(p, _N):
        v = _temper(key[i]) & mask
        acc[na] = np.int64(v) - d
        src[na] = i
        na += int(v <= rng)
    return na


@kernel
def glass_shuffle_mt(x, d, iterations, key, ints):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Glass blur's pixel loop drawing ``(dx, dy) = randint(-d, d, size=2)`` inline (``d >= 1``).

    Legacy ``randint``'s masked rejection on 32-bit words, the words from MT19937 in order.
    ``x[h, w] = x[h + dy, w + dx]`` in place. When ``2d`` is a power of two every word is
    accepted: the words are tempered 624 at a time into a buffer and read in order. Otherwise
    the accepted values of a block are packed first (:func:`_randint_block`: no unpredictable
    branch per word), then read in order, and the generator is left just after the last word
    used.
    """
    height, width, nc = x.shape
    rng = np.uint32(2 * d - 1)
    mask = np.uint64(rng)  # its type after the loop below (uint32 | uint32 is uint64 in numba)
    for sh in (1, 2, 4, 8, 16):
        mask |= mask >> np.uint32(sh)
    p = ints[0]
    if mask == rng:
        buf = np.empty(_N, dtype=np.uint32)
        if p < _N:
            _temper_from(key, p, buf)
        for _ in range(iterations):
            for h in range(height - d, d, -1):
                for w in range(width - d, d, -1):
                    if p + 2 <= _N:
                        dx = np.int64(buf[p] & mask) - d
                        dy = np.int64(buf[p + 1] & mask) - d
                        p += 2
                    else:
                        if p >= _N:
                            _generate(key)
                            _temper_from(key, np.int64(0), buf)
                            p = 0
                        dx = np.int64(buf[p] & mask) - d
                        p += 1
                        if p >= _N:
                            _generate(key)
                            _temper_from(key, np.int64(0), buf)
                            p = 0
                        dy = np.int64(buf[p] & mask) - d
                        p += 1
                    _glass_copy(x, h, w, h + dy, w + dx, nc)
        ints[0] = p
        return
    acc = np.empty(_N, dtype=np.int64)
    src = np.empty(_N, dtype=np.int64)
    na = q = 0  # acc[q:na] not used yet; p: where the next block read starts
    last = p - 1  # position of the last word used
    for _ in range(iterations):
        for h in range(height - d, d, -1):
            for w in range(width - d, d, -1):
                if q + 2 <= na:
                    dx = acc[q]
                    dy = acc[q + 1]
                    q += 2
                else:
                    while q >= na:
                        na = _randint_block(key, p, mask, rng, d, acc, src)
                        p = _N
                        q = 0
                    dx = acc[q]
                    q += 1
                    while q >= na:
                        na = _randint_block(key, p, mask, rng, d, acc, src)
                        p = _N
                        q = 0
                    dy = acc[q]
                    q += 1
                _glass_copy(x, h, w, h + dy, w + dx, nc)
    if q > 0:
        last = src[q - 1]
    ints[0] = last + 1

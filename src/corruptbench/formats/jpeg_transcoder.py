"""The compiled Huffman re-optimiser behind :func:`corruptbench.formats.jpeg.encode_jpeg`.

:func:`transcode` decodes every Huffman symbol (with its extra bits) of a baseline JPEG's
entropy-coded segment, counts the symbol frequencies of each table, builds optimal tables by the
procedure of ITU-T T.81 Annex K.2 as libjpeg implements it (reserved pseudo-symbol, lengths limited
to 16 bits by the K.3 adjustment, symbols listed by their unadjusted code length), and writes the
headers and the entropy data again with the new codes in the layout libjpeg uses (one DHT segment
per table, in scan order, just before SOS).

Every compiled function lives in this one module on purpose: numba's on-disk cache does not notice
changes to compiled functions called from other files.
"""

from __future__ import annotations

import threading

import numpy as np

from ..ops.jit import kernel

__all__ = ["transcode"]

_MAX_CLEN = 32  # longest code before the 16-bit limiting (libjpeg's MAX_CLEN)
_PAD = 512  # zero bytes after the entropy data: a corrupt block may read 256 past it
_LOOK = 11  # bits of the decoding look-up tables (longer codes take the slow path)
_LSIZE = 1 << _LOOK


_local = threading.local()


def _scratch(nbytes: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-thread scratch arrays for a stream of ``nbytes`` (reused across calls)."""
    size = max(nbytes, 1 << 16)
    buf: np.ndarray | None = getattr(_local, "buf", None)
    if buf is None or buf.size < size + _PAD:
        buf = np.empty(2 * size + _PAD, dtype=np.uint8)
        _local.buf = buf
        _local.syms = np.empty(8 * buf.size, dtype=np.int32)
    return buf, _local.syms


def _decoder_cache() -> tuple[np.ndarray, ...]:
    """Per-thread decoding tables of the 8 DHT slots, kept between calls.

    Every base stream uses libjpeg's standard tables, so they are built once;
    ``key[slot]`` holds the DHT contents they were built from (``key[slot, 0]``
    its length, -1: none).
    """
    tabs: tuple[np.ndarray, ...] | None = getattr(_local, "tabs", None)
    if tabs is None:
        tabs = (
            np.zeros((8, _LSIZE), dtype=np.int32),  # lut
            np.zeros((8, 18), dtype=np.int64),  # maxcode
            np.zeros((8, 17), dtype=np.int64),  # valptr
            np.zeros((8, 17), dtype=np.int64),  # mincode
            np.zeros((8, 256), dtype=np.uint8),  # hvals
            np.full((8, 1 + 16 + 256), -1, dtype=np.int16),  # key
        )
        _local.tabs = tabs
    return tabs


def transcode(base: bytes) -> bytes | None:
    """``base`` (a baseline JPEG with any Huffman tables) with optimal Huffman tables, as libjpeg's
    ``optimize_coding`` writes it; ``None`` for a stream the transcoder does not handle."""
    out = _reoptimize(np.frombuffer(base, dtype=np.uint8), *_scratch(len(base)), *_decoder_cache())
    return out.tobytes() if out.size else None


# --------------------------------------------------------------------------- #
# Huffman tables
# --------------------------------------------------------------------------- #


@kernel
def _lut_entry(length, sym, dc):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``used | length << 5 | symbol << 10 | advance << 18`` for one decoded symbol.

    ``used`` counts the code and its extra bits; ``advance`` is how far the
    symbol moves the zig-zag index (DC 1, AC run + 1, ZRL 16, EOB 64, and an
    impossible 200 for the symbols no encoder writes).
    """
    if dc:
        return (length + sym) | (length << 5) | (sym << 10) | (1 << 18)
    s = sym & 15
    r = sym >> 4
    if s != 0:
        adv = r + 1
    elif r == 15:
        adv = 16
    elif r == 0:
        adv = 64
    else:
        adv = 200
    return (length + s) | (length << 5) | (sym << 10) | (adv << 18)


@kernel
def _build_decoder(bits, vals, dc, lut, maxcode, valptr, mincode):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Decoding tables for one DHT table (T.81 Annex C and F.2.2.3).

    ``bits[1..16]`` counts codes per length, ``vals`` lists the symbols.  The
    ``_LOOK``-bit look-ahead ``lut`` holds the ``_lut_entry`` of short codes (0 where
    the code is longer); longer codes are resolved with ``maxcode``.
    """
    lut[:] = 0
    code = 0
    p = 0
    for length in range(1, 17):
        n = bits[length]
        if n == 0:
            maxcode[length] = -1
        else:
            valptr[length] = p
            mincode[length] = code
            for _ in range(n):
                if length <= _LOOK:
                    lo = code << (_LOOK - length)
                    entry = _lut_entry(length, np.int64(vals[p]), dc)
                    for k in range(lo, lo + (1 << (_LOOK - length))):
                        lut[k] = entry
                p += 1
                code += 1
            maxcode[length] = code - 1
        if code > (1 << length):
            return False
        code <<= 1
    maxcode[17] = 0x7FFFFFFF
    return True


@kernel
def _slow_code(acc, cnt, dc, maxcode, valptr, mincode, vals):  # type: ignore[no-untyped-def]  # pragma: no cover
    """A code longer than ``_LOOK`` bits: its ``_lut_entry``, or 0 if invalid."""
    length = _LOOK + 1
    code = (acc >> (cnt - length)) & ((1 << length) - 1)
    while code > maxcode[length]:
        length += 1
        code = (acc >> (cnt - length)) & ((1 << length) - 1)
    if length > 16:
        return 0
    return _lut_entry(length, np.int64(vals[valptr[length] + code - mincode[length]]), dc)


@kernel
def _heap_pop(heap, m):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Remove and return the smallest of the ``m`` keys of the binary min-heap."""
    top = heap[0]
    last = heap[m - 1]
    m -= 1
    j = 0
    while True:
        child = 2 * j + 1
        if child >= m:
            break
        if child + 1 < m and heap[child + 1] < heap[child]:
            child += 1
        if heap[child] >= last:
            break
        heap[j] = heap[child]
        j = child
    heap[j] = last
    return top


@kernel
def _optimal_lengths(freq_in, bits_out, vals_out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Optimal table for the symbol counts ``freq_in[0..255]`` (T.81 K.2 / libjpeg).

    Fills ``bits_out[1..16]`` and ``vals_out``; returns the number of symbols, or
    -1 if a code would exceed 32 bits before limiting (cannot happen for the
    symbol counts of one image, but libjpeg would raise).
    """
    # libjpeg merges the two smallest counts, ties going to the larger symbol
    # index, and the merged node keeps the index of the first.  A min-heap on
    # count * 512 + (511 - symbol) pops them in exactly that order.
    heap = np.empty(257, dtype=np.int64)
    m = 0
    for i in range(257):
        f = freq_in[i] if i < 256 else 1  # 256: reserved code point, count 1
        if f != 0:
            # sift up
            key = f * 512 + (511 - i)
            j = m
            m += 1
            while j > 0:
                parent = (j - 1) >> 1
                if heap[parent] <= key:
                    break
                heap[j] = heap[parent]
                j = parent
            heap[j] = key
    codesize = np.zeros(257, dtype=np.int64)
    others = np.full(257, -1, dtype=np.int64)
    while m > 1:
        k1 = _heap_pop(heap, m)
        m -= 1
        k2 = _heap_pop(heap, m)
        m -= 1
        a = 511 - (k1 & 511)
        b = 511 - (k2 & 511)
        # the merged node, under the first symbol's index
        key = ((k1 >> 9) + (k2 >> 9)) * 512 + (511 - a)
        j = m
        m += 1
        while j > 0:
            parent = (j - 1) >> 1
            if heap[parent] <= key:
                break
            heap[j] = heap[parent]
            j = parent
        heap[j] = key
        codesize[a] += 1
        while others[a] >= 0:
            a = others[a]
            codesize[a] += 1
        others[a] = b
        codesize[b] += 1
        while others[b] >= 0:
            b = others[b]
            codesize[b] += 1
    bits = np.zeros(_MAX_CLEN + 1, dtype=np.int64)
    for i in range(257):
        if codesize[i] != 0:
            if codesize[i] > _MAX_CLEN:
                return -1
            bits[codesize[i]] += 1
    # K.3: move codes longer than 16 bits up the tree
    for i in range(_MAX_CLEN, 16, -1):
        while bits[i] > 0:
            j = i - 2
            while bits[j] == 0:
                j -= 1
            bits[i] -= 2
            bits[i - 1] += 1
            bits[j + 1] += 2
            bits[j] -= 1
    i = 16
    while bits[i] == 0:
        i -= 1
    bits[i] -= 1  # drop the reserved code point
    for k in range(17):
        bits_out[k] = bits[k] if k > 0 else 0
    # symbols in order of their (unadjusted) code length, then symbol value
    start = np.zeros(_MAX_CLEN + 2, dtype=np.int64)
    for j in range(256):
        start[codesize[j] + 1] += 1
    start[0] = 0
    start[1] = 0  # codesize 0: unused symbols, not listed
    for length in range(2, _MAX_CLEN + 2):
        start[length] += start[length - 1]
    for j in range(256):
        c = codesize[j]
        if c != 0:
            vals_out[start[c]] = j
            start[c] += 1
    return start[_MAX_CLEN]


@kernel
def _encoder_codes(bits, vals, dc, enc):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Canonical codes (T.81 Annex C) by symbol: ``code << (extra + 6) | (length + extra)``.

    ``extra`` is the number of extra bits after the symbol (its low nibble in
    an AC table, the symbol itself in a DC table): the entry holds the code
    already shifted past them, and the total number of bits.
    """
    code = 0
    p = 0
    for length in range(1, 17):
        for _ in range(bits[length]):
            s = vals[p]
            extra = s if dc else s & 15
            enc[s] = (code << (extra + 6)) | (length + extra)
            p += 1
            code += 1
        code <<= 1


# --------------------------------------------------------------------------- #
# Transcoder
# --------------------------------------------------------------------------- #


@kernel
def _unstuff(src, start, end, buf):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Copy the entropy-coded bytes ``src[start:end]`` to ``buf`` without the
    stuffed zero after each 0xFF, then ``_PAD`` zero bytes.  Returns the length,
    or -1 if a marker occurs inside the data."""
    m = 0
    i = start
    while i < end:
        b = src[i]
        buf[m] = b
        m += 1
        if b == 0xFF:
            if src[i + 1] != 0:
                return -1
            i += 2
        else:
            i += 1
    if i != end:
        return -1
    buf[m : m + _PAD] = 0
    return m


@kernel
def _decode_scan(
    buf, nbytes, nmcu, ns, nblk, dc_slot, ac_slot, lut, maxcode, valptr, mincode, hvals, freq, syms
):  # type: ignore[no-untyped-def]  # pragma: no cover  # noqa: C901, PLR0912, PLR0913, PLR0915
    """Decode every Huffman symbol of the scan and count them per table slot.

    ``buf`` holds the ``nbytes`` unstuffed entropy-coded bytes and ``_PAD``
    zeros.  Stores the symbols in ``syms`` as ``slot << 8 | symbol |
    extra_bits << 11`` (it must hold ``8 * nbytes`` entries: every symbol takes
    at least one bit) and returns their number, or -1 on a corrupt stream or
    one whose length does not match the symbols.  ``lut`` and ``freq`` are the
    flat ``(slot, ...)`` tables.
    """
    nsym = 0
    acc = np.int64(0)  # the low ``cnt`` bits are the unread ones (garbage above)
    cnt = np.int64(0)
    rd = 0
    limit = np.int64(8) * nbytes
    for _mcu in range(nmcu):
        for i in range(ns):
            dslot = dc_slot[i]
            aslot = ac_slot[i]
            dlut = dslot * _LSIZE  # offsets into the flat tables
            alut = aslot * _LSIZE
            dfreq = dslot * 256
            afreq = aslot * 256
            dtag = dslot << 8
            atag = aslot << 8
            for _b in range(nblk[i]):
                if (rd << 3) - cnt > limit:  # ran past the data (corrupt)
                    return -1
                # ---- DC
                if cnt < 32:
                    acc = ((acc & ((np.int64(1) << cnt) - 1)) << 32) | (
                        (np.int64(buf[rd]) << 24)
                        | (np.int64(buf[rd + 1]) << 16)
                        | (np.int64(buf[rd + 2]) << 8)
                        | np.int64(buf[rd + 3])
                    )
                    rd += 4
                    cnt += 32
                e = np.int64(lut[dlut + ((acc >> (cnt - _LOOK)) & (_LSIZE - 1))])
                if e == 0:
                    e = _slow_code(
                        acc, cnt, True, maxcode[dslot], valptr[dslot], mincode[dslot], hvals[dslot]
                    )
                    if e == 0:
                        return -1
                sym = (e >> 10) & 255
                if sym > 11:
                    return -1
                cnt -= e & 31
                freq[dfreq + sym] += 1
                syms[nsym] = dtag | sym | (((acc >> cnt) & ((np.int64(1) << sym) - 1)) << 11)
                nsym += 1
                # ---- AC
                k = 1
                while k < 64:
                    if cnt < 32:
                        acc = ((acc & ((np.int64(1) << cnt) - 1)) << 32) | (
                            (np.int64(buf[rd]) << 24)
                            | (np.int64(buf[rd + 1]) << 16)
                            | (np.int64(buf[rd + 2]) << 8)
                            | np.int64(buf[rd + 3])
                        )
                        rd += 4
                        cnt += 32
                    e = np.int64(lut[alut + ((acc >> (cnt - _LOOK)) & (_LSIZE - 1))])
                    if e == 0:
                        e = _slow_code(
                            acc,
                            cnt,
                            False,
                            maxcode[aslot],
                            valptr[aslot],
                            mincode[aslot],
                            hvals[aslot],
                        )
                        if e == 0:
                            return -1
                    sym = (e >> 10) & 255
                    k += e >> 18
                    if k > 64 and sym != 0:  # past the block (EOB just ends it)
                        return -1
                    cnt -= e & 31
                    freq[afreq + sym] += 1
                    syms[nsym] = (
                        atag | sym | (((acc >> cnt) & ((np.int64(1) << (sym & 15)) - 1)) << 11)
                    )
                    nsym += 1
    # the data must end with the last symbol's byte (padded with 1-bits)
    if (rd << 3) - cnt + 7 >> 3 != nbytes:
        return -1
    return nsym


@kernel
def _emit_scan(syms, nsym, enc, out, w):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Write the symbols with the codes ``enc`` (flat slot * 256 + symbol) from ``out[w]``.

    Pads the last byte with 1-bits and stuffs a zero byte after every 0xFF, as
    libjpeg does; returns the new write position.
    """
    acc = np.int64(0)  # the low ``cnt`` bits are pending (cnt < 32 between symbols)
    cnt = np.int64(0)
    for t in range(nsym):
        v = np.int64(syms[t])
        e = enc[v & 2047]
        n = e & 63
        acc = (acc << n) | (e >> 6) | (v >> 11)
        cnt += n
        if cnt >= 32:
            cnt -= 32
            word = (acc >> cnt) & 0xFFFFFFFF
            inv = ~word & 0xFFFFFFFF
            if ((inv - 0x01010101) & ~inv & 0x80808080) == 0:  # no 0xFF byte
                out[w] = word >> 24
                out[w + 1] = (word >> 16) & 255
                out[w + 2] = (word >> 8) & 255
                out[w + 3] = word & 255
                w += 4
            else:
                for sh in (24, 16, 8, 0):
                    byte = (word >> sh) & 255
                    out[w] = byte
                    w += 1
                    if byte == 0xFF:
                        out[w] = 0
                        w += 1
            acc &= (np.int64(1) << cnt) - 1
    # the whole bytes left, then the last one padded with 1-bits
    pad = (8 - (cnt & 7)) & 7
    acc = (acc << pad) | ((np.int64(1) << pad) - 1)
    cnt += pad
    while cnt > 0:
        cnt -= 8
        byte = (acc >> cnt) & 255
        out[w] = byte
        w += 1
        if byte == 0xFF:
            out[w] = 0
            w += 1
    return w


@kernel
def _reoptimize(src, buf, syms, lut, maxcode, valptr, mincode, hvals, key):  # type: ignore[no-untyped-def]  # pragma: no cover  # noqa: C901, PLR0912, PLR0915
    """Rewrite a baseline JPEG with libjpeg's optimal Huffman tables.

    ``buf`` (uint8) and ``syms`` (int32) are scratch space of at least
    ``src.size + _PAD`` and ``8 * src.size`` entries; ``lut``, ``maxcode``,
    ``valptr``, ``mincode``, ``hvals`` and ``key`` hold the decoding tables of
    each DHT slot between calls (see ``_decoder_cache``), rebuilt only when a
    table differs from the one in ``key``.  Returns the
    new file, or an empty array when the stream is not a single-scan baseline
    (SOF0) Huffman JPEG without restart markers.
    """
    fail = np.empty(0, dtype=np.uint8)
    n = src.size
    if syms.size < 8 * n or buf.size < n + _PAD:
        return fail
    if n < 4 or src[0] != 0xFF or src[1] != 0xD8:
        return fail
    # per DHT slot (class * 4 + id): decoding tables
    defined = np.zeros(8, dtype=np.bool_)
    # header segments kept (everything but DHT), as (start, end) byte ranges
    keep_lo = np.zeros(64, dtype=np.int64)
    keep_hi = np.zeros(64, dtype=np.int64)
    nkeep = 0
    width = 0
    height = 0
    ncomp = 0
    comp_id = np.zeros(4, dtype=np.int64)
    comp_h = np.zeros(4, dtype=np.int64)
    comp_v = np.zeros(4, dtype=np.int64)
    have_sof = False
    pos = 2
    sos_start = -1
    while True:
        if pos + 4 > n or src[pos] != 0xFF:
            return fail
        m = src[pos + 1]
        if m == 0xFF:  # fill byte
            pos += 1
            continue
        if m == 0xD8 or m == 0xD9 or 0xD0 <= m <= 0xD7 or m == 0x01:
            return fail
        seglen = (np.int64(src[pos + 2]) << 8) | np.int64(src[pos + 3])
        end = pos + 2 + seglen
        if seglen < 2 or end > n:
            return fail
        if m == 0xC4:
            q = pos + 4
            while q < end:
                tc = src[q] >> 4
                th = src[q] & 15
                if tc > 1 or th > 3 or q + 17 > end:
                    return fail
                slot = tc * 4 + th
                bits = np.zeros(17, dtype=np.int64)
                total = 0
                for k in range(16):
                    bits[k + 1] = src[q + 1 + k]
                    total += bits[k + 1]
                if total > 256 or q + 17 + total > end:
                    return fail
                # the decoding tables kept from an earlier call, if the table is the same
                same = key[slot, 0] == 16 + total
                k = 0
                while same and k < 16 + total:
                    same = key[slot, 1 + k] == src[q + 1 + k]
                    k += 1
                if not same:
                    key[slot, 0] = -1
                    for k in range(total):
                        hvals[slot, k] = src[q + 17 + k]
                    if not _build_decoder(
                        bits,
                        hvals[slot],
                        tc == 0,
                        lut[slot],
                        maxcode[slot],
                        valptr[slot],
                        mincode[slot],
                    ):
                        return fail
                    for k in range(16 + total):
                        key[slot, 1 + k] = src[q + 1 + k]
                    key[slot, 0] = 16 + total
                defined[slot] = True
                q += 17 + total
            if q != end:
                return fail
        else:
            if m == 0xDD:  # DRI
                if seglen != 4 or src[pos + 4] != 0 or src[pos + 5] != 0:
                    return fail
            elif m == 0xC0:
                if have_sof or seglen < 8 or src[pos + 4] != 8:
                    return fail
                height = (np.int64(src[pos + 5]) << 8) | np.int64(src[pos + 6])
                width = (np.int64(src[pos + 7]) << 8) | np.int64(src[pos + 8])
                ncomp = np.int64(src[pos + 9])
                if ncomp < 1 or ncomp > 4 or seglen != 8 + 3 * ncomp or width == 0 or height == 0:
                    return fail
                for c in range(ncomp):
                    comp_id[c] = src[pos + 10 + 3 * c]
                    comp_h[c] = src[pos + 11 + 3 * c] >> 4
                    comp_v[c] = src[pos + 11 + 3 * c] & 15
                    if comp_h[c] < 1 or comp_h[c] > 4 or comp_v[c] < 1 or comp_v[c] > 4:
                        return fail
                have_sof = True
            elif 0xC1 <= m <= 0xCF and m != 0xC8:  # other frame types, DAC
                return fail
            if nkeep == 64:
                return fail
            keep_lo[nkeep] = pos
            keep_hi[nkeep] = end
            nkeep += 1
            if m == 0xDA:
                sos_start = pos
                pos = end
                break
        pos = end
    if not have_sof:
        return fail
    # ---- scan header
    ns = np.int64(src[sos_start + 4])
    if (
        ns != ncomp
        or (np.int64(src[sos_start + 2]) << 8 | np.int64(src[sos_start + 3])) != 6 + 2 * ns
    ):
        return fail
    scomp = np.zeros(4, dtype=np.int64)  # frame component index of each scan component
    dc_slot = np.zeros(4, dtype=np.int64)
    ac_slot = np.zeros(4, dtype=np.int64)
    for i in range(ns):
        cid = src[sos_start + 5 + 2 * i]
        found = -1
        for c in range(ncomp):
            if comp_id[c] == cid:
                found = c
        if found < 0:
            return fail
        scomp[i] = found
        td = src[sos_start + 6 + 2 * i] >> 4
        ta = src[sos_start + 6 + 2 * i] & 15
        if td > 3 or ta > 3 or not defined[td] or not defined[4 + ta]:
            return fail
        dc_slot[i] = td
        ac_slot[i] = 4 + ta
    q = sos_start + 5 + 2 * ns
    if src[q] != 0 or src[q + 1] != 63 or src[q + 2] != 0:
        return fail
    data_start = pos
    # ---- MCU geometry
    hmax = 1
    vmax = 1
    for c in range(ncomp):
        hmax = max(hmax, comp_h[c])
        vmax = max(vmax, comp_v[c])
    if ns == 1:
        c = scomp[0]
        cw = (width * comp_h[c] + hmax - 1) // hmax
        ch = (height * comp_v[c] + vmax - 1) // vmax
        mcu_x = (cw + 7) // 8
        mcu_y = (ch + 7) // 8
        nblk = np.ones(1, dtype=np.int64)
        bpm = 1
    else:
        mcu_x = (width + 8 * hmax - 1) // (8 * hmax)
        mcu_y = (height + 8 * vmax - 1) // (8 * vmax)
        bpm = 0
        nblk = np.zeros(ns, dtype=np.int64)
        for i in range(ns):
            nblk[i] = comp_h[scomp[i]] * comp_v[scomp[i]]
            bpm += nblk[i]
        if bpm > 10:
            return fail
    nmcu = mcu_x * mcu_y
    if src[n - 2] != 0xFF or src[n - 1] != 0xD9:
        return fail
    if src[n - 2] != 0xFF or src[n - 1] != 0xD9:
        return fail
    freq = np.zeros((8, 256), dtype=np.int64)
    nbytes = _unstuff(src, data_start, n - 2, buf)
    if nbytes < 0:
        return fail
    nsym = _decode_scan(
        buf,
        nbytes,
        nmcu,
        ns,
        nblk,
        dc_slot,
        ac_slot,
        lut.reshape(-1),
        maxcode,
        valptr,
        mincode,
        hvals,
        freq.reshape(-1),
        syms,
    )
    if nsym < 0:
        return fail
    # ---- optimal tables for the slots in use, in libjpeg's emission order
    new_bits = np.zeros((8, 17), dtype=np.int64)
    new_vals = np.empty((8, 256), dtype=np.int64)
    new_nval = np.zeros(8, dtype=np.int64)
    enc = np.empty(8 * 256, dtype=np.int64)  # read only for the symbols that occur
    order = np.zeros(8, dtype=np.int64)
    norder = 0
    done = np.zeros(8, dtype=np.bool_)
    for i in range(ns):
        for slot in (dc_slot[i], ac_slot[i]):
            if not done[slot]:
                done[slot] = True
                nv = _optimal_lengths(freq[slot], new_bits[slot], new_vals[slot])
                if nv < 0:
                    return fail
                new_nval[slot] = nv
                _encoder_codes(
                    new_bits[slot], new_vals[slot], slot < 4, enc[slot * 256 : slot * 256 + 256]
                )
                order[norder] = slot
                norder += 1
    # ---- exact size of the new entropy data
    total_bits = np.int64(0)
    for slot in range(8):
        if done[slot]:
            for sym in range(256):
                f = freq[slot, sym]
                if f != 0:
                    e = enc[slot * 256 + sym]
                    total_bits += f * (e & 63)
    size = 2
    for j in range(nkeep):
        size += keep_hi[j] - keep_lo[j]
    for j in range(norder):
        size += 4 + 1 + 16 + new_nval[order[j]]
    out = np.empty(size + 2 * ((total_bits + 7) // 8) + 8, dtype=np.uint8)
    # ---- headers: every kept segment in order, the new DHTs just before SOS
    out[0] = 0xFF
    out[1] = 0xD8
    w = 2
    for j in range(nkeep):
        if keep_lo[j] == sos_start:
            for t in range(norder):
                slot = order[t]
                seg = 2 + 1 + 16 + new_nval[slot]
                out[w] = 0xFF
                out[w + 1] = 0xC4
                out[w + 2] = seg >> 8
                out[w + 3] = seg & 255
                out[w + 4] = ((slot >> 2) << 4) | (slot & 3)
                for k in range(16):
                    out[w + 5 + k] = new_bits[slot, k + 1]
                for k in range(new_nval[slot]):
                    out[w + 21 + k] = new_vals[slot, k]
                w += 4 + 1 + 16 + new_nval[slot]
        for t in range(keep_lo[j], keep_hi[j]):
            out[w] = src[t]
            w += 1
    # ---- entropy data with the new codes, then EOI
    w = _emit_scan(syms, nsym, enc, out, w)
    out[w] = 0xFF
    out[w + 1] = 0xD9
    return out[: w + 2]

"""Compiled elementwise stages of the weather corruptions (:mod:`corruptbench.corruptions.weather`).

Each kernel fuses one chain of NumPy operations of the reference formula into a single pass,
with the same dtypes and the same operation order per element, so that the results are
bit-identical to the NumPy expressions they replace (written out in each docstring):

* float32 where NumPy computes in float32 (a Python float next to a float32 array is a float32
  scalar under NEP 50; the caller passes such constants already rounded to float32), float64
  elsewhere; no fused multiply-add (numba does not contract without ``fastmath``);
* ``np.clip(v, 0, 1)`` is ``min(max(v, 0), 1)`` (no NaN can occur); the final float -> uint8
  conversion truncates like ``astype(np.uint8)`` on values in [0, 255].

OpenCV and the Gaussian / motion-blur kernels stay where they are; these are the glue between
them. Every jitted function here calls nothing compiled from another module (numba's disk cache
would not notice a change there).
"""

from __future__ import annotations

import numpy as np

from .jit import kernel

__all__ = [
    "snow_compose_u8",
    "frost_table",
    "frost_u8",
    "fog_u8",
    "water_u8",
    "water_f32",
    "mud_u8",
    "sparse_motion_blur_u8",
]


@kernel
def snow_compose_u8(x, gray, flakes, b, nb, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Snow's last steps, from the float32 image to uint8.

    ``x``: float32 H x W x C; ``gray``: float32 H x W (OpenCV RGB2GRAY of ``x``); ``flakes``:
    uint8 H x W (the motion-blurred layer); ``b = float32(blend)``, ``nb = float32(1 - blend)``;
    all C-contiguous::

        F = flakes / 255.0                                           # float64
        y = b * x + nb * np.maximum(x, gray * 1.5 + 0.5)             # float32
        out = uint8(clip(y + F + F[::-1, ::-1], 0, 1) * 255)         # float64

    The per-pixel terms are spread over a row buffer first, so that the per-element loop runs
    on contiguous rows (vectorised).
    """
    h, w, nc = x.shape
    n = w * nc
    lut = np.empty(256, dtype=np.float64)
    for v in range(256):
        lut[v] = v / 255.0
    f15 = np.float32(1.5)
    f05 = np.float32(0.5)
    g_row = np.empty(n, dtype=np.float32)
    f_row = np.empty(n, dtype=np.float64)
    r_row = np.empty(n, dtype=np.float64)
    xf = x.ravel()
    of = out.ravel()
    for i in range(h):
        gi = gray[i]
        fa = flakes[i]
        fb = flakes[h - 1 - i]
        for j in range(w):
            g = gi[j] * f15 + f05
            fl = lut[fa[j]]
            fr = lut[fb[w - 1 - j]]
            for c in range(nc):
                g_row[j * nc + c] = g
                f_row[j * nc + c] = fl
                r_row[j * nc + c] = fr
        base = i * n
        for k in range(n):
            xc = xf[base + k]
            y = b * xc + nb * max(xc, g_row[k])
            v = (np.float64(y) + f_row[k]) + r_row[k]
            v = min(max(v, 0.0), 1.0)
            of[base + k] = np.uint8(np.int32(v * 255.0))


@kernel
def frost_table(c0, c1, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``out[(a << 8) | b] = uint8(clip(float64(a) * c0 + float64(b) * c1, 0, 255))`` for all
    uint8 ``a`` (image) and ``b`` (frost): frost's whole formula as a 65536-entry table."""
    for a in range(256):
        pa = np.float64(a) * c0
        for b in range(256):
            v = pa + np.float64(b) * c1
            v = min(max(v, 0.0), 255.0)
            out[(a << 8) | b] = np.uint8(np.int32(v))


@kernel
def frost_u8(image, tex, x0, y0, table, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``out = table[(image << 8) | crop]`` with ``crop = tex[x0 : x0 + H, y0 : y0 + W]`` and a
    :func:`frost_table` (uint8, C-contiguous ``image``, ``tex`` and ``out``)."""
    h, w, nc = image.shape
    n = w * nc
    tn = tex.shape[1] * nc
    a = image.ravel()
    t = tex.ravel()
    of = out.ravel()
    for i in range(h):
        base = i * n
        tbase = (x0 + i) * tn + y0 * nc
        for k in range(n):
            of[base + k] = table[(np.int64(a[base + k]) << 8) | np.int64(t[tbase + k])]


@kernel
def fog_u8(image, plasma, lo, span, strength, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Fog from the uint8 image and a plasma map ``P`` (float64, at least H x W) whose
    normalised form is ``(P - lo) / span`` (``lo = min(P)``, ``span = max(P) - lo``, as the
    reference's ``P -= P.min(); P / P.max()``; ``0, 1`` for a map already normalised)::

        x = image / 255.0; m = x.max()                               # float64
        x += (strength * ((P - lo) / span)[:H, :W])[:, :, None]
        out = uint8(clip(x * m / (m + strength), 0, 1) * 255)

    (``x * m / d`` as the in-place ``x *= m; x /= d``: left to right.) ``image``, ``out``:
    C-contiguous.
    """
    h, w, nc = image.shape
    n = w * nc
    a = image.ravel()
    of = out.ravel()
    top = np.uint8(0)
    for k in range(a.size):
        top = max(top, a[k])
    lut = np.empty(256, dtype=np.float64)
    for v in range(256):
        lut[v] = v / 255.0
    mx = lut[top]  # division is monotonic: max(image / 255) = max(image) / 255
    den = mx + strength
    s_row = np.empty(n, dtype=np.float64)
    x_row = np.empty(n, dtype=np.float64)
    for i in range(h):
        p = plasma[i]
        for j in range(w):
            s = strength * ((p[j] - lo) / span)
            for c in range(nc):
                s_row[j * nc + c] = s
        base = i * n
        for k in range(n):
            x_row[k] = lut[a[base + k]]
        for k in range(n):
            v = ((x_row[k] + s_row[k]) * mx) / den
            v = min(max(v, 0.0), 1.0)
            of[base + k] = np.uint8(np.int32(v * 255.0))


@kernel
def _water_row(liquid8, dist, i, peak, intensity, colour, m_row):  # type: ignore[no-untyped-def]  # pragma: no cover
    # m_row[j * C + c] = m[i, j] * colour[c] (float32), m as in water_f32
    w = liquid8.shape[1]
    nc = colour.shape[0]
    for j in range(w):
        m = np.float32(liquid8[i, j]) * np.float32(dist[i, j])
        if peak > 0:
            m = (m / peak) * intensity
        for c in range(nc):
            m_row[j * nc + c] = m * colour[c]


@kernel
def _water_peak(liquid8, dist):  # type: ignore[no-untyped-def]  # pragma: no cover
    # max(float32(L8) * float32(d)): exact integers below 2**24
    peak = 0
    h, w = liquid8.shape
    for i in range(h):
        for j in range(w):
            peak = max(peak, np.int32(liquid8[i, j]) * np.int32(dist[i, j]))
    return np.float32(peak)


@kernel
def water_f32(x, liquid8, dist, intensity, colour, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """The water layer added to ``x`` (float32 H x W x C), before clipping (float32 ``out``)::

        m = float32(L8) * float32(d); p = m.max()
        if p > 0: m /= p; m *= intensity                             # float32
        out = m[:, :, None] * colour + x                             # float32

    ``liquid8``, ``dist``: uint8 H x W; ``intensity``: float32; ``colour``: float32 (C,);
    ``x``, ``out``: C-contiguous.
    """
    peak = _water_peak(liquid8, dist)
    h, w, nc = x.shape
    n = w * nc
    m_row = np.empty(n, dtype=np.float32)
    xf = x.ravel()
    of = out.ravel()
    for i in range(h):
        _water_row(liquid8, dist, i, peak, intensity, colour, m_row)
        base = i * n
        for k in range(n):
            of[base + k] = m_row[k] + xf[base + k]


@kernel
def water_u8(image, liquid8, dist, intensity, colour, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Spatter's water output from the uint8 image: :func:`water_f32` of ``x = image / 255``
    (float32), then ``uint8(clip(., 0, 1) * float32(255))`` in float32 (C-contiguous ``image``,
    ``out``)."""
    peak = _water_peak(liquid8, dist)
    one = np.float32(1.0)
    zero = np.float32(0.0)
    s255 = np.float32(255.0)
    h, w, nc = image.shape
    n = w * nc
    m_row = np.empty(n, dtype=np.float32)
    a = image.ravel()
    of = out.ravel()
    for i in range(h):
        _water_row(liquid8, dist, i, peak, intensity, colour, m_row)
        base = i * n
        for k in range(n):
            v = m_row[k] + np.float32(a[base + k]) / s255
            v = min(max(v, zero), one)
            of[base + k] = np.uint8(np.int32(v * s255))


@kernel
def mud_u8(image, mask, colour, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Spatter's mud output. ``mask``: float64 H x W (the smoothed mask, not yet thresholded);
    ``colour``: float64 (C,) (the float32 mud colour, widened); ``x = image / 255`` (float32);
    ``image``, ``out``: C-contiguous::

        mask[mask < 0.8] = 0
        y = float32(float64(x) * (1 - mask)) + float32(colour * mask)  # float32 sum
        out = uint8(clip(y, 0, 1) * float32(255))                      # float32
    """
    one = np.float32(1.0)
    zero = np.float32(0.0)
    s255 = np.float32(255.0)
    h, w, nc = image.shape
    n = w * nc
    keep_row = np.empty(n, dtype=np.float64)
    mud_row = np.empty(n, dtype=np.float32)
    a = image.ravel()
    of = out.ravel()
    for i in range(h):
        for j in range(w):
            mk = mask[i, j]
            if mk < 0.8:
                mk = 0.0
            keep = 1.0 - mk
            for c in range(nc):
                keep_row[j * nc + c] = keep
                mud_row[j * nc + c] = np.float32(colour[c] * mk)
        base = i * n
        for k in range(n):
            x = np.float64(np.float32(a[base + k]) / s255)
            v = np.float32(x * keep_row[k]) + mud_row[k]
            v = min(max(v, zero), one)
            of[base + k] = np.uint8(np.int32(v * s255))


@kernel
def _edge_span(s, d, n):  # type: ignore[no-untyped-def]  # pragma: no cover
    # the outputs o in 0..n-1 with clamp(o + d, 0, n - 1) == s, as a range [lo, hi]
    if 0 < s < n - 1:
        lo = s - d
        hi = lo
    elif n == 1:
        lo = 0
        hi = 0
    elif s == 0:
        lo = 0
        hi = -d
    else:
        lo = n - 1 - d
        hi = n - 1
    return max(lo, 0), min(hi, n - 1)


@kernel
def sparse_motion_blur_u8(layer, weights, offsets_x, offsets_y, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """:func:`corruptbench.ops.magick.apply_motion_kernel` of a one-channel uint8 layer, by scatter.

    ``out(y, x) = clamp_q(sum_i w[i] * 257 * L(clamp(y + dy[i]), clamp(x + dx[i]))) // 257``,
    the sum in float64 in tap order (``clamp``: ImageMagick's edge virtual pixels; ``clamp_q``:
    ``ClampToQuantum``). A zero sample adds ``+0.0``, which leaves the non-negative sum unchanged,
    so only the non-zero pixels of the layer are visited: tap by tap, each adds ``w[i] * q`` to
    the outputs that sample it with that tap (one output; for a pixel on the border, every
    output whose tap falls outside the image there). Each output receives at most one term per
    tap, in tap order: the same sums as the gather, bit for bit. ``layer``, ``out``: C-contiguous
    H x W. The cost is proportional to the non-zero pixels (a few percent of a snow layer).
    """
    h, w = layer.shape
    n = h * w
    count = 0
    for y in range(h):
        for x in range(w):
            if layer[y, x] != 0:
                count += 1
    idx = np.empty(count, dtype=np.int64)
    ys = np.empty(count, dtype=np.int64)
    xs = np.empty(count, dtype=np.int64)
    qs = np.empty(count, dtype=np.float64)
    # interior pixels first (one output per tap), then those on the border
    inner = 0
    # row_start[y]: the first interior entry of row y (rows 1 .. h - 2; row_start[h - 1] = end)
    row_start = np.zeros(max(h, 2), dtype=np.int64)
    for y in range(1, h - 1):
        row_start[y] = inner
        for x in range(1, w - 1):
            v = layer[y, x]
            if v != 0:
                idx[inner] = y * w + x
                ys[inner] = y
                xs[inner] = x
                qs[inner] = np.float64(v) * 257.0
                inner += 1
    row_start[max(h - 1, 1)] = inner
    m = inner
    for y in range(h):
        for x in range(w):
            v = layer[y, x]
            if v != 0 and not (0 < y < h - 1 and 0 < x < w - 1):
                idx[m] = y * w + x
                ys[m] = y
                xs[m] = x
                qs[m] = np.float64(v) * 257.0
                m += 1
    acc = np.zeros(n, dtype=np.float64)
    for t in range(weights.shape[0]):
        wt = weights[t]
        dx = offsets_x[t]
        dy = offsets_y[t]
        off = dy * w + dx
        # interior pixels in rows dy .. h - 1 + dy have their output row inside the image
        k0 = row_start[min(max(dy, 1), h - 1)]
        k1 = row_start[min(max(h + dy, 1), h - 1)]
        for k in range(k0, k1):
            x = xs[k] - dx
            if 0 <= x < w:
                acc[idx[k] - off] += wt * qs[k]
        for k in range(inner, count):
            p = wt * qs[k]
            ylo, yhi = _edge_span(ys[k], dy, h)
            xlo, xhi = _edge_span(xs[k], dx, w)
            for y in range(ylo, yhi + 1):
                for x in range(xlo, xhi + 1):
                    acc[y * w + x] += p
    of = out.ravel()
    for k in range(n):
        v = acc[k]
        if v <= 0.0:
            q = 0
        elif v >= 65535.0:
            q = 65535
        else:
            q = np.int32(v + 0.5)
        of[k] = np.uint8(q // 257)

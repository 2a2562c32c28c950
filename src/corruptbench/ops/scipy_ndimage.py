"""SciPy's ``ndimage`` steps of the elastic transform, compiled and bit-identical to SciPy.

* :func:`map_coordinates_reflect_bilinear` / :func:`map_coordinates_reflect_u8` —
  ``map_coordinates(order=1, mode='reflect')`` with SciPy's coordinate folding, weights and
  summation order (the latter fused with the clip and uint8 cast, for any grouping of the output
  rows: :func:`sampled_rows` says which rows of the image a group reads)
* :func:`gaussian_filter_reflect` / :func:`gaussian_filter_reflect_f32` —
  ``gaussian_filter(mode='reflect')`` (scikit-image ``gaussian(mode='reflect')``) of a 2-D field
"""

from __future__ import annotations

import functools

import numpy as np

from .gaussian import gaussian_kernel1d, gaussian_matrix
from .jit import kernel

__all__ = [
    "map_coordinates_reflect_bilinear",
    "map_coordinates_reflect_u8",
    "sampled_rows",
    "gaussian_filter_reflect",
    "gaussian_filter_reflect_f32",
]


@kernel
def _scipy_reflect_coordinate(c: float, n: int) -> float:
    # scipy.ndimage map_coordinate() for mode 'reflect' (NI_EXTEND_REFLECT), as SciPy >= 1.6
    if c < 0:
        if n <= 1:
            return 0.0
        sz2 = 2 * n
        if c < -sz2:
            c = sz2 * int(-c / sz2) + c
        # (SciPy guards against -c - 1 == -1, which would select the constant border)
        c = c + sz2 if c < -n else (1e-15 if c > -1e-15 else -c) - 1.0
    elif c > n - 1:
        if n <= 1:
            return 0.0
        sz2 = 2 * n
        c -= sz2 * int(c / sz2)
        if c >= n:
            c = sz2 - c - 1.0
    return c


@kernel
def _scipy_reflect_index(i: int, n: int) -> int:
    # the border-neighbour folding of scipy.ndimage's interpolation for mode 'reflect'
    # (half-sample symmetric: ... 1 0 | 0 1 ... n-1 | n-1 n-2 ...)
    if n <= 1:
        return 0
    s2 = 2 * n
    i %= s2  # Python/numba floor modulo: in [0, 2n)
    if i >= n:
        i = s2 - 1 - i
    return i


@kernel(inline="always")
def _linear_setup(c: float, n: int) -> tuple[bool, int, int, float, float]:
    cc = _scipy_reflect_coordinate(c, n)
    if not cc > -1.0:
        return False, 0, 0, 0.0, 0.0
    start = int(np.floor(cc))
    t = cc - np.floor(cc)
    w0 = 1.0 - t
    w1 = 1.0 - w0
    i0, i1 = start, start + 1
    if start < 0 or start + 1 >= n:
        i0 = _scipy_reflect_index(i0, n)
        i1 = _scipy_reflect_index(i1, n)
    return True, i0, i1, w0, w1


@kernel
def _map_coordinates_kernel(
    img: np.ndarray, dx: np.ndarray, dy: np.ndarray, out: np.ndarray
) -> None:
    h, w, cn = img.shape
    for i in range(h):
        for j in range(w):
            oky, y0, y1, wy0, wy1 = _linear_setup(np.float64(i) + np.float64(dy[i, j]), h)
            okx, x0, x1, wx0, wx1 = _linear_setup(np.float64(j) + np.float64(dx[i, j]), w)
            for k in range(cn):
                t = 0.0
                if oky and okx:
                    # the summation order of NI_GeometricTransform (last axis fastest); the
                    # channel axis contributes weights 1 and 0 (integer channel coordinate)
                    t += np.float64(img[y0, x0, k]) * wy0 * wx0
                    t += np.float64(img[y0, x1, k]) * wy0 * wx1
                    t += np.float64(img[y1, x0, k]) * wy1 * wx0
                    t += np.float64(img[y1, x1, k]) * wy1 * wx1
                out[i, j, k] = t


@kernel
def _map_coordinates_u8_kernel(
    img: np.ndarray, row0: int, dx: np.ndarray, dy: np.ndarray, r0: int, out: np.ndarray
) -> None:
    # rows r0 .. r0 + len(out) - 1 of _map_coordinates_kernel followed by _to_uint8_255 on its
    # float32 result, over the H x W displacements dx, dy, for a float64 image holding float32
    # values (converting them to float64 is exact) of which img holds the rows row0 ..
    # row0 + len(img) - 1 (every row these output rows sample), possibly padded with zero
    # channels so that the per-channel sums run as one vector (out has the real channels).
    # Row by row: a branch-free pass sets up the interior samples (no folding: floor ==
    # truncation, both neighbours inside), a second one the others, a third one samples.
    h, w = dx.shape
    cn = img.shape[2]
    cno = out.shape[2]
    zero = np.float32(0.0)
    one = np.float32(1.0)
    s255 = np.float32(255.0)
    ya = np.empty(w, np.int64)
    yb = np.empty(w, np.int64)
    xa = np.empty(w, np.int64)
    xb = np.empty(w, np.int64)
    wya = np.empty(w)
    wyb = np.empty(w)
    wxa = np.empty(w)
    wxb = np.empty(w)
    ok = np.empty(w, np.bool_)
    acc = np.empty(cn)
    for r in range(out.shape[0]):
        i = r0 + r
        fi = np.float64(i)
        for j in range(w):
            cy = fi + np.float64(dy[i, j])
            cx = np.float64(j) + np.float64(dx[i, j])
            inside = (cy >= 0.0) & (cy < h - 1) & (cx >= 0.0) & (cx < w - 1)
            sy = cy if inside else 0.0
            sx = cx if inside else 0.0
            y0 = int(sy)
            x0 = int(sx)
            wy0 = 1.0 - (sy - np.float64(y0))
            wx0 = 1.0 - (sx - np.float64(x0))
            ya[j] = y0
            yb[j] = y0 + 1
            xa[j] = x0
            xb[j] = x0 + 1
            wya[j] = wy0
            wyb[j] = 1.0 - wy0
            wxa[j] = wx0
            wxb[j] = 1.0 - wx0
            ok[j] = inside
        for j in range(w):
            if not ok[j]:
                oky, ya[j], yb[j], wya[j], wyb[j] = _linear_setup(fi + np.float64(dy[i, j]), h)
                okx, xa[j], xb[j], wxa[j], wxb[j] = _linear_setup(
                    np.float64(j) + np.float64(dx[i, j]), w
                )
                ok[j] = oky and okx
        for j in range(w):
            if ok[j]:
                y0 = ya[j] - row0
                y1 = yb[j] - row0
                x0 = xa[j]
                x1 = xb[j]
                wy0 = wya[j]
                wy1 = wyb[j]
                wx0 = wxa[j]
                wx1 = wxb[j]
                p00 = img[y0, x0]
                p01 = img[y0, x1]
                p10 = img[y1, x0]
                p11 = img[y1, x1]
                for k in range(cn):
                    # the summation order of NI_GeometricTransform (see _map_coordinates_kernel)
                    t = 0.0
                    t += p00[k] * wy0 * wx0
                    t += p01[k] * wy0 * wx1
                    t += p10[k] * wy1 * wx0
                    t += p11[k] * wy1 * wx1
                    acc[k] = t
                for k in range(cno):
                    out[r, j, k] = np.uint8(min(max(np.float32(acc[k]), zero), one) * s255)
            else:
                for k in range(cno):
                    out[r, j, k] = 0


def map_coordinates_reflect_u8(
    image: np.ndarray,
    dx: np.ndarray,
    dy: np.ndarray,
    out: np.ndarray,
    *,
    image_row0: int = 0,
    out_row0: int = 0,
) -> None:
    """:func:`map_coordinates_reflect_bilinear` followed by ``np.uint8(np.clip(float32(.), 0, 1)
    * 255)``, fused, into the uint8 ``out``: rows ``out_row0 ..`` of the ``H x W x C'`` result.

    ``dx``, ``dy``: ``H x W`` float32 displacements. ``image``: C-contiguous float64 rows
    ``image_row0 ..`` of the ``H x W x C`` image, holding float32 values (converting them is
    exact), possibly with zero channels after the ``C'`` real ones so that the per-channel sums
    run as one vector (``C = 4`` for RGB). Rows of the result can be made in any grouping (a
    row's values do not depend on the others), each from the rows of the image it samples
    (:func:`sampled_rows`): ``out`` and ``image`` need not hold the whole image.
    """
    # C-contiguous displacements: the one layout the kernel is compiled for (signature table)
    _map_coordinates_u8_kernel(
        image,
        int(image_row0),
        np.ascontiguousarray(dx),
        np.ascontiguousarray(dy),
        int(out_row0),
        out,
    )


@kernel
def _sampled_rows_kernel(dy: np.ndarray, r0: int, r1: int) -> tuple[int, int]:
    # (first, last) row index that rows r0 .. r1 - 1 of _map_coordinates_u8_kernel read (as its
    # _linear_setup folds them); (0, -1) when none is read
    h = dy.shape[0]
    # first the coordinates' range: when every one lies in [0, h - 1) nothing folds and the
    # rows read are floor(c) and floor(c) + 1, so the extremes give the answer (floor is
    # monotonic; so is float64(i) + dy, so the row minima / maxima give the extremes). NaNs
    # pass no comparison, as they are skipped below (not sampled); all NaN: cmin > cmax
    cmin = np.inf
    cmax = -np.inf
    for i in range(r0, r1):
        row = dy[i]
        dmin = np.float32(np.inf)
        dmax = np.float32(-np.inf)
        for j in range(dy.shape[1]):
            v = row[j]
            dmin = v if v < dmin else dmin
            dmax = v if v > dmax else dmax
        cmin = min(cmin, np.float64(i) + np.float64(dmin))
        cmax = max(cmax, np.float64(i) + np.float64(dmax))
    if cmin <= cmax and cmin >= 0.0 and cmax < h - 1:
        return int(cmin), int(cmax) + 1
    lo = h
    hi = -1
    for i in range(r0, r1):
        fi = np.float64(i)
        for j in range(dy.shape[1]):
            ok, y0, y1, _, _ = _linear_setup(fi + np.float64(dy[i, j]), h)
            if ok:
                lo = min(lo, min(y0, y1))
                hi = max(hi, max(y0, y1))
    if hi < 0:
        return 0, -1
    return lo, hi


def sampled_rows(dy: np.ndarray, start: int, stop: int) -> tuple[int, int]:
    """The first and last row of the image that rows ``start .. stop - 1`` of
    :func:`map_coordinates_reflect_u8` read, with the displacements ``dy`` (``H x W`` float32):
    the rows the image must hold for them (``(0, -1)``: none)."""
    lo, hi = _sampled_rows_kernel(np.ascontiguousarray(dy), int(start), int(stop))
    return int(lo), int(hi)


def map_coordinates_reflect_bilinear(
    image: np.ndarray, dx: np.ndarray, dy: np.ndarray
) -> np.ndarray:
    """``map_coordinates(image, (y + dy, x + dx, z), order=1, mode='reflect')`` of the reference.

    ``image``: ``H x W x C``; ``dx``, ``dy``: ``H x W`` displacements (float32 as in the reference).
    Samples every channel at ``(i + dy[i, j], j + dx[i, j])`` with SciPy's coordinate folding for
    'reflect' (and its mirror folding of border neighbours), weights ``1 - t``, ``1 - (1 - t)``,
    products and sum in float64 in SciPy's order; the result has ``image``'s dtype.
    """
    img = np.ascontiguousarray(image)
    out = np.empty(img.shape, img.dtype)
    _map_coordinates_kernel(img, np.ascontiguousarray(dx), np.ascontiguousarray(dy), out)
    return out


#: float64 values of a block of lines the FFT filter transforms at a time (2 MiB; its
#: temporaries are a few times that, whatever the field's size)
_FFT_BLOCK_VALUES = 1 << 18
#: rows of a block of the direct filter (its first pass's float64 result is one block)
_DIRECT_BLOCK_ROWS = 64


def _reflect_gaussian_fft_into(
    src: np.ndarray, sigma: float, truncate: float, axis: int, scale: float, dst: np.ndarray
) -> None:
    """``dst = correlate(src) * scale`` along ``axis`` (cast to ``dst``'s dtype), as a circular
    convolution of the symmetric extension, in blocks of rows (``axis=1``) or columns (``axis=0``).

    Each line along ``axis`` is transformed on its own (pocketfft's 1-D transforms of a batch):
    the blocks give the bytes of one transform of the whole array (checked in the tests), and
    only one block's extension and spectrum exist at a time. ``dst`` may be ``src`` (a block is
    copied into its extension before its result is written).
    """
    import scipy.fft  # here: ~0.2 s to import, and only wide filters need it

    n = src.shape[axis]
    phi = gaussian_kernel1d(sigma, truncate)
    radius = (len(phi) - 1) // 2
    x = np.arange(-radius, radius + 1)
    folded = np.bincount(np.mod(x, 2 * n), weights=phi, minlength=2 * n)  # symmetric kernel
    kernel_spec = scipy.fft.rfft(folded).reshape((-1, 1) if axis == 0 else (1, -1))
    lines = src.shape[1 - axis]
    step = max(1, _FFT_BLOCK_VALUES // (2 * n))
    for b0 in range(0, lines, step):
        block = (slice(None), slice(b0, b0 + step)) if axis == 0 else (slice(b0, b0 + step),)
        part = src[block]
        spec = scipy.fft.rfft(
            np.concatenate([part, np.flip(part, axis=axis)], axis=axis), axis=axis
        )
        spec *= kernel_spec
        out = scipy.fft.irfft(spec, n=2 * n, axis=axis)
        del spec
        out = out[:n] if axis == 0 else out[:, :n]
        if scale != 1.0:
            out *= scale
        dst[block] = out


def _gaussian_fft_scaled(
    field: np.ndarray,
    sigma: float,
    truncate: float,
    scale: float,
    out: np.ndarray,
    *,
    overwrite: bool,
) -> None:
    """``out = gaussian_filter(field, mode='reflect') * scale`` (cast to ``out``'s dtype) by FFT,
    axis 0 then axis 1, the first pass into ``field`` itself when ``overwrite`` (else a new
    float64 array, or ``out`` when that is float64)."""
    if overwrite:
        tmp = field
    elif out.dtype == np.float64:
        tmp = out
    else:
        tmp = np.empty(field.shape)
    _reflect_gaussian_fft_into(field, sigma, truncate, 0, 1.0, tmp)
    _reflect_gaussian_fft_into(tmp, sigma, truncate, 1, scale, out)


@kernel
def _correlate_reflect_rows(src: np.ndarray, wts: np.ndarray, i0: int, dst: np.ndarray) -> None:
    # rows i0 .. i0 + len(dst) - 1 of
    # scipy.ndimage.correlate1d(src, wts, axis=0, mode='reflect') for a symmetric float64 kernel
    # (NI_Correlate1D's symmetric branch): out = x[i] * w[c], then for k = c .. 1 (outer taps
    # first) out += (x[i - k] + x[i + k]) * w[c - k], the neighbours folded half-sample
    # symmetrically; vectorised over the columns, four taps per sweep over the row (per element
    # the same operations in the same order)
    n = src.shape[0]
    m = src.shape[1]
    c = wts.shape[0] // 2
    for r in range(dst.shape[0]):
        i = i0 + r
        acc = dst[r]
        row = src[i]
        wc = wts[c]
        for j in range(m):
            acc[j] = row[j] * wc
        k = c
        while k >= 4:
            a0 = src[_scipy_reflect_index(i - k, n)]
            b0 = src[_scipy_reflect_index(i + k, n)]
            a1 = src[_scipy_reflect_index(i - k + 1, n)]
            b1 = src[_scipy_reflect_index(i + k - 1, n)]
            a2 = src[_scipy_reflect_index(i - k + 2, n)]
            b2 = src[_scipy_reflect_index(i + k - 2, n)]
            a3 = src[_scipy_reflect_index(i - k + 3, n)]
            b3 = src[_scipy_reflect_index(i + k - 3, n)]
            u0 = wts[c - k]
            u1 = wts[c - k + 1]
            u2 = wts[c - k + 2]
            u3 = wts[c - k + 3]
            for j in range(m):
                v = acc[j] + (a0[j] + b0[j]) * u0
                v = v + (a1[j] + b1[j]) * u1
                v = v + (a2[j] + b2[j]) * u2
                acc[j] = v + (a3[j] + b3[j]) * u3
            k -= 4
        while k >= 1:
            lo = src[_scipy_reflect_index(i - k, n)]
            hi = src[_scipy_reflect_index(i + k, n)]
            wk = wts[c - k]
            for j in range(m):
                acc[j] += (lo[j] + hi[j]) * wk
            k -= 1


@kernel
def _correlate_reflect_cols_scaled(
    src: np.ndarray, wts: np.ndarray, scale: float, dst: np.ndarray
) -> None:
    # the same correlation along axis 1, then ``(result * scale)`` cast to dst's dtype; each row
    # is first copied into a buffer extended by the kernel radius with the reflected values, then
    # summed four taps per sweep as above
    n = src.shape[1]
    c = wts.shape[0] // 2
    buf = np.empty(n + 2 * c)
    acc = np.empty(n)
    wc = wts[c]
    for i in range(src.shape[0]):
        row = src[i]
        for j in range(c):
            buf[j] = row[_scipy_reflect_index(j - c, n)]
            buf[n + c + j] = row[_scipy_reflect_index(n + j, n)]
        for j in range(n):
            buf[c + j] = row[j]
        mid = buf[c : c + n]
        for j in range(n):
            acc[j] = mid[j] * wc
        k = c
        while k >= 4:
            a0 = buf[c - k : c - k + n]  # (views: plain non-negative indices in the loop)
            b0 = buf[c + k : c + k + n]
            a1 = buf[c - k + 1 : c - k + 1 + n]
            b1 = buf[c + k - 1 : c + k - 1 + n]
            a2 = buf[c - k + 2 : c - k + 2 + n]
            b2 = buf[c + k - 2 : c + k - 2 + n]
            a3 = buf[c - k + 3 : c - k + 3 + n]
            b3 = buf[c + k - 3 : c + k - 3 + n]
            u0 = wts[c - k]
            u1 = wts[c - k + 1]
            u2 = wts[c - k + 2]
            u3 = wts[c - k + 3]
            for j in range(n):
                v = acc[j] + (a0[j] + b0[j]) * u0
                v = v + (a1[j] + b1[j]) * u1
                v = v + (a2[j] + b2[j]) * u2
                acc[j] = v + (a3[j] + b3[j]) * u3
            k -= 4
        while k >= 1:
            wk = wts[c - k]
            lo = buf[c - k : c - k + n]
            hi = buf[c + k : c + k + n]
            for j in range(n):
                acc[j] += (lo[j] + hi[j]) * wk
            k -= 1
        out = dst[i]
        for j in range(n):
            out[j] = acc[j] * scale


def _gaussian_small_scaled(
    field: np.ndarray, sigma: float, truncate: float, scale: float, out: np.ndarray
) -> None:
    """``out = (scipy.ndimage.gaussian_filter(field, sigma, mode='reflect', radius) * scale)``
    cast to ``out``'s dtype.

    Compiled, bit-identical to SciPy (axis 0 then axis 1, float64, SciPy's symmetric-kernel
    summation order), the scaling and cast fused into the second pass. The passes run in blocks
    of rows (each row's first pass reads the field, not the block), so the first pass's float64
    result exists one block at a time.
    """
    phi = gaussian_kernel1d(sigma, truncate)
    wts = np.ascontiguousarray(phi[::-1])  # scipy correlates with the reversed kernel
    h, w = field.shape
    rows = _DIRECT_BLOCK_ROWS
    tmp = np.empty((min(rows, h), w))
    for r0 in range(0, h, rows):
        block = tmp[: min(rows, h - r0)]
        _correlate_reflect_rows(field, wts, r0, block)
        _correlate_reflect_cols_scaled(block, wts, float(scale), out[r0 : r0 + len(block)])


@kernel
def _matmul_rows(m: np.ndarray, f: np.ndarray, out: np.ndarray) -> None:
    # out = m @ f without BLAS: out[i, :] = sum_k m[i, k] * f[k, :], each element summed in k
    # order from 0 (products rounded, then added); four rows and four k per sweep over a row
    # (vectorised over the columns; per element the same operations in the same order)
    r = m.shape[0]
    n, w = f.shape
    i = 0
    while i < r:
        rows = min(4, r - i)
        for q in range(rows):
            o = out[i + q]
            for j in range(w):
                o[j] = 0.0
        if rows == 4:
            o0 = out[i]
            o1 = out[i + 1]
            o2 = out[i + 2]
            o3 = out[i + 3]
            k = 0
            while k + 4 <= n:
                fa = f[k]
                fb = f[k + 1]
                fc = f[k + 2]
                fd = f[k + 3]
                a0, b0, c0, d0 = m[i, k], m[i, k + 1], m[i, k + 2], m[i, k + 3]
                a1, b1, c1, d1 = m[i + 1, k], m[i + 1, k + 1], m[i + 1, k + 2], m[i + 1, k + 3]
                a2, b2, c2, d2 = m[i + 2, k], m[i + 2, k + 1], m[i + 2, k + 2], m[i + 2, k + 3]
                a3, b3, c3, d3 = m[i + 3, k], m[i + 3, k + 1], m[i + 3, k + 2], m[i + 3, k + 3]
                for j in range(w):
                    va = fa[j]
                    vb = fb[j]
                    vc = fc[j]
                    vd = fd[j]
                    o0[j] = (((o0[j] + a0 * va) + b0 * vb) + c0 * vc) + d0 * vd
                    o1[j] = (((o1[j] + a1 * va) + b1 * vb) + c1 * vc) + d1 * vd
                    o2[j] = (((o2[j] + a2 * va) + b2 * vb) + c2 * vc) + d2 * vd
                    o3[j] = (((o3[j] + a3 * va) + b3 * vb) + c3 * vc) + d3 * vd
                k += 4
            while k < n:
                fa = f[k]
                a0, a1, a2, a3 = m[i, k], m[i + 1, k], m[i + 2, k], m[i + 3, k]
                for j in range(w):
                    va = fa[j]
                    o0[j] += a0 * va
                    o1[j] += a1 * va
                    o2[j] += a2 * va
                    o3[j] += a3 * va
                k += 1
        else:
            for q in range(rows):
                o = out[i + q]
                for k in range(n):
                    a = m[i + q, k]
                    fa = f[k]
                    for j in range(w):
                        o[j] += a * fa[j]
        i += rows


@kernel
def _fold_apply(
    ms: np.ndarray, md: np.ndarray, full: np.ndarray, f: np.ndarray, out: np.ndarray
) -> None:
    # out = M @ f for the n x n folded operator ``full`` of a symmetric kernel, which is
    # persymmetric (M[i, j] = M[n-1-i, n-1-j]). With h = n // 2, s = top + flip(bottom) and
    # d = top - flip(bottom) (h rows each), P = ms @ s, Q = md @ d, where ms, md = (A +- B J) / 2
    # of M's top blocks [A | b | B] (b: the middle column of an odd n): the top rows are P + Q
    # and the bottom rows, flipped, P - Q, plus b * f[h] on both for an odd n, whose middle row
    # is M[h, :h] @ s + M[h, h] * f[h]. Half the products of the dense form.
    n, w = f.shape
    h = n // 2
    s = np.empty((h, w))
    d = np.empty((h, w))
    for i in range(h):
        top = f[i]
        bot = f[n - 1 - i]
        si = s[i]
        di = d[i]
        for j in range(w):
            si[j] = top[j] + bot[j]
            di[j] = top[j] - bot[j]
    p = np.empty((h, w))
    q = np.empty((h, w))
    _matmul_rows(ms, s, p)
    _matmul_rows(md, d, q)
    if n % 2 == 1:
        mid = f[h]
        for i in range(h):
            bi = full[i, h]
            pi = p[i]
            for j in range(w):
                pi[j] += bi * mid[j]
        om = out[h]
        for j in range(w):
            om[j] = 0.0
        for k in range(h):
            ck = full[h, k]
            sk = s[k]
            for j in range(w):
                om[j] += ck * sk[j]
        cm = full[h, h]
        for j in range(w):
            om[j] += cm * mid[j]
    for i in range(h):
        pi = p[i]
        qi = q[i]
        ot = out[i]
        ob = out[n - 1 - i]
        for j in range(w):
            ot[j] = pi[j] + qi[j]
            ob[j] = pi[j] - qi[j]


@functools.lru_cache(maxsize=64)
def _fold_operator(
    n: int, sigma: float, truncate: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ms, md, full)`` of :func:`_fold_apply` for the reflect-mode operator of one axis."""
    full = gaussian_matrix(n, sigma, truncate, "reflect")
    h = n // 2
    a = full[:h, :h]
    bj = full[:h, n - h :][:, ::-1]
    ms = np.ascontiguousarray((a + bj) / 2)
    md = np.ascontiguousarray((a - bj) / 2)
    for arr in (ms, md):
        arr.flags.writeable = False
    return ms, md, full


def _gaussian_folded(field: np.ndarray, sigma: float, truncate: float) -> np.ndarray:
    """``M_h @ field @ M_w.T`` with the folded operators of :func:`gaussian_matrix`, compiled."""
    h, w = field.shape
    tmp = np.empty((h, w))
    _fold_apply(*_fold_operator(h, sigma, truncate), field, tmp)
    out_t = np.empty((w, h))
    _fold_apply(*_fold_operator(w, sigma, truncate), np.ascontiguousarray(tmp.T), out_t)
    return out_t.T


def gaussian_filter_reflect_f32(
    field: np.ndarray, sigma: float, scale: float, *, overwrite_field: bool = False
) -> np.ndarray:
    """``(gaussian_filter_reflect(field, sigma) * scale).astype(np.float32)`` (the same bytes).

    For kernels filtered directly (up to 193 taps) and by FFT the scaling and the cast run fused
    into the last pass, block by block. ``overwrite_field=True`` lets the FFT path use a
    C-contiguous float64 ``field`` as its intermediate (its contents are then undefined), so that
    the filter needs no float64 array of the field's size besides the field itself.
    """
    sigma = float(sigma)
    radius = int(3.0 * sigma + 0.5)
    direct = 2 * radius + 1 <= _DIRECT_KERNEL
    if sigma > 1e-15 and np.ndim(field) == 2 and (direct or max(np.shape(field)) > 512):
        src = np.ascontiguousarray(field, dtype=np.float64)
        out = np.empty(src.shape, np.float32)
        if direct:
            _gaussian_small_scaled(src, sigma, 3.0, scale, out)
        else:
            mine = overwrite_field and src is field and src.flags.writeable
            _gaussian_fft_scaled(src, sigma, 3.0, scale, out, overwrite=mine)
        return out
    # C order: the folded path's result is a transposed view; the cast lays it out C-contiguous
    return (gaussian_filter_reflect(field, sigma) * scale).astype(np.float32, order="C")


#: the widest kernel (taps) filtered directly, as SciPy does (bit-identical); wider ones (longer
#: than the side, e.g. elastic's 0.7 x 244 px sigma) use the folded operators
_DIRECT_KERNEL = 193


def gaussian_filter_reflect(field: np.ndarray, sigma: float, truncate: float = 3.0) -> np.ndarray:
    """``skimage.filters.gaussian(field, sigma, mode='reflect', truncate=truncate)`` of a 2-D field.

    Equals ``scipy.ndimage.gaussian_filter(field, sigma, mode='reflect', truncate=truncate)``
    (float64). Kernels of up to 193 taps (radius 96) run a compiled copy of SciPy's separable
    correlation (its symmetric-kernel summation order: bit-identical). Wider kernels (the
    reference's elastic sigmas reach 0.7 x 244 px, wider than the image) are applied exactly folded
    onto the image's period-2n symmetric extension (:func:`~corruptbench.ops.gaussian.gaussian_matrix`),
    as compiled products with the two folded operators (half of them for an even side, by the
    operator's persymmetry; no BLAS: no thread pool spinning on the other cores) for sides up to
    512 px, or FFT convolutions beyond (in blocks of lines): equal to SciPy's up to float64
    round-off (~1e-15 relative), which the elastic transform's float32 displacements absorb.
    """
    field = np.asarray(field, dtype=np.float64)
    sigma = float(sigma)
    if sigma <= 1e-15:  # scipy skips such axes
        return field.copy()
    radius = int(truncate * sigma + 0.5)
    h, w = field.shape
    if 2 * radius + 1 > _DIRECT_KERNEL and max(h, w) <= 512:
        return _gaussian_folded(np.ascontiguousarray(field), sigma, float(truncate))
    out = np.empty((h, w))
    if 2 * radius + 1 <= _DIRECT_KERNEL:
        _gaussian_small_scaled(np.ascontiguousarray(field), sigma, truncate, 1.0, out)
    else:
        _gaussian_fft_scaled(field, sigma, truncate, 1.0, out, overwrite=False)
    return out

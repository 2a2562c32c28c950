"""Clipped zoom: the reference ``clipped_zoom`` (``scipy.ndimage.zoom(order=1)`` of a centre crop)
re-implemented natively, with the same coordinate mapping and weights.

* :func:`clipped_zoom` — centre-crop-and-zoom used by zoom blur and snow
* :func:`zoom_sum` — the sum of several clipped zooms (zoom blur's inner loop)
* :func:`zoom_blur_u8` — the whole zoom blur on uint8 in one compiled pass
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .jit import kernel

__all__ = [
    "clipped_zoom",
    "zoom_sum",
    "zoom_blur_u8",
    "zoom_axis_table",
    "clipped_zoom_geometry",
]


def clipped_zoom_geometry(length: int, zoom_factor: float) -> tuple[int, int, int, int]:
    """``(crop, top, zoomed, trim)`` of the reference ``clipped_zoom`` along an axis of ``length``.

    ``crop = ceil(length / z)``, ``top = (length - crop) // 2``, ``zoomed = round(crop * z)`` (SciPy's
    output size), ``trim = (zoomed - length) // 2``. E.g. (224, 1.3) -> (173, 25, 225, 0).
    """
    z = float(zoom_factor)
    c = int(math.ceil(length / z))
    n = int(round(c * z))
    return c, (length - c) // 2, n, (n - length) // 2


@functools.lru_cache(maxsize=512)
def zoom_axis_table(
    length: int, zoom_factor: float, whole: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Interpolation table of one axis of the reference ``clipped_zoom(img, z)``.

    For each of the ``length`` kept output positions: ``(i0, i1, w0, w1)`` with the output
    ``w0 * img[i0] + w1 * img[i1]`` along this axis (indices into the *uncropped* axis).

    Geometry (reference): ``c = ceil(length / z)``, ``top = (length - c) // 2``; scipy zoom output
    length ``n = round(c * z)``; output index ``k`` samples crop coordinate ``k * ((c - 1) / (n - 1))``
    (``grid_mode=False``); order-1 spline weights ``(1 - f, f)`` at ``floor``; the out-of-range tap
    is mirrored (weight 0 there) and a coordinate beyond ``c - 1`` by round-off gives 0 (mode
    'constant'); finally the centred trim ``(n - length) // 2``. With ``whole``, all ``n`` zoomed
    positions and no trim (imagecorruptions 1.1.2's ``clipped_zoom``).
    """
    if not zoom_factor >= 1:  # the reference only zooms in (z < 1 would crop outside the image)
        raise ValueError(f"clipped_zoom needs zoom_factor >= 1, got {zoom_factor}")
    c, top, n, trim = clipped_zoom_geometry(length, zoom_factor)
    step = (c - 1) / (n - 1) if n > 1 else 1.0
    k = (
        np.arange(n, dtype=np.float64)
        if whole
        else np.arange(trim, trim + length, dtype=np.float64)
    )
    cc = k * step
    outside = cc > c - 1
    start = np.floor(cc)
    frac = cc - start
    i0 = start.astype(np.int64)
    i1 = i0 + 1
    if c <= 1:
        i1[:] = 0
    else:
        over = i1 >= c
        i1[over] = 2 * c - 2 - i1[over]
    w0 = 1.0 - frac
    w1 = frac.copy()
    w0[outside] = 0.0
    w1[outside] = 0.0
    i0[outside] = 0
    i1[outside] = 0
    i0 = np.clip(i0, 0, c - 1) + top
    i1 = np.clip(i1, 0, c - 1) + top
    for a in (i0, i1, w0, w1):
        a.flags.writeable = False
    return i0, i1, w0, w1


@kernel
def _zoom_columns(src, rlo, rhi, c0, c1, cw0, cw1, t):  # pragma: no cover - compiled
    # t[k, j * nc + ch] = src[k, c0[j], ch] * cw0[j] + src[k, c1[j], ch] * cw1[j], rows rlo..rhi-1
    w = c0.shape[0]
    nc = src.shape[2]
    for k in range(rlo, rhi):
        s = src[k]
        tk = t[k]
        if nc == 3:
            for j in range(w):
                b0 = cw0[j]
                b1 = cw1[j]
                p = s[c0[j]]
                q = s[c1[j]]
                o = 3 * j
                tk[o] = p[0] * b0 + q[0] * b1
                tk[o + 1] = p[1] * b0 + q[1] * b1
                tk[o + 2] = p[2] * b0 + q[2] * b1
        else:
            for j in range(w):
                b0 = cw0[j]
                b1 = cw1[j]
                p = s[c0[j]]
                q = s[c1[j]]
                for ch in range(nc):
                    tk[j * nc + ch] = p[ch] * b0 + q[ch] * b1


@kernel
def _zoom_one(src, r0, r1, rw0, rw1, c0, c1, cw0, cw1, out):  # pragma: no cover - compiled
    # src (H, W, C) float; out (h, w * C): separable bilinear in double (columns, then rows),
    # cast to out's dtype on store.
    t = np.empty((src.shape[0], c0.shape[0] * src.shape[2]), dtype=np.float64)
    rlo = min(r0.min(), r1.min())
    rhi = max(r0.max(), r1.max()) + 1
    _zoom_columns(src, rlo, rhi, c0, c1, cw0, cw1, t)
    n = t.shape[1]
    for i in range(r0.shape[0]):
        a0 = rw0[i]
        a1 = rw1[i]
        ta = t[r0[i]]
        tb = t[r1[i]]
        oi = out[i]
        for e in range(n):
            oi[e] = ta[e] * a0 + tb[e] * a1


#: numba's ``_lerp4`` intrinsic, made by :func:`_numba_globals` when a kernel is first compiled
_lerp4: Any = None


def _numba_globals() -> dict[str, Any]:
    # compile-time globals of this module's kernels (ops.jit adds them before the first
    # kernel is made): numba and llvmlite are imported only when a kernel is compiled
    from llvmlite import ir
    from numba.core import types as nbtypes
    from numba.extending import intrinsic

    @intrinsic
    def _lerp4(typingctx, t, o, s, p, q, b0, b1):  # type: ignore[no-untyped-def]  # pragma: no cover
        """``t[o : o + 4] = s[p : p + 4] * b0 + s[q : q + 4] * b1`` as one 4 x double vector operation.

        Lane by lane the same IEEE operations as the scalar expression (float32 ``s`` widened exactly,
        two products rounded, then their sum; no fused multiply-add). ``t`` float64 and ``s``
        float32/float64 1-D C-contiguous arrays; no bounds checks (the caller's indices are valid).
        numba leaves its SLP vectoriser off, so a pixel's four lanes would otherwise stay scalar.
        """
        ok = (
            isinstance(t, nbtypes.Array)
            and isinstance(s, nbtypes.Array)
            and t.ndim == 1
            and s.ndim == 1
            and t.layout == "C"
            and s.layout == "C"
            and t.dtype == nbtypes.float64
            and s.dtype in (nbtypes.float32, nbtypes.float64)
        )
        if not ok:
            return None
        sig = nbtypes.void(t, o, s, p, q, nbtypes.float64, nbtypes.float64)

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            targ, oarg, sarg, parg, qarg, b0arg, b1arg = args
            tary = context.make_array(signature.args[0])(context, builder, targ)
            sary = context.make_array(signature.args[2])(context, builder, sarg)
            vty = ir.VectorType(ir.DoubleType(), 4)
            s_el = context.get_data_type(signature.args[2].dtype)
            i32 = ir.IntType(32)

            def load(idx):  # type: ignore[no-untyped-def]
                ptr = builder.gep(sary.data, [idx])
                v = builder.load(builder.bitcast(ptr, ir.VectorType(s_el, 4).as_pointer()), align=4)
                return v if s_el == ir.DoubleType() else builder.fpext(v, vty)

            def splat(x):  # type: ignore[no-untyped-def]
                v = builder.insert_element(ir.Constant(vty, ir.Undefined), x, ir.Constant(i32, 0))
                mask = ir.Constant(ir.VectorType(i32, 4), [0, 0, 0, 0])
                return builder.shuffle_vector(v, ir.Constant(vty, ir.Undefined), mask)

            b0v = context.cast(builder, b0arg, signature.args[5], nbtypes.float64)
            b1v = context.cast(builder, b1arg, signature.args[6], nbtypes.float64)
            r = builder.fadd(
                builder.fmul(load(parg), splat(b0v)), builder.fmul(load(qarg), splat(b1v))
            )
            dst = builder.bitcast(builder.gep(tary.data, [oarg]), vty.as_pointer())
            builder.store(r, dst, align=8)
            return context.get_dummy_value()

        return sig, codegen

    return {"_lerp4": _lerp4}


@kernel
def _zoom_column_row(s, c0, c1, cw0, cw1, nc, vec, t):  # pragma: no cover - compiled
    # One source row s (W * nc) -> t (w * nc, float64):
    # t[j * nc + ch] = s[c0[j] * nc + ch] * cw0[j] + s[c1[j] * nc + ch] * cw1[j] (as _zoom_columns)
    # ``vec`` (nc == 3 only): one 4-lane operation per pixel, left to right; the fourth lane reads
    # the next pixel's first value and writes a value that the next pixel overwrites, so s's and
    # t's buffers need one element of slack past the row's end (the last pixel's fourth lane).
    w = c0.shape[0]
    if vec:
        for j in range(w):
            _lerp4(t, 3 * j, s, 3 * c0[j], 3 * c1[j], cw0[j], cw1[j])
    elif nc == 3:
        for j in range(w):
            b0 = cw0[j]
            b1 = cw1[j]
            p = 3 * c0[j]
            q = 3 * c1[j]
            o = 3 * j
            t[o] = s[p] * b0 + s[q] * b1
            t[o + 1] = s[p + 1] * b0 + s[q + 1] * b1
            t[o + 2] = s[p + 2] * b0 + s[q + 2] * b1
    else:
        for j in range(w):
            b0 = cw0[j]
            b1 = cw1[j]
            p = nc * c0[j]
            q = nc * c1[j]
            for ch in range(nc):
                t[j * nc + ch] = s[p + ch] * b0 + s[q + ch] * b1


@kernel
def _zoom_add_row(
    src, nc, vec, i, r0, r1, rw0, rw1, c0, c1, cw0, cw1, held, tbuf, acc
):  # pragma: no cover
    # acc (w * nc, float32) += float32(clipped_zoom(src, z)[i]) for every zoom z of the stacked
    # tables, in order, with the arithmetic of _zoom_one (columns in double, then rows in double,
    # cast to float32, added in float32). The column-interpolated source rows are computed on
    # demand and kept in two slots per zoom (tbuf[z, slot], row index in held[z, slot]): output
    # rows move down monotonically, so each one is computed about once and stays cached.
    n = acc.shape[0]
    for z in range(r0.shape[0]):
        ra = r0[z, i]
        rb = r1[z, i]
        if held[z, 0] == ra:
            sa = 0
        elif held[z, 1] == ra:
            sa = 1
        else:
            sa = 1 if held[z, 0] == rb else 0
            _zoom_column_row(src[ra], c0[z], c1[z], cw0[z], cw1[z], nc, vec, tbuf[z, sa])
            held[z, sa] = ra
        if held[z, 0] == rb:
            sb = 0
        elif held[z, 1] == rb:
            sb = 1
        else:
            sb = 1 - sa
            _zoom_column_row(src[rb], c0[z], c1[z], cw0[z], cw1[z], nc, vec, tbuf[z, sb])
            held[z, sb] = rb
        a0 = rw0[z, i]
        a1 = rw1[z, i]
        ta = tbuf[z, sa]
        tb = tbuf[z, sb]
        for e in range(n):
            acc[e] += np.float32(ta[e] * a0 + tb[e] * a1)


@kernel
def _zoom_sum_f32(src, nc, r0, r1, rw0, rw1, c0, c1, cw0, cw1, acc):  # pragma: no cover - compiled
    # For each zoom z (first axis of the tables): acc += float32(clipped_zoom(src, z)), with the
    # arithmetic of _zoom_one. src (H, W * C) float32, acc (h, w * C) float32.
    nz = r0.shape[0]
    n = acc.shape[1]
    held = np.full((nz, 2), -1, dtype=np.int64)
    tbuf = np.empty((nz, 2, n), dtype=np.float64)
    for i in range(acc.shape[0]):
        _zoom_add_row(src, nc, False, i, r0, r1, rw0, rw1, c0, c1, cw0, cw1, held, tbuf, acc[i])


@kernel
def _zoom_blur_u8(img, identity, r0, r1, rw0, rw1, c0, c1, cw0, cw1, xbuf, out):  # pragma: no cover
    # Zoom blur of a 3-channel image (H, W * 3), fused: x = float32(img / 255.) in the flat
    # float32 scratch xbuf (H * W * 3 + 1: one element of slack for the 4-lane column pass); per
    # output row acc = x (the factor-1 zoom, when ``identity``) or 0, += each other zoom
    # (_zoom_add_row); v = (acc + x) / float32(count); out = uint8(clip(v, 0, 1) * 255)
    # (float32 throughout, truncation).
    h, n = img.shape
    x = xbuf[: h * n].reshape((h, n))
    lut = np.empty(256, dtype=np.float32)  # float32(v / 255.) by table
    for v in range(256):
        lut[v] = np.float32(v / 255.0)
    for i in range(h):
        si = img[i]
        xi = x[i]
        for e in range(n):
            xi[e] = lut[si[e]]
    xbuf[h * n] = 0.0
    nz = r0.shape[0]
    count = np.float32(nz + (2 if identity else 1))
    one = np.float32(1.0)
    zero = np.float32(0.0)
    f255 = np.float32(255.0)
    held = np.full((nz, 2), -1, dtype=np.int64)
    tbuf = np.empty((nz, 2, n + 1), dtype=np.float64)
    acc = np.empty(n, dtype=np.float32)
    for i in range(h):
        xi = x[i]
        if identity:
            for e in range(n):
                acc[e] = np.float32(xi[e])
        else:
            for e in range(n):
                acc[e] = zero
        _zoom_add_row(x, 3, True, i, r0, r1, rw0, rw1, c0, c1, cw0, cw1, held, tbuf, acc)
        o = out[i]
        for e in range(n):
            v = (acc[e] + np.float32(xi[e])) / count
            o[e] = np.uint8(min(max(v, zero), one) * f255)


def clipped_zoom(img: np.ndarray, zoom_factor: float, *, trim: bool = True) -> np.ndarray:
    """Zoom the centre of ``img`` (H x W or H x W x C) by ``zoom_factor`` and crop back to H x W.

    The reference: ``ch = ceil(h / z)``, ``top = (h - ch) // 2``; bilinear ``scipy.ndimage.zoom``
    (order 1, mode 'constant') of the centre crop; then a centred trim ``(out - h) // 2``. This is a
    native re-implementation with the same coordinate mapping and weights, computed in double and
    cast to the input's float dtype (equal to SciPy up to ~1 ulp). Rows and columns are handled
    independently, which at a square size is exactly the reference. Non-float inputs are
    converted to float64. Returns a new array of the input's shape; with ``trim=False``, the
    whole zoomed crop (``round(ceil(h / z) * z)`` rows, likewise columns), as imagecorruptions
    1.1.2's ``clipped_zoom`` returns it.
    """
    arr = np.asarray(img)
    if arr.ndim not in (2, 3):
        raise ValueError(f"clipped_zoom needs an H x W or H x W x C array, got shape {arr.shape}")
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    src = arr if arr.ndim == 3 else arr[:, :, None]
    h, w = src.shape[:2]
    r0, r1, rw0, rw1 = zoom_axis_table(h, float(zoom_factor), not trim)
    c0, c1, cw0, cw1 = zoom_axis_table(w, float(zoom_factor), not trim)
    out = np.empty((r0.shape[0], c0.shape[0], src.shape[2]), dtype=src.dtype)
    _zoom_one(
        np.ascontiguousarray(src), r0, r1, rw0, rw1, c0, c1, cw0, cw1, out.reshape(len(r0), -1)
    )
    return out if arr.ndim == 3 else out[:, :, 0]


@functools.lru_cache(maxsize=128)
def _stacked_tables(length: int, factors: tuple[float, ...]) -> tuple[np.ndarray, ...]:
    tabs = [zoom_axis_table(length, z) for z in factors]
    return tuple(np.ascontiguousarray(np.stack([t[k] for t in tabs])) for k in range(4))


def zoom_sum(
    img: np.ndarray, factors: Sequence[float] | np.ndarray, out: np.ndarray | None = None
) -> np.ndarray:
    """``sum(clipped_zoom(img, z) for z in factors)`` for a float32 H x W x C image, in float32.

    Each zoom is cast to float32 before it is added, in the order of ``factors``, as the
    reference's ``out += clipped_zoom(x, z)`` loop does. One compiled pass; returns a new array,
    or ``out`` (float32, the image's shape; overwritten) when given.
    """
    if img.dtype != np.float32 or img.ndim != 3:
        raise TypeError(f"zoom_sum needs a float32 H x W x C image, got {img.dtype} {img.shape}")
    key = tuple(float(z) for z in factors)
    if out is None:
        acc = np.zeros(img.shape, dtype=np.float32)
    else:
        if out.shape != img.shape or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError("out must be a C-contiguous float32 array of the image's shape")
        acc = out
        acc.fill(0)
    if key and key[0] == 1.0:
        # clipped_zoom(x, 1) is exactly x (and np.arange(1, ...) always starts there): 0 + x = x
        np.copyto(acc, img)
        key = key[1:]
    if not key:
        return acc
    r0, r1, rw0, rw1 = _stacked_tables(img.shape[0], key)
    c0, c1, cw0, cw1 = _stacked_tables(img.shape[1], key)
    h, _, nc = img.shape
    src = np.ascontiguousarray(img).reshape(h, -1)
    _zoom_sum_f32(src, nc, r0, r1, rw0, rw1, c0, c1, cw0, cw1, acc.reshape(h, -1))
    return acc


def zoom_blur_u8(
    image: np.ndarray, factors: Sequence[float] | np.ndarray, scratch: np.ndarray | None = None
) -> np.ndarray:
    """Zoom blur of a uint8 H x W x 3 image in one compiled pass (float32, as the reference).

    ``x = float32(image / 255.)``; ``out = zoom_sum(x, factors)``;
    ``uint8(clip((out + x) / float32(len(factors) + 1), 0, 1) * 255)`` (truncation), with exactly
    the float32 / float64 operations of :func:`zoom_sum` and NumPy's float32 array arithmetic.
    ``scratch``: optional flat float32 array of ``H * W * 3 + 1`` elements (reused; others are
    ignored). Returns a new uint8 array.
    """
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise TypeError(
            f"zoom_blur_u8 needs a uint8 H x W x 3 image, got {image.dtype} {image.shape}"
        )
    h, w, nc = image.shape
    key = tuple(float(z) for z in factors)
    identity = bool(key) and key[0] == 1.0  # clipped_zoom(x, 1) is exactly x: 0 + x = x
    if identity:
        key = key[1:]
    size = h * w * 3 + 1
    if scratch is None or scratch.shape != (size,) or scratch.dtype != np.float32:
        scratch = np.empty(size, dtype=np.float32)
    if key:
        r0, r1, rw0, rw1 = _stacked_tables(h, key)
        c0, c1, cw0, cw1 = _stacked_tables(w, key)
    else:
        r0 = r1 = c0 = c1 = np.zeros((0, 1), dtype=np.int64)
        rw0 = rw1 = cw0 = cw1 = np.zeros((0, 1), dtype=np.float64)
    out = np.empty(image.shape, dtype=np.uint8)
    _zoom_blur_u8(
        np.ascontiguousarray(image).reshape(h, -1),
        identity,
        r0,
        r1,
        rw0,
        rw1,
        c0,
        c1,
        cw0,
        cw1,
        scratch,
        out.reshape(h, -1),
    )
    return out

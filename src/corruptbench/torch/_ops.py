"""Batched building blocks of the torch backend (device agnostic, float32 unless stated).

Kernel / operator *construction* happens once on the host in float64 NumPy (cached) and is moved
to each device once (cached per device); *application* is batched tensor code:

* border handling by index folding (:func:`fold_index`): OpenCV ``BORDER_REFLECT_101``, SciPy
  ``'reflect'`` (half-sample symmetric), ``'nearest'`` (edge replication) — for any image size,
  also when the border is wider than the image;
* separable linear filters as dense ``H x H`` / ``W x W`` operator matrices with the border folded
  in (:func:`gaussian_operator`; applied with two matmuls: ``A_h @ x @ A_w^T``);
* 2-D correlation (defocus disk) by FFT on the border-padded image (:func:`filter2d_fft`);
* ImageMagick's motion-blur tap kernel (:func:`motion_blur_taps`), per sample;
* SciPy ``zoom(order=1)`` centre zoom (:func:`clipped_zoom`);
* Pillow's BOX resampling with its fixed-point coefficients and 8-bit rounding (:func:`pil_box_resize`);
* scikit-image HSV (:func:`rgb2hsv`, :func:`hsv2rgb`), the plasma fractal (:func:`plasma_fractal`),
  the glass-blur pixel copy (:func:`glass_shuffle`) and the elastic transform's two samplers.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import numba
import numpy as np
import torch
import torch.nn.functional as F

from ..ops.gaussian import gaussian_kernel1d
from ..ops.zoom import zoom_axis_table

__all__ = [
    "fold_index",
    "gaussian_operator",
    "apply_separable",
    "filter2d_fft",
    "motion_blur_taps",
    "clipped_zoom",
    "pil_box_resize",
    "rgb2hsv",
    "hsv2rgb",
    "plasma_fractal",
    "glass_shuffle",
    "glass_shuffle_passes",
    "poisson_u8",
    "warp_affine_cv34",
    "map_coordinates_reflect",
    "to_device",
]


# ------------------------------------------------------------------------------------------------
# host -> device caching
# ------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def _cached_tensor(
    builder: Callable[..., np.ndarray], args: tuple, device: torch.device, dtype: torch.dtype
) -> torch.Tensor:
    return torch.as_tensor(np.ascontiguousarray(builder(*args))).to(device=device, dtype=dtype)


def to_device(
    builder: Callable[..., np.ndarray], args: tuple, device: torch.device, dtype: torch.dtype
) -> torch.Tensor:
    """``builder(*args)`` (a cached NumPy array) as a tensor on ``device``, cached per device/dtype.

    The returned tensor is shared: never modify it in place.
    """
    return _cached_tensor(builder, tuple(args), torch.device(device), dtype)


# ------------------------------------------------------------------------------------------------
# borders
# ------------------------------------------------------------------------------------------------


def fold_index(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """Source index of each position of an axis of length ``n`` padded by ``before`` / ``after``.

    Modes: ``'reflect101'`` (OpenCV ``BORDER_REFLECT_101``: ``dcb|abcd|cba``), ``'reflect'``
    (SciPy / NumPy ``'symmetric'``: ``cba|abcd|dcb``), ``'nearest'`` (``aaa|abcd|ddd``). Folding is
    repeated as often as needed, so the padding may exceed ``n``.
    """
    p = np.arange(-before, n + after, dtype=np.int64)
    if mode == "nearest":
        return np.clip(p, 0, n - 1)
    if mode == "reflect101":
        if n == 1:
            return np.zeros_like(p)
        period = 2 * n - 2
        p = np.abs(p) % period
        return np.where(p >= n, period - p, p)
    if mode == "reflect":
        period = 2 * n
        p = p % period
        return np.where(p >= n, period - 1 - p, p)
    raise ValueError(f"unknown border mode {mode!r}")


def _pad(x: torch.Tensor, pads: tuple[int, int, int, int], mode: str) -> torch.Tensor:
    """Pad the last two axes of ``x`` by ``(top, bottom, left, right)`` with index folding."""
    top, bottom, left, right = pads
    h, w = x.shape[-2:]
    if x.dim() == 4 and x.is_floating_point() and (top or bottom or left or right):
        # torch's own padding kernels (a plain copy): 'reflect' is REFLECT_101 for pads < size
        if mode == "nearest":
            return F.pad(x, (left, right, top, bottom), mode="replicate")
        if mode == "reflect101" and max(top, bottom) < h and max(left, right) < w:
            return F.pad(x, (left, right, top, bottom), mode="reflect")
    if top or bottom:
        idx = to_device(fold_index, (h, top, bottom, mode), x.device, torch.long)
        x = x.index_select(-2, idx)
    if left or right:
        idx = to_device(fold_index, (w, left, right, mode), x.device, torch.long)
        x = x.index_select(-1, idx)
    return x


# ------------------------------------------------------------------------------------------------
# separable linear operators
# ------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _gaussian_operator_np(n: int, sigma: float, truncate: float, mode: str) -> np.ndarray:
    if sigma <= 1e-15:  # SciPy skips axes with a negligible sigma
        return np.eye(n)
    k = gaussian_kernel1d(sigma, truncate)  # SciPy's weights, radius int(truncate * sigma + 0.5)
    r = (len(k) - 1) // 2
    src = fold_index(n, r, r, mode)  # padded position -> source row
    rows = np.repeat(np.arange(n), len(k))
    cols = src[np.arange(n)[:, None] + np.arange(len(k))[None, :]].ravel()
    op = np.zeros((n, n))
    np.add.at(op, (rows, cols), np.tile(k, n))
    return op


def gaussian_operator(
    n: int,
    sigma: float,
    device: torch.device,
    *,
    truncate: float = 4.0,
    mode: str = "nearest",
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """``n x n`` matrix of SciPy's 1-D Gaussian correlation (``gaussian_filter1d``) with the border
    folded in: ``mode='nearest'`` is scikit-image ``gaussian``'s default, ``'reflect'`` the elastic
    transform's. Cached per device."""
    return to_device(
        _gaussian_operator_np, (int(n), float(sigma), float(truncate), mode), device, dtype
    )


def apply_separable(x: torch.Tensor, op_h: torch.Tensor, op_w: torch.Tensor) -> torch.Tensor:
    """``op_h @ x @ op_w^T`` over the last two axes of ``x`` (any leading batch axes)."""
    return torch.matmul(torch.matmul(op_h, x), op_w.transpose(0, 1))


#: block of outputs per small matmul in :func:`gaussian_nearest`'s banded CPU form
_GAUSS_BLOCK = 32


@functools.lru_cache(maxsize=128)
def _gaussian_block_np(sigma: float, truncate: float) -> np.ndarray:
    """``(B + 2r, B)``: output ``j`` of a block of ``B`` is the correlation of the padded inputs
    ``j .. j + 2r`` with SciPy's ``2r + 1`` weights."""
    k = gaussian_kernel1d(sigma, truncate)
    r = (len(k) - 1) // 2
    out = np.zeros((_GAUSS_BLOCK + 2 * r, _GAUSS_BLOCK))
    for j in range(_GAUSS_BLOCK):
        out[j : j + 2 * r + 1, j] = k
    return out


def _gaussian_banded(
    x: torch.Tensor, sigma: float, truncate: float, mode: str = "nearest"
) -> torch.Tensor:
    # The same sums as the dense operators without their zeros: the image padded by r pixels
    # (border ``mode`` folded in), then per block of 32 outputs one matmul with the (32 + 2r)
    # inputs it reads, as strided views (no copies): horizontally on every padded row, then
    # vertically.
    h, w = x.shape[-2:]
    kb = to_device(_gaussian_block_np, (float(sigma), float(truncate)), x.device, x.dtype)
    b = _GAUSS_BLOCK
    r = (kb.shape[0] - b) // 2
    planes = x.reshape(1, -1, h, w)
    p = planes.shape[1]
    xp = _pad(planes, (r, r, r, r), mode)[0]  # (P, H + 2r, W + 2r)
    rows = xp.reshape(p * (h + 2 * r), w + 2 * r)
    y = torch.empty((p * (h + 2 * r), w // b, b), dtype=x.dtype, device=x.device)
    for j in range(w // b):
        torch.mm(rows[:, j * b : j * b + b + 2 * r], kb, out=y[:, j, :])
    y = y.view(p, h + 2 * r, w)
    kbt = kb.t()
    out = torch.empty((p, h, w), dtype=x.dtype, device=x.device)
    for j in range(h // b):
        torch.matmul(kbt, y[:, j * b : j * b + b + 2 * r, :], out=out[:, j * b : (j + 1) * b, :])
    return out.view(x.shape)


def _banded_ok(x: torch.Tensor, sigma: float, truncate: float) -> bool:
    # the block form: CPU, sides multiples of 32, kernels narrower than ~3/4 of the side
    h, w = x.shape[-2:]
    radius = int(truncate * float(sigma) + 0.5)
    return (
        x.device.type == "cpu"
        and sigma > 1e-15
        and x.dim() >= 3
        and x.dtype in (torch.float32, torch.float64)
        and h % _GAUSS_BLOCK == 0
        and w % _GAUSS_BLOCK == 0
        and 4 * (_GAUSS_BLOCK + 2 * radius) <= 3 * min(h, w) + 4 * _GAUSS_BLOCK
    )


def gaussian_nearest(x: torch.Tensor, sigma: float, truncate: float = 4.0) -> torch.Tensor:
    """scikit-image ``gaussian(x, sigma, mode='nearest', truncate)`` on the last two axes.

    Dense ``H x H`` / ``W x W`` operators (two matmuls), or on the CPU, for sides that are
    multiples of 32 and kernels narrower than ~3/4 of the side, the same weights applied block
    by block (:func:`_gaussian_banded`: 2-5x fewer multiplications)."""
    h, w = x.shape[-2:]
    dev = x.device
    if _banded_ok(x, sigma, truncate):
        return _gaussian_banded(x, sigma, truncate, "nearest")
    return apply_separable(
        x,
        gaussian_operator(h, sigma, dev, truncate=truncate, dtype=x.dtype),
        gaussian_operator(w, sigma, dev, truncate=truncate, dtype=x.dtype),
    )


# ------------------------------------------------------------------------------------------------
# 2-D correlation by FFT (defocus)
# ------------------------------------------------------------------------------------------------


def _flipped(kernel: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(kernel[::-1, ::-1])


@functools.lru_cache(maxsize=64)
def _kernel_spectrum(
    key: bytes, shape: tuple[int, int], size: tuple[int, int], device: torch.device
) -> torch.Tensor:
    kernel = np.frombuffer(key, dtype=np.float64).reshape(shape)
    k = torch.as_tensor(_flipped(kernel), dtype=torch.float32, device=device)
    return torch.fft.rfft2(k, s=size)


@functools.lru_cache(maxsize=256)
def _fast_fft_len(n: int) -> int:
    """The smallest ``m >= n`` whose prime factors are all 2, 3 or 5."""
    m = max(1, n)
    while True:
        r = m
        for p in (2, 3, 5):
            while r % p == 0:
                r //= p
        if r == 1:
            return m
        m += 1


def filter2d_fft(x: torch.Tensor, kernel: np.ndarray, border: str = "reflect101") -> torch.Tensor:
    """``cv2.filter2D(x, -1, kernel, borderType=REFLECT_101)`` (correlation, centred anchor) of every
    ``H x W`` plane of ``x`` (odd square ``kernel``), by FFT of the border-padded planes."""
    k = np.asarray(kernel, dtype=np.float64)
    kh, kw = k.shape
    rh, rw = kh // 2, kw // 2
    h, w = x.shape[-2:]
    xp = _pad(x, (rh, rh, rw, rw), border)
    # FFT lengths: the next 5-smooth lengths (zero padding past the padded image changes no kept
    # output: each reads only padded-image positions); sizes like 244 = 4 * 61 are slow
    size = (_fast_fft_len(h + 2 * rh), _fast_fft_len(w + 2 * rw))
    spec = _kernel_spectrum(k.tobytes(), k.shape, size, x.device)
    full = torch.fft.irfft2(torch.fft.rfft2(xp, s=size) * spec, s=size)
    return full[..., kh - 1 : kh - 1 + h, kw - 1 : kw - 1 + w]


# ------------------------------------------------------------------------------------------------
# ImageMagick motion blur (per-sample tap kernels)
# ------------------------------------------------------------------------------------------------


def motion_blur_taps(
    x: torch.Tensor,
    kernels: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
    *,
    min_weight: float = 1e-9,
    batched: bool | None = None,
) -> torch.Tensor:
    """Apply ImageMagick motion-blur kernels, one per sample: ``out(x, y) = sum_i w[i] in(x + dx[i],
    y + dy[i])``, samples outside the image from the nearest edge pixel (ImageMagick's "edge"
    virtual pixels).

    Args:
        x: ``(N, C, H, W)`` float tensor.
        kernels: per sample ``(weights, offsets_x, offsets_y)`` of
            :func:`corruptbench.ops.magick.motion_kernel`.
        min_weight: taps below this weight are skipped (their total is < 1e-7 of the range).
        batched: sum tap ``t`` of every sample in one gather (``3 T`` operations for the batch
            instead of ``N T`` slice additions: far fewer kernel launches on a GPU; each sample
            sums its taps in the same order). ``None``: batched on non-CPU devices.

    Returns:
        ``(N, C, H, W)`` float tensor (no quantisation).
    """
    n, _, h, w = x.shape
    ox = np.concatenate([k[1] for k in kernels])
    oy = np.concatenate([k[2] for k in kernels])
    top, bottom = max(0, -int(oy.min())), max(0, int(oy.max()))
    left, right = max(0, -int(ox.min())), max(0, int(ox.max()))
    xp = _pad(x, (top, bottom, left, right), "nearest")
    if batched if batched is not None else (x.device.type != "cpu" and n > 1):
        return _motion_taps_batched(xp, kernels, (h, w), (top, left), min_weight)
    out = torch.empty_like(x)
    for s, (wts, dx, dy) in enumerate(kernels):
        acc = out[s]
        src = xp[s]
        first = True
        for wt, ddx, ddy in zip(wts.tolist(), dx.tolist(), dy.tolist()):
            if wt < min_weight:
                continue
            r0, c0 = top + ddy, left + ddx
            if first:  # 0 + w x is w x: the first tap initialises the sum
                torch.mul(src[:, r0 : r0 + h, c0 : c0 + w], wt, out=acc)
                first = False
            else:
                acc.add_(src[:, r0 : r0 + h, c0 : c0 + w], alpha=wt)
        if first:
            acc.zero_()
    return out


def _motion_taps_batched(
    xp: torch.Tensor,
    kernels: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
    size: tuple[int, int],
    origin: tuple[int, int],
    min_weight: float,
) -> torch.Tensor:
    """:func:`motion_blur_taps` on the padded batch ``xp``, tap by tap for all samples at once:
    ``acc[s] += w[s, t] * xp[s, :, top + dy[s, t] + i, left + dx[s, t] + j]`` as one gather of the
    flattened planes at per-sample offsets. Samples with fewer taps get zero-weight taps at offset
    0 (adding an exact 0)."""
    n, c, hp, wp = xp.shape
    h, w = size
    top, left = origin
    taps = []
    for wts, dx, dy in kernels:
        keep = wts >= min_weight
        taps.append((wts[keep], (top + dy[keep]) * wp + (left + dx[keep])))
    t_max = max((len(t[0]) for t in taps), default=0)
    weights = np.zeros((n, max(t_max, 1)), dtype=np.float32)
    offsets = np.zeros((n, max(t_max, 1)), dtype=np.int64)
    for s, (wts, off) in enumerate(taps):
        weights[s, : len(wts)] = wts
        offsets[s, : len(off)] = off
    dev = xp.device
    wt = torch.as_tensor(weights, device=dev)
    off_t = torch.as_tensor(offsets, device=dev)
    # flat index of output pixel (i, j) in a padded plane, before the tap's offset
    base = (torch.arange(h, device=dev)[:, None] * wp + torch.arange(w, device=dev)[None, :]).view(
        1, 1, h * w
    )
    flat = xp.reshape(n, c, hp * wp)
    acc = torch.zeros((n, c, h * w), dtype=xp.dtype, device=dev)
    for t in range(t_max):
        idx = (base + off_t[:, t].view(n, 1, 1)).expand(n, c, h * w)
        acc.addcmul_(flat.gather(2, idx), wt[:, t].view(n, 1, 1).to(xp.dtype))
    return acc.view(n, c, h, w)


def magick_quantise(acc: torch.Tensor) -> torch.Tensor:
    """ImageMagick Q16 ``ClampToQuantum`` + 8-bit PNG write of a [0, 1] blur result: integer values
    ``floor(round(65535 acc) / 257)`` in 0..255 (float tensor)."""
    q = torch.mul(acc, 65535.0).add_(0.5).floor_().clamp_(0.0, 65535.0)
    return q.div_(257.0).floor_()


# ------------------------------------------------------------------------------------------------
# clipped zoom (scipy.ndimage.zoom order 1, grid_mode False == align_corners=True)
# ------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def _zoom_positions(length: int, z: float) -> np.ndarray:
    """Source coordinate (uncropped axis) of each kept output position of the reference zoom, as
    ``grid_sample``'s normalised coordinate (``align_corners=True``); -3 (every tap outside: 0)
    where SciPy's zoom (mode 'constant') gives 0 because round-off puts the output coordinate
    beyond the last input sample (never at the profiles' native sizes)."""
    i0, _, w0, w1 = zoom_axis_table(length, z)
    # the 2-tap row (i0, i1; 1 - f, f) is the linear sample at i0 + f: i1 = i0 + 1 whenever f > 0
    # (the mirrored tap at the crop's end only occurs with f = 0)
    pos = i0 + w1
    g = pos * (2.0 / (length - 1)) - 1.0 if length > 1 else np.zeros(length)
    return np.where((w0 != 0) | (w1 != 0), g, -3.0)


@functools.lru_cache(maxsize=512)
def _zoom_grid(h: int, w: int, z: float) -> np.ndarray:
    gy = _zoom_positions(h, z)
    gx = _zoom_positions(w, z)
    return np.stack(np.broadcast_arrays(gx[None, :], gy[:, None]), axis=-1)[None]  # (1, H, W, 2)


def clipped_zoom(x: torch.Tensor, z: float) -> torch.Tensor:
    """The reference ``clipped_zoom`` of every ``H x W`` plane of ``x`` (``(N, C, H, W)`` float).

    Centre crop ``ceil(L / z)`` per axis, bilinear zoom to ``round(c z)`` with SciPy's
    ``grid_mode=False`` mapping (``k (c - 1) / (n - 1)``, i.e. ``align_corners=True``), centred
    trim: only the kept outputs are computed, as one bilinear ``grid_sample`` of the uncropped
    image at the precomputed source coordinates (:func:`corruptbench.ops.zoom.zoom_axis_table`;
    every tap lies inside the crop, or has weight 0).
    """
    z = float(z)
    h, w = x.shape[-2:]
    if all(int(math.ceil(s / z)) == s and int(round(s * z)) == s for s in (h, w)):
        return x.clone()  # no crop, no resampling
    grid = to_device(_zoom_grid, (h, w, z), x.device, x.dtype)
    # all planes as the channels of one sample: the coordinates are computed once per position
    planes = x.reshape(1, -1, h, w)
    out = F.grid_sample(planes, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
    return out.reshape(x.shape)


# ------------------------------------------------------------------------------------------------
# Pillow BOX resampling (8-bit, fixed point)
# ------------------------------------------------------------------------------------------------

_PRECISION_BITS = 32 - 8 - 2  # Pillow's Resample.c


@functools.lru_cache(maxsize=256)
def pil_box_coefficients(in_size: int, out_size: int) -> np.ndarray:
    """``(out_size, in_size)`` fixed-point coefficients of Pillow's BOX filter (``precompute_coeffs``
    + ``normalize_coeffs_8bpc``), as float64 integers."""
    scale = float(np.float32(in_size)) / out_size
    filterscale = max(scale, 1.0)
    support = 0.5 * filterscale
    ss = 1.0 / filterscale
    out = np.zeros((out_size, in_size))
    for xx in range(out_size):
        center = (xx + 0.5) * scale
        xmin = max(int(center - support + 0.5), 0)
        xmax = min(int(center + support + 0.5), in_size) - xmin
        k = np.array(
            [1.0 if -0.5 < (x + xmin - center + 0.5) * ss <= 0.5 else 0.0 for x in range(xmax)]
        )
        ww = k.sum()
        if ww != 0.0:
            k = k / ww
        kk = np.where(
            k < 0,
            np.trunc(-0.5 + k * (1 << _PRECISION_BITS)),
            np.trunc(0.5 + k * (1 << _PRECISION_BITS)),
        )
        out[xx, xmin : xmin + xmax] = kk
    return out


@functools.lru_cache(maxsize=256)
def _box_taps(in_size: int, out_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Sparse form of :func:`pil_box_coefficients`: ``(index, weight)`` arrays ``(out_size, k)``."""
    coef = pil_box_coefficients(in_size, out_size)
    nz = coef != 0
    k = max(1, int(nz.sum(axis=1).max()))
    first = np.where(nz.any(axis=1), nz.argmax(axis=1), 0)
    idx = np.minimum(first[:, None] + np.arange(k)[None, :], in_size - 1)
    wts = np.take_along_axis(coef, idx, axis=1)
    wts[first[:, None] + np.arange(k)[None, :] > in_size - 1] = 0  # clipped positions: no weight
    return idx, wts


def _box_idx(in_size: int, out_size: int) -> np.ndarray:
    return _box_taps(in_size, out_size)[0]


def _box_wts(in_size: int, out_size: int) -> np.ndarray:
    return _box_taps(in_size, out_size)[1]


def _box_pass_taps(v: torch.Tensor, in_size: int, out_size: int, axis: int) -> torch.Tensor:
    idx = to_device(_box_idx, (in_size, out_size), v.device, torch.long)
    wts = to_device(_box_wts, (in_size, out_size), v.device, v.dtype)
    acc = None
    for j in range(idx.shape[1]):
        wj = wts[:, j] if axis == -1 else wts[:, j, None]
        term = v.index_select(axis, idx[:, j]) * wj
        acc = term if acc is None else acc.add_(term)
    assert acc is not None
    half = 1 << (_PRECISION_BITS - 1)
    if v.is_floating_point():
        return torch.floor((acc + half) / float(1 << _PRECISION_BITS)).clamp_(0, 255)
    return torch.bitwise_right_shift(acc.add_(half), _PRECISION_BITS).clamp_(0, 255)


@functools.lru_cache(maxsize=256)
def _box_gather(in_size: int, out_size: int) -> np.ndarray | None:
    """Source index per output position when every row of the BOX coefficients is a single full
    weight ``2^22`` (upsampling: the pass copies pixels exactly), else ``None``."""
    coef = pil_box_coefficients(in_size, out_size)
    full = float(1 << _PRECISION_BITS)
    if not ((coef != 0).sum(axis=1) == 1).all() or not (coef.max(axis=1) == full).all():
        return None
    return coef.argmax(axis=1).astype(np.int64)


def _box_gather_idx(in_size: int, out_size: int) -> np.ndarray:
    idx = _box_gather(in_size, out_size)
    assert idx is not None
    return idx


@functools.lru_cache(maxsize=256)
def _box_windows(in_size: int, out_size: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``(ones, weight)``: the 0/1 window matrix ``(out_size, in_size)`` and each row's single
    coefficient value, when every row of the BOX coefficients has one value (Pillow's BOX filter
    is 0/1 before normalisation, so always at these sizes); else ``None``."""
    coef = pil_box_coefficients(in_size, out_size)
    weight = coef.max(axis=1)
    ones = coef != 0
    if not (coef == np.where(ones, weight[:, None], 0.0)).all() or weight.max() > 1 << 22:
        return None
    return ones.astype(np.float64), weight


def _box_ones(in_size: int, out_size: int) -> np.ndarray:
    win = _box_windows(in_size, out_size)
    assert win is not None
    return win[0]


def _box_weight(in_size: int, out_size: int) -> np.ndarray:
    win = _box_windows(in_size, out_size)
    assert win is not None
    return win[1]


@functools.lru_cache(maxsize=256)
def _box_regular(in_size: int, out_size: int) -> bool:
    """Whether the BOX windows are ``[j k, (j + 1) k)`` with ``k = in_size / out_size``."""
    if in_size % out_size:
        return False
    k = in_size // out_size
    return bool((_box_ones(in_size, out_size) == np.kron(np.eye(out_size), np.ones(k))).all())


def _box_pass(v: torch.Tensor, in_size: int, out_size: int, axis: int) -> torch.Tensor:
    gather = _box_gather(in_size, out_size)
    if gather is not None:  # exact copies: no arithmetic at all
        idx = to_device(_box_gather_idx, (in_size, out_size), v.device, torch.long)
        return v.index_select(axis, idx)
    if v.device.type != "cpu" or _box_windows(in_size, out_size) is None:
        return _box_pass_taps(v, in_size, out_size, axis)  # exact: int32 / float64 tap sums
    # CPU: window sums of 8-bit values by one float32 matmul with a 0/1 matrix (exact integers
    # < 2^24), times the row's coefficient in int32 (< 2^31), rounded as Pillow does
    weight = to_device(_box_weight, (in_size, out_size), v.device, torch.int32)
    vf = v.to(torch.float32)
    k = in_size // out_size
    if _box_regular(in_size, out_size):  # windows [j k, (j + 1) k): k strided slices
        sums = vf[..., 0::k] if axis == -1 else vf[..., 0::k, :]
        for i in range(1, k):
            sums = sums + (vf[..., i::k] if axis == -1 else vf[..., i::k, :])
    else:
        ones = to_device(_box_ones, (in_size, out_size), v.device, torch.float32)
        sums = torch.matmul(vf, ones.transpose(0, 1)) if axis == -1 else torch.matmul(ones, vf)
    acc = sums.to(torch.int32).mul_(weight if axis == -1 else weight[:, None])
    acc.add_(1 << (_PRECISION_BITS - 1)).bitwise_right_shift_(_PRECISION_BITS).clamp_(0, 255)
    return acc.to(v.dtype)


def pil_box_resize(v: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
    """Pillow ``Image.resize((w, h), Image.BOX)`` of 8-bit planes ``(..., H, W)`` holding integer
    values 0..255, in any dtype that holds them (exact: Pillow's own fixed-point arithmetic).
    Horizontal pass first, then vertical, each rounded to 8 bits with Pillow's 22-bit
    coefficients. Passes where every output copies one input pixel (upsampling) are gathers; on the
    CPU the others are float32 matmuls with 0/1 window matrices (exact integer sums) scaled in
    int32, elsewhere tap sums in ``v``'s dtype (int32 or float64).
    Returns integer values in ``v``'s dtype."""
    out_h, out_w = size
    h, w = v.shape[-2:]
    if out_w != w:
        v = _box_pass(v, w, out_w, -1)
    if out_h != h:
        v = _box_pass(v, h, out_h, -2)
    return v


# ------------------------------------------------------------------------------------------------
# HSV with scikit-image's formulas (channel axis 1)
# ------------------------------------------------------------------------------------------------


def rgb2hsv(rgb: torch.Tensor) -> torch.Tensor:
    """``skimage.color.rgb2hsv`` for ``(N, 3, H, W)`` in [0, 1] (ties: blue > green > red)."""
    r, g, b = rgb.unbind(1)
    v = torch.maximum(torch.maximum(r, g), b)
    delta = v - torch.minimum(torch.minimum(r, g), b)
    zero = delta == 0
    safe = delta.masked_fill(zero, 1.0)
    s = (delta / v.masked_fill(zero, 1.0)).masked_fill_(zero, 0.0)
    h6 = torch.where(
        b == v,
        (r - g).div_(safe).add_(4.0),
        torch.where(g == v, (b - r).div_(safe).add_(2.0), (g - b).div_(safe)),
    )
    h = torch.remainder(h6.div_(6.0), 1.0).masked_fill_(zero, 0.0)
    return torch.stack((h, s, v), 1)


def hsv2rgb(hsv: torch.Tensor) -> torch.Tensor:
    """``skimage.color.hsv2rgb`` for ``(N, 3, H, W)`` (same formulas: sextant ``floor(6 h) mod 6``,
    ``p = v (1 - s)``, ``q = v (1 - f s)``, ``t = v (1 - (1 - f) s)``)."""
    h, s, v = hsv.unbind(1)
    h6 = h * 6
    hi = torch.floor(h6)
    f = h6.sub_(hi)
    p = v * (1 - s)
    q = v * (1 - f * s)
    t = v * (1 - (1 - f) * s)
    i = torch.remainder(hi, 6)
    i0, i1, i2, i3, i4 = (i == 0), (i == 1), (i == 2), (i == 3), (i == 4)
    r = torch.where(i0 | (i == 5), v, torch.where(i1, q, torch.where(i4, t, p)))
    g = torch.where(i0, t, torch.where(i1 | i2, v, torch.where(i3, q, p)))
    b = torch.where(i0 | i1, p, torch.where(i2, t, torch.where(i3 | i4, v, q)))
    return torch.stack((r, g, b), 1)


# ------------------------------------------------------------------------------------------------
# plasma fractal (batched diamond-square)
# ------------------------------------------------------------------------------------------------


def plasma_fractal(
    n: int,
    mapsize: int,
    wibbledecay: float,
    uniform: Callable[[tuple[int, ...], float, float], torch.Tensor],
    *,
    device: torch.device,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """``n`` independent reference plasma fractals ``(n, mapsize, mapsize)`` in [0, 1].

    Same algorithm as :func:`corruptbench.ops.kernels.plasma_fractal` (squared wibble amplitude kept);
    ``uniform(shape, low, high)`` supplies the random values, per level one ``(n, k, k)`` array for the
    squares then two for the diamonds.
    """
    if mapsize < 2 or mapsize & (mapsize - 1):
        raise ValueError(f"mapsize must be a power of two >= 2, got {mapsize}")
    m = torch.zeros((n, mapsize, mapsize), device=device, dtype=dtype)
    step = mapsize
    wibble = 100.0

    def wibbled(a: torch.Tensor) -> torch.Tensor:
        return a / 4 + wibble * uniform(tuple(a.shape), -wibble, wibble).to(
            device=device, dtype=dtype
        )

    while step >= 2:
        half = step // 2
        corners = m[:, 0::step, 0::step]
        sq = corners + torch.roll(corners, -1, 1)
        sq = sq + torch.roll(sq, -1, 2)
        m[:, half::step, half::step] = wibbled(sq)
        dr = m[:, half::step, half::step]
        ul = m[:, 0::step, 0::step]
        m[:, 0::step, half::step] = wibbled(
            (dr + torch.roll(dr, 1, 1)) + (ul + torch.roll(ul, -1, 2))
        )
        m[:, half::step, 0::step] = wibbled(
            (dr + torch.roll(dr, 1, 2)) + (ul + torch.roll(ul, -1, 1))
        )
        step //= 2
        wibble /= wibbledecay
    m = m - m.amin(dim=(1, 2), keepdim=True)
    return m / m.amax(dim=(1, 2), keepdim=True)


# ------------------------------------------------------------------------------------------------
# Poisson counts of 8-bit images (shot noise): Walker alias tables
# ------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _poisson_alias(c: float) -> tuple[np.ndarray, np.ndarray]:
    """Walker/Vose alias tables ``(threshold, alias)``, each ``(256, 2^b)`` int64, of
    Poisson(``v c / 255``) for the 256 values ``v``. The counts ``0 .. K - 1`` with ``K`` covering
    ``c + 12 sqrt(c) + 12`` (the mass beyond is below 1e-25 and is dropped, the rest
    renormalised), padded with empty cells to ``2^b >= K`` cells; a cell keeps its own count with
    probability ``threshold / 2^(63 - b)`` (the cell probability, to 2^-53 at least), else its
    alias."""
    lam = np.arange(256, dtype=np.float64) / 255.0 * c
    k_max = int(math.ceil(c + 12.0 * math.sqrt(c) + 12.0))
    bits = max(1, (k_max - 1).bit_length())
    cells = 1 << bits
    k = np.arange(k_max, dtype=np.float64)
    lgam = np.array([math.lgamma(i + 1.0) for i in range(k_max)])
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = k[None, :] * np.log(lam[:, None]) - lam[:, None] - lgam[None, :]
    logp[0] = np.where(k == 0, 0.0, -np.inf)  # rate 0: always 0
    pmf = np.zeros((256, cells))
    pmf[:, :k_max] = np.exp(logp)
    pmf /= pmf.sum(axis=1, keepdims=True)
    prob = np.ones((256, cells))
    alias = np.tile(np.arange(cells, dtype=np.int64), (256, 1))
    for v in range(256):
        q = pmf[v] * cells
        small = [i for i in range(cells) if q[i] < 1.0]
        large = [i for i in range(cells) if q[i] >= 1.0]
        while small and large:
            s, lg = small.pop(), large.pop()
            prob[v, s], alias[v, s] = q[s], lg
            q[lg] = (q[lg] + q[s]) - 1.0
            (small if q[lg] < 1.0 else large).append(lg)
        # the rest (round-off leftovers): probability 1 of their own cell
    threshold = np.floor(prob * 2.0 ** (63 - bits)).astype(np.int64)
    return threshold, alias


def _poisson_packed(c: float) -> np.ndarray:
    # one int64 per cell: threshold * 2^b + alias, the threshold capped at 2^(63-b) - 1 (only
    # cells of probability 1 reach the cap, and their alias is the cell itself)
    threshold, alias = _poisson_alias(c)
    bits = threshold.shape[1].bit_length() - 1
    capped = np.minimum(threshold, (1 << (63 - bits)) - 1)
    return (capped << bits) | alias


def poisson_u8(v: torch.Tensor, c: float, words: torch.Tensor) -> torch.Tensor:
    """Poisson counts with rates ``v c / 255`` for 8-bit values ``v`` (any dtype holding 0..255),
    from one random int64 word in ``[0, 2^63)`` per element (``Tensor.random_()``), by Walker's
    alias method in integers: the low ``b`` bits pick one of the ``2^b`` cells, the other
    ``63 - b`` bits decide between the cell's own count and its alias. Exactly Poisson up to the
    dropped tail (< 1e-25) and the thresholds' resolution (<= 2^-53). Returns int64 counts
    (``words`` is overwritten)."""
    c = float(c)
    packed = to_device(_poisson_packed, (c,), words.device, torch.int64)
    cells = int(packed.shape[1])
    bits = cells.bit_length() - 1
    cell = words.bitwise_and(cells - 1)
    idx = v.to(device=words.device, dtype=torch.int64).bitwise_left_shift_(bits).add_(cell)
    entry = packed.view(-1).take(idx)  # threshold * 2^b + alias
    # frac < threshold  <=>  frac * 2^b + (2^b - 1) < threshold * 2^b + alias, and
    # frac * 2^b + (2^b - 1) is the word with its low b bits set
    keep = torch.lt(words.bitwise_or_(cells - 1), entry)
    return torch.where(keep, cell, entry.bitwise_and_(cells - 1))


# ------------------------------------------------------------------------------------------------
# glass blur: the sequential pixel copy, resolved in parallel
# ------------------------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def _glass_loop(x, d, offsets):  # pragma: no cover - compiled
    # the reference's sequential copy loop, every pass, in place on (N, C, H, W);
    # offsets (N, passes, H-2d, W-2d, 2) ascending
    n, nc, height, width = x.shape
    for i in range(n):
        img = x[i]
        for it in range(offsets.shape[1]):
            off = offsets[i, it]
            for h in range(height - d, d, -1):
                row = off[h - d - 1]
                for w in range(width - d, d, -1):
                    hp = h + np.int64(row[w - d - 1, 1])
                    wp = w + np.int64(row[w - d - 1, 0])
                    if nc == 3:
                        img[0, h, w] = img[0, hp, wp]
                        img[1, h, w] = img[1, hp, wp]
                        img[2, h, w] = img[2, hp, wp]
                    else:
                        for c in range(nc):
                            img[c, h, w] = img[c, hp, wp]


def _glass_loop_cpu(x: torch.Tensor, d: int, offsets: torch.Tensor) -> torch.Tensor:
    out = x.detach().clone(memory_format=torch.contiguous_format)
    off = offsets.detach().cpu()
    if off.dtype not in (torch.int8, torch.int16, torch.int32, torch.int64):
        off = off.to(torch.int64)
    _glass_loop(out.numpy(), d, off.contiguous().numpy())
    return out


def glass_shuffle_passes(x: torch.Tensor, max_delta: int, offsets: torch.Tensor) -> torch.Tensor:
    """:func:`glass_shuffle` applied for each pass ``offsets[:, p]`` in turn (``offsets`` ``(N,
    passes, H - 2d, W - 2d, 2)``). On the CPU all passes run in one compiled loop (uint8 input
    moves single bytes); elsewhere pass by pass."""
    n, c, h, w = x.shape
    d = int(max_delta)
    if h - 2 * d <= 0 or w - 2 * d <= 0:
        return x.clone()
    if x.device.type != "cpu":
        for it in range(offsets.shape[1]):
            x = _glass_shuffle_jump(x, d, offsets[:, it])
        return x
    return _glass_loop_cpu(x, d, offsets)


def glass_shuffle(x: torch.Tensor, max_delta: int, offsets: torch.Tensor) -> torch.Tensor:
    """One pass of the reference's glass-blur copy loop, for every sample at once.

    The reference visits ``h = H-d .. d+1`` (descending), inside that ``w = W-d .. d+1``
    (descending), and sets ``x[h, w] = x[h + dy, w + dx]`` *in place*, so a pixel may read a source
    that this pass already overwrote (any source later in raster order than the pixel itself).
    Each pixel's value is therefore ``old[root]`` where ``root`` is found by following the sources
    that were already overwritten: a functional graph whose chains are resolved here by pointer
    jumping (``O(log chain length)`` gathers). The result equals the sequential loop exactly.
    On the CPU the loop itself runs (compiled with Numba), which is the same computation.

    Args:
        x: ``(N, C, H, W)`` tensor (any dtype).
        max_delta: ``d``.
        offsets: ``(N, H - 2d, W - 2d, 2)`` integer ``(dx, dy)`` in ``[-d, d - 1]`` for the rows
            ``d+1 .. H-d`` and columns ``d+1 .. W-d`` in *ascending* order.

    Returns:
        a new tensor, the image after the pass.
    """
    n, c, h, w = x.shape
    d = int(max_delta)
    hr, wr = h - 2 * d, w - 2 * d
    if hr <= 0 or wr <= 0:
        return x.clone()
    if x.device.type == "cpu":  # the sequential loop itself (compiled): same copies, fewer ops
        return _glass_loop_cpu(x, d, offsets[:, None])
    return _glass_shuffle_jump(x, d, offsets)


def _glass_shuffle_jump(x: torch.Tensor, max_delta: int, offsets: torch.Tensor) -> torch.Tensor:
    """:func:`glass_shuffle` by pointer jumping (any device)."""
    n, c, h, w = x.shape
    d = int(max_delta)
    hr, wr = h - 2 * d, w - 2 * d
    if hr <= 0 or wr <= 0:
        return x.clone()
    dev = x.device
    hh = torch.arange(d + 1, h - d + 1, device=dev).view(1, hr, 1)
    ww = torch.arange(d + 1, w - d + 1, device=dev).view(1, 1, wr)
    dx = offsets[..., 0].to(device=dev, dtype=torch.long)
    dy = offsets[..., 1].to(device=dev, dtype=torch.long)
    sh, sw = hh + dy, ww + dx
    inside = (sh >= d + 1) & (sh <= h - d) & (sw >= d + 1) & (sw <= w - d)
    earlier = inside & ((sh > hh) | ((sh == hh) & (sw > ww)))  # overwritten before (h, w) is read
    nxt = torch.arange(h * w, device=dev).repeat(n, 1)
    done = torch.ones((n, h * w), dtype=torch.bool, device=dev)
    pos = (hh * w + ww).expand(n, hr, wr).reshape(n, -1)
    nxt.scatter_(1, pos, (sh * w + sw).reshape(n, -1))
    done.scatter_(1, pos, (~earlier).reshape(n, -1))
    while not bool(done.all()):
        nxt_next = nxt.gather(1, nxt)
        done_next = done.gather(1, nxt)
        nxt = torch.where(done, nxt, nxt_next)
        done = done | done_next
    flat = x.reshape(n, c, h * w)
    return flat.gather(2, nxt.unsqueeze(1).expand(n, c, h * w)).reshape(n, c, h, w)


# ------------------------------------------------------------------------------------------------
# elastic transform samplers
# ------------------------------------------------------------------------------------------------


def _grid(xs: torch.Tensor, ys: torch.Tensor, w: int, h: int) -> torch.Tensor:
    # pixel coordinates -> grid_sample's normalised coordinates (align_corners=True), float32
    shape = torch.broadcast_shapes(xs.shape, ys.shape)
    grid = torch.empty((*shape, 2), dtype=torch.float32, device=xs.device)
    torch.mul(xs, 2.0 / max(w - 1, 1), out=grid[..., 0]).sub_(1.0)
    torch.mul(ys, 2.0 / max(h - 1, 1), out=grid[..., 1]).sub_(1.0)
    return grid


def warp_affine_cv34(img: torch.Tensor, inverse: np.ndarray) -> torch.Tensor:
    """OpenCV 3.4 ``warpAffine`` (INTER_LINEAR, BORDER_REFLECT_101) of each sample.

    Args:
        img: ``(N, C, H, W)`` float32.
        inverse: ``(N, 2, 3)`` float64 *inverse* maps (destination -> source), computed as OpenCV
            does (:func:`corruptbench.corruptions.digital.warp_affine_cv34`).

    Mapped coordinates are rounded to 1/1024 then 1/32 pixel in fixed point as in OpenCV 3.4 (the
    reference's version); the bilinear sample is then taken with ``grid_sample`` (reflection about
    the first/last pixel centre with ``align_corners=True`` is exactly REFLECT_101, for the
    interpolated value as for the taps, because mirroring about integer positions commutes with
    linear interpolation).
    """
    n, c, h, w = img.shape
    dev = img.device
    m = np.asarray(inverse, dtype=np.float64)
    xs = np.arange(w, dtype=np.float64)
    ys = np.arange(h, dtype=np.float64)
    adelta = np.rint(m[:, 0, 0, None] * xs * 1024.0).astype(np.int64)  # (N, W)
    bdelta = np.rint(m[:, 1, 0, None] * xs * 1024.0).astype(np.int64)
    x0 = (
        np.rint((m[:, 0, 1, None] * ys + m[:, 0, 2, None]) * 1024.0).astype(np.int64) + 16
    )  # (N, H)
    y0 = np.rint((m[:, 1, 1, None] * ys + m[:, 1, 2, None]) * 1024.0).astype(np.int64) + 16

    # coordinates in 1/32 pixel: (x0[y] + adelta[x]) >> 5; int32 unless the values need more
    big = max(np.abs(a).max(initial=0) for a in (x0, y0, adelta, bdelta)) >= 2**30
    itype = torch.int64 if big else torch.int32

    def t(a: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(a, device=dev).to(itype)

    xx = torch.bitwise_right_shift(t(x0)[:, :, None] + t(adelta)[:, None, :], 5)
    yy = torch.bitwise_right_shift(t(y0)[:, :, None] + t(bdelta)[:, None, :], 5)
    ftype = (
        torch.float64 if big else torch.float32
    )  # multiples of 1/32 below 2**19: exact in float32
    grid = _grid(xx.to(ftype) / 32.0, yy.to(ftype) / 32.0, w, h)
    return F.grid_sample(img, grid, mode="bilinear", padding_mode="reflection", align_corners=True)


def _scipy_reflect_fold(c: torch.Tensor, n: int) -> torch.Tensor:
    # scipy.ndimage map_coordinate() folding for mode 'reflect' (as the CPU library's kernel)
    sz2 = float(2 * n)
    cn = torch.where(c < -sz2, sz2 * torch.trunc(-c / sz2) + c, c)
    cn = torch.where(
        cn < -n, cn + sz2, torch.where(cn > -1e-15, torch.full_like(cn, 1e-15), -cn) - 1.0
    )
    cp = c - sz2 * torch.trunc(c / sz2)
    cp = torch.where(cp >= n, sz2 - cp - 1.0, cp)
    return torch.where(c < 0, cn, torch.where(c > n - 1, cp, c))


def _scipy_reflect_coordinate(c: torch.Tensor, n: int) -> torch.Tensor:
    """SciPy's 'reflect' folding of coordinates into ``(-1, n)``; coordinates already in
    ``[0, n - 1]`` are kept, so only the others (near the borders) go through the fold."""
    if n <= 1:
        return torch.zeros_like(c)
    outside = (c < 0).logical_or_(c > n - 1)
    out = c.clone()
    if bool(outside.any()):
        out[outside] = _scipy_reflect_fold(c[outside], n)
    return out


def map_coordinates_reflect(img: torch.Tensor, dx: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """``scipy.ndimage.map_coordinates(img, (y + dy, x + dx, z), order=1, mode='reflect')`` per sample.

    SciPy folds each coordinate into ``(-1, n)`` (its 'reflect' rule) and takes border neighbours
    half-sample symmetric (index -1 is 0, n is n - 1): a bilinear sample of the image padded by one
    replicated pixel, which is the bilinear sample at the coordinate clamped to ``[0, n - 1]``
    (the padding is separable and constant across the clamped half-pixel): ``grid_sample`` with
    ``padding_mode='border'`` at the folded coordinate.
    ``img`` ``(N, C, H, W)``, ``dx``/``dy`` ``(N, H, W)`` (float32 or float64).
    """
    n, c, h, w = img.shape
    dev = img.device
    ys = torch.arange(h, device=dev, dtype=dy.dtype).view(1, h, 1)
    xs = torch.arange(w, device=dev, dtype=dx.dtype).view(1, 1, w)
    cy = _scipy_reflect_coordinate(ys + dy, h)
    cx = _scipy_reflect_coordinate(xs + dx, w)
    grid = _grid(cx, cy, w, h)
    return F.grid_sample(img, grid, mode="bilinear", padding_mode="border", align_corners=True)

"""Digital corruptions on batches (:mod:`corruptbench.corruptions.digital`): brightness, saturate,
contrast, pixelate, jpeg_compression (Pillow on the CPU, per image, explicitly) and
elastic_transform."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import cv2
import numpy as np
import torch

from ..corruptions.digital import elastic_source_points, jpeg_compression_p
from ..ops.opencv_warp import invert_affine_cv
from .context import BatchContext, batch_impl, hi_dtype, unit255
from .library import per_image
from .ops.gaussian import apply_separable, gaussian_operator
from .ops.opencv_warp import warp_affine_cv34
from .ops.pillow_resize import pil_box_resize
from .ops.scipy_ndimage import map_coordinates_reflect

__all__: list[str] = []


def _elastic_draws(
    img: np.ndarray, rng: np.random.RandomState, p: Mapping[str, Any], hw: tuple[int, int]
) -> dict[str, Any]:
    jitter = p["jitter"]
    jit = rng.uniform(-jitter, jitter, size=(3, 2))
    ux = rng.uniform(-1, 1, size=hw)
    return {"jitter": jit, "ux": ux, "uy": rng.uniform(-1, 1, size=hw)}


@batch_impl("brightness")
def _brightness(ctx: BatchContext) -> torch.Tensor:
    # hsv2rgb(h, s, v') with h, s of x: every channel of scikit-image's hsv2rgb (v, p, q, t) is
    # v times a function of (h, s), so the result is x * (v' / v) (x / v: exactly 1 for the max
    # channel and for gray pixels, 0 / 0 -> 1 where v = 0 (black: h = s = 0, every channel v')).
    c = ctx.params["delta"]
    x = ctx.x
    v = x.amax(dim=1, keepdim=True)
    out = x / v
    out.nan_to_num_(nan=1.0).mul_(v.add_(c).clamp_(0.0, 1.0))
    return unit255(out)


@batch_impl("saturate")
def _saturate(ctx: BatchContext) -> torch.Tensor:
    # hsv2rgb(h, s', v) with h, v of x: channel = v - v s w(h) with w(h) = (v - channel) / delta
    # (delta = v s = max - min), so channel' = v - (v - channel) * (v s' / delta). Gray pixels
    # (delta = 0, h = s = 0) become (v, v (1 - s'), v (1 - s')) as hsv2rgb of hue 0.
    c0, c1 = ctx.params["factor"], ctx.params["offset"]
    x = ctx.x
    v = x.amax(dim=1, keepdim=True)
    delta = v - x.amin(dim=1, keepdim=True)
    gray = delta == 0
    s2 = (delta / v).nan_to_num_(nan=0.0).mul_(c0).add_(c1).clamp_(0.0, 1.0)  # s' (v = 0: s = 0)
    factor = s2.mul_(v).div_(delta.masked_fill_(gray, 1.0))  # v s' / delta (gray: v s')
    out = torch.sub(v, x).mul_(factor)  # v - channel' (the max channel and gray pixels: 0)
    if c1 != 0:  # gray pixels (s' = c1): v - channel' = v s' (0, 1, 1); s' = 0 when c1 = 0
        hue0 = torch.tensor([0.0, 1.0, 1.0], device=x.device, dtype=x.dtype).view(1, 3, 1, 1)
        out.addcmul_(gray.to(x.dtype).mul_(factor), hue0)
    return unit255(out.neg_().add_(v))


@batch_impl("contrast")
def _contrast(ctx: BatchContext) -> torch.Tensor:
    c = ctx.params["factor"]
    dt = hi_dtype(ctx.device)
    if ctx.is_u8:
        # per-channel means from exact integer sums, then one 256-entry table per (image, channel)
        # evaluated with the reference formula in float64, applied by a gather (as the CPU library)
        raw = ctx.raw.reshape(ctx.n, 3, -1)
        # exact integer sums: int32 holds them below 2^31 / 255 pixels (and is much faster)
        acc = torch.int32 if raw.shape[2] < 2**31 // 255 else torch.int64
        means = raw.sum(dim=2, dtype=acc).to(dt) / 255.0 / raw.shape[2]
        unit = torch.arange(256, device=ctx.device, dtype=dt) / 255.0
        lut = torch.floor(((unit - means[..., None]) * c + means[..., None]).clamp(0, 1) * 255.0)
        lut = lut.to(torch.uint8)
        if raw.device.type != "cpu":
            return lut.gather(2, raw.to(torch.int64)).reshape(ctx.raw.shape)
        # CPU: one table lookup per plane with int32 indices (no int64 index tensor)
        out = torch.empty_like(raw)
        for i in range(ctx.n):
            for ch in range(3):
                torch.index_select(lut[i, ch], 0, raw[i, ch].to(torch.int32), out=out[i, ch])
        return out.reshape(ctx.raw.shape)
    means = ctx.x.to(dt).mean(dim=(2, 3), keepdim=True).to(torch.float32)
    return unit255((ctx.x - means) * c + means)


@batch_impl("pixelate")
def _pixelate(ctx: BatchContext) -> torch.Tensor:
    c = ctx.params["factor"]
    h, w = ctx.h, ctx.w
    v = ctx.raw if ctx.is_u8 else ctx.u8()
    # Pillow's fixed-point arithmetic is exact in int32; on the CPU the passes are float32
    # matmuls / gathers that take 8-bit values in any dtype, so uint8 keeps the copies small.
    v = v.to(torch.uint8 if v.device.type == "cpu" else torch.int32)
    small = pil_box_resize(v, (max(1, int(h * c)), max(1, int(w * c))))
    return pil_box_resize(small, (h, w)).to(torch.uint8)


@batch_impl("jpeg_compression")
def _jpeg_compression(ctx: BatchContext) -> torch.Tensor:
    # Pillow on the CPU, per image (explicit: libjpeg has no device implementation here)
    src = ctx.raw if ctx.is_u8 else ctx.u8().to(torch.uint8)
    quality = ctx.params["quality"]

    def encode(img: np.ndarray, rng: Any) -> np.ndarray:
        return jpeg_compression_p(img, quality=quality)

    # one thread: Pillow's encoder and the Python around it hold the GIL (library_per_image)
    out = per_image(src.to("cpu"), encode, None, threads=False)
    return out.to(ctx.device)  # uint8 values (exact)


def _affine_inverse(jitter: np.ndarray, h: int, w: int) -> np.ndarray:
    """Per sample: ``cv2.getAffineTransform(pts1, pts1 + jitter)`` inverted as OpenCV's warpAffine does."""
    pts1 = elastic_source_points(h, w)
    out = np.empty((len(jitter), 2, 3))
    for s, jit in enumerate(jitter):
        pts2 = pts1 + np.asarray(jit).astype(np.float32)
        out[s] = invert_affine_cv(cv2.getAffineTransform(pts1, pts2))
    return out


@batch_impl("elastic_transform", draw_keys=("jitter", "ux", "uy"), cpu_draws=_elastic_draws)
def _elastic_transform(ctx: BatchContext) -> torch.Tensor:
    alpha, sigma, jitter = (ctx.params[k] for k in ("alpha", "sigma", "jitter"))
    n, h, w = ctx.n, ctx.h, ctx.w
    jit = ctx.draw("jitter", lambda: ctx.rnd.uniform((n, 3, 2), -jitter, jitter, torch.float64))
    ux = ctx.draw("ux", lambda: ctx.rnd.uniform((n, h, w), -1.0, 1.0))
    uy = ctx.draw("uy", lambda: ctx.rnd.uniform((n, h, w), -1.0, 1.0))
    inv = _affine_inverse(jit.detach().cpu().double().numpy(), h, w)
    x = warp_affine_cv34(ctx.x, inv)
    op_h = gaussian_operator(h, sigma, ctx.device, truncate=3.0, mode="reflect")
    op_w = gaussian_operator(w, sigma, ctx.device, truncate=3.0, mode="reflect")
    dx = (apply_separable(ux.to(torch.float32), op_h, op_w) * alpha).to(torch.float32)
    dy = (apply_separable(uy.to(torch.float32), op_h, op_w) * alpha).to(torch.float32)
    return unit255(map_coordinates_reflect(x, dx, dy))

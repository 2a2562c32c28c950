"""Blur corruptions on batches (:mod:`corruptbench.corruptions.blur`): Gaussian, glass, defocus,
motion and zoom blur."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from ..corruptions.params import whole_param
from ..ops.kernels import trimmed_disk
from ..ops.magick import motion_kernel
from .context import BatchContext, batch_impl, unit255
from .ops.gaussian import gaussian_nearest
from .ops.glass import glass_shuffle_passes
from .ops.kernels import filter2d_fft
from .ops.magick import magick_quantise, motion_blur_taps
from .ops.zoom import clipped_zoom

__all__ = ["motion"]


def _glass_draws(
    img: np.ndarray, rng: np.random.RandomState, p: Mapping[str, Any], hw: tuple[int, int]
) -> dict[str, Any]:
    h, w = hw
    dd, iters = int(p["max_delta"]), int(p["iterations"])
    hr, wr = h - 2 * dd, w - 2 * dd
    offs = rng.randint(-dd, dd, size=(iters * hr * wr, 2)).reshape(iters, hr, wr, 2)
    return {"offsets": offs[:, ::-1, ::-1].copy()}  # the loop runs descending; store ascending


def _motion_draws(
    img: np.ndarray, rng: np.random.RandomState, p: Mapping[str, Any], hw: tuple[int, int]
) -> dict[str, Any]:
    return {"angle": rng.uniform(-45, 45)}


@batch_impl("gaussian_blur")
def _gaussian_blur(ctx: BatchContext) -> torch.Tensor:
    sigma = ctx.params["sigma"]
    return unit255(gaussian_nearest(ctx.x, sigma))


@batch_impl("glass_blur", draw_keys=("offsets",), cpu_draws=_glass_draws)
def _glass_blur(ctx: BatchContext) -> torch.Tensor:
    p = ctx.params
    sigma = p["sigma"]
    d = whole_param(p["max_delta"], "glass_blur's max_delta", 0)
    iterations = whole_param(p["iterations"], "glass_blur's iterations", 0)
    hr, wr = max(0, ctx.h - 2 * d), max(0, ctx.w - 2 * d)
    offsets = ctx.draw(
        "offsets", lambda: ctx.rnd.randint_small(-d, d, (ctx.n, iterations, hr, wr, 2))
    )
    # x = uint8(gaussian(x) * 255): truncation to 8 bits (exact in uint8: the copies move bytes)
    blurred = gaussian_nearest(ctx.x, sigma)
    x8 = blurred.mul_(255.0).floor_().clamp_(0, 255).to(torch.uint8)
    x8 = glass_shuffle_passes(x8, d, offsets)
    return unit255(gaussian_nearest(x8.to(torch.float32).div_(255.0), sigma))


@batch_impl("defocus_blur")
def _defocus_blur(ctx: BatchContext) -> torch.Tensor:
    radius, alias_blur = ctx.params["radius"], ctx.params["alias_blur"]
    kernel = trimmed_disk(float(radius), float(alias_blur)).astype(np.float64)
    return unit255(filter2d_fft(ctx.x, kernel, "reflect101"))


def motion(
    x: torch.Tensor, radius: float, sigma: float, angles: torch.Tensor, quantise: bool
) -> torch.Tensor:
    """ImageMagick's motion blur of ``x`` (in [0, 1]) at one angle per sample, in the [0, 255]
    domain; ``quantise``: its Q16 -> 8-bit output rounding (the uint8 path). Snow uses it too."""
    kernels = [
        motion_kernel(radius, sigma, float(a)) for a in angles.detach().cpu().double().tolist()
    ]
    acc = motion_blur_taps(x, kernels)
    return magick_quantise(acc) if quantise else acc.mul_(255.0)


@batch_impl("motion_blur", draw_keys=("angle",), cpu_draws=_motion_draws)
def _motion_blur(ctx: BatchContext) -> torch.Tensor:
    radius, sigma = ctx.params["radius"], ctx.params["sigma"]
    angles = ctx.draw("angle", lambda: ctx.rnd.uniform((ctx.n,), -45.0, 45.0, torch.float64))
    # ImageMagick writes an 8-bit PNG: quantised on the uint8 path, exact blur on the float path
    return motion(ctx.x, radius, sigma, angles, quantise=ctx.is_u8).clamp_(0, 255)


# with one torch thread: smaller CPU chunks, the working set being several batch-sized tensors
# (the image, the sum and one zoom; measured ~15 % faster at 4 images of 224 x 224 than at 10; with
# more threads larger chunks amortise the parallel regions)
@batch_impl("zoom_blur", single_thread_chunk_bytes=5 * 2**19)
def _zoom_blur(ctx: BatchContext) -> torch.Tensor:
    stop, step = ctx.params["stop"], ctx.params["step"]
    factors = np.arange(1, stop, step)
    x = ctx.x
    acc = torch.zeros_like(x) if len(factors) == 0 else clipped_zoom(x, float(factors[0]))
    for z in factors[1:]:  # 0 + zoom(x, z0) is exact: start from the first zoom
        acc.add_(clipped_zoom(x, float(z)))
    return unit255(acc.add_(x).div_(float(len(factors) + 1)))

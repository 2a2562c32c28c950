"""Weather corruptions on batches (:mod:`corruptbench.corruptions.weather`): snow, frost, fog and
spatter. Spatter's water mode runs its OpenCV steps per image on the CPU (explicitly)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from ..corruptions.weather import (
    MUD_COLOUR,
    WATER_COLOUR,
    frost_lookup_table,
    scaled_frost_texture,
    water_distance,
)
from ..ops.kernels import next_pow2
from ..ops.kernels import plasma_fractal as cpu_plasma_fractal
from .blur import motion
from .context import BatchContext, FrostTextures, batch_impl, hi_dtype, unit255
from .library import map_images
from .ops.common import to_device
from .ops.gaussian import gaussian_nearest
from .ops.kernels import plasma_fractal
from .ops.zoom import clipped_zoom

__all__: list[str] = []


def _snow_draws(
    img: np.ndarray, rng: np.random.RandomState, p: Mapping[str, Any], hw: tuple[int, int]
) -> dict[str, Any]:
    normal = rng.standard_normal(hw)[None]
    return {"normal": normal, "angle": rng.uniform(-135, -45)}


def _frost_draws(
    img: np.ndarray, rng: np.random.RandomState, p: Mapping[str, Any], hw: tuple[int, int]
) -> dict[str, Any]:
    h, w = hw
    idx = int(rng.randint(5))
    tex = scaled_frost_texture(idx, p["texture_scale"], (h, w))
    x0 = int(rng.randint(0, tex.shape[0] - h))
    return {"index": idx, "x0": x0, "y0": int(rng.randint(0, tex.shape[1] - w))}


def _fog_draws(
    img: np.ndarray, rng: np.random.RandomState, p: Mapping[str, Any], hw: tuple[int, int]
) -> dict[str, Any]:
    h, w = hw
    mapsize = max(int(p["mapsize"]), next_pow2(max(h, w)))
    return {"plasma": cpu_plasma_fractal(mapsize, p["decay"], rng)[:h, :w]}


def _spatter_draws(
    img: np.ndarray, rng: np.random.RandomState, p: Mapping[str, Any], hw: tuple[int, int]
) -> dict[str, Any]:
    return {"normal": rng.standard_normal(hw)}


def _gray(x: torch.Tensor) -> torch.Tensor:
    # cv2.cvtColor(float32 RGB, COLOR_RGB2GRAY)
    return 0.299 * x[:, 0:1] + 0.587 * x[:, 1:2] + 0.114 * x[:, 2:3]


@batch_impl("snow", draw_keys=("normal", "angle"), cpu_draws=_snow_draws)
def _snow(ctx: BatchContext) -> torch.Tensor:
    keys = ("mean", "std", "zoom", "threshold", "blur_radius", "blur_sigma", "blend")
    loc, scale, zoom, threshold, radius, sigma, blend = (ctx.params[k] for k in keys)
    z = ctx.draw("normal", lambda: ctx.rnd.normal((ctx.n, 1, ctx.h, ctx.w)))
    layer = (loc + scale * z.to(torch.float64)).to(torch.float32)
    layer = clipped_zoom(layer, zoom)
    layer = torch.where(layer < threshold, torch.zeros_like(layer), layer)
    layer8 = torch.floor(layer.clamp(0, 1) * 255.0)  # (clip(L, 0, 1) * 255).astype(uint8)
    angles = ctx.draw("angle", lambda: ctx.rnd.uniform((ctx.n,), -135.0, -45.0, torch.float64))
    flakes = motion(layer8 / 255.0, radius, sigma, angles, quantise=True) / 255.0
    x = ctx.x
    x = blend * x + (1 - blend) * torch.maximum(x, _gray(x) * 1.5 + 0.5)
    return unit255(x + flakes + torch.flip(flakes, dims=(-2, -1)))


@functools.lru_cache(maxsize=16)
def _frost_textures(
    source: FrostTextures | None, scale: float | None, h: int, w: int, device: torch.device
) -> tuple[list[torch.Tensor], list[tuple[int, int]]]:
    """The five usable frost textures for an H x W image, as uint8 (3, Hf, Wf) on ``device``:
    ``source(i)``, or ImageNet-C's scaled by ``scale`` (None: as decoded) and made to cover."""
    texs, sizes = [], []
    for i in range(5):
        tex = scaled_frost_texture(i, scale, (h, w)) if source is None else source(i)
        if tex.ndim != 3 or tex.shape[2] != 3 or tex.shape[0] <= h or tex.shape[1] <= w:
            raise ValueError(
                f"frost texture {i} must be RGB and larger than the {h} x {w} images, "
                f"got shape {tex.shape}"
            )
        texs.append(torch.as_tensor(np.ascontiguousarray(tex.transpose(2, 0, 1))).to(device))
        sizes.append((int(tex.shape[0]), int(tex.shape[1])))
    return texs, sizes


@batch_impl("frost", draw_keys=("index", "x0", "y0"), cpu_draws=_frost_draws)
def _frost(ctx: BatchContext) -> torch.Tensor:
    c0, c1 = ctx.params["image_weight"], ctx.params["frost_weight"]
    scale = ctx.params["texture_scale"]
    texs, sizes = _frost_textures(ctx.frost_textures, scale, ctx.h, ctx.w, ctx.device)
    idx = ctx.draw("index", lambda: ctx.rnd.randint(0, 5, (ctx.n,)))
    idx_l = [int(i) for i in idx.cpu().tolist()]
    hi_x = torch.tensor([sizes[i][0] - ctx.h for i in idx_l], dtype=torch.float64)
    hi_y = torch.tensor([sizes[i][1] - ctx.w for i in idx_l], dtype=torch.float64)
    x0 = ctx.draw(
        "x0", lambda: torch.floor(ctx.rnd.uniform((ctx.n,), 0.0, 1.0, torch.float64).cpu() * hi_x)
    )
    y0 = ctx.draw(
        "y0", lambda: torch.floor(ctx.rnd.uniform((ctx.n,), 0.0, 1.0, torch.float64).cpu() * hi_y)
    )
    crops = [
        texs[i][:, a : a + ctx.h, b : b + ctx.w]
        for i, a, b in zip(
            idx_l, (int(v) for v in x0.cpu().tolist()), (int(v) for v in y0.cpu().tolist())
        )
    ]
    crop = torch.stack(crops)
    if ctx.is_u8:  # the reference's float64 blend and truncation, exactly
        dt = hi_dtype(ctx.device)
        if ctx.device.type != "cpu":
            y = (c0 * ctx.raw.to(dt) + c1 * crop.to(dt)).clamp_(0, 255)
            return y.to(torch.uint8)
        # CPU: the same float64 formula for all 256 x 256 (pixel, texture) pairs, then one int32
        # table lookup per plane
        lut = to_device(
            frost_lookup_table, (float(c0), float(c1)), torch.device("cpu"), torch.uint8
        )
        key = ctx.raw.to(torch.int32).mul_(256).add_(crop)
        out = torch.empty_like(ctx.raw)
        for i in range(ctx.n):
            for ch in range(3):
                torch.index_select(lut, 0, key[i, ch].view(-1), out=out[i, ch].view(-1))
        return out
    return (c0 * ctx.v + c1 * crop.to(torch.float32)).clamp_(0, 255)


@batch_impl("fog", draw_keys=("plasma",), cpu_draws=_fog_draws)
def _fog(ctx: BatchContext) -> torch.Tensor:
    strength, decay = ctx.params["strength"], ctx.params["decay"]
    mapsize = max(int(ctx.params["mapsize"]), next_pow2(max(ctx.h, ctx.w)))

    def make() -> torch.Tensor:
        return plasma_fractal(
            ctx.n,
            mapsize,
            decay,
            lambda shape, lo, hi: ctx.rnd.uniform(shape, lo, hi),
            device=ctx.device,
        )

    plasma = ctx.draw("plasma", make).to(torch.float32)[:, : ctx.h, : ctx.w]
    m = ctx.x.amax(dim=(1, 2, 3), keepdim=True)
    x = ctx.x + strength * plasma[:, None]
    return unit255(x * m / (m + strength))


def _liquid_layer(
    ctx: BatchContext, loc: float, scale: float, sigma: float, threshold: float
) -> torch.Tensor:
    dt = hi_dtype(ctx.device)
    z = ctx.draw("normal", lambda: ctx.rnd.normal((ctx.n, ctx.h, ctx.w)))
    z = z.to(dt, copy=True)  # a private copy: modified in place below
    liquid = gaussian_nearest(z.mul_(scale).add_(loc), sigma)  # loc + scale z
    return liquid.mul_(liquid >= threshold)  # L[L < threshold] = 0 (a product: no masked copy)


def _water_distance(liquid8: np.ndarray) -> np.ndarray:
    """The CPU (OpenCV) part of spatter's water mode for one uint8 liquid layer: the CPU library's
    own steps (:func:`corruptbench.corruptions.weather.water_distance`), as float32."""
    return water_distance(liquid8).astype(np.float32)


@batch_impl("spatter", draw_keys=("normal",), cpu_draws=_spatter_draws)
def _spatter(ctx: BatchContext) -> torch.Tensor:
    keys = ("mean", "std", "sigma", "threshold", "intensity", "mode")
    loc, scale, sigma, threshold, intensity, mode = (ctx.params[k] for k in keys)
    liquid = _liquid_layer(ctx, loc, scale, sigma, threshold)
    x = ctx.x
    if mode == 0:
        # uint8(L * 255): values >= 0; wrap modulo 256 like the reference's cast
        liquid8 = torch.mul(liquid, 255.0).trunc_()
        if bool((liquid8 >= 256.0).any()):
            liquid8 = torch.remainder(liquid8, 256.0)
        host = liquid8.to("cpu", torch.uint8).numpy()
        dist = np.stack(map_images(_water_distance, [np.ascontiguousarray(a) for a in host]))
        m = liquid8.to(torch.float32) * torch.as_tensor(dist, device=ctx.device)
        peak = m.amax(dim=(1, 2), keepdim=True)
        m = torch.where(
            peak > 0,
            m / torch.where(peak > 0, peak, torch.ones_like(peak)) * float(np.float32(intensity)),
            m,
        )
        colour = torch.as_tensor(WATER_COLOUR, device=ctx.device).view(1, 3, 1, 1)
        out = x + m[:, None] * colour
    else:
        mask = gaussian_nearest((liquid > threshold).to(liquid.dtype), intensity)
        mask = mask.mul_(mask >= 0.8)[:, None]  # mask[mask < 0.8] = 0 (mask >= 0)
        mud = torch.as_tensor(
            MUD_COLOUR.astype(np.float64), device=ctx.device, dtype=mask.dtype
        ).view(1, 3, 1, 1)
        out = (x * (1 - mask)).to(torch.float32) + (mud * mask).to(torch.float32)
    return unit255(out)

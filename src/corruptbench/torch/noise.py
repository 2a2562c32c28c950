"""Noise corruptions on batches (:mod:`corruptbench.corruptions.noise`): gaussian, shot, impulse
and speckle noise."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from ..ops.legacy_random import choice_threshold
from .context import BatchContext, batch_impl, unit255
from .ops.poisson import poisson_u8

__all__: list[str] = []


def _normal_draws(
    img: np.ndarray, rng: np.random.RandomState, p: Mapping[str, Any], hw: tuple[int, int]
) -> dict[str, Any]:
    return {"normal": rng.standard_normal(img.shape).transpose(2, 0, 1)}


def _shot_draws(
    img: np.ndarray, rng: np.random.RandomState, p: Mapping[str, Any], hw: tuple[int, int]
) -> dict[str, Any]:
    return {"poisson": rng.poisson((img / 255.0) * p["photons"]).transpose(2, 0, 1)}


def _impulse_draws(
    img: np.ndarray, rng: np.random.RandomState, p: Mapping[str, Any], hw: tuple[int, int]
) -> dict[str, Any]:
    u_flip = rng.random_sample(img.shape).transpose(2, 0, 1)
    return {"u_flip": u_flip, "u_salt": rng.random_sample(img.shape).transpose(2, 0, 1)}


@batch_impl("gaussian_noise", draw_keys=("normal",), cpu_draws=_normal_draws)
def _gaussian_noise(ctx: BatchContext) -> torch.Tensor:
    c = ctx.params["std"]
    z = ctx.draw("normal", lambda: ctx.rnd.normal(tuple(ctx.x.shape))).to(torch.float32)
    return unit255(ctx.x + c * z)


@batch_impl("shot_noise", draw_keys=("poisson",), cpu_draws=_shot_draws)
def _shot_noise(ctx: BatchContext) -> torch.Tensor:
    c = float(ctx.params["photons"])

    def draw() -> torch.Tensor:
        if ctx.is_u8:  # 256 rates: alias tables (same law, ~4x faster than torch.poisson on CPU)
            words = torch.empty(tuple(ctx.raw.shape), dtype=torch.int64, device=ctx.rnd.gdev)
            words.random_(generator=ctx.rnd.generator)  # uniform on [0, 2^63)
            return poisson_u8(ctx.raw, c, words).to(ctx.device)
        return ctx.rnd.poisson(ctx.x * c)

    k = ctx.draw("poisson", draw).to(torch.float32)
    return unit255(k / c)


@batch_impl("impulse_noise", draw_keys=("u_flip", "u_salt"), cpu_draws=_impulse_draws)
def _impulse_noise(ctx: BatchContext) -> torch.Tensor:
    c = ctx.params["amount"]
    shape = (ctx.n, 3, ctx.h, ctx.w)
    # thresholds exactly as the legacy choice([True, False], p=[c, 1 - c]): u < cdf[0]
    thr_flip, thr_salt = choice_threshold(c), choice_threshold(0.5)
    if ctx.draws is None:
        # one uniform field: flipped where u < c, salt where u < c / 2 (the same joint law as two
        # independent fields; P(salt | flipped) = 1/2); half the random numbers
        u = ctx.rnd.rand(shape).to(ctx.device)
        kept = u >= thr_flip
        salt = u < thr_flip * thr_salt  # a subset of the flipped pixels
    else:
        kept = ctx.draw("u_flip", lambda: torch.empty(0)) >= thr_flip
        salt = (ctx.draw("u_salt", lambda: torch.empty(0)) < thr_salt).logical_and_(~kept)
    if ctx.is_u8:  # untouched values stay exact: x * kept + 255 * salt (no overflow: disjoint)
        return torch.mul(ctx.raw, kept.view(torch.uint8)).add_(salt.view(torch.uint8), alpha=255)
    return torch.where(salt, 255.0, torch.where(kept, ctx.v, 0.0))


@batch_impl("speckle_noise", draw_keys=("normal",), cpu_draws=_normal_draws)
def _speckle_noise(ctx: BatchContext) -> torch.Tensor:
    c = ctx.params["std"]
    z = ctx.draw("normal", lambda: ctx.rnd.normal(tuple(ctx.x.shape))).to(torch.float32)
    return unit255(ctx.x + ctx.x * (c * z))

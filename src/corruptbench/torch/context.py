"""What every batch implementation of :mod:`corruptbench.torch` works with: the batch context, the
random source on the generator's device, and the registration of an implementation into the
corruption's :class:`~corruptbench.registry.CorruptionSpec`."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ..registry import register_batch

__all__ = [
    "BatchImpl",
    "BatchContext",
    "DeviceRandom",
    "CpuDraws",
    "FrostTextures",
    "batch_impl",
    "hi_dtype",
    "unit255",
]

#: ``cpu_draws(image, rng, params, (H, W))``: the random fields the CPU library draws for one
#: image from a ``RandomState`` with the named parameters ``params`` (the spec's ``params``, as
#: :func:`corruptbench.corruptions.params.params_of` gives them), in
#: :func:`corruptbench.torch.corrupt_batch_with_draws`'s per-image layout (consuming the
#: ``RandomState`` exactly as the library would)
CpuDraws = Callable[
    [np.ndarray, np.random.RandomState, Mapping[str, Any], tuple[int, int]], dict[str, Any]
]

#: ``texture(index)``: frost texture ``index`` (0..4) as read-only RGB uint8, larger than the
#: image in both dimensions (hashable: the torch copies are cached per source)
FrostTextures = Callable[[int], np.ndarray]


@dataclass(frozen=True)
class BatchImpl:
    """The torch batch implementation of one corruption (``CorruptionSpec.batch``)."""

    #: ``run(ctx)``: float32 in the [0, 255] domain (already clipped as the reference), or the
    #: final uint8 values
    run: Callable[[BatchContext], torch.Tensor]
    #: the names of the explicit random fields it accepts (empty for deterministic corruptions)
    draw_keys: tuple[str, ...] = ()
    #: the same fields drawn as the CPU library draws them (random corruptions only)
    cpu_draws: CpuDraws | None = None
    #: CPU chunk budget (bytes of one float32 batch tensor) with one torch thread, when the
    #: working set is several batch-sized tensors (default: ``CPU_CHUNK_BYTES``)
    single_thread_chunk_bytes: int | None = None


def batch_impl(
    name: str,
    *,
    draw_keys: tuple[str, ...] = (),
    cpu_draws: CpuDraws | None = None,
    single_thread_chunk_bytes: int | None = None,
) -> Callable[[Callable[[BatchContext], torch.Tensor]], Callable[[BatchContext], torch.Tensor]]:
    """Decorator: register ``run`` as corruption ``name``'s batch implementation."""

    def deco(run: Callable[[BatchContext], torch.Tensor]) -> Callable[[BatchContext], torch.Tensor]:
        register_batch(name, BatchImpl(run, draw_keys, cpu_draws, single_thread_chunk_bytes))
        return run

    return deco


class DeviceRandom:
    """Draws from ``generator`` (on its own device) and moves the result to ``device``."""

    def __init__(self, generator: torch.Generator | None, device: torch.device) -> None:
        self.generator = generator
        self.device = device
        self.gdev = generator.device if generator is not None else device

    def _out(self, t: torch.Tensor) -> torch.Tensor:
        return t.to(self.device)

    def normal(self, shape: tuple[int, ...]) -> torch.Tensor:
        return self._out(torch.randn(shape, generator=self.generator, device=self.gdev))

    def rand(self, shape: tuple[int, ...], dtype: torch.dtype = torch.float32) -> torch.Tensor:
        """Uniforms in [0, 1) on the generator's device (not moved)."""
        return torch.rand(shape, generator=self.generator, device=self.gdev, dtype=dtype)

    def uniform(
        self, shape: tuple[int, ...], low: float, high: float, dtype: torch.dtype = torch.float32
    ) -> torch.Tensor:
        u = torch.empty(shape, device=self.gdev, dtype=dtype)
        return self._out(u.uniform_(low, high, generator=self.generator))  # one pass

    def randint(self, low: int, high: int, shape: tuple[int, ...]) -> torch.Tensor:
        return self._out(
            torch.randint(low, high, shape, generator=self.generator, device=self.gdev)
        )

    def randint_small(self, low: int, high: int, shape: tuple[int, ...]) -> torch.Tensor:
        """Uniform integers in ``[low, high)`` on ``device``. Ranges of 2, 4, 8 or 16 values within
        int8 are cut from random bytes (1, 2 or 4 bits per value: exactly uniform, 8 to 56 values
        per generator call) and returned as int8; other ranges: ``torch.randint`` (int64)."""
        m = high - low
        if m not in (2, 4, 8, 16) or low < -128 or high > 128:
            return self.randint(low, high, shape)
        bits = {2: 1, 4: 2, 8: 4, 16: 4}[m]  # a power of two dividing 8 (8 values use 4-bit slots)
        per = 8 // bits
        count = math.prod(shape)
        # random_ on int64 fills [0, 2^63): 7 random bytes per word (the top one has 7 bits)
        words = torch.empty(-(-count // (7 * per)), dtype=torch.int64, device=self.gdev)
        words.random_(generator=self.generator)
        full = words.view(torch.uint8).view(-1, 8)
        bytes7 = (full[:, :7] if sys.byteorder == "little" else full[:, 1:]).reshape(-1)
        fields = [bytes7.bitwise_right_shift(s).bitwise_and_(m - 1) for s in range(0, 8, bits)]
        out = torch.stack(fields, dim=1).view(-1)[:count].view(torch.int8).add_(low)
        return self._out(out.view(shape))

    def poisson(self, rates: torch.Tensor) -> torch.Tensor:
        return self._out(torch.poisson(rates.to(self.gdev), generator=self.generator))


class BatchContext:
    """One chunk of a batch as the corruptions need it: the input in its forms (``raw``, ``x`` in
    [0, 1], ``v`` in [0, 255]), the corruption's named parameters (``params``: the spec's
    ``params``, a level's from :func:`corruptbench.corruptions.params.severity_params` or given
    explicitly), the random source, explicit draws and, for frost, another texture set
    (``frost_textures``; None: ImageNet-C's, scaled by the ``texture_scale`` parameter)."""

    def __init__(
        self,
        x: torch.Tensor,
        params: Mapping[str, Any],
        rnd: DeviceRandom,
        draws: Mapping[str, Any] | None,
        frost_textures: FrostTextures | None = None,
    ) -> None:
        self.is_u8 = x.dtype == torch.uint8
        self.raw = x
        self.device = x.device
        self.n, _, self.h, self.w = x.shape
        self.params = params
        self.rnd = rnd
        self.draws = draws
        self.frost_textures = frost_textures
        self._x: torch.Tensor | None = None
        self._v: torch.Tensor | None = None

    @property
    def x(self) -> torch.Tensor:
        """The image in [0, 1], float32 (``uint8 / 255`` for uint8 input). Shared: do not modify."""
        if self._x is None:
            self._x = (
                self.raw.to(torch.float32).div_(255.0) if self.is_u8 else self.raw.to(torch.float32)
            )
        return self._x

    @property
    def v(self) -> torch.Tensor:
        """The image in the [0, 255] domain, float32 (exact integers for uint8 input). Shared."""
        if self._v is None:
            self._v = self.raw.to(torch.float32) if self.is_u8 else self.x * 255.0
        return self._v

    def draw(self, key: str, make: Callable[[], torch.Tensor]) -> torch.Tensor:
        if self.draws is not None and key in self.draws:
            return torch.as_tensor(self.draws[key]).to(self.device)
        if self.draws is not None:
            raise KeyError(f"draws is missing {key!r}")
        return make()

    def u8(self) -> torch.Tensor:
        """The image as 8-bit integer values (float32): exact for uint8 input, ``round(255 x)``
        clamped for float input."""
        return self.v if self.is_u8 else torch.round(self.v).clamp_(0, 255)


def hi_dtype(device: torch.device) -> torch.dtype:
    """float64 where the device has it (exact fixed-point sums); MPS has no float64."""
    return torch.float32 if device.type == "mps" else torch.float64


def unit255(y: torch.Tensor) -> torch.Tensor:
    """``clip(y, 0, 1) * 255`` *in place*: only for fresh temporaries."""
    return y.clamp_(0.0, 1.0).mul_(255.0)

"""CCC's corruptions on torch batches, on any device: :func:`corrupt_batch`, :func:`corrupt_pair_batch`.

The same continuous severities as :func:`corruptbench.ccc.functions.corrupt` (CCC's interpolated
parameters, :func:`corruptbench.ccc.params.corruption_params`: shot noise's ``1 / f(s)``, glass
blur's rounding, zoom blur's ``arange``, JPEG's ``round``; frost crops CCC's re-encoded textures,
:func:`corruptbench.ccc.functions.ccc_frost_texture`) given to the torch backend's batch
implementations (:func:`corruptbench.torch.apply_params`, ``backend="tensor"``: float32 on the
batch's device, its deliberate differences listed in :mod:`corruptbench.torch.functional`).

Statistically equivalent to the NumPy functions, not byte-identical: the random fields come from
a ``torch.Generator`` (one independent draw per sample). With the NumPy draws
(:func:`cpu_draws`: what ``corrupt(image, name, s, rng=k)`` draws from ``RandomState(k)``) the
output is the NumPy one up to float32 rounding (the torch backend's tolerance, PSNR >= 40 dB;
tests/ccc/test_batch.py). Glass blur's draws follow our NumPy function's legacy-stream offsets,
not the original's unseedable numba stream (:mod:`corruptbench.ccc.functions`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from ..errors import Arg, ArgumentError
from ..registry import get_corruption
from ..tables.ccc import CCC_NAMES
from ..torch import apply_params, cpu_param_draws
from .functions import SIZE, ccc_frost_texture
from .params import check_ccc_name, check_ccc_severity, corruption_params

__all__ = ["corrupt_batch", "corrupt_pair_batch", "cpu_draws", "check_torch_name"]


def check_torch_name(name: Any) -> str:
    """``name`` as CCC's name if the torch backend has its corruption, else one line."""
    key = check_ccc_name(name)
    if get_corruption(CCC_NAMES[key]).batch is None:
        raise ArgumentError(
            Arg("name"),
            f": {key!r} has no implementation in the torch backend (corruptbench.torch)",
        )
    return key


def _check_batch(x: Any) -> None:
    if not isinstance(x, torch.Tensor) or x.ndim != 4 or tuple(x.shape[1:]) != (3, SIZE, SIZE):
        got = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
        raise ArgumentError(
            Arg("x"),
            f" must be a (N, 3, {SIZE}, {SIZE}) tensor (CCC's corruptions are written for "
            f"{SIZE} x {SIZE} crops), got {got}",
        )


def _textures(key: str) -> Any:
    return ccc_frost_texture if key == "frost" else None


def corrupt_batch(
    x: torch.Tensor,
    name: str,
    severity: float,
    *,
    generator: torch.Generator | None = None,
    draws: Mapping[str, Any] | None = None,
) -> torch.Tensor:
    """CCC's corruption ``name`` at ``severity`` (any float in [0, 5]) of a batch on any device.

    Args:
        x: ``(N, 3, 224, 224)`` RGB, uint8 (0..255) or floating point (0..1). Never modified.
        name: CCC's name (``"elastic"``, ``"jpeg"``, ...) or the registry's.
        severity: a number in [0, 5]; 0 returns a copy, drawing nothing.
        generator: the random draws' ``torch.Generator`` (one independent draw per sample).
        draws: the random fields given (:func:`cpu_draws`); then ``generator`` is not used.

    Returns:
        Tensor of ``x``'s dtype, shape and device (uint8 truncated as CCC's ``np.uint8``).

    Raises:
        ArgumentError: an unknown corruption or one the torch backend lacks, a severity outside
            [0, 5], a batch that is not ``(N, 3, 224, 224)``.
    """
    key = check_torch_name(name)
    s = check_ccc_severity(severity)
    _check_batch(x)
    if s == 0:
        return x.clone()
    return apply_params(
        x,
        CCC_NAMES[key],
        corruption_params(key, s),
        generator=generator,
        draws=draws,
        frost_textures=_textures(key),
    )


def corrupt_pair_batch(
    x: torch.Tensor,
    n1: str,
    s1: float,
    n2: str,
    s2: float,
    *,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """``generate.py``'s two corruptions of each crop on a batch: ``n1`` at ``s1`` then ``n2``
    at ``s2`` (:func:`corrupt_batch` each; a corruption at severity 0 skipped), as
    :func:`corruptbench.ccc.functions.corrupt_pair` does per image (uint8 in between for a uint8
    batch; a float batch stays float)."""
    return corrupt_batch(corrupt_batch(x, n1, s1, generator=generator), n2, s2, generator=generator)


def cpu_draws(
    images: Sequence[np.ndarray],
    name: str,
    severity: float,
    rngs: Sequence[np.random.RandomState],
) -> dict[str, torch.Tensor]:
    """The random fields ``corruptbench.ccc.corrupt(images[i], name, severity, rng=rngs[i])``
    draws (each ``RandomState`` consumed as it would be), for :func:`corrupt_batch`'s ``draws``.
    Frost's crop bounds are the texture sizes, the same for CCC's re-encoded textures as for
    ImageNet-C's (re-encoding keeps the size)."""
    key = check_torch_name(name)
    s = check_ccc_severity(severity)
    if s == 0:
        return {}
    return cpu_param_draws(images, CCC_NAMES[key], corruption_params(key, s), rngs)

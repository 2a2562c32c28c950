"""What the 30 corruptions of ImageNet-C-bar / CIFAR-10-C-bar share (suite ``cbar``).

The corruptions are those of ``corrupt.py`` in facebookresearch/augmentation-corruption (commit
ba4d5a5, ``imagenet_c_bar/``; Mintun, Kirillov, Xie, NeurIPS 2021), re-implemented: each draws
its parameters like the class's ``sample_parameters()`` (same distributions, same order, from the
``rng`` argument instead of NumPy's global state) and applies ``transform(image, **params)`` with
the same arithmetic, so that ``corrupt(x, name, s, rng=k)`` is ``np.random.seed(k);
np.uint8(build_transform(name, level, dataset_type)(x))`` of the original, ``level`` being the
severity's entry of :mod:`corruptbench.tables.cbar`.

Sizes: the original classes take the (square) image side ``im_size`` as a parameter; here it is
the image's own. A non-square H x W image (ours; the original has no such case) is corrupted on
its own pixel grid, with

* sizes of things (radii, wavelengths, scales, ring widths, noise cells, line lengths) from the
  short side ``S = min(H, W)``;
* positions drawn over each axis: where the original draws ``uniform(a, b) * im_size`` for a row
  and a column coordinate, the row uses H and the column W (the same draws, so a square image
  gets the original's values);
* anything that tiles the image (checkerboard cells, pinch-and-twirl cells, the Fourier noise
  field) covering all of it, as each corruption's docstring says.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..profiles import Profile
from ..registry import register_corruption
from ..tables.cbar import BENCHMARK_TABLES, cbar_level

__all__ = [
    "SUITE",
    "EXTRA_TAG",
    "TWO",
    "float_parameter",
    "int_parameter",
    "level_of",
    "level_params",
    "benchmark_tags",
    "register_cbar",
    "short_side",
]

#: the registry suite of the 30 corruptions
SUITE = "cbar"
#: the tag of the 15 that neither benchmark uses (the paper's other corruptions)
EXTRA_TAG = "cbar_extra"
#: the exponent 2 as a run-time value for the compiled kernels (a NumPy scalar's ``s ** 2`` is
#: libm ``pow``, which a literal exponent would turn into ``s * s``)
TWO = 2.0


def float_parameter(level: float, maxval: float) -> float:
    """The original's ``float_parameter``: ``float(level) * maxval / 10.``"""
    return float(level) * maxval / 10.0


def int_parameter(level: float, maxval: float) -> int:
    """The original's ``int_parameter``: ``int(level * maxval / 10)``."""
    return int(level * maxval / 10)


def level_of(name: str, severity: int, profile: Profile) -> float:
    """The original level (its ``severity`` argument) for our ``severity`` 1..5 and ``profile``
    (:func:`corruptbench.tables.cbar.cbar_level`)."""
    return cbar_level(name, severity, profile.name)


def benchmark_tags(name: str) -> tuple[str, ...]:
    """The benchmarks whose 5-level table lists ``name`` (``imagenet_c_bar``,
    ``cifar10_c_bar``), from :data:`~corruptbench.tables.cbar.BENCHMARK_TABLES`."""
    return tuple(tag for tag, (five, *_) in BENCHMARK_TABLES.items() if name in five)


#: corruption -> its ``from_level``: the original level -> the parameter values (the class's
#: formulas), in the spec's ``params`` order
_FROM_LEVEL: dict[str, Callable[[float], tuple[Any, ...]]] = {}


def level_params(name: str, level: float) -> tuple[Any, ...]:
    """The parameter values of corruption ``name`` at the original's ``level`` (a float in
    [0, 10]; ``color_dither`` up to 12), by the class's formulas, in the spec's ``params``
    order."""
    return _FROM_LEVEL[name](level)


def register_cbar(
    name: str,
    *,
    family: str,
    order: int,
    random: bool = True,
    aliases: Sequence[str] = (),
    params: Sequence[str] = (),
    apply: Callable[..., Any] | None = None,
    from_level: Callable[[float], tuple[Any, ...]] | None = None,
    bounds: Mapping[str, tuple[float | None, float | None, bool]] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a corruption of the ``cbar`` suite: its tags are the benchmarks that use it
    (:func:`benchmark_tags`), or ``cbar_extra`` (then ``extra=True``) when none does; ``order`` is
    its position in the original ``transform_finder.transform_list``; ``family`` the module of
    the repository's ``experiments/overlap/augmentations/`` that holds it (``noise`` for
    additive_noise.py, ``blur``, ``color``, ``obscure``, ``distortion``, ``pil``); ``params``,
    ``apply``: its function of the parameters and their names; ``from_level``: the original
    level -> the parameter values (:func:`level_params`); ``bounds``: as
    :func:`~corruptbench.registry.register_corruption`'s."""
    if from_level is not None:
        _FROM_LEVEL[name] = from_level
    tags = benchmark_tags(name)
    extra = not tags
    return register_corruption(
        name,
        family=family,
        order=order,
        extra=extra,
        random=random,
        suite=SUITE,
        tags=(EXTRA_TAG,) if extra else tags,
        aliases=aliases,
        params=params,
        apply=apply,
        bounds=bounds,
    )


def short_side(image: np.ndarray) -> int:
    """``S = min(H, W)``: the original's ``im_size`` for sizes of things."""
    return int(min(image.shape[0], image.shape[1]))

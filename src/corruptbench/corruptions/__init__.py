"""Corruption functions, one small function per corruption, grouped by family.

Each function has the signature ``f(image, severity, *, profile, rng)`` and receives a validated
read-only uint8 H x W x 3 array; it returns an array in the [0, 255] domain (float or uint8) that the
dispatcher truncates to uint8. Use :func:`corruptbench.corrupt` rather than calling them directly.

Importing this package registers the 19 corruptions (:mod:`corruptbench.registry`); the name lists
below are derived from those registrations. The order is the reference's ``corruption_tuple``
(imagenet_c/__init__.py:5-8 of the imagenet-c 0.0.3 package;
ImageNet-C/create_c/make_imagenet_c.py:599-618 and ImageNet-C/test.py:272-278 of
github.com/hendrycks/robustness), each function's ``order``; mCE averages the 15 benchmark
corruptions only.
"""

from __future__ import annotations

from ..registry import corruption_specs

# importing registers the functions: the 19 of ImageNet-C, then the 30 of ImageNet-C-bar ("cbar")
from . import (  # noqa: F401
    blur,
    cbar_blur,
    cbar_color,
    cbar_distortion,
    cbar_noise,
    cbar_obscure,
    cbar_pil,
    digital,
    noise,
    weather,
)

__all__ = ["ALL_CORRUPTIONS", "BENCHMARK_CORRUPTIONS", "EXTRA_CORRUPTIONS", "FAMILIES"]

#: All 19 corruptions in the reference order: the 15 benchmark corruptions, then the 4 extra.
ALL_CORRUPTIONS: tuple[str, ...] = tuple(s.name for s in corruption_specs())
#: The 15 benchmark corruptions, in the reference order.
BENCHMARK_CORRUPTIONS: tuple[str, ...] = tuple(s.name for s in corruption_specs() if not s.extra)
#: The four "extra" / validation corruptions (issue #36), reported separately from mCE.
EXTRA_CORRUPTIONS: tuple[str, ...] = tuple(s.name for s in corruption_specs() if s.extra)
#: The families of the paper's Figure 1 (and imagecorruptions' subsets), in the order their first
#: corruption appears: noise, blur, weather (with brightness), digital. The 4 extra corruptions
#: belong to none.
FAMILIES: tuple[str, ...] = tuple(
    dict.fromkeys(s.family for s in corruption_specs() if s.family is not None)
)

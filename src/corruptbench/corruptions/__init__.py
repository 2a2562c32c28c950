"""Corruption functions, one small function per corruption, grouped by family.

Each function has the signature ``f(image, severity, *, profile, rng)`` and receives a validated
read-only uint8 H x W x 3 array; it returns an array in the [0, 255] domain (float or uint8) that the
dispatcher truncates to uint8. Use :func:`corruptbench.corrupt` rather than calling them directly.

Each is the table lookup of its severity's parameters plus its function of the parameters,
``<name>_p(image, *, <params>, rng)`` (same input contract; exported here), whose docstring gives
each parameter's unit, range and formula: :mod:`.params` (:func:`params_of`,
:func:`apply_params`, the checked entry point).

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
from .blur import defocus_blur_p, gaussian_blur_p, glass_blur_p, motion_blur_p, zoom_blur_p
from .cbar_blur import (
    chromatic_abberation_p,
    circular_motion_blur_p,
    scatter_p,
    transverse_chromatic_abberation_p,
)
from .cbar_color import bleach_bypass_p, color_dither_p, hue_shift_p, pseudocolor_p, technicolor_p
from .cbar_distortion import (
    caustic_refraction_p,
    fish_eye_p,
    pinch_and_twirl_p,
    ripple_p,
    water_drop_p,
)
from .cbar_noise import (
    blue_noise_p,
    brownish_noise_p,
    caustic_noise_p,
    cocentric_sine_waves_p,
    inverse_sparkles_p,
    perlin_noise_p,
    plasma_noise_p,
    single_frequency_greyscale_p,
    sparkles_p,
    voronoi_noise_p,
)
from .cbar_obscure import blue_noise_sample_p, checkerboard_cutout_p, lines_p
from .cbar_pil import color_balance_p, perspective_no_bars_p, quadrilateral_no_bars_p
from .digital import (
    brightness_p,
    contrast_p,
    elastic_transform_p,
    jpeg_compression_p,
    pixelate_p,
    saturate_p,
)
from .noise import gaussian_noise_p, impulse_noise_p, shot_noise_p, speckle_noise_p
from .params import ParamCorruption, apply_params, params_of
from .weather import fog_p, frost_p, snow_p, spatter_p

__all__ = [
    "ALL_CORRUPTIONS",
    "BENCHMARK_CORRUPTIONS",
    "EXTRA_CORRUPTIONS",
    "FAMILIES",
    "params_of",
    "apply_params",
    "ParamCorruption",
    # the functions of the parameters, ImageNet-C's in the reference order
    "gaussian_noise_p",
    "shot_noise_p",
    "impulse_noise_p",
    "defocus_blur_p",
    "glass_blur_p",
    "motion_blur_p",
    "zoom_blur_p",
    "snow_p",
    "frost_p",
    "fog_p",
    "brightness_p",
    "contrast_p",
    "elastic_transform_p",
    "pixelate_p",
    "jpeg_compression_p",
    "speckle_noise_p",
    "gaussian_blur_p",
    "spatter_p",
    "saturate_p",
    # ImageNet-C-bar's, in the original transform_list's order
    "color_balance_p",
    "quadrilateral_no_bars_p",
    "perspective_no_bars_p",
    "single_frequency_greyscale_p",
    "cocentric_sine_waves_p",
    "plasma_noise_p",
    "voronoi_noise_p",
    "caustic_noise_p",
    "perlin_noise_p",
    "blue_noise_p",
    "brownish_noise_p",
    "scatter_p",
    "chromatic_abberation_p",
    "transverse_chromatic_abberation_p",
    "circular_motion_blur_p",
    "bleach_bypass_p",
    "technicolor_p",
    "pseudocolor_p",
    "hue_shift_p",
    "color_dither_p",
    "checkerboard_cutout_p",
    "sparkles_p",
    "inverse_sparkles_p",
    "lines_p",
    "blue_noise_sample_p",
    "pinch_and_twirl_p",
    "caustic_refraction_p",
    "fish_eye_p",
    "water_drop_p",
    "ripple_p",
]

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

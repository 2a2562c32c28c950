"""Every per-severity parameter table of ImageNet-C, per dataset profile, in one place.

This module is data, not code. Each table maps a corruption name to five entries (severity 1..5).
Numbers come from the reference generator scripts in ``ImageNet-C/create_c/`` of
github.com/hendrycks/robustness (lines 249-568 of make_imagenet_c.py at commit 8190fe3; the same
numbers as ``imagenet_c/corruptions.py:122-424`` of the imagenet-c 0.0.3 package):

* ``imagenet``  (224 px) — ``make_imagenet_c.py`` = the ``imagenet_c`` PyPI package
* ``inception`` (299 px) — ``make_imagenet_c_inception.py``
* ``tiny``      (64 px)  — ``make_tinyimagenet_c.py`` = ``make_imagenet_64_c.py``
* ``cifar``     (32 px)  — ``make_cifar_c.py``

The values of an entry are, in order, the keyword parameters that the corruption's registration
names (the spec's ``params``; :func:`corruptbench.corruptions.params_of` zips them), then those of
:data:`PROFILE_PARAMS`, which come from the profile.

Conventions:

* ``zoom_blur`` entries are ``(stop, step)`` of ``np.arange(1, stop, step)`` — the factor list is
  computed with ``np.arange`` exactly, because float round-off includes the stop value for some
  entries (a reference quirk: e.g. ``np.arange(1, 1.11, 0.01)`` ends at 1.11, while
  ``np.arange(1, 1.16, 0.01)`` ends at 1.15).
* ``elastic_transform`` entries are ``(alpha, sigma, affine_jitter)`` already multiplied by the
  profile's scale (244 for imagenet — the reference's "244 should have been 224" quirk —, 360 for
  inception, 64 for tiny, 32 for cifar).
* ``spatter`` entries are ``(loc, scale, sigma, threshold, intensity, mode)``, mode 0 = water, 1 = mud.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

__all__ = ["TABLES", "get_params", "ELASTIC_SCALE", "SPATTER_COLOURS", "PROFILE_PARAMS"]


#: spatter's liquid colours, RGB 0..255 (make_imagenet_c.py spatter: water ``175 / 255.``,
#: ``238 / 255.``, ``238 / 255.`` per channel; mud ``63 / 255.``, ``42 / 255.``, ``20 / 255.``;
#: imagenet_c/corruptions.py:321-323 and :334-336), the same in every profile
SPATTER_COLOURS = MappingProxyType({"water": (175, 238, 238), "mud": (63, 42, 20)})

#: elastic_transform multiplier per profile (imagenet_c/corruptions.py:396-400 at 224 px, and the
#: elastic_transform tables of make_imagenet_c_inception.py, make_tinyimagenet_c.py and
#: make_cifar_c.py; 244 is the reference's quirk at 224 px).
ELASTIC_SCALE = {"imagenet": 244, "inception": 360, "tiny": 64, "cifar": 32}

_ELASTIC_224 = (
    (2, 0.7, 0.1),
    (2, 0.08, 0.2),
    (0.05, 0.01, 0.02),
    (0.07, 0.01, 0.02),
    (0.12, 0.01, 0.02),
)
_ELASTIC_64 = (
    (0, 0, 0.08),
    (0.05, 0.3, 0.06),
    (0.1, 0.08, 0.06),
    (0.1, 0.03, 0.03),
    (0.16, 0.03, 0.02),
)
_ELASTIC_32 = (
    (0, 0, 0.08),
    (0.05, 0.2, 0.07),
    (0.08, 0.06, 0.06),
    (0.1, 0.04, 0.05),
    (0.1, 0.03, 0.03),
)


def _scaled(
    triples: tuple[tuple[float, float, float], ...], s: int
) -> tuple[tuple[float, ...], ...]:
    # The reference writes e.g. ``(244 * 2, 244 * 0.7, 244 * 0.1)``: multiply exactly like that.
    return tuple((s * a, s * b, s * c) for a, b, c in triples)


_SNOW_224 = (
    (0.1, 0.3, 3, 0.5, 10, 4, 0.8),
    (0.2, 0.3, 2, 0.5, 12, 4, 0.7),
    (0.55, 0.3, 4, 0.9, 12, 8, 0.7),
    (0.55, 0.3, 4.5, 0.85, 12, 8, 0.65),
    (0.55, 0.3, 2.5, 0.85, 12, 12, 0.55),
)
_SNOW_64 = (
    (0.1, 0.2, 1, 0.6, 8, 3, 0.8),
    (0.1, 0.2, 1, 0.5, 10, 4, 0.8),
    (0.15, 0.3, 1.75, 0.55, 10, 4, 0.7),
    (0.25, 0.3, 2.25, 0.6, 12, 6, 0.65),
    (0.3, 0.3, 1.25, 0.65, 14, 12, 0.6),
)
_SNOW_32 = tuple(row[:6] + (blend,) for row, blend in zip(_SNOW_64, (0.95, 0.9, 0.9, 0.85, 0.8)))

_ZOOM_224 = ((1.11, 0.01), (1.16, 0.01), (1.21, 0.02), (1.26, 0.02), (1.31, 0.03))
_ZOOM_64 = ((1.06, 0.01), (1.11, 0.01), (1.16, 0.01), (1.21, 0.01), (1.26, 0.01))
_FROST_224 = ((1, 0.4), (0.8, 0.6), (0.7, 0.7), (0.65, 0.7), (0.6, 0.75))
_SATURATE_224 = ((0.3, 0), (0.1, 0), (2, 0), (5, 0.1), (20, 0.2))

_IMAGENET: dict[str, tuple[Any, ...]] = {
    "gaussian_noise": (0.08, 0.12, 0.18, 0.26, 0.38),
    "shot_noise": (60, 25, 12, 5, 3),
    "impulse_noise": (0.03, 0.06, 0.09, 0.17, 0.27),
    "defocus_blur": ((3, 0.1), (4, 0.5), (6, 0.5), (8, 0.5), (10, 0.5)),
    "glass_blur": ((0.7, 1, 2), (0.9, 2, 1), (1, 2, 3), (1.1, 3, 2), (1.5, 4, 2)),
    "motion_blur": ((10, 3), (15, 5), (15, 8), (15, 12), (20, 15)),
    "zoom_blur": _ZOOM_224,
    "snow": _SNOW_224,
    "frost": _FROST_224,
    "fog": ((1.5, 2), (2, 2), (2.5, 1.7), (2.5, 1.5), (3, 1.4)),
    "brightness": (0.1, 0.2, 0.3, 0.4, 0.5),
    "contrast": (0.4, 0.3, 0.2, 0.1, 0.05),
    "elastic_transform": _scaled(_ELASTIC_224, 244),
    "pixelate": (0.6, 0.5, 0.4, 0.3, 0.25),
    "jpeg_compression": (25, 18, 15, 10, 7),
    "speckle_noise": (0.15, 0.2, 0.35, 0.45, 0.6),
    "gaussian_blur": (1, 2, 3, 4, 6),
    "spatter": (
        (0.65, 0.3, 4, 0.69, 0.6, 0),
        (0.65, 0.3, 3, 0.68, 0.6, 0),
        (0.65, 0.3, 2, 0.68, 0.5, 0),
        (0.65, 0.3, 1, 0.65, 1.5, 1),
        (0.67, 0.4, 1, 0.65, 1.5, 1),
    ),
    "saturate": _SATURATE_224,
}

_INCEPTION: dict[str, tuple[Any, ...]] = {
    "gaussian_noise": (0.09, 0.13, 0.19, 0.27, 0.40),
    "shot_noise": (50, 20, 10, 5, 3),
    "impulse_noise": (0.04, 0.07, 0.10, 0.18, 0.28),
    "defocus_blur": ((4, 0.1), (5, 0.5), (7, 0.5), (10, 0.5), (12, 0.5)),
    "glass_blur": ((0.8, 1, 3), (1, 3, 1), (1.1, 2, 4), (1.2, 4, 2), (1.6, 5, 2)),
    "motion_blur": ((12, 4), (17, 6), (17, 9), (17, 13), (22, 16)),
    "zoom_blur": _ZOOM_224,
    "snow": _SNOW_224,
    "frost": _FROST_224,
    "fog": ((1.5, 2), (2, 2), (2.5, 1.8), (2.5, 1.6), (3, 1.5)),
    "brightness": (0.1, 0.2, 0.3, 0.4, 0.5),
    "contrast": (0.4, 0.3, 0.2, 0.1, 0.05),
    "elastic_transform": _scaled(_ELASTIC_224, 360),
    "pixelate": (0.5, 0.4, 0.3, 0.25, 0.2),
    "jpeg_compression": (23, 16, 13, 8, 5),
    "speckle_noise": (0.16, 0.21, 0.36, 0.46, 0.61),
    "gaussian_blur": (1.5, 2.5, 3.5, 4.5, 6.5),
    "spatter": (
        (0.65, 0.3, 4, 0.69, 0.9, 0),
        (0.65, 0.3, 3.5, 0.68, 0.9, 0),
        (0.65, 0.3, 3, 0.68, 0.8, 0),
        (0.65, 0.3, 1.2, 0.65, 1.8, 1),
        (0.67, 0.4, 1.2, 0.65, 1.8, 1),
    ),
    "saturate": _SATURATE_224,
}

_TINY: dict[str, tuple[Any, ...]] = {
    "gaussian_noise": (0.04, 0.08, 0.12, 0.15, 0.18),
    "shot_noise": (250, 100, 50, 30, 15),
    "impulse_noise": (0.01, 0.02, 0.05, 0.08, 0.14),
    "defocus_blur": ((0.5, 0.6), (1, 0.1), (1.5, 0.1), (2.5, 0.01), (3, 0.1)),
    "glass_blur": ((0.1, 1, 1), (0.5, 1, 1), (0.6, 1, 2), (0.7, 2, 1), (0.9, 2, 2)),
    "motion_blur": ((10, 1), (10, 1.5), (10, 2), (10, 2.5), (12, 3)),
    "zoom_blur": _ZOOM_64,
    "snow": _SNOW_64,
    "frost": ((1, 0.3), (0.9, 0.4), (0.8, 0.45), (0.75, 0.5), (0.7, 0.55)),
    "fog": ((0.4, 3), (0.7, 3), (1, 2.5), (1.5, 2), (2, 1.75)),
    "brightness": (0.1, 0.2, 0.3, 0.4, 0.5),
    "contrast": (0.4, 0.3, 0.2, 0.1, 0.05),
    "elastic_transform": _scaled(_ELASTIC_64, 64),
    "pixelate": (0.9, 0.8, 0.7, 0.6, 0.5),
    "jpeg_compression": (65, 58, 50, 40, 25),
    "speckle_noise": (0.15, 0.2, 0.25, 0.3, 0.35),
    "gaussian_blur": (0.5, 0.75, 1, 1.25, 1.5),
    "spatter": (
        (0.62, 0.1, 0.7, 0.7, 0.6, 0),
        (0.65, 0.1, 0.8, 0.7, 0.6, 0),
        (0.65, 0.3, 1, 0.69, 0.6, 0),
        (0.65, 0.1, 0.7, 0.68, 0.6, 1),
        (0.65, 0.1, 0.5, 0.67, 0.6, 1),
    ),
    "saturate": ((0.3, 0), (0.1, 0), (2, 0), (5, 0.1), (30, 0.2)),
}

_CIFAR: dict[str, tuple[Any, ...]] = {
    "gaussian_noise": (0.04, 0.06, 0.08, 0.09, 0.10),
    "shot_noise": (500, 250, 100, 75, 50),
    "impulse_noise": (0.01, 0.02, 0.03, 0.05, 0.07),
    "defocus_blur": ((0.3, 0.4), (0.4, 0.5), (0.5, 0.6), (1, 0.2), (1.5, 0.1)),
    "glass_blur": ((0.05, 1, 1), (0.25, 1, 1), (0.4, 1, 1), (0.25, 1, 2), (0.4, 1, 2)),
    "motion_blur": ((6, 1), (6, 1.5), (6, 2), (8, 2), (9, 2.5)),
    "zoom_blur": _ZOOM_64,
    "snow": _SNOW_32,
    "frost": ((1, 0.2), (1, 0.3), (0.9, 0.4), (0.85, 0.4), (0.75, 0.45)),
    "fog": ((0.2, 3), (0.5, 3), (0.75, 2.5), (1, 2), (1.5, 1.75)),
    "brightness": (0.05, 0.1, 0.15, 0.2, 0.3),
    "contrast": (0.75, 0.5, 0.4, 0.3, 0.15),
    "elastic_transform": _scaled(_ELASTIC_32, 32),
    "pixelate": (0.95, 0.9, 0.85, 0.75, 0.65),
    "jpeg_compression": (80, 65, 58, 50, 40),
    "speckle_noise": (0.06, 0.1, 0.12, 0.16, 0.2),
    "gaussian_blur": (0.4, 0.6, 0.7, 0.8, 1),
    "spatter": (
        (0.62, 0.1, 0.7, 0.7, 0.5, 0),
        (0.65, 0.1, 0.8, 0.7, 0.5, 0),
        (0.65, 0.3, 1, 0.69, 0.5, 0),
        (0.65, 0.1, 0.7, 0.69, 0.6, 1),
        (0.65, 0.1, 0.5, 0.68, 0.6, 1),
    ),
    "saturate": ((0.3, 0), (0.1, 0), (1.5, 0), (2, 0.1), (2.5, 0.2)),
}

#: the parameters a corruption takes from the dataset profile rather than from its table:
#: corruption -> {parameter: attribute of :class:`corruptbench.profiles.Profile`} (frost's
#: texture rescale of make_tinyimagenet_c.py / make_cifar_c.py, fog's plasma map size)
PROFILE_PARAMS: MappingProxyType[str, MappingProxyType[str, str]] = MappingProxyType(
    {
        "frost": MappingProxyType({"texture_scale": "frost_scale"}),
        "fog": MappingProxyType({"mapsize": "fog_mapsize"}),
    }
)

#: profile name -> corruption name -> five per-severity parameter entries (read-only views).
TABLES: MappingProxyType[str, MappingProxyType[str, tuple[Any, ...]]] = MappingProxyType(
    {
        "imagenet": MappingProxyType(_IMAGENET),
        "inception": MappingProxyType(_INCEPTION),
        "tiny": MappingProxyType(_TINY),
        "cifar": MappingProxyType(_CIFAR),
    }
)


def get_params(corruption: str, severity: int, profile: str) -> Any:
    """Return the parameter entry of ``corruption`` at ``severity`` (1..5) for ``profile``."""
    return TABLES[profile][corruption][severity - 1]

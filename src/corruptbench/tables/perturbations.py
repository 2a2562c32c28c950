"""Every ImageNet-P schedule constant, per dataset profile, in one place (data only).

Numbers come from the reference generator scripts in ``ImageNet-P/create_p/`` of
github.com/hendrycks/robustness (line numbers at commit 8190fe3):

* ``imagenet``  (224 px) — ``ImageNet-P/create_p/make_imagenet_p.py``
* ``inception`` (299 px) — ``make_imagenet_p_inception.py``
* ``tiny``      (64 px)  — ``make_tinyimagenet_p.py`` (= ``make_imagenet_64_p.py`` apart from the
  initial squash to 64 x 64)
* ``cifar``     (32 px)  — ``make_cifar_p.py``

Frame ``i`` runs over ``0 .. frames - 1``. Schedules that the reference writes as an expression of
``i`` are stored as the constants of that expression, and the sequence code evaluates the
expression in the reference's operation order (e.g. brightness ``(i - 15) * 2 / 100.``), because a
re-associated float expression can differ in the last bit.

* noise ``levels``: the parameter for difficulty 1, 2, 3 (σ for gaussian/speckle, λ "photon count"
  for shot noise). Only the noise perturbations have per-difficulty datasets; for every other
  perturbation the difficulty is an evaluation frame stride (ImageNet-P/test.py:257-273) and does
  not change frames.
* ``motion_blur``: ImageMagick ``(radius, sigma)``, angle ``(i - angle_offset) * angle_step`` and
  ``source``: ``"base"`` (blur the clean frame) or ``"original"`` (tiny: blur the full-resolution
  input, then ``Resize(64)``).
* ``snow``: the layer ``normal((S, S), loc, scale)`` → ``clipped_zoom(zoom)`` → ``< threshold``
  set 0, motion blur ``(radius, sigma)`` at angle ``i * 4 - 150``, blend 0.85
  (make_imagenet_p.py:201-245).
* ``brightness``: ``c = (i - 15) * step / 100.``.
* ``translate``: ``frames`` and the shift ``i - offset`` (pixels, horizontal, nearest, black fill).
* ``tilt``: ``phi = theta = deg2rad(factor * (i - 15))`` (the 224/64/299 scripts write
  ``deg2rad(i - 15)``: factor ``None`` keeps that exact expression).
* ``scale``: ``(i * step + offset) / 100.``.
* ``gaussian_blur``: ``sigma = base + step * i``, scikit-image ``truncate``.
* ``spatter``: liquid layer ``normal(loc, scale)`` → Gaussian ``sigma`` → ``< threshold`` set 0;
  water formula with ``intensity``; after every frame each column is convolved with ``drip``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from ..profiles import PROFILE_NAMES

__all__ = ["PERTURBATION_PARAMS", "FRAME_COUNTS", "get_schedule", "frame_count"]

_PROFILES = PROFILE_NAMES  # schedules the same for every profile are written once


def _freeze(d: dict[str, dict[str, dict[str, Any]]]) -> MappingProxyType:
    return MappingProxyType(
        {k: MappingProxyType({p: MappingProxyType(v) for p, v in t.items()}) for k, t in d.items()}
    )


_TABLE: dict[str, dict[str, dict[str, Any]]] = {
    # ---- test perturbations (make_imagenet_p.py:63-382 and the per-profile scripts) ----
    "gaussian_noise": {
        # make_imagenet_p.py:63-97 (torch randn, truncating ToPILImage)
        "imagenet": {"frames": 31, "levels": (0.03, 0.05, 0.08)},
        "inception": {"frames": 31, "levels": (0.035, 0.055, 0.085)},
        "tiny": {"frames": 31, "levels": (0.025, 0.05, 0.075)},
        "cifar": {"frames": 31, "levels": (0.02, 0.04, 0.06)},
    },
    "shot_noise": {
        # make_imagenet_p.py:99-135
        "imagenet": {"frames": 31, "levels": (300, 120, 60)},
        "inception": {"frames": 31, "levels": (250, 100, 50)},
        "tiny": {"frames": 31, "levels": (500, 250, 125)},
        "cifar": {"frames": 31, "levels": (700, 400, 200)},
    },
    "motion_blur": {
        # make_imagenet_p.py:137-172; tiny: blur of the full-resolution original, no crop
        "imagenet": {
            "frames": 31,
            "radius": 10,
            "sigma": 3,
            "angle_offset": 30,
            "angle_step": 4,
            "source": "base",
        },
        "inception": {
            "frames": 31,
            "radius": 13,
            "sigma": 3,
            "angle_offset": 30,
            "angle_step": 4,
            "source": "base",
        },
        "tiny": {
            "frames": 31,
            "radius": 14,
            "sigma": 3,
            "angle_offset": 30,
            "angle_step": 5,
            "source": "original",
        },
        "cifar": {
            "frames": 21,
            "radius": 6,
            "sigma": 1.8,
            "angle_offset": 20,
            "angle_step": 9,
            "source": "base",
        },
    },
    "zoom_blur": {
        # make_imagenet_p.py:174-199: running average of affine(scale = 1 + 0.004 * i)
        p: {"frames": 31, "scale_step": 0.004}
        for p in _PROFILES
    },
    "snow": {
        # make_imagenet_p.py:201-245
        "imagenet": {
            "frames": 31,
            "loc": 0.05,
            "scale": 0.3,
            "zoom": 3,
            "threshold": 0.5,
            "radius": 14,
            "sigma": 4,
            "blend": 0.85,
        },
        "inception": {
            "frames": 31,
            "loc": 0.05,
            "scale": 0.3,
            "zoom": 3,
            "threshold": 0.5,
            "radius": 14,
            "sigma": 4,
            "blend": 0.85,
        },
        "tiny": {
            "frames": 31,
            "loc": 0.05,
            "scale": 0.28,
            "zoom": 2,
            "threshold": 0.5,
            "radius": 10,
            "sigma": 2.5,
            "blend": 0.85,
        },
        "cifar": {
            "frames": 31,
            "loc": 0.05,
            "scale": 0.3,
            "zoom": 2,
            "threshold": 0.5,
            "radius": 10,
            "sigma": 2,
            "blend": 0.85,
        },
    },
    "brightness": {
        # make_imagenet_p.py:247-269: c = (i - 15) * 2 / 100.; CIFAR (i - 15) * 1.5 / 100.
        "imagenet": {"frames": 31, "step": 2},
        "inception": {"frames": 31, "step": 2},
        "tiny": {"frames": 31, "step": 2},
        "cifar": {"frames": 31, "step": 1.5},
    },
    "translate": {
        # make_imagenet_p.py:271-291 (41 frames, i - 20); tiny 31 frames i - 15; CIFAR 16 frames i - 7
        "imagenet": {"frames": 41, "offset": 20},
        "inception": {"frames": 41, "offset": 20},
        "tiny": {"frames": 31, "offset": 15},
        "cifar": {"frames": 16, "offset": 7},
    },
    "rotate": {
        # make_imagenet_p.py:293-314: angle i - 15, bilinear
        p: {"frames": 31, "offset": 15}
        for p in _PROFILES
    },
    "tilt": {
        # make_imagenet_p.py:316-359: phi = theta = deg2rad(i - 15); CIFAR deg2rad(0.75 * (i - 15))
        "imagenet": {"frames": 31, "offset": 15, "factor": None},
        "inception": {"frames": 31, "offset": 15, "factor": None},
        "tiny": {"frames": 31, "offset": 15, "factor": None},
        "cifar": {"frames": 31, "offset": 15, "factor": 0.75},
    },
    "scale": {
        # make_imagenet_p.py:361-382: (i * 2.5 + 40) / 100.; CIFAR (i * 2 + 70) / 100.
        "imagenet": {"frames": 31, "step": 2.5, "offset": 40},
        "inception": {"frames": 31, "step": 2.5, "offset": 40},
        "tiny": {"frames": 31, "step": 2.5, "offset": 40},
        "cifar": {"frames": 31, "step": 2, "offset": 70},
    },
    # ---- validation perturbations ----
    "speckle_noise": {
        # make_imagenet_p.py:386-423
        "imagenet": {"frames": 31, "levels": (0.05, 0.10, 0.15)},
        "inception": {"frames": 31, "levels": (0.06, 0.11, 0.16)},
        "tiny": {"frames": 31, "levels": (0.05, 0.1, 0.15)},
        "cifar": {"frames": 31, "levels": (0.05, 0.07, 0.1)},
    },
    "gaussian_blur": {
        # make_imagenet_p.py:425-449: sigma = 0.25 + 0.035 * i, truncate 6.0
        "imagenet": {"frames": 31, "base": 0.25, "step": 0.035, "truncate": 6.0},
        "inception": {"frames": 31, "base": 0.35, "step": 0.035, "truncate": 6.0},
        "tiny": {"frames": 31, "base": 0.35, "step": 0.014, "truncate": 7.0},
        "cifar": {"frames": 31, "base": 0.3, "step": 0.015, "truncate": 7.0},
    },
    "spatter": {
        # make_imagenet_p.py:451-505
        "imagenet": {
            "frames": 31,
            "loc": 0.65,
            "scale": 0.27,
            "sigma": 3.7,
            "threshold": 0.69,
            "intensity": 0.6,
            "drip": (0.05, 0.1, 0.15, 0.7),
        },
        "inception": {
            "frames": 31,
            "loc": 0.65,
            "scale": 0.3,
            "sigma": 4,
            "threshold": 0.69,
            "intensity": 0.6,
            "drip": (0.05, 0.1, 0.15, 0.7),
        },
        "tiny": {
            "frames": 31,
            "loc": 0.6,
            "scale": 0.25,
            "sigma": 1.75,
            "threshold": 0.7,
            "intensity": 0.6,
            "drip": (0.2, 0.8),
        },
        "cifar": {
            "frames": 31,
            "loc": 0.6,
            "scale": 0.265,
            "sigma": 1.75,
            "threshold": 0.7,
            "intensity": 0.6,
            "drip": (0.2, 0.8),
        },
    },
    "shear": {
        # make_imagenet_p.py:507-528: shear i - 15 degrees, bilinear
        p: {"frames": 31, "offset": 15}
        for p in _PROFILES
    },
}

#: ``PERTURBATION_PARAMS[name][profile]`` -> read-only mapping of the schedule constants.
PERTURBATION_PARAMS = _freeze(_TABLE)

#: ``FRAME_COUNTS[name][profile]`` -> number of frames T of the sequence.
FRAME_COUNTS = MappingProxyType(
    {
        name: MappingProxyType({p: int(v["frames"]) for p, v in t.items()})
        for name, t in _TABLE.items()
    }
)


def get_schedule(name: str, profile: str) -> MappingProxyType:
    """The schedule constants of perturbation ``name`` under ``profile``."""
    try:
        return PERTURBATION_PARAMS[name][profile]
    except KeyError:
        raise ValueError(f"no schedule for perturbation {name!r} and profile {profile!r}") from None


def frame_count(name: str, profile: str) -> int:
    """Number of frames T that :func:`corruptbench.perturb` returns for ``name`` under ``profile``."""
    return int(get_schedule(name, profile)["frames"])

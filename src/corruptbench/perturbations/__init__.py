"""ImageNet-P: the 14 perturbation sequences of Hendrycks & Dietterich (2019), per dataset profile.

``perturb(image, name, profile=..., difficulty=..., rng=...)`` returns the frames of one sequence,
uint8 ``(T, S, S, 3)``, built from the *full source image* with the profile's own preprocessing
(imagenet: ``Resize(256)`` then ``CenterCrop(224)``; tiny: ``Resize(64)`` / ``CenterCrop(64)``;
cifar: the 32 x 32 image as is; inception: ``resized_center_crop`` to 299). Schedules and frame
counts: :mod:`corruptbench.tables.perturbations` (from hendrycks/robustness
ImageNet-P/create_p/make_imagenet_p.py and its per-profile variants).

The 10 test perturbations (:data:`PERTURBATIONS`) and 4 validation ones
(:data:`EXTRA_PERTURBATIONS`) follow the reference generator scripts' order.

Fidelity: every deterministic step is the reference's own operation (PIL resampling for the
torchvision-0.2.1 affine warps, OpenCV for spatter, OpenCV 3.4's warpPerspective numerics for tilt,
SciPy for the Gaussian filters, the bit-exact ImageMagick emulation of :mod:`corruptbench.ops.magick`
for motion blur and snow), with the reference's float types and truncating uint8 casts. Checked
against a transcription of the generator scripts run in the reference environment: the
imagenet, tiny and cifar sequences are bit-identical (gaussian_blur: +-1 on a few values from the
SciPy version). Deliberate differences, all documented where they happen:

* gaussian_noise draws its noise with ``rng.normal`` (NumPy) instead of ``torch.randn_like``; the
  other random perturbations draw exactly what the reference drew, in its order, so with
  ``rng=k`` they equal the reference run after ``np.random.seed(k)`` (the reference itself was
  unseeded).
* tiny motion_blur: the reference blurs the full-resolution input and resizes the short side to 64
  without cropping (make_tinyimagenet_p.py: non-square frames for non-square inputs); we add
  ``CenterCrop(64)`` so that all frames are 64 x 64.
* spatter: when no liquid survives the threshold the reference divides 0 by 0 (NaN frames); we add
  no water instead.
* grayscale inputs are replicated to RGB first (the reference's tiny motion blur would mis-handle a
  gray source).
* ``difficulty`` changes only the three noise perturbations (for the others it is a frame stride
  at evaluation time: hendrycks/robustness ImageNet-P/test.py:257-273).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..profiles import PROFILES, Profile
from ..registry import canonical_name, get_perturbation, perturbation_specs
from ..rng import RNGLike, as_rng
from ..tables.perturbations import FRAME_COUNTS, PERTURBATION_PARAMS, frame_count, get_schedule
from ..validation import check_image, check_int
from .sequences import Source  # importing the generators registers them

__all__ = [
    "perturb",
    "PERTURBATIONS",
    "EXTRA_PERTURBATIONS",
    "ALL_PERTURBATIONS",
    "TEST_PERTURBATIONS",
    "VALIDATION_PERTURBATIONS",
    "NOISE_PERTURBATIONS",
    "CLEAN_FIRST_FRAME",
    "PERTURBATION_PARAMS",
    "FRAME_COUNTS",
    "frame_count",
    "get_schedule",
    "is_noise",
]

# Derived from the registered generators (hendrycks/robustness make_imagenet_p.py:61 and :384);
# mFR / mT5D average the 10 test perturbations.
#: all 14, in the generator scripts' order: the 10 test perturbations, then the 4 validation
ALL_PERTURBATIONS: tuple[str, ...] = tuple(s.name for s in perturbation_specs())
#: the 10 test perturbations
TEST_PERTURBATIONS: tuple[str, ...] = tuple(
    s.name for s in perturbation_specs() if not s.validation
)
#: the 4 validation perturbations
VALIDATION_PERTURBATIONS: tuple[str, ...] = tuple(
    s.name for s in perturbation_specs() if s.validation
)
#: the noise perturbations: their frames are compared with the clean frame 0, and they have
#: difficulty 2/3 datasets
NOISE_PERTURBATIONS: tuple[str, ...] = tuple(s.name for s in perturbation_specs() if s.noise)
#: the perturbations whose frame 0 is the clean image itself, in every profile: the noise ones
#: (make_imagenet_p.py: ``i = 0: crop``) and zoom_blur (a running average that starts with the
#: crop); every other sequence starts perturbed (motion_blur at -120 degrees, brightness at -0.3,
#: translate by -20 px, ...). eval-p measures clean calibration on these frames.
CLEAN_FIRST_FRAME: tuple[str, ...] = tuple(
    n for n in ALL_PERTURBATIONS if n in NOISE_PERTURBATIONS or n == "zoom_blur"
)
#: ``corruptbench.PERTURBATIONS``: the test perturbations
PERTURBATIONS: tuple[str, ...] = TEST_PERTURBATIONS
#: ``corruptbench.EXTRA_PERTURBATIONS``: the validation perturbations
EXTRA_PERTURBATIONS: tuple[str, ...] = VALIDATION_PERTURBATIONS


def is_noise(name: str) -> bool:
    """True for the noise perturbations (frames compared with frame 0; separate difficulty sets)."""
    return get_perturbation(name).noise


def _check_profile(profile: Any) -> str:
    if isinstance(profile, Profile):
        profile = profile.name
    if not isinstance(profile, str):
        raise TypeError(f"profile must be a str, got {type(profile).__name__}")
    key = canonical_name(profile)
    if key not in PROFILES:
        raise ValueError(
            f"unknown profile {profile!r} for perturb (choices: {', '.join(PROFILES)}; "
            "'auto' is not accepted: the input is the full source image)"
        )
    return key


def _check_difficulty(difficulty: Any) -> int:
    return check_int(difficulty, "difficulty", 1, 3)


def perturb(
    image: np.ndarray,
    perturbation: str,
    *,
    profile: str | Profile = "imagenet",
    difficulty: int = 1,
    rng: RNGLike = None,
) -> np.ndarray:
    """Generate one ImageNet-P perturbation sequence from a source image.

    Args:
        image: the full source image, uint8 H x W x 3 (RGB) or H x W (grayscale, replicated to RGB;
            an H x W x 4 image loses its alpha channel). Never modified. The cifar profile takes the
            32 x 32 image itself; the other profiles resize it (imagenet: ``Resize(256)`` short side,
            torchvision semantics; tiny: ``Resize(64)``; inception: ``resized_center_crop``).
        perturbation: one of :data:`ALL_PERTURBATIONS`.
        profile: ``imagenet`` (224, default), ``inception`` (299), ``tiny`` (64) or ``cifar`` (32).
        difficulty: 1, 2 or 3. For gaussian/shot/speckle noise it selects the noise level (the
            reference's ``<name>_2`` / ``<name>_3`` datasets). For every other perturbation the
            reference has a single dataset and applies the difficulty as a frame *stride* at
            evaluation time (hendrycks/robustness ImageNet-P/test.py:257-273), so the frames do not
            depend on it; it is accepted for a uniform interface.
        rng: ``None`` (fresh entropy), an int seed, a ``np.random.RandomState`` or a
            ``np.random.Generator``. Only gaussian/shot/speckle noise, snow and spatter draw random
            numbers; the same ``rng`` gives the same frames. (The reference generators were unseeded
            and gaussian noise drew from torch; see the noise docstrings.)

    Returns:
        uint8 array ``(T, S, S, 3)``; T per :data:`FRAME_COUNTS` (31 for most; imagenet/inception
        translate 41, cifar translate 16, cifar motion blur 21).

    Raises:
        TypeError: wrong type / dtype of an argument.
        ValueError: unknown perturbation or profile (with a suggestion), difficulty not in 1..3,
            bad image shape, image too small for the profile, cifar input not 32 x 32.
    """
    spec = get_perturbation(perturbation)
    name = spec.name
    prof = PROFILES[_check_profile(profile)]
    level = _check_difficulty(difficulty)
    rgb, _ = check_image(image)
    h, w = rgb.shape[:2]
    if prof.name == "cifar":  # the 32 x 32 image itself (no resize)
        if (h, w) != (prof.size, prof.size):
            raise ValueError(
                f"the cifar profile takes a {prof.size} x {prof.size} image as it is, got {h}x{w}"
            )
    elif min(h, w) < prof.min_size:
        raise ValueError(
            f"image of size {h}x{w} is too small for the {prof.name!r} profile (minimum side {prof.min_size} px)"
        )
    frames = spec.func(Source(rgb, prof), get_schedule(name, prof.name), level, as_rng(rng))
    expected = (frame_count(name, prof.name), prof.size, prof.size, 3)
    if frames.shape != expected:  # pragma: no cover - internal consistency
        raise RuntimeError(f"{name}/{prof.name}: produced {frames.shape}, expected {expected}")
    return frames

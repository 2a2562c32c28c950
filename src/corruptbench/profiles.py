"""The four dataset profiles: the size each reference script works at and its size-dependent
constants (the ImageNet-C/create_c/ scripts of github.com/hendrycks/robustness: make_imagenet_c.py,
make_imagenet_c_inception.py, make_tinyimagenet_c.py, make_cifar_c.py). Every profile name, native
size and minimum size in the package comes from :data:`PROFILES`; the per-severity tables are in
:mod:`corruptbench.tables`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .registry import canonical_name

__all__ = ["Profile", "PROFILES", "PROFILE_NAMES", "resolve_profile", "detect_profile"]


@dataclass(frozen=True)
class Profile:
    """A dataset profile: the size the reference scripts work at and its size-dependent constants."""

    name: str
    size: int  #: native square size of the reference script
    min_size: int  #: smallest image side accepted (glass blur needs H > 2 x its largest offset)
    fog_mapsize: int  #: plasma fractal map size (``plasma_fractal(mapsize=...)``: 256/512/64/32)
    frost_scale: float | None  #: cv2.resize factor applied to frost textures (None: no resize)
    description: str
    #: torchvision ``Resize(n)`` (short side) before ``CenterCrop(size)``: make-c's imagenet
    #: preprocessing and the ImageNet-P canvas of imagenet and tiny; None: no such resize
    resize_short: int | None = None


PROFILES: dict[str, Profile] = {
    "imagenet": Profile(
        "imagenet",
        224,
        16,
        256,
        None,
        "ImageNet-C, 224 x 224 (make_imagenet_c.py)",
        resize_short=256,
    ),
    "inception": Profile(
        "inception",
        299,
        16,
        512,
        None,
        "ImageNet-C for 299 px models (make_imagenet_c_inception.py)",
    ),
    "tiny": Profile(
        "tiny",
        64,
        8,
        64,
        0.3,
        "Tiny ImageNet-C and ImageNet-64x64-C, 64 x 64 (make_tinyimagenet_c.py)",
        resize_short=64,
    ),
    "cifar": Profile(
        "cifar", 32, 8, 32, 0.2, "CIFAR-10-C / CIFAR-100-C, 32 x 32 (make_cifar_c.py)"
    ),
}
#: the profile names, ``imagenet`` first (the default)
PROFILE_NAMES: tuple[str, ...] = tuple(PROFILES)


def detect_profile(height: int, width: int) -> str:
    """The profile whose native size is ``height x width`` (square), else ``imagenet``."""
    for prof in PROFILES.values():
        if (height, width) == (prof.size, prof.size):
            return prof.name
    return "imagenet"


def resolve_profile(profile: str | Profile, shape: tuple[int, ...]) -> Profile:
    """The :class:`Profile` for ``profile`` (a name, ``auto`` or a Profile) and an image ``shape``.

    ``auto`` picks by size (:func:`detect_profile`: 32x32 -> cifar, 64x64 -> tiny, 299x299 ->
    inception, anything else -> imagenet). Raises ValueError for an unknown name or an image
    smaller than the profile's minimum side.
    """
    if isinstance(profile, Profile):
        prof = profile
    else:
        if not isinstance(profile, str):
            raise TypeError(f"profile must be a str, got {type(profile).__name__}")
        key = canonical_name(profile)
        if key == "auto":
            key = detect_profile(shape[0], shape[1])
        if key not in PROFILES:
            raise ValueError(f"unknown profile {profile!r} (choices: auto, {', '.join(PROFILES)})")
        prof = PROFILES[key]
    h, w = shape[0], shape[1]
    if min(h, w) < prof.min_size:
        raise ValueError(
            f"image of size {h}x{w} is too small for the {prof.name!r} profile "
            f"(minimum side {prof.min_size} px)"
        )
    return prof

"""The 30 ImageNet-C-bar corruptions against the original code, byte for byte.

The original is ``imagenet_c_bar/`` of facebookresearch/augmentation-corruption (commit ba4d5a5),
read from ``../shared/reference/`` and run in the reference environment by
``tools/reference/cbar_runner.py``: ``np.random.seed(k)``, then ``np.uint8`` of
``build_transform(name, level, dataset_type)(x)`` (or the class at another ``im_size``). Ours:
``corrupt(x, name, severity, profile=..., rng=k)`` with ``level`` the severity's entry of
``corruptbench.tables.cbar``.

The reference runs with NumPy's AVX-512 code off (``reference.NO_AVX512``): NumPy 1.26's AVX-512
``arctan2``, ``power``, ``exp``, ``arccos``... differ from glibc in the last bit, and the
corruptions compute with glibc's (README, "ImageNet-C-bar and CIFAR-10-C-bar").

Every corruption x 5 levels runs at 32 px on CIFAR-10 test images (CIFAR-10-C-bar levels, 2 seeds)
and at 64 px on ImageNet photos (ImageNet-C-bar levels, as our Tiny-ImageNet-C-bar), each set in
one runner call; at 224 px (``build_transform(..., "imagenet")``) the corruptions the original
computes with array code run at every level, the per-pixel Python ones (seconds per call in the
original) at one level each. The sweeps are ``slow`` (.ci/run runs them; a plain run leaves them
out), the zero-gradient Perlin case is not.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import corruptbench
from corruptbench.ops.preprocess import profile_preprocess
from corruptbench.registry import corruption_specs
from corruptbench.tables.cbar import cbar_level
from support import CIFAR_TEST, PHOTO_NAMES, load_photo

pytestmark = pytest.mark.reference

CBAR = tuple(s.name for s in corruption_specs("cbar"))

#: the corruptions whose original runs in whole-array NumPy / SciPy / Pillow code (fast at 224)
ARRAY_CODE = (
    "color_balance",
    "quadrilateral_no_bars",
    "perspective_no_bars",
    "single_frequency_greyscale",
    "cocentric_sine_waves",
    "blue_noise",
    "brownish_noise",
    "chromatic_abberation",
    "transverse_chromatic_abberation",
    "circular_motion_blur",
    "bleach_bypass",
    "technicolor",
    "pseudocolor",
    "hue_shift",
    "checkerboard_cutout",
    "lines",
    "blue_noise_sample",
)


@pytest.fixture(scope="module")
def original(reference):
    if not reference.cbar_available():
        pytest.skip(reference.CBAR_MISSING)
    return reference


def cifar_images(n: int) -> list[np.ndarray]:
    if not CIFAR_TEST.is_dir():
        pytest.skip(f"CIFAR-10 test images not available: {CIFAR_TEST} is absent")
    out = []
    for cls in sorted(p.name for p in CIFAR_TEST.iterdir())[:n]:
        path = sorted((CIFAR_TEST / cls).iterdir())[0]
        with Image.open(path) as im:
            out.append(np.asarray(im.convert("RGB")))
    return out


def photos(profile: str) -> list[np.ndarray]:
    names = (*PHOTO_NAMES, "n01494475_hammerhead.JPEG")
    return [profile_preprocess(load_photo(n), profile) for n in names]


def compare(original, cases, profile: str) -> None:
    """``cases``: ``(image, name, severity, seed)``; one runner call, every case byte-compared."""
    table = "cifar" if profile == "cifar" else "imagenet"
    refs = original.reference_cbar(
        [(img, name, cbar_level(name, sev, table), seed) for img, name, sev, seed in cases],
        env=original.NO_AVX512,
    )
    bad = []
    for (img, name, sev, seed), ref in zip(cases, refs):
        ours = corruptbench.corrupt(img, name, sev, profile=profile, rng=seed)
        assert ours.shape == ref.shape and ours.dtype == np.uint8
        if not np.array_equal(ours, ref):
            diff = np.abs(ours.astype(int) - ref.astype(int))
            bad.append(
                f"{name} s{sev} seed {seed}: {int((diff > 0).sum())} values, max {diff.max()}"
            )
    assert not bad, f"{len(bad)} of {len(cases)} differ:\n" + "\n".join(bad)


@pytest.mark.slow  # a sweep against the original code
def test_cifar10_c_bar_levels_at_32px(original):
    images = cifar_images(4)
    cases = [
        (images[(i + sev + j) % len(images)], name, sev, 1000 * i + 10 * sev + j)
        for i, name in enumerate(CBAR)
        for sev in range(1, 6)
        for j in range(2)
    ]
    compare(original, cases, "cifar")


@pytest.mark.slow  # a sweep against the original code
def test_imagenet_c_bar_levels_at_64px(original):
    images = photos("tiny")
    cases = [
        (images[(i + sev) % len(images)], name, sev, 7 + 100 * i + sev)
        for i, name in enumerate(CBAR)
        for sev in range(1, 6)
    ]
    compare(original, cases, "tiny")


def test_perlin_noise_with_a_zero_gradient(original):
    # seeds 1397 and 2351 draw a zero lattice gradient, which the original normalises to NaN:
    # the pixels that use it come out black
    images = photos("tiny")
    compare(
        original,
        [(images[0], "perlin_noise", 3, 1397), (images[1], "perlin_noise", 5, 2351)],
        "tiny",
    )


@pytest.mark.slow  # a sweep against the original code
def test_imagenet_c_bar_at_224px(original):
    images = photos("imagenet")
    cases = [
        (images[(i + sev) % len(images)], name, sev, 31 * i + sev)
        for i, name in enumerate(ARRAY_CODE)
        for sev in (1, 3, 5)
    ]
    compare(original, cases, "imagenet")


@pytest.mark.slow
def test_per_pixel_corruptions_at_224px(original):
    # the original's per-pixel Python loops take 1-15 s per call at 224: one level each
    images = photos("imagenet")
    slow = [n for n in CBAR if n not in ARRAY_CODE]
    cases = [(images[i % len(images)], name, 1 + i % 5, 5 + i) for i, name in enumerate(slow)]
    compare(original, cases, "imagenet")

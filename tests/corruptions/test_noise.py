"""Noise corruptions (gaussian, shot, impulse, speckle): the reference formulas, the compiled legacy
samplers, RNG streams and sizes. What every corruption keeps (layouts, seeds, rng types, input
safety, identity with the reference on real photos) is checked once, in test_contract.py."""

from __future__ import annotations

import numpy as np
import pytest

import corruptbench
from corruptbench.corruptions import noise
from corruptbench.profiles import PROFILES
from corruptbench.registry import corruption_registry
from corruptbench.tables.corruptions import get_params
from support import pattern_image

NOISE = ("gaussian_noise", "shot_noise", "impulse_noise", "speckle_noise")

NAMES = NOISE

NATIVE = {"imagenet": 224, "inception": 299, "tiny": 64, "cifar": 32}


def reference_formula(
    name: str, img: np.ndarray, severity: int, profile: str, seed: int, warp=None
) -> np.ndarray:
    c = get_params(name, severity, profile)
    rs = seed if isinstance(seed, np.random.RandomState) else np.random.RandomState(seed)
    h, w = img.shape[:2]
    x = np.array(img) / 255.0
    if name == "gaussian_noise":
        out = np.clip(x + rs.normal(size=x.shape, scale=c), 0, 1) * 255
    elif name == "shot_noise":
        out = np.clip(rs.poisson(x * c) / float(c), 0, 1) * 255
    elif name == "impulse_noise":  # scikit-image 0.13.1 s&p on the legacy global RNG
        flipped = rs.choice([True, False], size=x.shape, p=[c, 1 - c])
        salted = rs.choice([True, False], size=x.shape, p=[0.5, 0.5])
        out = x.copy()
        out[flipped & salted] = 1
        out[flipped & ~salted] = 0
        out = np.clip(np.clip(out, 0, 1), 0, 1) * 255
    elif name == "speckle_noise":
        out = np.clip(x + x * rs.normal(size=x.shape, scale=c), 0, 1) * 255
    else:  # pragma: no cover
        raise KeyError(name)
    return np.uint8(out)


@pytest.mark.parametrize(
    "p", [0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.09, 0.1, 0.14, 0.17, 0.27, 0.28, 0.5]
)
def test_choice_mask_is_bit_identical_to_legacy_choice(p):
    shape = (37, 41, 3)
    a, b = np.random.RandomState(7), np.random.RandomState(7)
    expected = a.choice([True, False], size=shape, p=[p, 1 - p])
    got = noise.choice_true_mask(b, p, shape)
    assert got.dtype == np.bool_ and np.array_equal(got, expected)
    assert a.random_sample() == b.random_sample()  # the stream advanced identically


def _colour_cases() -> np.ndarray:
    rs = np.random.RandomState(3)
    img = rs.randint(0, 256, size=(64, 64, 3)).astype(np.uint8)
    img[:8] = rs.randint(0, 4, size=(8, 64, 3)) * 85  # many ties between channels
    img[8:12] = img[8:12, :, :1]  # grays
    img[12, :8] = [
        (0, 0, 0),
        (255, 255, 255),
        (255, 0, 0),
        (0, 255, 0),
        (0, 0, 255),
        (255, 255, 0),
        (255, 0, 255),
        (1, 0, 0),
    ]
    return img


def _states_equal(a: np.random.RandomState, b: np.random.RandomState) -> bool:
    sa, sb = a.get_state(), b.get_state()
    return all(np.array_equal(x, y) for x, y in zip(sa[1:], sb[1:])) and a.normal() == b.normal()


@pytest.mark.parametrize("name", NOISE)
@pytest.mark.parametrize("profile", list(PROFILES))
def test_compiled_noise_equals_numpy_legacy_samplers(name, profile):
    """The compiled MT19937 path equals NumPy's own samplers: values and the state left behind.

    Covers all 20 per-profile constants (Poisson rates from 0 to 500: both of NumPy's Poisson
    algorithms and its rejection branch), a pending cached Gaussian, and state wrap-arounds.
    """
    img = _colour_cases()
    img[20:24] = 0
    img[24:28] = 255
    for severity in range(1, 6):
        for seed in (0, 11):
            fast, slow = np.random.RandomState(seed), np.random.RandomState(seed)
            fast.standard_normal(), slow.standard_normal()  # leaves a cached Gaussian
            ro = img.copy()
            ro.flags.writeable = False
            got = corruption_registry()[name].func(
                ro, severity, profile=PROFILES[profile], rng=fast
            )
            assert got.dtype == np.uint8
            want = reference_formula(name, img, severity, profile, slow)
            assert np.array_equal(got, want), (name, profile, severity, seed)
            assert _states_equal(fast, slow)


def test_numpy_path_for_non_legacy_sources():
    """Generators (and RandomState on other bit generators) use the NumPy path, same formulas."""
    img = pattern_image(30, 30)
    pcg = np.random.RandomState(np.random.PCG64(3))
    for name in NOISE:
        out = corruptbench.corrupt(img, name, 3, rng=np.random.default_rng(1))
        assert out.shape == img.shape
        pcg_out = corruptbench.corrupt(img, name, 3, rng=pcg)
        want = reference_formula(
            name, img, 3, "imagenet", np.random.RandomState(np.random.PCG64(3))
        )
        assert np.array_equal(pcg_out, want)
        pcg = np.random.RandomState(np.random.PCG64(3))


@pytest.mark.parametrize("profile", ["inception", "tiny", "cifar", "imagenet"])
@pytest.mark.parametrize("name", NAMES)
def test_native_size_matches_reference_formula(name, profile):
    size = NATIVE[profile]
    img = pattern_image(size, size, seed=size)
    for severity in range(1, 6):
        for seed in (0, 1):
            got = corruptbench.corrupt(img, name, severity, profile=profile, rng=seed)
            want = reference_formula(name, img, severity, profile, seed)
            assert np.array_equal(got, want), (name, profile, severity, seed)


@pytest.mark.parametrize("profile", ["imagenet", "cifar"])
@pytest.mark.parametrize("name", NAMES)
def test_non_square_images(name, profile):
    img = pattern_image(45, 83, seed=4)
    for severity in range(1, 6):
        out = corruptbench.corrupt(img, name, severity, profile=profile, rng=severity)
        assert out.shape == img.shape and out.dtype == np.uint8
        assert np.array_equal(out, reference_formula(name, img, severity, profile, severity))
    tall = np.ascontiguousarray(img.transpose(1, 0, 2))
    assert corruptbench.corrupt(tall, name, 5, profile=profile, rng=0).shape == tall.shape

"""Noise corruptions (gaussian, shot, impulse, speckle): the reference formulas, the compiled legacy
samplers, RNG streams, sizes, input safety and identity with the reference implementation."""

from __future__ import annotations

import numpy as np
import pytest

import corruptbench
from corruptbench.corruptions import noise
from corruptbench.profiles import PROFILES
from corruptbench.registry import corruption_registry
from corruptbench.tables.corruptions import get_params

NOISE = ("gaussian_noise", "shot_noise", "impulse_noise", "speckle_noise")

NAMES = NOISE
RANDOM = NOISE

NATIVE = {"imagenet": 224, "inception": 299, "tiny": 64, "cifar": 32}


def _image(h: int, w: int, seed: int = 0) -> np.ndarray:
    """A smooth colour image with edges (more photo-like than uniform noise)."""
    rs = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    base = np.stack(
        [
            128 + 100 * np.sin(xx / (3 + w / 10)),
            128 + 100 * np.cos(yy / (2 + h / 8)),
            (xx * 255 // max(w - 1, 1) + yy * 97) % 256,
        ],
        axis=2,
    )
    base += rs.normal(0, 12, size=base.shape)
    base[h // 3 : h // 2, w // 4 : w // 2] = (250, 250, 250)
    base[: h // 5, -w // 5 :] = (0, 0, 0)
    return np.clip(base, 0, 255).astype(np.uint8)


def _call(name: str, image: np.ndarray, severity: int, profile: str, seed) -> np.ndarray:
    """The registered function, bypassing corrupt()'s size checks, with the dispatcher's cast."""
    rng = np.random.RandomState(seed) if isinstance(seed, int) else seed
    ro = image.copy()
    ro.flags.writeable = False
    out = corruption_registry()[name].func(ro, severity, profile=PROFILES[profile], rng=rng)
    return np.asarray(out).astype(np.uint8)


def test_registered_with_families():
    reg = corruption_registry()
    for name in NAMES:
        info = reg[name]
        assert info.family == (None if name == "speckle_noise" else "noise")  # extra: no family
        assert info.extra == (name in ("speckle_noise", "saturate"))
        assert info.random == (name in RANDOM)
        assert info.doc


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
    img = _image(30, 30)
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
    img = _image(size, size, seed=size)
    for severity in range(1, 6):
        for seed in (0, 1):
            got = corruptbench.corrupt(img, name, severity, profile=profile, rng=seed)
            want = reference_formula(name, img, severity, profile, seed)
            assert np.array_equal(got, want), (name, profile, severity, seed)


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_and_generator_accepted(name):
    img = _image(48, 40, seed=1)
    a = corruptbench.corrupt(img, name, 3, profile="imagenet", rng=123)
    b = corruptbench.corrupt(img, name, 3, profile="imagenet", rng=np.random.RandomState(123))
    assert a.tobytes() == b.tobytes()
    g1 = corruptbench.corrupt(img, name, 3, profile="imagenet", rng=np.random.default_rng(9))
    g2 = corruptbench.corrupt(img, name, 3, profile="imagenet", rng=np.random.default_rng(9))
    assert g1.dtype == np.uint8 and g1.shape == img.shape and g1.tobytes() == g2.tobytes()
    if name in RANDOM:
        c = corruptbench.corrupt(img, name, 3, profile="imagenet", rng=124)
        assert a.tobytes() != c.tobytes()
        rs = np.random.RandomState(5)
        corruptbench.corrupt(img, name, 3, profile="imagenet", rng=rs)
        assert rs.random_sample() != np.random.RandomState(5).random_sample()  # advanced


@pytest.mark.parametrize("name", NAMES)
def test_input_never_modified(name):
    img = _image(64, 64, seed=2)
    before = img.copy()
    for severity in (1, 5):
        corruptbench.corrupt(img, name, severity, rng=0)
        _call(name, img, severity, "tiny", 0)
    assert np.array_equal(img, before)
    assert img.flags.writeable


@pytest.mark.parametrize("profile", ["imagenet", "cifar"])
@pytest.mark.parametrize("name", NAMES)
def test_non_square_images(name, profile):
    img = _image(45, 83, seed=4)
    for severity in range(1, 6):
        out = corruptbench.corrupt(img, name, severity, profile=profile, rng=severity)
        assert out.shape == img.shape and out.dtype == np.uint8
        assert np.array_equal(out, reference_formula(name, img, severity, profile, severity))
    tall = np.ascontiguousarray(img.transpose(1, 0, 2))
    assert corruptbench.corrupt(tall, name, 5, profile=profile, rng=0).shape == tall.shape


def test_layouts_through_corrupt():
    img = _image(40, 40, seed=6)
    gray = img[..., 0].copy()
    for name in NAMES:
        assert corruptbench.corrupt(gray, name, 2, rng=0).shape == gray.shape
        rgba = np.concatenate([img, np.full((40, 40, 1), 7, np.uint8)], axis=2)
        out = corruptbench.corrupt(rgba, name, 2, rng=0)
        assert out.shape == rgba.shape and (out[..., 3] == 7).all()


def test_non_contiguous_input():
    img = _image(64, 96, seed=8)[:, ::2]  # a strided view
    assert not img.flags.c_contiguous
    for name in NAMES:
        out = corruptbench.corrupt(img, name, 4, rng=1)
        assert np.array_equal(out, corruptbench.corrupt(np.ascontiguousarray(img), name, 4, rng=1))


SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def reference_results(reference, photos224):
    keys = [
        (name, sev, i, seed)
        for name in NAMES
        for sev in range(1, 6)
        for i in range(len(photos224))
        for seed in SEEDS
    ]
    outs = reference.reference_corrupt(
        [(photos224[i], name, sev, seed) for name, sev, i, seed in keys]
    )
    return dict(zip(keys, outs))


@pytest.mark.reference
@pytest.mark.parametrize("name", NAMES)
def test_reference_conformance(name, reference_results, photos224):
    """Byte-identical to the reference on real photos at 224 (README, Fidelity)."""
    for sev in range(1, 6):
        for i, img in enumerate(photos224):
            for seed in SEEDS:
                ref = reference_results[name, sev, i, seed]
                ours = corruptbench.corrupt(img, name, sev, profile="imagenet", rng=seed)
                np.testing.assert_array_equal(
                    ours, ref, err_msg=f"{name} sev {sev} photo {i} seed {seed}"
                )

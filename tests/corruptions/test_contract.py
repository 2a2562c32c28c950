"""The contract every registered corruption keeps, in every suite (``corruption_specs(None)``), so a
corruption registered later is checked without writing a test for it (kornia's ``BaseTester``
idea): its registry entry, shape / dtype / layouts (gray, RGBA), determinism under a seed, the rng
types, what a deterministic corruption draws (nothing), severity and image checks, input safety;
and at other sizes and profiles for the corruptions with size-dependent code (``EXTRA_SIZES``).

Then, for the 19 of the ``imagenet_c`` suite: byte identity with the original imagenet-c 0.0.3 on
real photos (``reference``-marked; the blurs, which the original computes slowly, also ``slow``).
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import corruptbench
from corruptbench.profiles import PROFILES
from corruptbench.registry import corruption_specs, corruption_suites, get_corruption
from support import pattern_image

SPECS = {spec.name: spec for spec in corruption_specs(None)}
NAMES = list(SPECS)
IMAGENET_C = [spec.name for spec in corruption_specs("imagenet_c")]


def profiles_of(name: str) -> list[str]:
    """The profiles a corruption must support: all four for ImageNet-C's 19; imagenet and cifar
    (the two every suite defines) for the others."""
    return list(PROFILES) if SPECS[name].suite == "imagenet_c" else ["imagenet", "cifar"]


def corrupt(img: np.ndarray, name: str, severity: int = 3, **kw) -> np.ndarray:
    kw.setdefault("profile", "imagenet")
    kw.setdefault("rng", 0)
    return corruptbench.corrupt(img, name, severity, **kw)


IMG = pattern_image(48, 40, seed=1)  # non-square, so a swapped H / W shows


def test_the_specs_are_every_suite() -> None:
    assert len(NAMES) == len(set(NAMES)) and NAMES[:19] == IMAGENET_C and len(IMAGENET_C) == 19
    assert [s.suite for s in corruption_specs(None)][:19] == ["imagenet_c"] * 19
    assert set(corruption_suites()) == {s.suite for s in SPECS.values()}


@pytest.mark.parametrize("name", NAMES)
def test_registry_entry(name: str) -> None:
    spec = SPECS[name]
    # the registry's entry (torch, once imported, adds batch implementations by replacing specs)
    assert get_corruption(name).func is spec.func and callable(spec.func)
    assert spec.doc and spec.doc == spec.func.__doc__.strip().splitlines()[0]
    # what `corruptbench list` shows: plain text, no reStructuredText, no private references
    assert spec.summary and "``" not in spec.summary and "§" not in spec.doc
    assert isinstance(spec.random, bool) and isinstance(spec.extra, bool)
    same_suite = [s for s in SPECS.values() if s.suite == spec.suite]
    assert [s.order for s in same_suite].count(spec.order) == 1
    if spec.suite == "imagenet_c":  # the 15 have a family of the paper's Figure 1, the 4 extra none
        assert (spec.family is None) == spec.extra


@pytest.mark.parametrize("name", NAMES)
def test_shape_dtype_and_a_fresh_array(name: str) -> None:
    for severity in range(1, 6):
        out = corrupt(IMG, name, severity)
        assert out.dtype == np.uint8 and out.shape == IMG.shape, severity
        assert out.flags.c_contiguous and not np.shares_memory(out, IMG)
    tall = np.ascontiguousarray(IMG.transpose(1, 0, 2))
    assert corrupt(tall, name, 5).shape == tall.shape


@pytest.mark.parametrize("name", NAMES)
def test_every_profile(name: str) -> None:
    for profile in profiles_of(name):
        size = min(PROFILES[profile].size, 64)
        img = pattern_image(size, size, seed=2)
        for severity in (1, 5):
            out = corrupt(img, name, severity, profile=profile)
            assert out.dtype == np.uint8 and out.shape == img.shape, (profile, severity)


def luma(rgb: np.ndarray) -> np.ndarray:
    """ITU-R 601-2 luma ``(299 R + 587 G + 114 B) / 1000``, rounded half up (the documented
    gray rule; PIL's ``convert("L")`` differs by one on some .5 ties, its fixed-point weights)."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((299 * r + 587 * g + 114 * b + 500) // 1000).astype(np.uint8)


@pytest.mark.parametrize("name", NAMES)
def test_gray_is_the_luma_of_the_rgb_result(name: str) -> None:
    gray = np.ascontiguousarray(IMG[:, :, 1])
    luma_of_rgb = luma(corrupt(np.repeat(gray[:, :, None], 3, axis=2), name, rng=4))
    out = corrupt(gray, name, rng=4)
    assert out.shape == gray.shape and out.dtype == np.uint8
    assert np.array_equal(out, luma_of_rgb)
    assert np.array_equal(corrupt(gray[:, :, None], name, rng=4), luma_of_rgb[:, :, None])


@pytest.mark.parametrize("name", NAMES)
def test_rgba_keeps_its_alpha(name: str) -> None:
    alpha = np.arange(48 * 40, dtype=np.uint8).reshape(48, 40)
    rgba = np.concatenate([IMG, alpha[:, :, None]], axis=2)
    out = corrupt(rgba, name, rng=4)
    assert out.shape == rgba.shape and out.dtype == np.uint8
    assert np.array_equal(out[:, :, 3], alpha)
    assert np.array_equal(out[:, :, :3], corrupt(IMG, name, rng=4))


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_under_a_seed(name: str) -> None:
    for severity in (1, 3, 5):
        a = corrupt(IMG, name, severity, rng=123)
        assert np.array_equal(a, corrupt(IMG, name, severity, rng=123))
        # an int seed is the stream of RandomState(seed) (the reference after np.random.seed)
        assert np.array_equal(a, corrupt(IMG, name, severity, rng=np.random.RandomState(123)))
        assert np.array_equal(a, corrupt(IMG, name, severity, rng=np.int64(123)))
        g1 = corrupt(IMG, name, severity, rng=np.random.default_rng(9))
        assert np.array_equal(g1, corrupt(IMG, name, severity, rng=np.random.default_rng(9)))


@pytest.mark.parametrize("name", NAMES)
def test_what_the_rng_draws(name: str) -> None:
    """A random corruption depends on its seed and advances a RandomState it is given; a
    deterministic one ignores the seed and draws nothing."""
    outs = {k: corrupt(IMG, name, 3, rng=k) for k in range(6)}
    rs = np.random.RandomState(5)
    corrupt(IMG, name, 3, rng=rs)
    advanced = rs.random_sample() != np.random.RandomState(5).random_sample()
    gen = np.random.default_rng(5)
    corrupt(IMG, name, 3, rng=gen)
    gen_advanced = gen.random() != np.random.default_rng(5).random()
    if SPECS[name].random:
        # several seeds, several outputs (not one each: color_balance draws only a sign)
        assert len({o.tobytes() for o in outs.values()}) >= 2
        assert advanced and gen_advanced
    else:
        assert len({o.tobytes() for o in outs.values()}) == 1
        assert not advanced and not gen_advanced
        assert np.array_equal(corrupt(IMG, name, 3, rng=None), outs[0])


@pytest.mark.parametrize("name", NAMES)
def test_rng_argument_checked(name: str) -> None:
    with pytest.raises(TypeError, match="rng must be None, an int seed"):
        corrupt(IMG, name, rng="7")
    with pytest.raises(TypeError, match="rng must be None, an int seed"):
        corrupt(IMG, name, rng=1.5)
    with pytest.raises(TypeError, match="rng must be None, an int seed"):
        corrupt(IMG, name, rng=True)
    for bad in (-1, 2**32):
        with pytest.raises(ValueError, match=r"rng seed must be in \[0, 2\*\*32\)"):
            corrupt(IMG, name, rng=bad)
    assert corrupt(IMG, name, rng=None).shape == IMG.shape


@pytest.mark.parametrize("name", NAMES)
def test_severity_checked(name: str) -> None:
    for bad in (0, 6, -1):
        with pytest.raises(ValueError, match=r"severity must be in 1\.\.5"):
            corrupt(IMG, name, bad)
    for bad in (2.5, "3", True, None):
        with pytest.raises(TypeError, match="severity must be an int in 1..5"):
            corrupt(IMG, name, bad)  # type: ignore[arg-type]
    assert np.array_equal(corrupt(IMG, name, np.int64(4)), corrupt(IMG, name, 4))


@pytest.mark.parametrize("name", NAMES)
def test_image_checked(name: str) -> None:
    with pytest.raises(TypeError, match="image must have dtype uint8, got float64"):
        corrupt(IMG / 255.0, name)
    with pytest.raises(TypeError, match="image must be a numpy array"):
        corrupt(Image.fromarray(IMG), name)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="image must be H x W"):
        corrupt(IMG[:, :, :2], name)
    with pytest.raises(ValueError, match="image is empty"):
        corrupt(IMG[:0], name)


@pytest.mark.parametrize("name", NAMES)
def test_input_untouched_whatever_its_memory_layout(name: str) -> None:
    img = pattern_image(48, 80, seed=3)
    before = img.copy()
    dense = corrupt(img, name, 4)
    assert np.array_equal(img, before) and img.flags.writeable
    read_only = img.copy()
    read_only.flags.writeable = False
    assert np.array_equal(corrupt(read_only, name, 4), dense)
    assert np.array_equal(corrupt(np.asfortranarray(img), name, 4), dense)
    view = img[:, ::2]  # a strided, non-contiguous view
    assert np.array_equal(corrupt(view, name, 4), corrupt(np.ascontiguousarray(view), name, 4))
    assert np.array_equal(img, before)


@pytest.mark.parametrize("name", NAMES)
def test_results_do_not_share_scratch_buffers(name: str) -> None:
    first = corrupt(IMG, name, 3, rng=1)
    keep = first.copy()
    corrupt(pattern_image(48, 40, seed=9), name, 5, rng=2)
    corrupt(pattern_image(30, 70, seed=8), name, 1, rng=3)
    assert np.array_equal(first, keep)


#: sizes beyond IMG's 48 x 40, for the corruptions whose size handling has code of its own:
#: ImageNet-C-bar's (the short side scales their parameters: odd and non-square sides, the
#: smallest the cifar profile takes, Inception's 299), the blurs (kernels and zoom crops at every
#: profile) and the weather (textures and fog maps cropped or tiled to the image).
#: (H, W, profile, severities, layouts): ``layouts`` adds a Generator, None, gray and RGBA
CBAR_SIZES = [(h, w, "auto", (1, 5), True) for h, w in ((32, 32), (47, 47), (40, 72), (72, 40))]
CBAR_SIZES += [(16, 16, "auto", (1, 5), True), (8, 8, "cifar", (5,), True)]
CBAR_SIZES += [(8, 13, "cifar", (5,), True), (299, 299, "auto", (5,), False)]
ALL = (1, 2, 3, 4, 5)
BLUR_SIZES = [(50, 80, "imagenet"), (80, 50, "tiny"), (17, 23, "cifar"), (240, 320, "inception")]
BLUR_SIZES = [(h, w, p, ALL, False) for h, w, p in [*BLUR_SIZES, (16, 16, "imagenet")]]
WEATHER_SIZES = [(h, w, p, ALL, False) for p in PROFILES for h, w in ((100, 180), (180, 100))]
WEATHER_SIZES += [(17, 40, p, ALL, False) for p in PROFILES]
BLURS = ("defocus_blur", "glass_blur", "motion_blur", "zoom_blur", "gaussian_blur")
EXTRA_SIZES = {
    **{spec.name: CBAR_SIZES for spec in corruption_specs("cbar")},
    **dict.fromkeys(BLURS, BLUR_SIZES),
    **dict.fromkeys(("snow", "frost", "fog", "spatter"), WEATHER_SIZES),
}


@pytest.mark.parametrize("name", list(EXTRA_SIZES))
def test_other_sizes(name: str) -> None:
    """At each of its sizes: uint8 of the input's shape, the same for an int seed and its
    RandomState, the input untouched; where ``layouts``: a Generator and None accepted, gray and
    RGBA keep their layout (alpha untouched)."""
    for h, w, profile, severities, layouts in EXTRA_SIZES[name]:
        img = pattern_image(h, w, seed=5)
        before = img.copy()
        where = (h, w, profile)
        for severity in severities:
            a = corrupt(img, name, severity, profile=profile, rng=11)
            assert a.shape == img.shape and a.dtype == np.uint8, (*where, severity)
            b = corrupt(img, name, severity, profile=profile, rng=np.random.RandomState(11))
            assert np.array_equal(a, b), (*where, severity)
            if not layouts:
                continue
            for rng in (np.random.default_rng(3), None):
                out = corrupt(img, name, severity, profile=profile, rng=rng)
                assert out.shape == img.shape and out.dtype == np.uint8, where
        assert np.array_equal(img, before), where
        if not layouts:
            continue
        gray = corrupt(img[:, :, 1], name, 3, profile=profile, rng=2)
        assert gray.shape == (h, w) and gray.dtype == np.uint8, where
        rgba = np.dstack([img, np.full((h, w), 77, np.uint8)])
        out = corrupt(rgba, name, 3, profile=profile, rng=2)
        assert out.shape == rgba.shape and np.all(out[:, :, 3] == 77), where
        assert np.array_equal(out[:, :, :3], corrupt(img, name, 3, profile=profile, rng=2)), where


# ------------------------------------------------------------------------------------------------
# the ImageNet-C suite: identity with the original code (imagenet-c 0.0.3) on real photos at 224
# ------------------------------------------------------------------------------------------------
#: computed slowly by the original (glass blur's pixel loop, ImageMagick)
SLOW_REFERENCE = {"defocus_blur", "glass_blur", "motion_blur", "zoom_blur", "gaussian_blur"}
SEEDS = (0, 1, 2)


@pytest.mark.reference
@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_REFERENCE else n for n in IMAGENET_C],
)
def test_reference_conformance(name: str, reference, photos224: list[np.ndarray]) -> None:
    """Byte-identical to the reference on real photos at 224 (README, Fidelity)."""
    cases = [(img, name, sev, seed) for img in photos224 for sev in range(1, 6) for seed in SEEDS]
    for (img, _, sev, seed), ref in zip(cases, reference.reference_corrupt(cases)):
        ours = corruptbench.corrupt(img, name, sev, profile="imagenet", rng=seed)
        np.testing.assert_array_equal(ours, ref, err_msg=f"{name} sev {sev} seed {seed}")

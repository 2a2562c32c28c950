"""corruptbench.compat as a drop-in for imagecorruptions 1.1.2, written from its documented
behaviour (its README and ``corrupt`` docstring, the paper's Figure 1 for the families) and its
code's Python semantics: the exports, ``corrupt`` and its arguments, ImageNet parameters at any
size, the errors. The functions are in test_corruptions.py, the random state in
test_randomness.py, the comparisons with imagecorruptions and imagenet-c themselves in
test_reference.py."""

from __future__ import annotations

import inspect
from dataclasses import replace

import numpy as np
import pytest
from PIL import Image

import corruptbench
from corruptbench import compat
from corruptbench.profiles import PROFILES

# imagecorruptions' corrupt() docstring: the names in their order ("the last four are
# validation corruptions"); corruption_number is the position in this list
DOCUMENTED_ORDER = [
    "gaussian_noise",
    "shot_noise",
    "impulse_noise",
    "defocus_blur",
    "glass_blur",
    "motion_blur",
    "zoom_blur",
    "snow",
    "frost",
    "fog",
    "brightness",
    "contrast",
    "elastic_transform",
    "pixelate",
    "jpeg_compression",
    "speckle_noise",
    "gaussian_blur",
    "spatter",
    "saturate",
]
# the paper's Figure 1 and imagecorruptions' get_corruption_names subsets
FAMILIES = {
    "noise": ["gaussian_noise", "shot_noise", "impulse_noise"],
    "blur": ["defocus_blur", "glass_blur", "motion_blur", "zoom_blur"],
    "weather": ["snow", "frost", "fog", "brightness"],
    "digital": ["contrast", "elastic_transform", "pixelate", "jpeg_compression"],
}
# the public helpers of imagecorruptions.corruptions
HELPERS = [
    "disk",
    "plasma_fractal",
    "clipped_zoom",
    "next_power_of_2",
    "getOptimalKernelWidth1D",
    "gauss_function",
    "getMotionBlurKernel",
    "shift",
    "rgb2gray",
]


def _img(h: int = 40, w: int = 48, seed: int = 0) -> np.ndarray:
    return np.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype(np.uint8)


def _seeded(k: int) -> None:
    np.random.seed(k)  # noqa: NPY002 - imagecorruptions draws from the global legacy state


def _global_state() -> tuple:
    state = np.random.get_state()  # noqa: NPY002 - the global state is what is compared
    return (state[1].tobytes(), state[2], state[3], state[4])


# ---- exports -----------------------------------------------------------------------------------
def test_exports_what_imagecorruptions_exports() -> None:
    assert [f.__name__ for f in compat.corruption_tuple] == DOCUMENTED_ORDER
    assert list(compat.corruption_dict) == DOCUMENTED_ORDER
    for name, func in compat.corruption_dict.items():
        assert getattr(compat, name) is func and name in compat.__all__
        assert compat.corruption_tuple[DOCUMENTED_ORDER.index(name)] is func
        first = "image" if name == "elastic_transform" else "x"
        params = inspect.signature(func).parameters
        assert list(params) == [first, "severity"] and params["severity"].default == 1, name
    sig = inspect.signature(compat.corrupt).parameters
    assert list(sig)[:4] == ["image", "severity", "corruption_name", "corruption_number"]
    assert sig["severity"].default == 1 and sig["corruption_name"].default is None
    assert sig["corruption_number"].default == -1
    assert sig["profile"].kind is inspect.Parameter.KEYWORD_ONLY
    for name in ("corrupt", "get_corruption_names", "corruption_tuple", "corruption_dict"):
        assert name in compat.__all__
    # the one-import switch of the README
    from corruptbench.compat import corrupt, gaussian_noise, get_corruption_names  # noqa: F401

    # imagecorruptions/__init__.py: `from .corruptions import *` (the helpers and the functions)
    for name in [*HELPERS, *DOCUMENTED_ORDER]:
        assert getattr(compat, name) is getattr(compat.corruptions, name), name
        assert name in compat.__all__ and name in compat.corruptions.__all__, name
    from corruptbench.compat.corruptions import clipped_zoom, fog, plasma_fractal  # noqa: F401


def test_get_corruption_names_subsets() -> None:
    assert compat.get_corruption_names() == DOCUMENTED_ORDER[:15]
    assert compat.get_corruption_names("common") == DOCUMENTED_ORDER[:15]
    assert compat.get_corruption_names("validation") == DOCUMENTED_ORDER[15:]
    assert compat.get_corruption_names("all") == DOCUMENTED_ORDER
    for family, names in FAMILIES.items():
        assert compat.get_corruption_names(family) == names, family
    extras = set(DOCUMENTED_ORDER[15:])
    assert not extras & {n for names in FAMILIES.values() for n in names}
    with pytest.raises(ValueError, match="subset must be one of"):
        compat.get_corruption_names("Common")


# ---- pixels -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", DOCUMENTED_ORDER)
def test_224_is_imagenet_c_for_a_seed(name: str, photo224: np.ndarray) -> None:
    """At 224 x 224, np.random.seed(k) before a call gives corruptbench.corrupt(..., rng=k), i.e.
    imagenet-c 0.0.3's pixels (checked against the reference elsewhere), by name and by number,
    and the functions return floats of them."""
    for sev in range(1, 6):
        k = 100 * DOCUMENTED_ORDER.index(name) + sev
        want = corruptbench.corrupt(photo224, name, sev, profile="imagenet", rng=k)
        _seeded(k)
        got = compat.corrupt(photo224, sev, name)
        assert got.dtype == np.uint8 and got.shape == (224, 224, 3)
        np.testing.assert_array_equal(got, want, err_msg=f"corrupt {name} {sev}")
        _seeded(k)
        res = compat.corruption_dict[name](photo224, sev)
        np.testing.assert_array_equal(np.uint8(res), want, err_msg=f"{name}() {sev}")
        _seeded(k)
        by_number = compat.corrupt(photo224, sev, corruption_number=DOCUMENTED_ORDER.index(name))
        np.testing.assert_array_equal(by_number, want)


def test_rng_keyword_draws_from_it_alone() -> None:
    x = _img(40, 48, seed=4)
    for name in ("gaussian_noise", "impulse_noise", "frost", "elastic_transform", "snow"):
        _seeded(0)
        before = _global_state()
        a = compat.corrupt(x, 3, name, rng=5)
        b = compat.corrupt(x, 3, name, rng=np.random.RandomState(5))
        assert _global_state() == before, name
        np.testing.assert_array_equal(a, b)
        _seeded(5)
        np.testing.assert_array_equal(a, compat.corrupt(x, 3, name), err_msg=name)
    gen = compat.corrupt(x, 3, "frost", rng=np.random.default_rng(1))
    assert gen.shape == x.shape and gen.dtype == np.uint8


# ---- parameters at any size --------------------------------------------------------------------
@pytest.mark.parametrize("side", [32, 64, 299])
def test_imagenet_parameters_at_every_size(side: int) -> None:
    """imagecorruptions uses one table (ImageNet's) at every size; no switch at 32/64/299 px."""
    x = _img(side, side, seed=side)
    for name in ("gaussian_noise", "defocus_blur", "contrast", "spatter"):
        _seeded(4)
        got = compat.corrupt(x, 3, name)
        np.testing.assert_array_equal(
            got, corruptbench.corrupt(x, name, 3, profile="imagenet", rng=4)
        )
    auto = {"32": "cifar", "64": "tiny", "299": "inception"}[str(side)]
    own = corruptbench.corrupt(x, "defocus_blur", 3, profile=auto)
    assert not np.array_equal(compat.corrupt(x, 3, "defocus_blur"), own)
    # profile= is the opt-in
    np.testing.assert_array_equal(compat.corrupt(x, 3, "defocus_blur", profile=auto), own)
    np.testing.assert_array_equal(compat.corrupt(x, 3, "defocus_blur", profile="auto"), own)


def test_fog_map_follows_the_image_size_as_in_imagecorruptions() -> None:
    """imagecorruptions: ``plasma_fractal(next_power_of_2(max(shape)))[:H, :W]`` — 256 at 224 px
    (imagenet-c's), the image's own power of two below that."""
    for h, w, mapsize in ((224, 224, 256), (200, 300, 512), (96, 72, 128), (32, 40, 64)):
        x = _img(h, w, seed=h)
        _seeded(6)
        got = compat.corrupt(x, 2, "fog")
        table = replace(PROFILES["imagenet"], fog_mapsize=mapsize)
        np.testing.assert_array_equal(got, corruptbench.corrupt(x, "fog", 2, profile=table, rng=6))
        if mapsize >= 256:
            np.testing.assert_array_equal(
                got, corruptbench.corrupt(x, "fog", 2, profile="imagenet", rng=6)
            )


# ---- input -------------------------------------------------------------------------------------
def test_gray_input_gives_three_channels() -> None:
    x = _img(36, 50, seed=9)[:, :, 0]
    stacked = np.stack([x] * 3, axis=-1)
    for gray in (x, x[:, :, None]):
        for name in ("gaussian_noise", "glass_blur", "frost", "pixelate"):
            _seeded(1)
            got = compat.corrupt(gray, 2, name)
            _seeded(1)
            want = compat.corrupt(stacked, 2, name)
            assert got.shape == (36, 50, 3)
            np.testing.assert_array_equal(got, want)
    assert corruptbench.corrupt(x, "brightness", 1).shape == (36, 50)  # main API: unchanged


def test_severity_true_is_one() -> None:
    """``True in [1, 2, 3, 4, 5]`` in imagecorruptions' check, and ``c[True - 1]`` in its tables."""
    x = _img()
    for yes in (True, np.bool_(True)):
        np.testing.assert_array_equal(
            compat.corrupt(x, yes, "contrast"), compat.corrupt(x, 1, "contrast")
        )
        np.testing.assert_array_equal(compat.contrast(x, yes), compat.contrast(x, 1))  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="severity"):
        compat.corrupt(x, False, "contrast")


def test_numpy_integers_for_severity_and_number() -> None:
    x = _img()
    want = compat.corrupt(x, 3, corruption_number=10)
    for sev in (np.int64(3), np.uint8(3), np.array(3)):
        np.testing.assert_array_equal(compat.corrupt(x, sev, corruption_number=10), want)
        np.testing.assert_array_equal(compat.corrupt(x, sev, "brightness"), want)
    for num in (np.int64(10), np.int32(10), np.array(10)):
        np.testing.assert_array_equal(compat.corrupt(x, 3, corruption_number=num), want)
    np.testing.assert_array_equal(compat.brightness(x, np.int64(3)).astype(np.uint8), want)  # type: ignore[attr-defined]
    # and in the main API
    np.testing.assert_array_equal(corruptbench.corrupt(x, "brightness", np.int64(3)), want)


def test_corruption_number_follows_python_indexing() -> None:
    """``corruption_tuple[corruption_number]``: negative numbers count from the end, a bool is an
    index, a float or a string is a TypeError, outside -19..18 an IndexError; -1 means unset."""
    x = _img()
    pairs = ((-2, "spatter"), (-19, "gaussian_noise"), (np.int64(-4), "speckle_noise"))
    for number, name in (*pairs, (True, "shot_noise"), (np.int32(10), "brightness")):
        _seeded(3)
        by_number = compat.corrupt(x, 2, corruption_number=number)
        _seeded(3)
        np.testing.assert_array_equal(by_number, compat.corrupt(x, 2, name), err_msg=name)
    for bad in (19, -20, np.int64(25)):
        with pytest.raises(IndexError, match=r"corruption_number must be in 0\.\.18"):
            compat.corrupt(x, 1, corruption_number=bad)
        with pytest.raises(ValueError, match="got"):
            compat.corrupt(x, 1, corruption_number=bad)
    for bad in (10.0, "3", None, np.float64(2)):
        with pytest.raises(TypeError, match="corruption_number must be an int"):
            compat.corrupt(x, 1, corruption_number=bad)  # type: ignore[arg-type]
    for unset in (-1, np.int64(-1), -1.0):
        with pytest.raises(ValueError, match="either corruption_name or corruption_number"):
            compat.corrupt(x, 1, corruption_number=unset)  # type: ignore[arg-type]
    # the name wins over the number
    np.testing.assert_array_equal(
        compat.corrupt(x, 2, "contrast", 10), compat.corrupt(x, 2, corruption_number=11)
    )


def test_errors_have_imagecorruptions_types() -> None:
    x = _img()
    bad_images = [
        x.tolist(),
        Image.fromarray(x).convert("RGBA"),  # converted: accepted
        x.astype(np.float64),
        x.astype(np.float32) / 255,
        x[None],
        x[:, :, 0].ravel(),
        _img(16, 16),
        _img(31, 64),
        np.zeros((3, 64, 64), np.uint8),
        np.zeros((40, 40, 4), np.uint8),
        np.zeros((40, 40, 2), np.uint8),
    ]
    for bad in bad_images:
        if isinstance(bad, Image.Image):
            continue
        with pytest.raises(AttributeError):
            compat.corrupt(bad, 1, "fog")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="dtype uint8"):
        compat.corrupt(x.astype(np.float64), 1, "fog")
    with pytest.raises(ValueError, match="at least 32 x 32"):
        compat.corrupt(_img(16, 16), 1, "fog")
    for sev in (0, 6, -1, 2.5, "3", False):
        with pytest.raises(AttributeError, match="severity"):
            compat.corrupt(x, sev, "fog")  # type: ignore[arg-type]
        with pytest.raises(AttributeError, match="severity"):
            compat.fog(x, sev)  # type: ignore[attr-defined]
    with pytest.raises(KeyError) as info:
        compat.corrupt(x, 1, "jpeg")
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith("unknown corruption 'jpeg'; did you mean 'jpeg_compression'")
    with pytest.raises(KeyError):
        compat.corrupt(x, 1, "")
    np.testing.assert_array_equal(  # forgiving about case, like the rest of the package
        compat.corrupt(x, 1, "Fog", rng=1), compat.corrupt(x, 1, "fog", rng=1)
    )


def test_callers_array_is_not_modified() -> None:
    x = _img()
    x.flags.writeable = False
    before = x.copy()
    for name in DOCUMENTED_ORDER:
        compat.corrupt(x, 5, name)
        compat.corruption_dict[name](x, 5)
    np.testing.assert_array_equal(x, before)

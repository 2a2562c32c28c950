"""corruptbench.compat as a drop-in for imagecorruptions 1.1.2, written from its documented
behaviour (its README and ``corrupt`` docstring, the paper's Figure 1 for the families): the
exports, the global random state, ImageNet parameters at any size, grayscale input, NumPy
integers, the errors and what each function returns. The comparisons with imagecorruptions and
imagenet-c themselves are in test_compat_reference.py."""

from __future__ import annotations

import inspect
from dataclasses import replace

import numpy as np
import pytest
from PIL import Image

import corruptbench
from corruptbench import compat
from corruptbench.profiles import PROFILES
from corruptbench.tables.corruptions import get_params

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
# what imagecorruptions' functions return (type / dtype per severity)
FLOAT32 = {"zoom_blur", "elastic_transform"}
PIL_RESULT = {"pixelate", "jpeg_compression"}


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


# ---- randomness and pixels ---------------------------------------------------------------------
@pytest.mark.parametrize("name", DOCUMENTED_ORDER)
def test_global_random_state_reproduces_imagenet_c(name: str, photo224: np.ndarray) -> None:
    """np.random.seed(k) before a call gives corruptbench.corrupt(..., rng=k) (imagenet-c 0.0.3's
    pixels, checked against the reference elsewhere) and leaves the global state where it does."""
    func = compat.corruption_dict[name]
    for sev in range(1, 6):
        k = 100 * DOCUMENTED_ORDER.index(name) + sev
        rs = np.random.RandomState(k)
        want = corruptbench.corrupt(photo224, name, sev, profile="imagenet", rng=rs)
        after = rs.get_state()
        _seeded(k)
        got = compat.corrupt(photo224, sev, name)
        assert got.dtype == np.uint8 and got.shape == (224, 224, 3)
        np.testing.assert_array_equal(got, want, err_msg=f"corrupt {name} {sev}")
        assert _global_state() == (after[1].tobytes(), *after[2:]), f"{name} {sev}: state"
        _seeded(k)
        res = func(photo224, sev)
        np.testing.assert_array_equal(np.uint8(res), want, err_msg=f"{name}() {sev}")
        assert _global_state() == (after[1].tobytes(), *after[2:]), f"{name}() {sev}: state"
        _seeded(k)
        by_number = compat.corrupt(photo224, sev, corruption_number=DOCUMENTED_ORDER.index(name))
        np.testing.assert_array_equal(by_number, want)


@pytest.mark.parametrize("name", DOCUMENTED_ORDER)
def test_function_return_types(name: str) -> None:
    x = _img(48, 64)
    for sev in range(1, 6):
        res = compat.corruption_dict[name](x, sev)
        if name in PIL_RESULT:
            assert isinstance(res, Image.Image) and res.mode == "RGB" and res.size == (64, 48)
            continue
        want = "float32" if name in FLOAT32 or (name == "spatter" and sev <= 3) else "float64"
        assert isinstance(res, np.ndarray) and res.dtype == want, (name, sev, res.dtype)
        assert res.shape == (48, 64, 3) and res.min() >= 0 and res.max() <= 255
        assert res.flags.c_contiguous and res.flags.writeable


def test_noise_functions_return_the_reference_floats() -> None:
    """The noise corruptions' floats, exactly: imagecorruptions' (= imagenet-c's) formulas."""
    x = _img(64, 80, seed=3)
    u = x / 255.0
    for sev in (1, 3, 5):
        cases = {
            "gaussian_noise": lambda c: np.clip(u + np.random.normal(size=u.shape, scale=c), 0, 1),  # noqa: NPY002
            "shot_noise": lambda c: np.clip(np.random.poisson(u * c) / float(c), 0, 1),  # noqa: NPY002
            "speckle_noise": lambda c: np.clip(
                u + u * np.random.normal(size=u.shape, scale=c),  # noqa: NPY002
                0,
                1,
            ),
        }
        for name, formula in cases.items():
            c = get_params(name, sev, "imagenet")
            _seeded(7)
            want = formula(c) * 255
            _seeded(7)
            got = compat.corruption_dict[name](x, sev)
            assert got.dtype == np.float64
            np.testing.assert_array_equal(got, want, err_msg=f"{name} {sev}")
        # impulse noise: scikit-image 0.13.1's salt and pepper (two global choice masks)
        c = get_params("impulse_noise", sev, "imagenet")
        _seeded(8)
        flipped = np.random.choice([True, False], size=u.shape, p=[c, 1 - c])  # noqa: NPY002
        salted = np.random.choice([True, False], size=u.shape, p=[0.5, 0.5])  # noqa: NPY002
        out = u.copy()
        out[flipped & salted] = 1
        out[flipped & ~salted] = 0
        _seeded(8)
        np.testing.assert_array_equal(
            compat.impulse_noise(x, sev),  # type: ignore[attr-defined]
            np.clip(out, 0, 1) * 255,
        )


def test_functions_take_pil_images_like_corrupt_passes_them() -> None:
    x = _img(40, 44, seed=5)
    _seeded(2)
    a = compat.fog(Image.fromarray(x), 3)  # type: ignore[attr-defined]
    _seeded(2)
    b = compat.fog(x, 3)  # type: ignore[attr-defined]
    np.testing.assert_array_equal(a, b)
    c = compat.contrast(Image.fromarray(x[:, :, 0]), 2)  # type: ignore[attr-defined]
    assert c.shape == (40, 44, 3)


# ---- parameters at any size --------------------------------------------------------------------
@pytest.mark.parametrize("side", [32, 64, 299])
def test_imagenet_parameters_at_every_size(side: int) -> None:
    """imagecorruptions uses one table (ImageNet's) at every size; no switch at 32/64/299 px."""
    x = _img(side, side, seed=side)
    for name in ("gaussian_noise", "defocus_blur", "contrast", "snow"):
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
        assert compat.corruption_dict["brightness"](gray, 1).shape == (36, 50, 3)
    assert corruptbench.corrupt(x, "brightness", 1).shape == (36, 50)  # main API: unchanged


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


def test_corruption_number_out_of_range_says_so() -> None:
    x = _img()
    for bad in (19, -2, -19, -20, np.int64(25)):
        with pytest.raises(IndexError, match=r"corruption_number must be an int in 0\.\.18"):
            compat.corrupt(x, 1, corruption_number=bad)
        with pytest.raises(ValueError, match="got"):
            compat.corrupt(x, 1, corruption_number=bad)
    for bad in (3.0, "3", None, True):
        with pytest.raises(IndexError, match="corruption_number"):
            compat.corrupt(x, 1, corruption_number=bad)  # type: ignore[arg-type]
    for unset in (-1, np.int64(-1)):
        with pytest.raises(ValueError, match="either corruption_name or corruption_number"):
            compat.corrupt(x, 1, corruption_number=unset)
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
    for sev in (0, 6, -1, 2.5, "3", True):
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

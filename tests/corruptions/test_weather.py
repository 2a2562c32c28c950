"""Weather corruptions (snow, frost, fog, spatter): frost data, the other profiles' formulas, sizes,
draw order. What every corruption keeps (layouts, seeds, input safety, identity with the reference
on real photos) is checked once, in test_contract.py."""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import pytest
from scipy.ndimage import zoom as scizoom
from skimage.filters import gaussian as sk_gaussian

import corruptbench
from corruptbench.corruptions.weather import FROST_FILES, frost_texture
from corruptbench.profiles import PROFILES
from corruptbench.tables.corruptions import get_params

WEATHER = ("snow", "frost", "fog", "spatter")

SEVERITIES = (1, 2, 3, 4, 5)

SEEDS = (0, 1, 2)

FROST_DIR = Path(str(resources.files("corruptbench") / "data" / "frost"))

#: md5 of the six textures (byte-identical to hendrycks/robustness ImageNet-C/create_c/frost*).
FROST_MD5 = {
    "frost1.png": "6ead634ace1f366d77e87078b465863c",
    "frost2.png": "98f0d2b1d74a048d3bc9c7ecfd886939",
    "frost3.png": "b3ed8eb147824261888e730f916c0d8b",
    "frost4.jpg": "d70b9d6aa0b1fe7bd8133b113787e078",
    "frost5.jpg": "50984ae2c871b7df2c28f1d71ca460a0",
    "frost6.jpg": "bd01b8fc7c34a4ff3265c6fb476cff7b",
}

#: (H, W) as decoded, after cv2.resize x0.3 (tiny) and x0.2 (cifar), OpenCV's rounding.
FROST_SIZES = {
    "frost1.png": ((600, 900), (180, 270), (120, 180)),
    "frost2.png": ((315, 560), (94, 168), (63, 112)),
    "frost3.png": ((315, 560), (94, 168), (63, 112)),
    "frost4.jpg": ((350, 527), (105, 158), (70, 105)),
    "frost5.jpg": ((495, 660), (148, 198), (99, 132)),
    "frost6.jpg": ((323, 485), (97, 146), (65, 97)),
}


def _image(h: int, w: int, seed: int = 0) -> np.ndarray:
    """A smooth-ish colour test image (random blocks upsampled), any size."""
    rs = np.random.RandomState(seed)
    small = rs.randint(0, 256, (max(2, h // 8), max(2, w // 8), 3)).astype(np.uint8)
    img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    img[: h // 4, : w // 4] = 255
    img[-(h // 4) :, -(w // 4) :] = 0
    return img


def test_frost_files_md5():
    assert tuple(FROST_MD5) == FROST_FILES
    for name, md5 in FROST_MD5.items():
        data = (resources.files("corruptbench") / "data" / "frost" / name).read_bytes()
        assert hashlib.md5(data).hexdigest() == md5, name


def test_frost_texture_sizes_and_decoding():
    for i, name in enumerate(FROST_FILES):
        native, tiny, cifar = FROST_SIZES[name]
        tex = frost_texture(i)
        assert tex.shape == native + (3,) and tex.dtype == np.uint8
        assert not tex.flags.writeable
        # cv2.imread semantics (IMREAD_COLOR: BGR, alpha dropped), stored as RGB.
        np.testing.assert_array_equal(tex, cv2.imread(str(FROST_DIR / name))[:, :, ::-1])
        assert frost_texture(i, PROFILES["tiny"]).shape[:2] == tiny
        assert frost_texture(i, PROFILES["cifar"]).shape[:2] == cifar
        assert frost_texture(i, PROFILES["imagenet"]) is tex  # no rescale, cached
    # frost2 and frost3 decode to identical pixels (different file bytes)
    np.testing.assert_array_equal(frost_texture(1), frost_texture(2))
    with pytest.raises(ValueError):
        frost_texture(6)


@pytest.mark.parametrize(
    "profile,shape", [("imagenet", (1200, 1000)), ("imagenet", (300, 1000)), ("cifar", (200, 90))]
)
def test_frost_texture_covers_large_images(profile, shape):
    h, w = shape
    for i in range(5):
        base = frost_texture(i, PROFILES[profile])
        tex = frost_texture(i, PROFILES[profile], shape)
        th, tw = tex.shape[:2]
        assert th >= h + 1 and tw >= w + 1
        assert th == h + 1 or tw == w + 1  # smallest covering scale
        # uniform scaling: aspect ratio kept up to rounding
        assert abs(th / tw - base.shape[0] / base.shape[1]) < 2.0 / min(th, tw)


def t_plasma_fractal(mapsize, wibbledecay, rs):
    maparray = np.empty((mapsize, mapsize), dtype=np.float64)
    maparray[0, 0] = 0
    stepsize = mapsize
    wibble = 100.0

    def wibbledmean(array):
        return array / 4 + wibble * rs.uniform(-wibble, wibble, array.shape)

    while stepsize >= 2:
        half = stepsize // 2
        cornerref = maparray[0:mapsize:stepsize, 0:mapsize:stepsize]
        squareaccum = cornerref + np.roll(cornerref, shift=-1, axis=0)
        squareaccum += np.roll(squareaccum, shift=-1, axis=1)
        maparray[half:mapsize:stepsize, half:mapsize:stepsize] = wibbledmean(squareaccum)
        drgrid = maparray[half:mapsize:stepsize, half:mapsize:stepsize]
        ulgrid = maparray[0:mapsize:stepsize, 0:mapsize:stepsize]
        ldrsum = drgrid + np.roll(drgrid, 1, axis=0)
        lulsum = ulgrid + np.roll(ulgrid, -1, axis=1)
        maparray[0:mapsize:stepsize, half:mapsize:stepsize] = wibbledmean(ldrsum + lulsum)
        tdrsum = drgrid + np.roll(drgrid, 1, axis=1)
        tulsum = ulgrid + np.roll(ulgrid, -1, axis=0)
        maparray[half:mapsize:stepsize, 0:mapsize:stepsize] = wibbledmean(tdrsum + tulsum)
        stepsize //= 2
        wibble /= wibbledecay
    maparray -= maparray.min()
    return maparray / maparray.max()


def t_clipped_zoom(img, zoom_factor):
    h = img.shape[0]
    ch = int(np.ceil(h / float(zoom_factor)))
    top = (h - ch) // 2
    img = scizoom(img[top : top + ch, top : top + ch], (zoom_factor, zoom_factor, 1), order=1)
    trim_top = (img.shape[0] - h) // 2
    return img[trim_top : trim_top + h, trim_top : trim_top + h]


def t_fog(x, c, mapsize, rs):
    h, w = x.shape[:2]
    x = np.array(x) / 255.0
    max_val = x.max()
    x += c[0] * t_plasma_fractal(mapsize, c[1], rs)[:h, :w][..., np.newaxis]
    return np.uint8(np.clip(x * max_val / (max_val + c[0]), 0, 1) * 255)


def t_frost(x, c, scale, rs):
    s = x.shape[0]
    idx = rs.randint(5)
    frost = cv2.imread(str(FROST_DIR / FROST_FILES[idx]))
    if scale is not None:
        frost = cv2.resize(frost, (0, 0), fx=scale, fy=scale)
    x_start, y_start = rs.randint(0, frost.shape[0] - s), rs.randint(0, frost.shape[1] - s)
    frost = frost[x_start : x_start + s, y_start : y_start + s][..., [2, 1, 0]]
    return np.uint8(np.clip(c[0] * np.array(x) + c[1] * frost, 0, 255))


def t_snow(x, c, rs):
    from corruptbench.ops.magick import magick_motion_blur

    s = x.shape[0]
    x = np.array(x, dtype=np.float32) / 255.0
    snow_layer = rs.normal(size=x.shape[:2], loc=c[0], scale=c[1])
    snow_layer = t_clipped_zoom(snow_layer[..., np.newaxis], c[2])
    snow_layer[snow_layer < c[3]] = 0
    layer8 = (np.clip(snow_layer.squeeze(), 0, 1) * 255).astype(np.uint8)
    snow_layer = magick_motion_blur(layer8, c[4], c[5], rs.uniform(-135, -45)) / 255.0
    snow_layer = snow_layer[..., np.newaxis]
    gray = cv2.cvtColor(x, cv2.COLOR_RGB2GRAY).reshape(s, s, 1)
    x = c[6] * x + (1 - c[6]) * np.maximum(x, gray * 1.5 + 0.5)
    return np.uint8(np.clip(x + snow_layer + np.rot90(snow_layer, k=2), 0, 1) * 255)


def t_spatter(x, c, rs):
    x = np.array(x, dtype=np.float32) / 255.0
    liquid_layer = rs.normal(size=x.shape[:2], loc=c[0], scale=c[1])
    liquid_layer = sk_gaussian(liquid_layer, sigma=c[2])  # 2-D float64: mode 'nearest', truncate 4
    liquid_layer[liquid_layer < c[3]] = 0
    if c[5] == 0:
        liquid_layer = (liquid_layer * 255).astype(np.uint8)
        dist = 255 - cv2.Canny(liquid_layer, 50, 150)
        dist = cv2.distanceTransform(dist, cv2.DIST_L2, 5)
        _, dist = cv2.threshold(dist, 20, 20, cv2.THRESH_TRUNC)
        dist = cv2.blur(dist, (3, 3)).astype(np.uint8)
        dist = cv2.equalizeHist(dist)
        ker = np.array([[-2, -1, 0], [-1, 1, 1], [0, 1, 2]], dtype=np.float32)
        dist = cv2.filter2D(dist, cv2.CV_8U, ker)
        dist = cv2.blur(dist, (3, 3)).astype(np.float32)
        m = cv2.cvtColor(liquid_layer * dist, cv2.COLOR_GRAY2BGRA)
        m /= np.max(m, axis=(0, 1))
        m *= c[4]
        color = np.concatenate(
            (
                175 / 255.0 * np.ones_like(m[..., :1]),
                238 / 255.0 * np.ones_like(m[..., :1]),
                238 / 255.0 * np.ones_like(m[..., :1]),
            ),
            axis=2,
        )
        color = cv2.cvtColor(color, cv2.COLOR_BGR2BGRA)
        x = cv2.cvtColor(x, cv2.COLOR_BGR2BGRA)
        out = cv2.cvtColor(np.clip(x + m * color, 0, 1), cv2.COLOR_BGRA2BGR) * 255
    else:
        m = np.where(liquid_layer > c[3], 1, 0)
        m = sk_gaussian(m.astype(np.float64), sigma=c[4])  # skimage 0.13 promoted to float64
        m[m < 0.8] = 0
        color = np.concatenate(
            (
                63 / 255.0 * np.ones_like(x[..., :1]),
                42 / 255.0 * np.ones_like(x[..., :1]),
                20 / 255.0 * np.ones_like(x[..., :1]),
            ),
            axis=2,
        )
        color *= m[..., np.newaxis]
        x *= 1 - m[..., np.newaxis]
        out = np.clip(x + color, 0, 1) * 255
    return np.uint8(out)


PROFILE_NAMES = ("inception", "tiny", "cifar")


def _native_images(profile: str) -> list[np.ndarray]:
    s = PROFILES[profile].size
    return [_image(s, s, seed) for seed in (0, 1)]


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_frost_other_profiles_exact(profile):
    prof = PROFILES[profile]
    for img in _native_images(profile):
        for sev in SEVERITIES:
            c = get_params("frost", sev, profile)
            for seed in SEEDS:
                want = t_frost(img, c, prof.frost_scale, np.random.RandomState(seed))
                got = corruptbench.corrupt(img, "frost", sev, profile=profile, rng=seed)
                np.testing.assert_array_equal(got, want, err_msg=f"{profile} sev {sev} seed {seed}")


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_fog_other_profiles_exact(profile):
    prof = PROFILES[profile]
    for img in _native_images(profile):
        for sev in SEVERITIES:
            c = get_params("fog", sev, profile)
            for seed in SEEDS:
                want = t_fog(img, c, prof.fog_mapsize, np.random.RandomState(seed))
                got = corruptbench.corrupt(img, "fog", sev, profile=profile, rng=seed)
                np.testing.assert_array_equal(got, want, err_msg=f"{profile} sev {sev} seed {seed}")


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_snow_other_profiles_exact(profile):
    for img in _native_images(profile):
        for sev in SEVERITIES:
            c = get_params("snow", sev, profile)
            for seed in SEEDS:
                want = t_snow(img, c, np.random.RandomState(seed))
                got = corruptbench.corrupt(img, "snow", sev, profile=profile, rng=seed)
                np.testing.assert_array_equal(got, want, err_msg=f"{profile} sev {sev} seed {seed}")


@pytest.mark.parametrize("profile", ("imagenet",) + PROFILE_NAMES)
def test_spatter_profiles_exact(profile):
    for img in _native_images(profile):
        for sev in SEVERITIES:
            c = get_params("spatter", sev, profile)
            for seed in SEEDS:
                want = t_spatter(img, c, np.random.RandomState(seed))
                got = corruptbench.corrupt(img, "spatter", sev, profile=profile, rng=seed)
                np.testing.assert_array_equal(got, want, err_msg=f"{profile} sev {sev} seed {seed}")


def test_spatter_wraps_like_the_reference():
    # tiny sev 3 (sigma 1): the smoothed liquid layer exceeds 1 for some seeds and the reference's
    # float -> uint8 cast wraps; find such a seed and check we match the transcription there.
    c = get_params("spatter", 3, "tiny")
    img = _image(64, 64)
    for seed in range(50):
        rs = np.random.RandomState(seed)
        layer = sk_gaussian(rs.normal(size=(64, 64), loc=c[0], scale=c[1]), sigma=c[2])
        if (layer * 255 >= 256).any():
            break
    else:  # pragma: no cover
        pytest.fail("no wrapping seed found")
    want = t_spatter(img, c, np.random.RandomState(seed))
    np.testing.assert_array_equal(
        corruptbench.corrupt(img, "spatter", 3, profile="tiny", rng=seed), want
    )


def test_spatter_empty_layer_returns_image_not_nan():
    # 8 x 8, cifar sev 1, seed 23: no liquid pixel survives the threshold. The reference divides
    # 0 by 0 (NaN -> black image); we return the image unchanged.
    c = get_params("spatter", 1, "cifar")
    rs = np.random.RandomState(23)
    layer = sk_gaussian(rs.normal(size=(8, 8), loc=c[0], scale=c[1]), sigma=c[2])
    assert (layer < c[3]).all()
    img = _image(8, 8)
    out = corruptbench.corrupt(img, "spatter", 1, profile="cifar", rng=23)
    np.testing.assert_array_equal(out, img)


def test_frost_large_image_scales_texture():
    img = _image(1200, 1000)
    for sev in (1, 5):
        out = corruptbench.corrupt(img, "frost", sev, profile="imagenet", rng=3)
        assert out.shape == img.shape and out.dtype == np.uint8
        np.testing.assert_array_equal(
            out, corruptbench.corrupt(img, "frost", sev, profile="imagenet", rng=3)
        )
        # the same formula with the covering texture
        rs = np.random.RandomState(3)
        tex = frost_texture(rs.randint(5), PROFILES["imagenet"], img.shape[:2])
        x0, y0 = rs.randint(0, tex.shape[0] - 1200), rs.randint(0, tex.shape[1] - 1000)
        c = get_params("frost", sev, "imagenet")
        want = np.uint8(
            np.clip(
                c[0] * img.astype(np.float64) + c[1] * tex[x0 : x0 + 1200, y0 : y0 + 1000], 0, 255
            )
        )
        np.testing.assert_array_equal(out, want)


def test_fog_large_image_map_size():
    img = _image(1200, 1000)
    out = corruptbench.corrupt(img, "fog", 4, profile="imagenet", rng=5)
    want = t_fog(img, get_params("fog", 4, "imagenet"), 2048, np.random.RandomState(5))
    np.testing.assert_array_equal(out, want)
    # a non-native size smaller than the profile's map uses the profile's map size
    img = _image(100, 180)
    out = corruptbench.corrupt(img, "fog", 2, profile="imagenet", rng=5)
    want = t_fog(img, get_params("fog", 2, "imagenet"), 256, np.random.RandomState(5))
    np.testing.assert_array_equal(out, want)


def test_snow_flakes_are_point_symmetric_on_black():
    # On black the base is the constant (1 - blend) * 0.5, plus L + rot180(L): the result is
    # 180-degree symmetric (also at a non-square size).
    img = np.zeros((60, 90, 3), np.uint8)
    out = corruptbench.corrupt(img, "snow", 3, profile="tiny", rng=1)
    np.testing.assert_array_equal(out, out[::-1, ::-1])


def test_draw_order():
    img = _image(40, 70)
    h, w = img.shape[:2]

    def state_after(name, sev, profile):
        rs = np.random.RandomState(9)
        corruptbench.corrupt(img, name, sev, profile=profile, rng=rs)
        return rs.randint(2**31)

    rs = np.random.RandomState(9)
    rs.normal(size=(h, w))
    rs.uniform(-135, -45)
    assert state_after("snow", 2, "tiny") == rs.randint(2**31)

    rs = np.random.RandomState(9)
    idx = rs.randint(5)
    tex = frost_texture(idx, PROFILES["cifar"], (h, w))
    rs.randint(0, tex.shape[0] - h)
    rs.randint(0, tex.shape[1] - w)
    assert state_after("frost", 2, "cifar") == rs.randint(2**31)

    rs = np.random.RandomState(9)
    rs.normal(size=(h, w))
    assert state_after("spatter", 4, "imagenet") == rs.randint(2**31)


def test_frost_never_uses_frost6(monkeypatch):
    import corruptbench.corruptions.weather as weather

    used = []
    real = weather.scaled_frost_texture  # what frost_p and frost_texture pick a texture with

    def spy(index, *args, **kwargs):
        used.append(index)
        return real(index, *args, **kwargs)

    monkeypatch.setattr(weather, "scaled_frost_texture", spy)
    img = _image(32, 32)
    for seed in range(40):
        corruptbench.corrupt(img, "frost", 1, profile="cifar", rng=seed)
    assert set(used) == {0, 1, 2, 3, 4}


@pytest.mark.parametrize("mapsize", [2, 8, 32, 64, 256, 512])
def test_fog_plasma_matches_plasma_fractal(mapsize):
    import corruptbench.corruptions.weather as weather
    from corruptbench.ops.kernels import plasma_fractal

    for decay in (1.4, 1.75, 2, 3):
        for seed in (0, 1):
            rs_ref, rs = np.random.RandomState(seed), np.random.RandomState(seed)
            want = plasma_fractal(mapsize, decay, rs_ref)
            raw, lo, span = weather._plasma(mapsize, decay, rs)
            np.testing.assert_array_equal((raw - lo) / span, want)
            assert lo == raw.min() and span == (raw - raw.min()).max()
            assert rs.randint(2**31) == rs_ref.randint(2**31)  # same draws consumed
    gen = np.random.default_rng(3)
    got, lo, span = weather._plasma(mapsize, 2.0, gen)
    np.testing.assert_array_equal(got, plasma_fractal(mapsize, 2.0, np.random.default_rng(3)))
    assert (lo, span) == (0.0, 1.0)

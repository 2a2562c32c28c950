"""The compiled stages of the weather corruptions against the NumPy expressions they replace
(corruptbench.ops.weather_stages)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest


def _u8(shape, seed):
    img = np.random.RandomState(seed).randint(0, 256, shape).astype(np.uint8)
    img.flat[:7] = (0, 255, 0, 255, 1, 254, 128)
    return img


@pytest.mark.parametrize("shape", [(224, 224), (37, 61), (1, 5)])
def test_kernels_snow_match_numpy(shape):
    from corruptbench.ops import weather_stages as wk

    h, w = shape
    rs = np.random.RandomState(h * w)
    img = _u8(shape + (3,), 1)
    x = np.asarray(img, dtype=np.float32) / np.float32(255.0)
    gray = cv2.cvtColor(x, cv2.COLOR_RGB2GRAY).reshape(shape)
    flakes = _u8(shape, 2)
    flakes[rs.random_sample(shape) < 0.5] = 0
    for blend in (0.8, 0.65, 0.55, 0.95):
        got = np.empty(img.shape, np.uint8)
        wk.snow_compose_u8(x, gray, flakes, np.float32(blend), np.float32(1 - blend), got)
        f = (flakes / 255.0)[:, :, None]
        y = blend * x + (1 - blend) * np.maximum(x, gray[:, :, None] * 1.5 + 0.5)
        want = (np.clip(y + f + f[::-1, ::-1], 0, 1) * 255).astype(np.uint8)
        np.testing.assert_array_equal(got, want, err_msg=f"blend {blend}")


def test_kernels_frost_fog_match_numpy():
    from corruptbench.ops import weather_stages as wk

    img = _u8((50, 70, 3), 3)
    tex = _u8((90, 120, 3), 4)
    crop = tex[7:57, 11:81]
    for c0, c1 in ((1, 0.4), (0.8, 0.6), (0.6, 0.75), (1, 0.2), (0.85, 0.4)):
        table = np.empty(1 << 16, np.uint8)
        wk.frost_table(float(c0), float(c1), table)
        a, b = np.divmod(np.arange(1 << 16), 256)
        full = np.clip(c0 * a.astype(np.float64) + c1 * b.astype(np.float64), 0, 255)
        np.testing.assert_array_equal(table, full.astype(np.uint8))
        got = np.empty(img.shape, np.uint8)
        wk.frost_u8(img, tex, 7, 11, table, got)
        want = np.clip(c0 * img.astype(np.float64) + c1 * crop, 0, 255).astype(np.uint8)
        np.testing.assert_array_equal(got, want)
    raw = np.random.RandomState(5).normal(3, 40, (64, 128))
    plasma = raw - raw.min()
    plasma = plasma / plasma.max()
    lo, span = raw.min(), raw.max() - raw.min()
    for image in (img, img // 2, np.zeros_like(img)):
        for strength in (1.5, 2, 3, 0.2):
            x = image / 255.0
            m = x.max()
            x += (strength * plasma[:50, :70])[:, :, None]
            want = (np.clip(x * m / (m + strength), 0, 1) * 255).astype(np.uint8)
            for args in ((plasma, 0.0, 1.0), (raw, lo, span)):
                got = np.empty(image.shape, np.uint8)
                wk.fog_u8(image, *args, float(strength), got)
                np.testing.assert_array_equal(got, want)


def test_kernels_spatter_match_numpy():
    import corruptbench.corruptions.weather as weather
    from corruptbench.ops import weather_stages as wk

    rs = np.random.RandomState(6)
    img = _u8((80, 96, 3), 7)
    x = np.asarray(img, dtype=np.float32) / np.float32(255.0)
    for sigma, threshold in ((4, 0.69), (2, 0.68), (0.5, 0.69)):
        liquid = weather._gaussian(rs.normal(0.65, 0.3, (80, 96)), sigma)
        ref = liquid.copy()
        ref[ref < threshold] = 0
        want8 = (ref * 255).astype(np.int64).astype(np.uint8)  # wraps above 255
        np.testing.assert_array_equal(weather._liquid_u8(liquid, threshold), want8)
        for intensity in (0.6, 0.5, 0.9):
            want = weather._water_drops_numpy(x, ref, intensity)
            np.testing.assert_array_equal(weather.water_drops(x, ref, intensity), want)
            got = np.empty(img.shape, np.uint8)
            dist = weather.water_distance(want8)
            wk.water_u8(img, want8, dist, np.float32(intensity), weather.WATER_COLOUR, got)
            np.clip(want, 0, 1, out=want)
            want *= np.float32(255)
            np.testing.assert_array_equal(got, want.astype(np.uint8))
        for intensity in (1.5, 1.8, 0.6):
            mask = weather._gaussian((liquid > threshold).astype(np.float64), intensity)
            got = np.empty(img.shape, np.uint8)
            wk.mud_u8(img, mask, weather._MUD_COLOUR_F64, got)
            m = mask.copy()
            m[m < 0.8] = 0
            m = m[:, :, None]
            colour = weather.MUD_COLOUR.astype(np.float64) * m
            y = (x * (1 - m)).astype(np.float32) + colour.astype(np.float32)
            np.testing.assert_array_equal(
                got, (np.clip(y, 0, 1) * np.float32(255)).astype(np.uint8)
            )
    # no liquid left: no water at all (the reference's 0 / 0)
    zero = np.zeros((80, 96))
    np.testing.assert_array_equal(weather.water_drops(x, zero, 0.6), x)
    # the NumPy fallback for other dtypes
    x64 = x.astype(np.float64)
    np.testing.assert_array_equal(
        weather.water_drops(x64, ref, 0.6), weather._water_drops_numpy(x64, ref, 0.6)
    )


def test_sparse_motion_blur_matches_magick_emulation():
    from corruptbench.ops import weather_stages as wk
    from corruptbench.ops.magick import magick_motion_blur, motion_kernel

    rs = np.random.RandomState(8)
    for trial in range(400):
        h, w = (int(v) for v in rs.choice([1, 2, 3, 7, 24, 61], 2))
        layer = rs.randint(0, 256, (h, w)).astype(np.uint8)
        layer[rs.random_sample((h, w)) > rs.choice([0.02, 0.1, 0.5, 1.0])] = 0
        if trial % 3 == 0:  # non-zero borders: edge pixels feed many outputs
            layer[0] = rs.randint(0, 256, w)
            layer[:, -1] = rs.randint(0, 256, h)
        radius = float(rs.choice([0, 1.5, 10, 12, 14]))
        sigma = float(rs.choice([0.5, 3, 8, 12]))
        angle = (
            float(rs.choice([0, 90, -90, 180, -135, -45]))
            if trial % 5 == 0
            else rs.uniform(-360, 360)
        )
        weights, ox, oy = motion_kernel(radius, sigma, angle)
        got = np.empty_like(layer)
        wk.sparse_motion_blur_u8(layer, weights, ox, oy, got)
        want = magick_motion_blur(layer, radius, sigma, angle)
        np.testing.assert_array_equal(got, want, err_msg=f"{h}x{w} r {radius} s {sigma} a {angle}")

"""The reference's clipped_zoom and the fused zoom blur (corruptbench.ops.zoom)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.ndimage import zoom as scizoom

from corruptbench.ops.zoom import (
    clipped_zoom,
    clipped_zoom_geometry,
    zoom_axis_table,
    zoom_blur_u8,
    zoom_sum,
)
from corruptbench.tables.corruptions import TABLES


def ref_clipped_zoom(img, zoom_factor):
    """The reference's clipped_zoom, generalised to H != W (each axis on its own) and 2-D input."""
    two_d = img.ndim == 2
    if two_d:
        img = img[:, :, None]
    h, w = img.shape[:2]
    ch = int(np.ceil(h / float(zoom_factor)))
    cw = int(np.ceil(w / float(zoom_factor)))
    top = (h - ch) // 2
    left = (w - cw) // 2
    out = scizoom(img[top : top + ch, left : left + cw], (zoom_factor, zoom_factor, 1), order=1)
    tt = (out.shape[0] - h) // 2
    tl = (out.shape[1] - w) // 2
    out = out[tt : tt + h, tl : tl + w]
    return out[:, :, 0] if two_d else out


def _zoom_factor_lists():
    return sorted({p for t in TABLES.values() for p in t["zoom_blur"]})


@pytest.mark.parametrize(
    "h,z,expected",
    [(224, 1.1, (204, 10, 224, 0)), (224, 1.3, (173, 25, 225, 0)), (224, 3, (75, 74, 225, 0)),
     (224, 4.5, (50, 87, 225, 0)), (64, 1.75, (37, 13, 65, 0)), (32, 2.25, (15, 8, 34, 1))],
)  # fmt: skip
def test_clipped_zoom_geometry(h, z, expected):
    # (crop ch = ceil(h / z), top = (h - ch) // 2, zoomed size, trim):
    # imagenet_c/corruptions.py:104-114
    assert clipped_zoom_geometry(h, z) == expected


@pytest.mark.parametrize("size", [224, pytest.param(299, marks=pytest.mark.slow), 64, 32])
def test_clipped_zoom_matches_scipy_for_all_zoom_blur_factors(size):
    rs = np.random.RandomState(size)
    x = (rs.randint(0, 256, (size, size, 3)) / 255.0).astype(np.float32)
    n_exact = n_total = 0
    factors = sorted(
        {float(z) for stop, step in _zoom_factor_lists() for z in np.arange(1, stop, step)}
    )
    for z in factors:
        ours = clipped_zoom(x, z)
        ref = ref_clipped_zoom(x, z)
        assert ours.dtype == np.float32 and ours.shape == ref.shape == x.shape
        # same mapping and weights in double; only the final rounding can differ by 1 ulp
        np.testing.assert_allclose(ours, ref, rtol=0, atol=1.2e-7)
        n_exact += int(np.sum(ours == ref))
        n_total += ours.size
    assert n_exact / n_total > 0.999


@pytest.mark.parametrize("z", [1.0, 1.25, 1.75, 2.0, 2.25, 2.5, 3.0, 4.0, 4.5])
def test_clipped_zoom_snow_layers(z):
    # snow zooms a float64 (H, W) or (H, W, 1) normal layer
    rs = np.random.RandomState(4)
    for size in (224, 64, 32):
        layer = rs.normal(0.3, 0.3, (size, size))
        ref = ref_clipped_zoom(layer[..., None], z)
        np.testing.assert_allclose(clipped_zoom(layer[..., None], z), ref, rtol=0, atol=1e-15)
        np.testing.assert_allclose(clipped_zoom(layer, z), ref[..., 0], rtol=0, atol=1e-15)


@pytest.mark.parametrize(
    "shape,z", [((48, 80, 3), 1.3), ((80, 48, 3), 1.17), ((17, 23, 3), 2.25), ((300, 120, 1), 1.21)]
)
def test_clipped_zoom_non_square(shape, z):
    x = np.random.RandomState(5).rand(*shape)
    np.testing.assert_allclose(clipped_zoom(x, z), ref_clipped_zoom(x, z), rtol=0, atol=1e-15)


@pytest.mark.parametrize("shape,z", [((97, 131), 4.5), ((60, 200), 3.0), ((33, 37), 2.5)])
def test_clipped_zoom_untrimmed_is_the_whole_scipy_zoom(shape, z):
    # imagecorruptions 1.1.2's clipped_zoom: the zoomed centre crop, not trimmed (snow cuts it later)
    x = np.random.RandomState(7).normal(0.3, 0.3, shape)
    h, w = shape
    ch, cw = int(np.ceil(h / z)), int(np.ceil(w / z))
    crop = x[(h - ch) // 2 : (h - ch) // 2 + ch, (w - cw) // 2 : (w - cw) // 2 + cw, None]
    ref = scizoom(crop, (z, z, 1), order=1)[:, :, 0]
    ours = clipped_zoom(x, z, trim=False)
    assert ours.shape == ref.shape and ours.shape[0] >= h and ours.shape[1] > w
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-15)
    top, left = (ours.shape[0] - h) // 2, (ours.shape[1] - w) // 2  # the trimmed one: its centre
    np.testing.assert_array_equal(clipped_zoom(x, z), ours[top : top + h, left : left + w])


def test_clipped_zoom_round_off_beyond_last_sample_is_zero():
    # crop 4 -> 188 samples: (188 - 1) * (3 / 187) > 3 by round-off, so SciPy's 'constant' mode
    # gives 0 for the last sample; the native zoom reproduces that.
    c, _, n, _ = clipped_zoom_geometry(188, 47.0)
    assert (c, n) == (4, 188)
    assert (n - 1) * ((c - 1) / (n - 1)) > c - 1
    x = np.random.RandomState(6).rand(188, 188, 2) + 1
    ref = ref_clipped_zoom(x, 47.0)
    ours = clipped_zoom(x, 47.0)
    assert np.all(ref[-1] == 0) and np.all(ours[-1] == 0)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-15)


def test_zoom_axis_table_identity_and_readonly():
    i0, i1, w0, w1 = zoom_axis_table(50, 1.0)
    np.testing.assert_array_equal(i0, np.arange(50))
    assert np.all(w0 == 1) and np.all(w1 == 0)
    assert not i0.flags.writeable
    with pytest.raises(ValueError):
        zoom_axis_table(50, 0.5)


def test_clipped_zoom_dtypes_and_input_untouched():
    x = np.random.RandomState(7).rand(40, 40, 3)
    before = x.copy()
    assert clipped_zoom(x, 1.3).dtype == np.float64
    assert clipped_zoom(x.astype(np.float32), 1.3).dtype == np.float32
    assert clipped_zoom((x * 255).astype(np.uint8), 1.3).dtype == np.float64
    np.testing.assert_array_equal(x, before)
    with pytest.raises(ValueError):
        clipped_zoom(np.zeros((4, 4, 3, 1)), 1.2)


@pytest.mark.parametrize("shape", [(224, 224, 3), (64, 64, 3), (37, 53, 3)])
def test_zoom_sum_equals_float32_loop(shape):
    x = (np.random.RandomState(8).randint(0, 256, shape) / 255.0).astype(np.float32)
    for stop, step in _zoom_factor_lists():
        factors = np.arange(1, stop, step)
        loop = np.zeros_like(x)
        for z in factors:
            loop += clipped_zoom(x, z)
        np.testing.assert_array_equal(zoom_sum(x, factors), loop)
        out = np.full_like(x, 7)
        assert zoom_sum(x, factors, out=out) is out
        np.testing.assert_array_equal(out, loop)
    assert not zoom_sum(x, []).any()
    with pytest.raises(TypeError):
        zoom_sum(x.astype(np.float64), [1.0])


@pytest.mark.parametrize("shape", [(224, 224, 3), (299, 299, 3), (64, 64, 3), (37, 53, 3)])
def test_zoom_blur_u8_equals_float32_steps(shape):
    # the fused zoom blur = float32(x / 255.), zoom_sum, + x, / (n + 1), clip, * 255, truncation
    img = np.random.RandomState(10).randint(0, 256, shape).astype(np.uint8)
    img[: shape[0] // 3, : shape[1] // 3] = 77
    x = (img / 255.0).astype(np.float32)
    lists = [np.arange(1, stop, step) for stop, step in _zoom_factor_lists()]
    for factors in [*lists, np.array([1.0]), np.array([1.07, 1.2]), np.array([])]:
        out = zoom_sum(x, factors)
        out += x
        out /= np.float32(len(factors) + 1)
        np.clip(out, 0, 1, out=out)
        out *= 255
        ref = out.astype(np.uint8)
        np.testing.assert_array_equal(zoom_blur_u8(img, factors), ref)
        scratch = np.full(shape[0] * shape[1] * 3 + 1, 5.0, dtype=np.float32)
        np.testing.assert_array_equal(zoom_blur_u8(img, factors, scratch=scratch), ref)
    with pytest.raises(TypeError):
        zoom_blur_u8(x, [1.0])
    with pytest.raises(TypeError):
        zoom_blur_u8(img[:, :, :2], [1.0])


def test_zoom_sum_matches_scipy_loop_at_224():
    x = (np.random.RandomState(9).randint(0, 256, (224, 224, 3)) / 255.0).astype(np.float32)
    factors = np.arange(1, 1.31, 0.03)
    ref = np.zeros_like(x)
    for z in factors:
        ref += ref_clipped_zoom(x, z)
    np.testing.assert_allclose(zoom_sum(x, factors), ref, rtol=0, atol=1e-5)

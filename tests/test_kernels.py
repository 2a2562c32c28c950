"""Kernel builders and the native zoom / Gaussian filters vs straightforward SciPy transcriptions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.ndimage import gaussian_filter
from scipy.ndimage import zoom as scizoom

from conftest import ref_disk
from corruptbench.ops.gaussian import gaussian_blur_u8, gaussian_filter_nearest, gaussian_kernel1d
from corruptbench.ops.kernels import disk, next_pow2, plasma_fractal
from corruptbench.ops.zoom import (
    clipped_zoom,
    clipped_zoom_geometry,
    zoom_axis_table,
    zoom_blur_u8,
    zoom_sum,
)
from corruptbench.tables.corruptions import TABLES

# ------------------------------------------------------------------------------------------------
# transcriptions of the reference helpers (spec §1.1), written out plainly
# ------------------------------------------------------------------------------------------------


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


def ref_plasma_fractal(mapsize, wibbledecay, rs):
    maparray = np.empty((mapsize, mapsize), dtype=np.float64)
    maparray[0, 0] = 0
    stepsize = mapsize
    wibble = 100

    def wibbledmean(array):
        return array / 4 + wibble * rs.uniform(-wibble, wibble, array.shape)

    while stepsize >= 2:
        cornerref = maparray[0:mapsize:stepsize, 0:mapsize:stepsize]
        squareaccum = cornerref + np.roll(cornerref, shift=-1, axis=0)
        squareaccum += np.roll(squareaccum, shift=-1, axis=1)
        maparray[stepsize // 2 : mapsize : stepsize, stepsize // 2 : mapsize : stepsize] = (
            wibbledmean(squareaccum)
        )
        drgrid = maparray[stepsize // 2 : mapsize : stepsize, stepsize // 2 : mapsize : stepsize]
        ulgrid = maparray[0:mapsize:stepsize, 0:mapsize:stepsize]
        ltsum = drgrid + np.roll(drgrid, 1, axis=0) + (ulgrid + np.roll(ulgrid, -1, axis=1))
        maparray[0:mapsize:stepsize, stepsize // 2 : mapsize : stepsize] = wibbledmean(ltsum)
        ttsum = drgrid + np.roll(drgrid, 1, axis=1) + (ulgrid + np.roll(ulgrid, -1, axis=0))
        maparray[stepsize // 2 : mapsize : stepsize, 0:mapsize:stepsize] = wibbledmean(ttsum)
        stepsize //= 2
        wibble /= wibbledecay
    maparray -= maparray.min()
    return maparray / maparray.max()


def _all_defocus_params():
    return sorted({p for t in TABLES.values() for p in t["defocus_blur"]})


def _zoom_factor_lists():
    return sorted({p for t in TABLES.values() for p in t["zoom_blur"]})


# ------------------------------------------------------------------------------------------------
# disk
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("radius,alias", _all_defocus_params())
def test_disk_equals_reference_transcription(radius, alias):
    ours = disk(radius, alias)
    ref = ref_disk(radius, alias)
    assert ours.dtype == np.float32 and ours.shape == ref.shape
    np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize(
    "radius,alias,total",
    [
        (3, 0.1, 1.0),
        (4, 0.5, 1.0),
        (6, 0.5, 1.0),
        (8, 0.5, 1.012975),
        (10, 0.5, 1.010786),
        (7, 0.5, 1.002859),
        (12, 0.5, 1.007753),
    ],
)
def test_disk_sums_spec_7_4(radius, alias, total):
    # the blurred kernel is not renormalised (spec §7.4 / quirk 23)
    assert float(disk(radius, alias).sum()) == pytest.approx(total, abs=2e-6)


@pytest.mark.parametrize("radius,size", [(0.3, 17), (3, 17), (8, 17), (10, 21), (12, 25)])
def test_disk_sizes(radius, size):
    assert disk(radius, 0.5).shape == (size, size)


def test_disk_tiny_radius_is_single_pixel_blurred():
    # r <= 0.5: a one-pixel disk, so the kernel is just the 3x3 Gaussian with sigma alias_blur
    k = disk(0.4, 0.5)
    nz = np.argwhere(k > 0)
    assert nz.min() == 7 and nz.max() == 9


def test_disk_returns_a_copy():
    a = disk(6, 0.5)
    a[:] = 0
    assert disk(6, 0.5).sum() > 0.99


# ------------------------------------------------------------------------------------------------
# Gaussian filter (skimage.filters.gaussian semantics)
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [0.05, 0.4, 0.7, 1, 1.5, 2.5, 4, 6, 6.5])
@pytest.mark.parametrize("shape", [(224, 224, 3), (32, 32, 3), (9, 13, 3), (40, 30)])
def test_gaussian_filter_matches_scipy(sigma, shape):
    rs = np.random.RandomState(1)
    x = rs.randint(0, 256, shape) / 255.0
    sig = (sigma, sigma, 0) if len(shape) == 3 else sigma
    ref = gaussian_filter(x, sig, mode="nearest", truncate=4.0)
    ours = gaussian_filter_nearest(x, sigma)
    assert ours.dtype == np.float64 and ours.shape == x.shape
    np.testing.assert_array_equal(ours, ref)  # same summation order: bit-identical


def test_gaussian_filter_kernel_wider_than_image():
    x = np.random.RandomState(2).rand(6, 5, 3)
    np.testing.assert_array_equal(
        gaussian_filter_nearest(x, 6.0), gaussian_filter(x, (6, 6, 0), mode="nearest")
    )


def test_gaussian_filter_flat_areas_bit_identical():
    # flat areas: the weighted sum lands on v/255 up to rounding; the order of summation decides
    # on which side, so it must be SciPy's (otherwise uint8 truncation flips by one level)
    x = np.zeros((64, 64, 3))
    for v in range(0, 256, 5):
        x[(v // 5) % 8 * 8 : (v // 5) % 8 * 8 + 8, (v // 40) * 8 : (v // 40) * 8 + 8] = v / 255.0
    for sigma in (0.5, 0.7, 1, 1.5, 2, 3, 6):
        ref = gaussian_filter(x, (sigma, sigma, 0), mode="nearest")
        np.testing.assert_array_equal(gaussian_filter_nearest(x, sigma), ref)
        np.testing.assert_array_equal(
            (gaussian_filter_nearest(x, sigma) * 255).astype(np.uint8), (ref * 255).astype(np.uint8)
        )


def test_gaussian_filter_out_float32_and_zero_sigma():
    x = np.random.RandomState(3).rand(20, 24, 3)
    out = np.empty_like(x)
    res = gaussian_filter_nearest(x, 1.3, out=out)
    assert res is out
    np.testing.assert_array_equal(out, gaussian_filter(x, (1.3, 1.3, 0), mode="nearest"))
    x32 = x.astype(np.float32)
    r32 = gaussian_filter_nearest(x32, 1.3)
    assert r32.dtype == np.float32
    np.testing.assert_allclose(r32, gaussian_filter(x32, (1.3, 1.3, 0), mode="nearest"), atol=2e-7)
    np.testing.assert_array_equal(gaussian_filter_nearest(x, 0), x)
    with pytest.raises(TypeError):
        gaussian_filter_nearest(x.astype(np.uint8), 1.0)


@pytest.mark.parametrize("sigma", [0.0, 0.05, 0.4, 0.7, 1, 1.5, 2.5, 4, 6, 6.5])
@pytest.mark.parametrize("shape", [(224, 224, 3), (32, 32, 3), (9, 13, 3), (40, 30), (5, 4, 1)])
def test_gaussian_blur_u8_equals_float_steps(sigma, shape):
    # the fused uint8 -> uint8 blur = x / 255., gaussian_filter_nearest, (clip,) * 255, truncation
    rs = np.random.RandomState(4)
    img = rs.randint(0, 256, shape).astype(np.uint8)
    img[: shape[0] // 2, : shape[1] // 2] = 128  # flat area: sums land on exact levels
    g = gaussian_filter_nearest(img / 255.0, sigma)
    np.testing.assert_array_equal(
        gaussian_blur_u8(img, sigma), (np.clip(g, 0, 1) * 255).astype(np.uint8)
    )
    np.testing.assert_array_equal(gaussian_blur_u8(img, sigma, clip=False), np.uint8(g * 255))
    np.testing.assert_array_equal(  # a non-contiguous view
        gaussian_blur_u8(img[::-1], sigma),
        (np.clip(gaussian_filter_nearest(img[::-1] / 255.0, sigma), 0, 1) * 255).astype(np.uint8),
    )
    with pytest.raises(TypeError):
        gaussian_blur_u8(img / 255.0, sigma)


def test_gaussian_kernel1d_matches_scipy_radius():
    for sigma in (0.4, 1, 2.5, 6):
        k = gaussian_kernel1d(sigma)
        assert len(k) == 2 * int(4 * sigma + 0.5) + 1
        assert k.sum() == pytest.approx(1.0)
        impulse = np.zeros(101)
        impulse[50] = 1
        from scipy.ndimage import gaussian_filter1d

        r = len(k) // 2
        np.testing.assert_allclose(
            gaussian_filter1d(impulse, sigma)[50 - r : 51 + r], k, atol=1e-15
        )


# ------------------------------------------------------------------------------------------------
# clipped zoom
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "h,z,expected",
    [(224, 1.1, (204, 10, 224, 0)), (224, 1.3, (173, 25, 225, 0)), (224, 3, (75, 74, 225, 0)),
     (224, 4.5, (50, 87, 225, 0)), (64, 1.75, (37, 13, 65, 0)), (32, 2.25, (15, 8, 34, 1))],
)  # fmt: skip
def test_clipped_zoom_geometry_spec_7_5(h, z, expected):
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


# ------------------------------------------------------------------------------------------------
# plasma fractal, next_pow2
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mapsize,decay", [(256, 2), (256, 1.4), (512, 1.5), (64, 3), (32, 1.75), (2, 2)]
)
def test_plasma_fractal_matches_transcription(mapsize, decay):
    a = np.random.RandomState(11)
    b = np.random.RandomState(11)
    ours = plasma_fractal(mapsize, decay, a)
    ref = ref_plasma_fractal(mapsize, decay, b)
    np.testing.assert_array_equal(ours, ref)
    assert ours.shape == (mapsize, mapsize) and ours.min() == 0 and ours.max() == 1
    assert a.random_sample() == b.random_sample()  # same number of draws


def test_plasma_fractal_rejects_bad_mapsize():
    with pytest.raises(ValueError):
        plasma_fractal(100, 2, np.random.RandomState(0))


def test_next_pow2():
    assert [next_pow2(n) for n in (1, 2, 3, 32, 33, 224, 256, 299)] == [
        1,
        2,
        4,
        32,
        64,
        256,
        256,
        512,
    ]
    assert all(next_pow2(n) == 2 ** math.ceil(math.log2(n)) for n in range(1, 600))


class _UniformOnly:
    """A random source with only ``uniform``: plasma_fractal then runs level by level in NumPy."""

    def __init__(self, seed: int) -> None:
        self.rs = np.random.RandomState(seed)

    def uniform(self, low, high, size):
        return self.rs.uniform(low, high, size)


@pytest.mark.parametrize("mapsize,decay", [(256, 1.7), (64, 2.5), (32, 3)])
def test_plasma_fractal_compiled_path_equals_level_by_level(mapsize, decay):
    fast = plasma_fractal(mapsize, decay, np.random.RandomState(5))
    slow = plasma_fractal(mapsize, decay, _UniformOnly(5))
    np.testing.assert_array_equal(fast, slow)

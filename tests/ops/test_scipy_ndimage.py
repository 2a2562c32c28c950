"""SciPy's map_coordinates and reflect-mode gaussian_filter, compiled (corruptbench.ops.scipy_ndimage)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage

from corruptbench.ops import scipy_ndimage
from corruptbench.ops.gaussian import gaussian_kernel1d


@pytest.mark.parametrize("sigma", [0.0, 0.64, 2.44, 6.4, 19.52, 170.8, 252.0])
@pytest.mark.parametrize("shape", [(224, 224), (31, 57), (520, 300)])
def test_gaussian_filter_reflect_equals_scipy(sigma, shape):
    u = np.random.RandomState(1).uniform(-1, 1, size=shape)
    got = scipy_ndimage.gaussian_filter_reflect(u, sigma)
    want = scipy.ndimage.gaussian_filter(u, sigma, mode="reflect", truncate=3)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-14 * max(np.abs(want).max(), 1e-300))
    if 2 * int(3 * sigma + 0.5) + 1 <= scipy_ndimage._DIRECT_KERNEL:
        assert np.array_equal(got, want)  # kernels up to 193 taps: SciPy itself


def test_map_coordinates_equals_scipy_including_far_borders():
    rs = np.random.RandomState(5)
    img = rs.rand(13, 17, 3).astype(np.float32)
    dy = rs.uniform(-40, 40, size=(13, 17)).astype(np.float32)
    dx = rs.uniform(-40, 40, size=(13, 17)).astype(np.float32)
    dy[0, :5] = [-0.0, -1e-9, -26.0, -52.0, 12.0]  # exact multiples of the period and near-zero
    dx[1, :3] = [-34.0, 34.0, -17.0]
    got = scipy_ndimage.map_coordinates_reflect_bilinear(img, dx, dy)
    x, y, z = np.meshgrid(np.arange(17), np.arange(13), np.arange(3))
    coords = (
        np.reshape(y + dy[..., None], (-1, 1)),
        np.reshape(x + dx[..., None], (-1, 1)),
        np.reshape(z, (-1, 1)),
    )
    want = scipy.ndimage.map_coordinates(img, coords, order=1, mode="reflect").reshape(img.shape)
    assert got.dtype == np.float32 and np.array_equal(got, want)


# every (shape, sigma) class of the small-kernel path: fields shorter than the kernel radius
# (repeated folding), odd and non-square sides, radius 0 and the widest direct kernel
_SHAPES = [(1, 1), (1, 6), (2, 3), (5, 7), (13, 40), (32, 32), (64, 64), (200, 300), (224, 224)]

_SIGMAS = [0.1, 0.3, 0.64, 1.0, 2.44, 3.2, 5.5, 7.7, 19.52, 28.8, 32.0]


@pytest.mark.parametrize("shape", _SHAPES)
def test_small_gaussian_kernels_are_scipy_bitwise(shape):
    rs = np.random.RandomState(sum(shape))
    for sigma in _SIGMAS:
        assert 2 * int(3 * sigma + 0.5) + 1 <= scipy_ndimage._DIRECT_KERNEL
        u = rs.uniform(-1, 1, size=shape)
        want = scipy.ndimage.gaussian_filter(u, sigma, mode="reflect", truncate=3)
        got = scipy_ndimage.gaussian_filter_reflect(u, sigma)
        assert got.dtype == np.float64 and np.array_equal(got, want), (shape, sigma)
        alpha = float(rs.uniform(0.5, 500))
        disp = scipy_ndimage.gaussian_filter_reflect_f32(u, sigma, alpha)
        assert disp.dtype == np.float32
        assert np.array_equal(disp, (want * alpha).astype(np.float32)), (shape, sigma)


@pytest.mark.parametrize("sigma", [19.52, 170.8])
def test_wide_gaussian_displacement_keeps_the_operator_path(sigma):
    u = np.random.RandomState(3).uniform(-1, 1, size=(40, 56))
    want = (scipy_ndimage.gaussian_filter_reflect(u, sigma) * 488.0).astype(np.float32)
    assert np.array_equal(scipy_ndimage.gaussian_filter_reflect_f32(u, sigma, 488.0), want)


def _one_fft_reflect(a: np.ndarray, sigma: float, truncate: float = 3.0) -> np.ndarray:
    # each axis as one circular convolution of the whole array's symmetric extension (the wide
    # filter's definition, without blocks)
    import scipy.fft

    phi = gaussian_kernel1d(sigma, truncate)
    radius = (len(phi) - 1) // 2
    for axis in (0, 1):
        n = a.shape[axis]
        folded = np.bincount(np.mod(np.arange(-radius, radius + 1), 2 * n), weights=phi)
        folded = np.pad(folded, (0, 2 * n - len(folded)))
        spec = scipy.fft.rfft(np.concatenate([a, np.flip(a, axis=axis)], axis=axis), axis=axis)
        spec *= scipy.fft.rfft(folded).reshape((-1, 1) if axis == 0 else (1, -1))
        full = scipy.fft.irfft(spec, n=2 * n, axis=axis)
        a = full[:n] if axis == 0 else full[:, :n]
    return a


@pytest.mark.parametrize("shape", [(600, 530), (531, 1030)])
def test_wide_gaussian_in_blocks_equals_one_transform(monkeypatch, shape):
    # pocketfft transforms each line on its own: blocks of lines (one line, a few, many) give
    # the bytes of one transform of the whole array, scaled and cast the same way
    u = np.random.RandomState(4).uniform(-1, 1, size=shape)
    whole = _one_fft_reflect(u, 170.8)
    for block in (1, 5000, 1 << 18):
        monkeypatch.setattr(scipy_ndimage, "_FFT_BLOCK_VALUES", block)
        assert np.array_equal(scipy_ndimage.gaussian_filter_reflect(u, 170.8), whole), block
        field = u.copy()
        disp = scipy_ndimage.gaussian_filter_reflect_f32(field, 170.8, 488.0)
        assert np.array_equal(field, u)  # untouched without overwrite_field
        assert np.array_equal(disp, (whole * 488.0).astype(np.float32))
        mine = scipy_ndimage.gaussian_filter_reflect_f32(field, 170.8, 488.0, overwrite_field=True)
        assert np.array_equal(mine, disp)


@pytest.mark.parametrize("rows", [1, 5, 64])
def test_direct_gaussian_in_row_blocks_is_scipy_bitwise(monkeypatch, rows):
    monkeypatch.setattr(scipy_ndimage, "_DIRECT_BLOCK_ROWS", rows)
    u = np.random.RandomState(rows).uniform(-1, 1, size=(203, 150))
    for sigma in (0.64, 2.44, 19.52):
        want = scipy.ndimage.gaussian_filter(u, sigma, mode="reflect", truncate=3)
        assert np.array_equal(scipy_ndimage.gaussian_filter_reflect(u, sigma), want)
        disp = scipy_ndimage.gaussian_filter_reflect_f32(u, sigma, 29.28, overwrite_field=True)
        assert np.array_equal(disp, (want * 29.28).astype(np.float32))


def test_sampling_in_row_groups_equals_the_whole_image():
    # each group of output rows from just the rows sampled_rows names: the whole image's bytes,
    # with displacements that reach far and fold at both borders
    rs = np.random.RandomState(6)
    h, w = 41, 23
    img = np.zeros((h, w, 4))
    img[..., :3] = rs.rand(h, w, 3).astype(np.float32)
    dx = rs.uniform(-3, 3, size=(h, w)).astype(np.float32)
    dy = rs.uniform(-3, 3, size=(h, w)).astype(np.float32)
    dy[0, :4] = [-9.5, -50.0, 60.25, -0.0]
    dy[h - 1, :2] = [8.75, -1e-9]
    whole = np.empty((h, w, 3), np.uint8)
    scipy_ndimage.map_coordinates_reflect_u8(img, dx, dy, whole)
    for step in (1, 4, h):
        got = np.full((h, w, 3), 7, np.uint8)
        for r0 in range(0, h, step):
            lo, hi = scipy_ndimage.sampled_rows(dy, r0, min(h, r0 + step))
            band = np.ascontiguousarray(img[lo : hi + 1])
            scipy_ndimage.map_coordinates_reflect_u8(
                band, dx, dy, got[r0 : r0 + step], image_row0=lo, out_row0=r0
            )
        assert np.array_equal(got, whole), step
    assert scipy_ndimage.sampled_rows(dy, 0, 1)[0] == 0  # a fold at the top reads row 0


def test_sampled_rows_of_inner_bands_skip_nan():
    # a band none of whose coordinates folds is answered from their range: floor(min) and
    # floor(max) + 1; NaN displacements sample nothing there, as in the per-sample pass
    dy = np.zeros((12, 5), np.float32)
    dy[4:8] = [[0.5], [-1.25], [2.0], [0.0]]
    assert scipy_ndimage.sampled_rows(dy, 4, 8) == (3, 9)
    dy[5] = np.nan
    assert scipy_ndimage.sampled_rows(dy, 4, 8) == (4, 9)
    dy[6, 1] = np.nan
    assert scipy_ndimage.sampled_rows(dy, 6, 7) == (8, 9)
    dy[4:8] = np.nan
    assert scipy_ndimage.sampled_rows(dy, 4, 8) == (0, -1)
    assert scipy_ndimage.sampled_rows(dy, 4, 4) == (0, -1)

"""SciPy's map_coordinates and reflect-mode gaussian_filter, compiled (corruptbench.ops.scipy_ndimage)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage

from corruptbench.ops import scipy_ndimage


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

"""scikit-image / SciPy Gaussian filters, compiled (corruptbench.ops.gaussian)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.ndimage import gaussian_filter

from corruptbench.ops.gaussian import gaussian_blur_u8, gaussian_filter_nearest, gaussian_kernel1d


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

"""Pillow's QUAD / PERSPECTIVE transform, compiled (corruptbench.ops.pillow_transform), against
Pillow itself."""

from __future__ import annotations

import numpy as np
from PIL import Image

from corruptbench.ops.pillow_transform import quad_coefficients, transform_no_bars_u8


def pillow_no_bars(img: np.ndarray, method, data) -> np.ndarray:
    h, w = img.shape[:2]
    warped = np.array(Image.fromarray(img).transform((w, h), method, data, Image.BILINEAR))
    mask = np.array(
        Image.fromarray(np.full_like(img, 255)).transform((w, h), method, data, Image.BILINEAR)
    )
    return np.where(mask == 255, warped, img)


def test_perspective_equals_pillow():
    rs = np.random.RandomState(0)
    for _ in range(40):
        h, w = rs.randint(8, 70, 2)
        img = rs.randint(0, 256, (h, w, 3)).astype(np.uint8)
        p = rs.uniform(-0.003, 0.003, 8)
        p[[0, 4]] += 1
        p[[2, 5]] *= 3000
        ours = np.empty_like(img)
        transform_no_bars_u8(img, p, False, ours)
        assert np.array_equal(ours, pillow_no_bars(img, Image.PERSPECTIVE, [float(v) for v in p]))


def test_quad_equals_pillow_where_the_coefficients_agree():
    # integer corners: the float32 differences are exact, so NumPy 1's and Pillow's float64
    # coefficients are the same numbers
    rs = np.random.RandomState(1)
    for _ in range(40):
        h, w = rs.randint(8, 70, 2)
        img = rs.randint(0, 256, (h, w, 3)).astype(np.uint8)
        corners = np.array([[0, 0], [0, h], [w, h], [w, 0]]) + rs.randint(-8, 9, (4, 2))
        coeffs = quad_coefficients(corners.astype(np.float32).flatten(), w, h)
        ours = np.empty_like(img)
        transform_no_bars_u8(img, coeffs, True, ours)
        data = [float(v) for v in corners.flatten()]
        assert np.array_equal(ours, pillow_no_bars(img, Image.QUAD, data))


def test_quad_coefficients_use_float32_differences():
    corners = np.array([0.1, 0.2, 0.3, 50.7, 60.1, 49.9, 59.3, 0.4], dtype=np.float32)
    c = quad_coefficients(corners, 60, 50)
    x0 = corners[0]
    assert c[1] == float(np.float32(corners[6] - x0)) * (1.0 / 60)
    d3 = np.float32(np.float32(np.float32(corners[4] - corners[2]) - corners[6]) + x0)
    assert c[3] == float(d3) * (1.0 / 60) * (1.0 / 50)


def test_enhance_color_equals_pillow():
    from PIL import ImageEnhance

    from corruptbench.ops.pillow_transform import enhance_color_u8

    rs = np.random.RandomState(2)
    img = rs.randint(0, 256, (64, 96, 3)).astype(np.uint8)
    for factor in (0.0, 0.1, 0.35, 0.5, 0.9, 1.0, 1.1, 1.45, 1.8, 2.0):
        ours = np.empty_like(img)
        enhance_color_u8(img, np.float32(factor), ours)
        expected = np.array(ImageEnhance.Color(Image.fromarray(img)).enhance(factor))
        assert np.array_equal(ours, expected), factor

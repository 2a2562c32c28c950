"""The compiled per-pixel code of ImageNet-C-bar (corruptbench.ops.cbar_kernels and its family
modules cbar_kernels_*): the NumPy scalar
semantics it re-creates. The corruptions themselves are compared with the original in
tests/corruptions/test_cbar_reference.py."""

from __future__ import annotations

import numpy as np

from corruptbench.ops import cbar_kernels as ck
from corruptbench.ops import cbar_kernels_color as ck_color


def test_np_mod_is_numpys_remainder():
    rs = np.random.RandomState(0)
    a = np.concatenate([rs.uniform(-50, 50, 2000), [-0.0, 0.0, 3.0, -3.0, 1e-300, -1e-300]])
    for b in (1.0, 2.0, 0.7, -1.5):
        ours = np.array([ck.np_mod(float(v), b) for v in a])
        assert np.array_equal(ours, np.remainder(a, b)), b


def test_to_u8_clips_truncates_and_casts_nan_to_zero():
    vals = [-3.0, -0.5, 0.0, 0.99, 1.0, 254.999, 255.0, 255.5, 1e9, float("nan")]
    assert [int(ck.to_u8(v)) for v in vals] == [0, 0, 0, 0, 1, 254, 255, 255, 255, 0]


def original_bilinear(image: np.ndarray, point) -> np.ndarray:
    """utils/image.py's bilinear_interpolation, as written (for a uint8 image NumPy 1 and 2 agree:
    everything is float64)."""
    top, u = int(np.floor(point[0])), int(np.floor(point[1]))
    r, d = top + 1, u + 1
    h, w = image.shape[:2]

    def at(i, j):
        return image[i, j, :] if 0 <= i < h and 0 <= j < w else np.array([0, 0, 0])

    al = at(top, u) * (1.0 - point[1] + u) + at(top, d) * (1.0 - d + point[1])
    ar = at(r, u) * (1.0 - point[1] + u) + at(r, d) * (1.0 - d + point[1])
    return al * (1.0 - point[0] + top) + ar * (1.0 - r + point[0])


def test_bilinear_of_a_uint8_image_is_the_original():
    rs = np.random.RandomState(1)
    img = rs.randint(0, 256, (9, 13, 3)).astype(np.uint8)
    for p0, p1 in rs.uniform(-1.5, 14.5, (500, 2)):
        expected = original_bilinear(img, (p0, p1))
        ours = [ck.bilinear_u8(img, float(p0), float(p1), c) for c in range(3)]
        assert np.array_equal(ours, expected), (p0, p1)


def colour_cube(step: int = 5) -> np.ndarray:
    """Every colour on a grid of ``step`` (plus the extremes), as an image."""
    v = np.unique(np.r_[np.arange(0, 256, step), 255]).astype(np.uint8)
    cube = np.stack(np.meshgrid(v, v, v, indexing="ij"), axis=-1).reshape(-1, 3)
    return np.ascontiguousarray(cube.reshape(-1, len(v), 3))


def test_hue_shift_is_scikit_images_float32_hsv():
    from skimage.color import hsv2rgb, rgb2hsv

    img = colour_cube()
    img.flags.writeable = False
    for shift in (0.0, 0.05, 0.5, 0.95, 0.999):
        hsv = rgb2hsv(img.astype(np.float32) / 255)
        hsv[:, :, 0] += shift
        expected = np.clip(hsv2rgb(hsv) * 255, 0, 255).astype(np.uint8)
        ours = np.empty_like(img)
        ck_color.hue_shift_u8(img, np.float32(shift), ours)
        assert np.array_equal(ours, expected), shift


def test_bleach_bypass_and_technicolor_are_the_original_expressions():
    img = colour_cube()
    img.flags.writeable = False
    vals = np.array([0.2126, 0.7152, 0.0722]).reshape(1, 1, 3)
    r, g, b = img[:, :, 0], img[:, :, 1], img[:, :, 2]
    for amount in (0.1, 0.5, 1.0):
        # corrupt.py BleachBypass.transform / Technicolor.transform (float64 throughout)
        luma = np.sum(img * vals, axis=2, keepdims=True) / 255
        mix = np.clip(10.0 * (luma - 0.45), 0, 1.0)
        out = (
            (1 - mix) * (2 * img * luma / 255)
            + mix * (1.0 - 2.0 * (1.0 - luma) * (1.0 - img / 255))
        ) * 255
        expected = ((1 - amount) * img + amount * out).astype(np.uint8)
        ours = np.empty_like(img)
        ck_color.bleach_bypass_u8(img, amount, ours)
        assert np.array_equal(ours, expected), amount
        rm = 1.0 - (r / 255 - (g / 2 + b / 2) / 255)
        gm = 1.0 - (g / 255 - (r / 2 + b / 2) / 255)
        bm = 1.0 - (b / 255 - (r / 2 + g / 2) / 255)
        new = np.stack(
            (
                gm * bm * r.astype(np.float32),
                rm * bm * g.astype(np.float32),
                rm * gm * b.astype(np.float32),
            ),
            axis=2,
        )
        with np.errstate(invalid="ignore"):
            expected = ((1 - amount) * img + amount * new).astype(np.uint8)
        ck_color.technicolor_u8(img, amount, ours)
        assert np.array_equal(ours, expected), amount

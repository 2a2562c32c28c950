"""scikit-image-exact RGB <-> HSV kernels and the fused HSV edit (corruptbench.ops.hsv)."""

from __future__ import annotations

import numpy as np
import pytest

from corruptbench.ops import hsv as hsv_ops


def _sk_rgb2hsv(x: np.ndarray) -> np.ndarray:
    from skimage.color import rgb2hsv

    return rgb2hsv(x)


def _sk_hsv2rgb(x: np.ndarray) -> np.ndarray:
    from skimage.color import hsv2rgb

    return hsv2rgb(x)


def _colour_cases() -> np.ndarray:
    rs = np.random.RandomState(3)
    img = rs.randint(0, 256, size=(64, 64, 3)).astype(np.uint8)
    img[:8] = rs.randint(0, 4, size=(8, 64, 3)) * 85  # many ties between channels
    img[8:12] = img[8:12, :, :1]  # grays
    img[12, :8] = [
        (0, 0, 0),
        (255, 255, 255),
        (255, 0, 0),
        (0, 255, 0),
        (0, 0, 255),
        (255, 255, 0),
        (255, 0, 255),
        (1, 0, 0),
    ]
    return img


def test_hsv_conversions_match_scikit_image_bitwise():
    pytest.importorskip("skimage")
    x = _colour_cases() / 255.0
    hsv = _sk_rgb2hsv(x)
    assert np.array_equal(hsv_ops.rgb2hsv(x), hsv)
    assert np.array_equal(hsv_ops.hsv2rgb(hsv), _sk_hsv2rgb(hsv))
    edited = hsv.copy()
    edited[..., 1] = np.clip(edited[..., 1] * 20 + 0.2, 0, 1)
    assert np.array_equal(hsv_ops.hsv2rgb(edited), _sk_hsv2rgb(edited))
    one_pixel = np.array([0.2, 0.5, 0.1])
    assert np.array_equal(hsv_ops.rgb2hsv(one_pixel), _sk_rgb2hsv(one_pixel))


def test_hsv_adjust_matches_formula_and_rejects_mixed_edits():
    pytest.importorskip("skimage")
    img = _colour_cases()
    x = img / 255.0
    for v_add in (0.05, 0.3, 0.5):
        hsv = _sk_rgb2hsv(x)
        hsv[..., 2] = np.clip(hsv[..., 2] + v_add, 0, 1)
        assert np.array_equal(
            hsv_ops.hsv_adjust_uint8(img, v_add=v_add),
            np.uint8(np.clip(_sk_hsv2rgb(hsv), 0, 1) * 255),
        )
    for s_mul, s_add in ((0.1, 0.0), (2.5, 0.2), (30, 0.2)):
        hsv = _sk_rgb2hsv(x)
        hsv[..., 1] = np.clip(hsv[..., 1] * s_mul + s_add, 0, 1)
        got = hsv_ops.hsv_adjust_uint8(img, s_mul=s_mul, s_add=s_add)
        assert np.array_equal(got, np.uint8(np.clip(_sk_hsv2rgb(hsv), 0, 1) * 255))
    with pytest.raises(ValueError, match="either"):
        hsv_ops.hsv_adjust_uint8(img, s_mul=2, v_add=0.1)
    with pytest.raises(ValueError, match="3 channels"):
        hsv_ops.rgb2hsv(np.zeros((4, 4)))


def _colour_cube() -> np.ndarray:
    """Many colours: a 0..255 grid of step 5 (ties, grays, 0 and 255), two channels equal with
    every third value, and random colours."""
    grid = np.arange(0, 256, 5)
    cube = np.stack(np.meshgrid(grid, grid, grid, indexing="ij"), axis=-1).reshape(-1, 3)
    v = np.arange(256)
    a = np.repeat(v, 256)
    b = np.tile(v, 256)
    ties = np.concatenate([np.stack(t, axis=1) for t in ((a, a, b), (a, b, a), (b, a, a))], axis=0)
    rand = np.random.RandomState(3).randint(0, 256, size=(200_000, 3))
    return np.concatenate([cube, ties, rand]).astype(np.uint8).reshape(1, -1, 3)


@pytest.mark.parametrize(
    "edit",
    [
        {"v_add": 0.1},
        {"v_add": 0.5},
        {"v_add": -0.3},
        {"s_mul": 0.3, "s_add": 0.0},
        {"s_mul": 2.0, "s_add": 0.1},
        {"s_mul": 30.0, "s_add": 0.2},
        {"s_mul": 0.0, "s_add": 0.5},
        {"s_mul": 1.0, "s_add": -0.2},
    ],
)
def test_vectorised_hsv_edit_equals_per_pixel_conversions(edit):
    img = _colour_cube()
    hsv = hsv_ops.rgb2hsv(img / 255.0)  # the per-pixel scikit-image-exact kernels
    if "v_add" in edit:
        hsv[..., 2] = np.clip(hsv[..., 2] + edit["v_add"], 0, 1)
    else:
        hsv[..., 1] = np.clip(hsv[..., 1] * edit["s_mul"] + edit["s_add"], 0, 1)
    want = (np.clip(hsv_ops.hsv2rgb(hsv), 0, 1) * 255).astype(np.uint8)
    assert np.array_equal(hsv_ops.hsv_adjust_uint8(img, **edit), want)

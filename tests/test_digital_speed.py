"""The fused / compiled fast paths of the digital corruptions equal their unfused building blocks.

The vectorised HSV edit of brightness / saturate is compared with the per-pixel conversions
(``_color.rgb2hsv`` / ``hsv2rgb``, themselves checked against scikit-image) on many colours.

``elastic_transform`` runs fused kernels (the uint8 -> float32 image through a table, the warp
into a zero-padded float64 copy, the small Gaussian kernels compiled with SciPy's summation
order, the sampling with the uint8 conversion fused); these tests restate the unfused pipeline
with the public building blocks (``warp_affine_cv34``, ``gaussian_filter_reflect``,
``map_coordinates_reflect_bilinear``) and SciPy, and require identical bytes.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
import scipy.ndimage
from PIL import Image

from conftest import load_photo
from corruptbench.corruptions import digital
from corruptbench.ops import hsv as _color
from corruptbench.ops.preprocess import profile_preprocess, resize_exact
from corruptbench.profiles import PROFILES
from corruptbench.registry import corruption_registry
from corruptbench.tables.corruptions import get_params

# every (shape, sigma) class of the small-kernel path: fields shorter than the kernel radius
# (repeated folding), odd and non-square sides, radius 0 and the widest direct kernel
_SHAPES = [(1, 1), (1, 6), (2, 3), (5, 7), (13, 40), (32, 32), (64, 64), (200, 300), (224, 224)]
_SIGMAS = [0.1, 0.3, 0.64, 1.0, 2.44, 3.2, 5.5, 7.7]


@pytest.mark.parametrize("shape", _SHAPES)
def test_small_gaussian_kernels_are_scipy_bitwise(shape):
    rs = np.random.RandomState(sum(shape))
    for sigma in _SIGMAS:
        assert 2 * int(3 * sigma + 0.5) + 1 <= digital._SMALL_KERNEL
        u = rs.uniform(-1, 1, size=shape)
        want = scipy.ndimage.gaussian_filter(u, sigma, mode="reflect", truncate=3)
        got = digital.gaussian_filter_reflect(u, sigma)
        assert got.dtype == np.float64 and np.array_equal(got, want), (shape, sigma)
        alpha = float(rs.uniform(0.5, 500))
        disp = digital._smoothed_displacement(u, sigma, alpha)
        assert disp.dtype == np.float32
        assert np.array_equal(disp, (want * alpha).astype(np.float32)), (shape, sigma)


@pytest.mark.parametrize("sigma", [19.52, 170.8])
def test_wide_gaussian_displacement_keeps_the_operator_path(sigma):
    u = np.random.RandomState(3).uniform(-1, 1, size=(40, 56))
    want = (digital.gaussian_filter_reflect(u, sigma) * 488.0).astype(np.float32)
    assert np.array_equal(digital._smoothed_displacement(u, sigma, 488.0), want)


def test_unit_table_and_padded_warp():
    img = np.random.RandomState(0).randint(0, 256, size=(37, 29, 3)).astype(np.uint8)
    x = img.astype(np.float32) / 255.0
    assert np.array_equal(digital._UNIT32[img], x)
    padded = np.full((37, 29, 4), np.nan, np.float32)
    digital._unit_rgb_padded(img, digital._UNIT32, padded)
    assert np.array_equal(padded[..., :3], x) and not padded[..., 3].any()
    m = np.array([[1.05, 0.1, -3.2], [-0.07, 0.93, 4.4]])
    want = digital.warp_affine_cv34(x, m, (31, 40))
    got = np.full((40, 31, 4), np.nan)
    digital._warp_affine_kernel(padded, digital.invert_affine_cv(m), got)
    assert np.array_equal(got[..., :3], want) and not got[..., 3].any()


def _unfused_elastic(image: np.ndarray, severity: int, profile: str, seed: int) -> np.ndarray:
    """The pipeline before fusion, from the public building blocks."""
    rng = np.random.RandomState(seed)
    alpha, sigma, jitter = get_params("elastic_transform", severity, profile)
    h, w = image.shape[:2]
    x = image.astype(np.float32) / 255.0
    center = np.array((h, w), dtype=np.float32) // 2
    square = min(h, w) // 3
    pts1 = np.array(
        [center + square, [center[0] + square, center[1] - square], center - square],
        dtype=np.float32,
    )
    pts2 = pts1 + rng.uniform(-jitter, jitter, size=pts1.shape).astype(np.float32)
    x = digital.warp_affine_cv34(x, cv2.getAffineTransform(pts1, pts2), (w, h))
    dx = (digital.gaussian_filter_reflect(rng.uniform(-1, 1, (h, w)), sigma) * alpha).astype(
        np.float32
    )
    dy = (digital.gaussian_filter_reflect(rng.uniform(-1, 1, (h, w)), sigma) * alpha).astype(
        np.float32
    )
    sampled = digital.map_coordinates_reflect_bilinear(x, dx, dy)
    return (np.clip(sampled, 0, 1) * 255).astype(np.uint8)


def _elastic(image: np.ndarray, severity: int, profile: str, seed: int) -> np.ndarray:
    ro = image.copy()
    ro.flags.writeable = False
    func = corruption_registry()["elastic_transform"].func
    return func(ro, severity, profile=PROFILES[profile], rng=np.random.RandomState(seed))


def _test_images() -> list[tuple[str, np.ndarray]]:
    rs = np.random.RandomState(11)
    images = [
        ("imagenet", rs.randint(0, 256, size=(224, 224, 3)).astype(np.uint8)),  # noise
        ("imagenet", (rs.randint(0, 6, size=(224, 224, 3)) * 51).astype(np.uint8)),  # 0 and 255
        ("cifar", rs.randint(0, 256, size=(32, 32, 3)).astype(np.uint8)),
        ("imagenet", rs.randint(0, 256, size=(200, 300, 3)).astype(np.uint8)),
    ]
    try:
        photo = load_photo("n01530575_brambling.JPEG")
    except pytest.skip.Exception:
        return images
    images += [(p, profile_preprocess(photo, p)) for p in ("imagenet", "inception", "tiny")]
    images.append(("cifar", np.asarray(resize_exact(photo, (32, 32)), dtype=np.uint8)))
    images.append(("imagenet", np.asarray(resize_exact(photo, (300, 200)), dtype=np.uint8)))
    return images


def test_elastic_fused_equals_unfused_pipeline():
    for profile, img in _test_images():
        for severity in range(1, 6):
            for seed in (0, 7):
                got = _elastic(img, severity, profile, seed)
                want = _unfused_elastic(img, severity, profile, seed)
                assert got.dtype == np.uint8 and np.array_equal(got, want), (
                    profile,
                    img.shape,
                    severity,
                    seed,
                )


def test_elastic_float_input_takes_the_generic_warp():
    img = np.random.RandomState(2).randint(0, 256, size=(48, 40, 3)).astype(np.uint8)
    as_float = img.astype(np.float64)
    as_float.flags.writeable = False
    func = corruption_registry()["elastic_transform"].func
    got = func(as_float, 2, profile=PROFILES["tiny"], rng=np.random.RandomState(4))
    assert np.array_equal(got, _unfused_elastic(img, 2, "tiny", 4))


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
    hsv = _color.rgb2hsv(img / 255.0)  # the per-pixel scikit-image-exact kernels
    if "v_add" in edit:
        hsv[..., 2] = np.clip(hsv[..., 2] + edit["v_add"], 0, 1)
    else:
        hsv[..., 1] = np.clip(hsv[..., 1] * edit["s_mul"] + edit["s_add"], 0, 1)
    want = (np.clip(_color.hsv2rgb(hsv), 0, 1) * 255).astype(np.uint8)
    assert np.array_equal(_color.hsv_adjust_uint8(img, **edit), want)


def test_box_upscale_copies_equal_pillow():
    rs = np.random.RandomState(8)
    cases = [
        (s, max(1, int(s * c))) for s in (32, 64, 224, 299) for c in (0.6, 0.5, 0.4, 0.3, 0.25)
    ]
    cases += [(7, 3), (200, 57), (300, 111), (5, 1)]
    for big, small in cases:
        assert digital._pil_box_single_taps(small, big) is not None  # upscaling: the copy path
        img = rs.randint(0, 256, size=(small, small + 1, 3)).astype(np.uint8)
        for size in ((big, big + 3), (small + 1, big), (big, small)):
            want = np.asarray(Image.fromarray(img).resize(size, Image.BOX))
            assert np.array_equal(digital.pil_box_resize(img, size), want), (img.shape, size)
        gray = img[..., 1].copy()
        want = np.asarray(Image.fromarray(gray).resize((big, big), Image.BOX))
        assert np.array_equal(digital.pil_box_resize(gray, (big, big)), want)
    assert digital._pil_box_single_taps(224, 134) is None  # downscaling: weighted sums


def test_channel_lut_equals_cv2_lut():
    rs = np.random.RandomState(6)
    lut = rs.randint(0, 256, size=(256, 3)).astype(np.uint8)
    for shape in ((1, 1, 3), (31, 17, 3), (224, 224, 3)):
        img = rs.randint(0, 256, size=shape).astype(np.uint8)
        out = np.empty_like(img)
        digital._apply_channel_lut(img, lut, out)
        assert np.array_equal(out, cv2.LUT(img, lut.reshape(256, 1, 3)))

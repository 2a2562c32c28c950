"""Digital corruptions (brightness, contrast, elastic_transform, pixelate, jpeg_compression, saturate):
the reference formulas, hand-computed examples, the fused elastic pipeline and sizes. What every
corruption keeps (layouts, seeds, rng types, input safety, identity with the reference on real
photos) is checked once, in test_contract.py."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
import scipy.ndimage
from PIL import Image

import corruptbench
from corruptbench.corruptions import digital
from corruptbench.ops import opencv_warp, scipy_ndimage
from corruptbench.ops.opencv_warp import warp_affine_cv34
from corruptbench.ops.preprocess import profile_preprocess, resize_exact
from corruptbench.profiles import PROFILES
from corruptbench.registry import corruption_registry
from corruptbench.tables.corruptions import get_params
from support import load_photo, pattern_image, psnr, within1

DIGITAL = (
    "brightness",
    "contrast",
    "elastic_transform",
    "pixelate",
    "jpeg_compression",
    "saturate",
)

NAMES = DIGITAL

NATIVE = {"imagenet": 224, "inception": 299, "tiny": 64, "cifar": 32}


def _call(name: str, image: np.ndarray, severity: int, profile: str, seed) -> np.ndarray:
    """The registered function, bypassing corrupt()'s size checks, with the dispatcher's cast."""
    rng = np.random.RandomState(seed) if isinstance(seed, int) else seed
    ro = image.copy()
    ro.flags.writeable = False
    out = corruption_registry()[name].func(ro, severity, profile=PROFILES[profile], rng=rng)
    return np.asarray(out).astype(np.uint8)


def _sk_rgb2hsv(x: np.ndarray) -> np.ndarray:
    from skimage.color import rgb2hsv

    return rgb2hsv(x)


def _sk_hsv2rgb(x: np.ndarray) -> np.ndarray:
    from skimage.color import hsv2rgb

    return hsv2rgb(x)


def _ref_elastic(img: np.ndarray, c, rs, warp) -> np.ndarray:
    image = np.array(img, dtype=np.float32) / 255.0
    shape = image.shape
    shape_size = shape[:2]
    center_square = np.float32(shape_size) // 2
    square_size = min(shape_size) // 3
    pts1 = np.float32(
        [
            center_square + square_size,
            [center_square[0] + square_size, center_square[1] - square_size],
            center_square - square_size,
        ]
    )
    pts2 = pts1 + rs.uniform(-c[2], c[2], size=pts1.shape).astype(np.float32)
    m = cv2.getAffineTransform(pts1, pts2)
    image = warp(image, m, shape_size[::-1])

    def gaussian(u, sigma):  # skimage.filters.gaussian(u, sigma, mode='reflect', truncate=3)
        return scipy.ndimage.gaussian_filter(u, sigma, mode="reflect", truncate=3)

    dx = (gaussian(rs.uniform(-1, 1, size=shape[:2]), c[1]) * c[0]).astype(np.float32)
    dy = (gaussian(rs.uniform(-1, 1, size=shape[:2]), c[1]) * c[0]).astype(np.float32)
    dx, dy = dx[..., np.newaxis], dy[..., np.newaxis]
    x, y, z = np.meshgrid(np.arange(shape[1]), np.arange(shape[0]), np.arange(shape[2]))
    indices = np.reshape(y + dy, (-1, 1)), np.reshape(x + dx, (-1, 1)), np.reshape(z, (-1, 1))
    out = scipy.ndimage.map_coordinates(image, indices, order=1, mode="reflect").reshape(shape)
    return np.clip(out, 0, 1) * 255


def _cv2_warp(image, m, dsize):
    return cv2.warpAffine(image, m, dsize, borderMode=cv2.BORDER_REFLECT_101)


def _pil_box(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Pillow BOX resize, horizontal pass first as Pillow <= 12 (the reference env's 10.4) does:
    as two single-axis resizes, which every Pillow version computes the same way."""
    h = img.shape[0]
    wide = Image.fromarray(img).resize((size[0], h), Image.BOX)
    return np.asarray(wide.resize(size, Image.BOX))


def reference_formula(
    name: str, img: np.ndarray, severity: int, profile: str, seed: int, warp=None
) -> np.ndarray:
    c = get_params(name, severity, profile)
    rs = seed if isinstance(seed, np.random.RandomState) else np.random.RandomState(seed)
    h, w = img.shape[:2]
    x = np.array(img) / 255.0
    if name == "brightness":
        hsv = _sk_rgb2hsv(x)
        hsv[:, :, 2] = np.clip(hsv[:, :, 2] + c, 0, 1)
        out = np.clip(_sk_hsv2rgb(hsv), 0, 1) * 255
    elif name == "saturate":
        hsv = _sk_rgb2hsv(x)
        hsv[:, :, 1] = np.clip(hsv[:, :, 1] * c[0] + c[1], 0, 1)
        out = np.clip(_sk_hsv2rgb(hsv), 0, 1) * 255
    elif name == "contrast":
        means = np.mean(x, axis=(0, 1), keepdims=True)
        out = np.clip((x - means) * c + means, 0, 1) * 255
    elif name == "pixelate":
        out = _pil_box(_pil_box(img, (int(w * c), int(h * c))), (w, h))
    elif name == "jpeg_compression":
        buf = io.BytesIO()
        Image.fromarray(img).save(buf, "JPEG", quality=c)
        out = np.asarray(Image.open(buf))
    elif name == "elastic_transform":
        out = _ref_elastic(img, c, rs, warp or warp_affine_cv34)
    else:  # pragma: no cover
        raise KeyError(name)
    return np.uint8(out)


@pytest.mark.parametrize("shape", [(224, 224, 3), (37, 91, 3), (1, 4, 3), (600, 400, 3)])
def test_channel_sums_follow_numpy_mean(shape):
    img = np.random.RandomState(sum(shape)).randint(0, 256, size=shape).astype(np.uint8)
    means = digital._channel_sums(img, digital._UNIT) / (shape[0] * shape[1])
    assert np.array_equal(means, np.mean(img / 255.0, axis=(0, 1)))


PIXELS = np.array([[(100, 150, 200), (10, 20, 30), (255, 255, 255), (0, 0, 0)]], np.uint8)

#: the formulas of imagenet_c/corruptions.py:345-372 worked by hand on PIXELS (224 parameters;
#: contrast's mean is over these 4 pixels), after the truncating uint8 cast
EXAMPLES = {
    ("brightness", 1): [(112, 169, 225), (18, 37, 55), (255, 255, 255), (25, 25, 25)],
    ("brightness", 3): [(127, 191, 255), (35, 71, 106), (255, 255, 255), (76, 76, 76)],
    ("brightness", 5): [(127, 191, 255), (52, 105, 157), (255, 255, 255), (127, 127, 127)],
    ("saturate", 1): [(170, 185, 200), (24, 27, 30), (255, 255, 255), (0, 0, 0)],
    ("saturate", 3): [(0, 100, 200), (0, 15, 30), (255, 255, 255), (0, 0, 0)],
    ("saturate", 5): [(0, 100, 200), (0, 15, 30), (255, 204, 204), (0, 0, 0)],
    ("contrast", 1): [(94, 123, 152), (58, 71, 84), (156, 165, 174), (54, 63, 72)],
    ("contrast", 3): [(93, 115, 137), (75, 89, 103), (124, 136, 147), (73, 85, 97)],
    ("contrast", 5): [(91, 108, 125), (87, 101, 116), (99, 113, 127), (86, 100, 115)],
}


@pytest.mark.parametrize("name,severity", sorted(EXAMPLES))
def test_hand_computed_examples(name, severity):
    got = _call(name, PIXELS, severity, "imagenet", 0)
    assert got.tolist() == [[list(p) for p in EXAMPLES[name, severity]]]


def test_saturate_white_sev4_is_reddish():
    white = np.full((1, 1, 3), 255, np.uint8)
    assert _call("saturate", white, 4, "imagenet", 0).ravel().tolist() == [255, 229, 229]


@pytest.mark.parametrize("profile", ["inception", "tiny", "cifar", "imagenet"])
@pytest.mark.parametrize("name", NAMES)
def test_native_size_matches_reference_formula(name, profile):
    size = NATIVE[profile]
    img = pattern_image(size, size, seed=size)
    for severity in range(1, 6):
        for seed in (0, 1):
            got = corruptbench.corrupt(img, name, severity, profile=profile, rng=seed)
            want = reference_formula(name, img, severity, profile, seed)
            assert np.array_equal(got, want), (name, profile, severity, seed)


@pytest.mark.slow
def test_elastic_large_image_fft_path():
    """Beyond 512 px the wide Gaussian runs as an FFT convolution: same result as SciPy's filter
    up to float64 round-off, which the float32 displacement fields absorb."""
    img = pattern_image(520, 300, seed=9)
    for severity in (1, 3):
        got = corruptbench.corrupt(img, "elastic_transform", severity, profile="imagenet", rng=4)
        want = reference_formula("elastic_transform", img, severity, "imagenet", 4)
        assert within1(got, want) >= 0.9999 and psnr(got, want) >= 60


@pytest.mark.parametrize("profile", ["imagenet", "cifar"])
def test_elastic_close_to_current_opencv_warp(profile):
    """Sanity check against today's cv2.warpAffine in place of OpenCV 3.4's (the algorithm the
    reference data were made with). OpenCV >= 4.11 computes warpAffine differently: on this noisy
    image only ~97 % of values stay within +-1, which is why the 3.4 algorithm is re-implemented."""
    size = NATIVE[profile]
    img = pattern_image(size, size, seed=3)
    for severity in range(1, 6):
        got = corruptbench.corrupt(
            img, "elastic_transform", severity, profile=profile, rng=severity
        )
        approx = reference_formula(
            "elastic_transform", img, severity, profile, severity, warp=_cv2_warp
        )
        assert psnr(got, approx) > 40 and within1(got, approx) > 0.9


@pytest.mark.parametrize("profile", ["imagenet", "cifar"])
@pytest.mark.parametrize("name", NAMES)
def test_non_square_images(name, profile):
    img = pattern_image(45, 83, seed=4)
    for severity in range(1, 6):
        out = corruptbench.corrupt(img, name, severity, profile=profile, rng=severity)
        assert out.shape == img.shape and out.dtype == np.uint8
        assert np.array_equal(out, reference_formula(name, img, severity, profile, severity))
    tall = np.ascontiguousarray(img.transpose(1, 0, 2))
    assert corruptbench.corrupt(tall, name, 5, profile=profile, rng=0).shape == tall.shape


def test_jpeg_decode_equals_pillow_round_trip(photos224):
    """jpeg_compression decodes with OpenCV: the pixels must be exactly Pillow's decode."""
    for photo in photos224:
        for h, w, profile in ((224, 224, "imagenet"), (299, 299, "inception"), (37, 61, "tiny")):
            img = np.ascontiguousarray(
                np.asarray(Image.fromarray(photo).resize((w, h), Image.Resampling.BILINEAR))
            )
            for severity in range(1, 6):
                q = get_params("jpeg_compression", severity, profile)
                buf = io.BytesIO()
                Image.fromarray(img).save(buf, "JPEG", quality=q)
                with Image.open(buf) as decoded:
                    want = np.asarray(decoded.convert("RGB"))
                got = corruptbench.corrupt(img, "jpeg_compression", severity, profile=profile)
                assert np.array_equal(got, want), (h, w, profile, severity)


def test_unit_table_and_warped_rows_in_any_grouping():
    img = np.random.RandomState(0).randint(0, 256, size=(37, 29, 3)).astype(np.uint8)
    x = img.astype(np.float32) / 255.0
    assert np.array_equal(digital._UNIT32[img], x)
    m = np.array([[1.05, 0.1, -3.2], [-0.07, 0.93, 4.4]])
    want = opencv_warp.warp_affine_cv34(x, m, (31, 40))
    inverse = opencv_warp.invert_affine_cv(m)
    for groups in ([(0, 40)], [(0, 1), (1, 17), (17, 40)], [(5, 6), (39, 40)]):
        for lo, hi in groups:
            got = np.full((hi - lo, 31, 4), np.nan)
            opencv_warp.warp_affine_u8_rows_into(img, digital._UNIT32, inverse, lo, got)
            assert np.array_equal(got[..., :3], want[lo:hi]) and not got[..., 3].any()


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
    x = opencv_warp.warp_affine_cv34(x, cv2.getAffineTransform(pts1, pts2), (w, h))
    dx = (scipy_ndimage.gaussian_filter_reflect(rng.uniform(-1, 1, (h, w)), sigma) * alpha).astype(
        np.float32
    )
    dy = (scipy_ndimage.gaussian_filter_reflect(rng.uniform(-1, 1, (h, w)), sigma) * alpha).astype(
        np.float32
    )
    sampled = scipy_ndimage.map_coordinates_reflect_bilinear(x, dx, dy)
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


@pytest.mark.parametrize("rows", [1, 7, 64])
def test_elastic_row_groups_give_the_whole_image_result(monkeypatch, rows):
    # groups of output rows, each warping only the rows it samples: the bytes of whole-image
    # passes, at the displacements of every severity (sigma 0.64 .. 170.8 px; a side > 512 px
    # takes the FFT filter, a smaller one the folded operators)
    monkeypatch.setattr(digital, "_ELASTIC_ROWS", rows)
    rs = np.random.RandomState(5)
    images = [rs.randint(0, 256, size=(224, 224, 3)).astype(np.uint8)]
    if rows == 7:
        images.append(rs.randint(0, 256, size=(530, 90, 3)).astype(np.uint8))
    for img in images:
        for severity in range(1, 6):
            got = _elastic(img, severity, "imagenet", severity)
            assert np.array_equal(got, _unfused_elastic(img, severity, "imagenet", severity))


def test_elastic_float_input_takes_the_generic_warp():
    img = np.random.RandomState(2).randint(0, 256, size=(48, 40, 3)).astype(np.uint8)
    as_float = img.astype(np.float64)
    as_float.flags.writeable = False
    func = corruption_registry()["elastic_transform"].func
    got = func(as_float, 2, profile=PROFILES["tiny"], rng=np.random.RandomState(4))
    assert np.array_equal(got, _unfused_elastic(img, 2, "tiny", 4))

"""Blur corruptions (defocus, glass, motion, zoom, gaussian_blur): identity with the reference
implementation on gray and synthetic images, transcriptions, RNG stream, profiles and sizes. What
every corruption keeps (layouts, seeds, input safety, identity with the reference on real photos)
is checked once, in test_contract.py."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from scipy.ndimage import gaussian_filter
from scipy.ndimage import zoom as scizoom

import corruptbench
from corruptbench.corruptions import blur
from corruptbench.corruptions.blur import _is_gray, glass_shuffle
from corruptbench.ops.magick import magick_motion_blur
from corruptbench.profiles import PROFILES
from corruptbench.tables.corruptions import get_params
from support import assert_faithful, ref_disk

BLURS = ("defocus_blur", "glass_blur", "motion_blur", "zoom_blur", "gaussian_blur")

RANDOM_BLURS = ("glass_blur", "motion_blur")

SEVERITIES = (1, 2, 3, 4, 5)

SEEDS = (0, 1, 2)

NATIVE = {"imagenet": 224, "inception": 299, "tiny": 64, "cifar": 32}


def _image(h: int, w: int, seed: int = 0) -> np.ndarray:
    """A colour test image with smooth areas, edges, and saturated patches, any size."""
    rs = np.random.RandomState(seed)
    small = rs.randint(0, 256, (max(2, h // 6), max(2, w // 6), 3)).astype(np.uint8)
    img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    img[: h // 4, : w // 3] = 255
    img[-(h // 5) :, -(w // 4) :] = 0
    img[h // 2, :] = (250, 10, 120)
    return img


def sk_gaussian(x: np.ndarray, sigma: float) -> np.ndarray:
    """skimage.filters.gaussian(x, sigma, channel_axis=-1) on a float64 image."""
    return gaussian_filter(x, (sigma, sigma, 0), mode="nearest", truncate=4.0)


def ref_defocus(x: np.ndarray, c) -> np.ndarray:
    x = np.array(x) / 255.0
    kernel = ref_disk(radius=c[0], alias_blur=c[1])
    channels = [cv2.filter2D(x[:, :, d], -1, kernel) for d in range(3)]
    return np.uint8(np.clip(np.array(channels).transpose((1, 2, 0)), 0, 1) * 255)


def ref_gaussian_blur(x: np.ndarray, sigma) -> np.ndarray:
    return np.uint8(np.clip(sk_gaussian(np.array(x) / 255.0, sigma), 0, 1) * 255)


def ref_glass_loop(x: np.ndarray, d: int, iterations: int, rs: np.random.RandomState) -> np.ndarray:
    """The reference's pixel loop, statement for statement (with the actual H, W)."""
    height, width = x.shape[:2]
    for _ in range(iterations):
        for h in range(height - d, d, -1):
            for w in range(width - d, d, -1):
                dx, dy = rs.randint(-d, d, size=(2,))
                h_prime, w_prime = h + dy, w + dx
                # swap
                x[h, w], x[h_prime, w_prime] = x[h_prime, w_prime], x[h, w]
    return x


def ref_glass(x: np.ndarray, c, rs: np.random.RandomState) -> np.ndarray:
    x = np.uint8(sk_gaussian(np.array(x) / 255.0, c[0]) * 255)
    x = ref_glass_loop(x, c[1], c[2], rs)
    return np.uint8(np.clip(sk_gaussian(x / 255.0, c[0]), 0, 1) * 255)


def ref_clipped_zoom(img: np.ndarray, zoom_factor: float) -> np.ndarray:
    h, w = img.shape[:2]
    ch = int(np.ceil(h / float(zoom_factor)))
    cw = int(np.ceil(w / float(zoom_factor)))
    top, left = (h - ch) // 2, (w - cw) // 2
    img = scizoom(img[top : top + ch, left : left + cw], (zoom_factor, zoom_factor, 1), order=1)
    tt, tl = (img.shape[0] - h) // 2, (img.shape[1] - w) // 2
    return img[tt : tt + h, tl : tl + w]


def ref_zoom_blur(x: np.ndarray, c) -> np.ndarray:
    x = (np.array(x) / 255.0).astype(np.float32)
    out = np.zeros_like(x)
    for zoom_factor in c:
        out += ref_clipped_zoom(x, zoom_factor)
    x = (x + out) / (len(c) + 1)
    return np.uint8(np.clip(x, 0, 1) * 255)


@pytest.mark.reference
def test_matches_reference_gray_and_synthetic(reference, synthetic_image):
    """A gray-looking image (the reference's grayscale-PNG motion-blur branch) and a synthetic one.

    Identical, except for a documented platform difference in the two corruptions built on the
    Gaussian filter: the filter weights come from ``np.exp``, and NumPy 1.26 (the reference
    environment's) on AVX-512 CPUs computes ``exp`` in the last bit differently from the NumPy of
    the package's environment. On the synthetic images' flat areas the sums then land on either
    side of an integer after ``* 255``, so a few values differ by one level (not on the photos).
    """
    gray = np.repeat(synthetic_image[:, :, :1], 3, axis=2)
    cases = [(img, n, s, 5) for img in (gray, synthetic_image) for n in BLURS for s in (1, 5)]
    refs = reference.reference_corrupt(cases)
    for (img, name, sev, seed), ref in zip(cases, refs):
        ours = corruptbench.corrupt(img, name, sev, profile="imagenet", rng=seed)
        label = f"{name} sev {sev} ({'gray' if img is gray else 'colour'})"
        if name in ("gaussian_blur", "glass_blur"):  # np.exp of another NumPy build (above)
            assert_faithful(ours, ref, label=label)
            assert np.abs(ours.astype(int) - ref).max() <= 1, label
        else:
            np.testing.assert_array_equal(ours, ref, err_msg=label)


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
def test_one_big_randint_equals_many_pair_draws(d):
    """glass_shuffle draws all pairs at once; legacy RandomState gives the same stream."""
    n = 3000
    a = np.random.RandomState(123 + d)
    b = np.random.RandomState(123 + d)
    big = a.randint(-d, d, size=(n, 2))
    pairs = np.array([b.randint(-d, d, size=(2,)) for _ in range(n)])
    np.testing.assert_array_equal(big, pairs)
    assert big.min() == -d and big.max() == d - 1  # asymmetric range, as randint(-d, d)
    assert a.random_sample() == b.random_sample()  # both streams at the same place


@pytest.mark.parametrize("shape", [(32, 32, 3), (20, 29, 3), (64, 64, 3)])
@pytest.mark.parametrize("d,iterations", [(1, 1), (1, 2), (2, 3), (4, 2), (5, 1)])
def test_glass_shuffle_equals_python_loop(shape, d, iterations):
    img = _image(shape[0], shape[1], seed=d)
    ours = glass_shuffle(img.copy(), d, iterations, np.random.RandomState(7))
    rs = np.random.RandomState(7)
    ref = ref_glass_loop(img.copy(), d, iterations, rs)
    np.testing.assert_array_equal(ours, ref)
    rs2 = np.random.RandomState(7)
    glass_shuffle(img.copy(), d, iterations, rs2)
    assert rs2.random_sample() == rs.random_sample()  # exactly as many draws


class _RandintOnly:
    """A random source with only ``randint`` (glass_shuffle then draws all pairs in one call)."""

    def __init__(self, rs: np.random.RandomState) -> None:
        self.rs = rs

    def randint(self, low, high, size):
        return self.rs.randint(low, high, size=size)


@pytest.mark.parametrize("d,iterations", [(1, 2), (3, 2), (4, 1), (6, 1)])
def test_glass_shuffle_inline_mt19937_equals_randint_path(d, iterations):
    img = _image(60, 70, seed=d)
    inline = np.random.RandomState(99)
    inline.standard_normal()  # leaves a cached Gaussian in the legacy state: must survive
    a = glass_shuffle(img.copy(), d, iterations, inline)
    batch = np.random.RandomState(99)
    batch.standard_normal()
    b = glass_shuffle(img.copy(), d, iterations, _RandintOnly(batch))
    np.testing.assert_array_equal(a, b)
    assert inline.standard_normal() == batch.standard_normal()  # cached value kept
    assert inline.random_sample() == batch.random_sample()  # same position in the stream


def test_glass_shuffle_non_mt19937_randomstate():
    img = _image(40, 40)
    pcg = np.random.RandomState(np.random.PCG64(3))
    out = glass_shuffle(img.copy(), 2, 1, pcg)
    ref = glass_shuffle(img.copy(), 2, 1, _RandintOnly(np.random.RandomState(np.random.PCG64(3))))
    np.testing.assert_array_equal(out, ref)


def test_glass_shuffle_copies_rather_than_swaps():
    # the reference's tuple "swap" (imagenet_c/corruptions.py:182) assigns through views: both
    # pixels end up equal to the source pixel
    x = np.zeros((2, 2, 3), np.uint8)
    x[1, 1] = 9
    x[0, 0], x[1, 1] = x[1, 1], x[0, 0]
    assert x[0, 0].tolist() == x[1, 1].tolist() == [9, 9, 9]
    img = np.arange(8 * 8 * 3, dtype=np.uint8).reshape(8, 8, 3)
    out = glass_shuffle(img.copy(), 1, 1, np.random.RandomState(0))
    # every pixel value still comes from the original image, but some are duplicated
    orig = {tuple(p) for p in img.reshape(-1, 3)}
    assert {tuple(p) for p in out.reshape(-1, 3)} <= orig
    assert len({tuple(p) for p in out.reshape(-1, 3)}) < 64


def test_glass_shuffle_too_small_draws_nothing():
    rs = np.random.RandomState(0)
    img = _image(8, 8)
    np.testing.assert_array_equal(glass_shuffle(img.copy(), 4, 2, rs), img)
    assert rs.random_sample() == np.random.RandomState(0).random_sample()


@pytest.mark.parametrize("profile", ["imagenet", "inception", "tiny", "cifar"])
@pytest.mark.parametrize("severity", SEVERITIES)
def test_defocus_and_gaussian_blur_vs_transcription(profile, severity):
    size = NATIVE[profile]
    img = _image(size, size, seed=severity)
    c = get_params("defocus_blur", severity, profile)
    ours = corruptbench.corrupt(img, "defocus_blur", severity, profile=profile, rng=0)
    np.testing.assert_array_equal(ours, ref_defocus(img, c))
    sigma = get_params("gaussian_blur", severity, profile)
    ours = corruptbench.corrupt(img, "gaussian_blur", severity, profile=profile, rng=0)
    np.testing.assert_array_equal(ours, ref_gaussian_blur(img, sigma))


@pytest.mark.parametrize("severity", SEVERITIES)
def test_defocus_one_channel_at_a_time_is_the_transcription(monkeypatch, severity):
    # the path of images over a megapixel, taken here at small sizes: the reference's own
    # per-channel loop, byte for byte
    monkeypatch.setattr(blur, "_PLANE_PIXELS", 0)
    for h, w in ((224, 224), (150, 311)):
        img = _image(h, w, seed=severity)
        c = get_params("defocus_blur", severity, "imagenet")
        ours = corruptbench.corrupt(img, "defocus_blur", severity, profile="imagenet", rng=0)
        np.testing.assert_array_equal(ours, ref_defocus(img, c))


@pytest.mark.parametrize("plane_pixels", [blur._PLANE_PIXELS, 0])
def test_defocus_whose_trimmed_disk_is_1x1_is_the_transcription(monkeypatch, plane_pixels):
    # radius 0.75, alias blur 0.025 (CCC's severity 0.25): the trimmed kernel is 1 x 1, where
    # OpenCV's filter2D scales and rounds otherwise than the reference's 17 x 17 filter
    monkeypatch.setattr(blur, "_PLANE_PIXELS", plane_pixels)
    from corruptbench.ops.kernels import trimmed_disk

    assert trimmed_disk(0.75, 0.025).shape == (1, 1)
    for h, w in ((224, 224), (97, 131)):
        img = _image(h, w, seed=7)
        ours = blur.defocus_blur_p(img, radius=0.75, alias_blur=0.025)
        np.testing.assert_array_equal(ours, ref_defocus(img, (0.75, 0.025)))


@pytest.mark.parametrize("profile", ["tiny", "cifar"])
@pytest.mark.parametrize("severity", SEVERITIES)
def test_glass_blur_vs_transcription(profile, severity):
    size = NATIVE[profile]
    img = _image(size, size, seed=severity)
    c = get_params("glass_blur", severity, profile)
    for seed in (0, 1):
        ours = corruptbench.corrupt(img, "glass_blur", severity, profile=profile, rng=seed)
        ref = ref_glass(img, c, np.random.RandomState(seed))
        np.testing.assert_array_equal(ours, ref)


@pytest.mark.slow
@pytest.mark.parametrize("severity", [2, 5])
def test_glass_blur_vs_transcription_299(severity):
    img = _image(299, 299, seed=severity)
    c = get_params("glass_blur", severity, "inception")
    ours = corruptbench.corrupt(img, "glass_blur", severity, profile="inception", rng=3)
    np.testing.assert_array_equal(ours, ref_glass(img, c, np.random.RandomState(3)))


@pytest.mark.parametrize("profile", ["imagenet", "inception", "tiny", "cifar"])
def test_zoom_blur_vs_transcription(profile):
    size = NATIVE[profile]
    img = _image(size, size, seed=4)
    for severity in SEVERITIES:
        stop, step = get_params("zoom_blur", severity, profile)
        ours = corruptbench.corrupt(img, "zoom_blur", severity, profile=profile, rng=0)
        ref = ref_zoom_blur(img, np.arange(1, stop, step))
        assert np.abs(ours.astype(int) - ref).max() <= 1
        assert np.mean(ours == ref) > 0.999


def test_zoom_blur_factor_list_lengths():
    # np.arange end points (some lists include the stop value by round-off)
    lengths = {
        p: [len(np.arange(1, *get_params("zoom_blur", s, p))) for s in SEVERITIES] for p in PROFILES
    }
    assert lengths["imagenet"] == lengths["inception"] == [12, 16, 11, 13, 11]
    assert lengths["tiny"] == lengths["cifar"] == [7, 12, 16, 21, 26]


@pytest.mark.parametrize("profile", ["imagenet", "inception", "tiny", "cifar"])
@pytest.mark.parametrize("severity", [1, 3, 5])
def test_motion_blur_draw_and_kernel(profile, severity):
    size = NATIVE[profile]
    img = _image(size, size, seed=severity)
    radius, sigma = get_params("motion_blur", severity, profile)
    angle = np.random.RandomState(11).uniform(-45, 45)
    rs = np.random.RandomState(11)
    ours = corruptbench.corrupt(img, "motion_blur", severity, profile=profile, rng=rs)
    np.testing.assert_array_equal(ours, magick_motion_blur(img, radius, sigma, angle))
    probe = np.random.RandomState(11)
    probe.uniform(-45, 45)
    assert rs.random_sample() == probe.random_sample()  # exactly one draw


def test_motion_blur_gray_branch_replicates():
    gray = np.repeat(_image(48, 40)[:, :, 1:2], 3, axis=2)
    out = corruptbench.corrupt(gray, "motion_blur", 4, profile="imagenet", rng=2)
    assert out.shape == gray.shape
    assert np.array_equal(out[..., 0], out[..., 1]) and np.array_equal(out[..., 0], out[..., 2])
    radius, sigma = get_params("motion_blur", 4, "imagenet")
    angle = np.random.RandomState(2).uniform(-45, 45)
    np.testing.assert_array_equal(out, magick_motion_blur(gray, radius, sigma, angle))


def test_is_gray_checks_every_pixel():
    gray = np.repeat(_image(30, 20)[:, :, 1:2], 3, axis=2)
    assert _is_gray(gray) and _is_gray(gray[:, ::-1])  # also a non-contiguous view
    for y, x, c in ((0, 0, 1), (29, 19, 2), (15, 7, 0)):
        img = gray.copy()
        img[y, x, c] ^= 1
        assert not _is_gray(img)
    assert not _is_gray(_image(30, 20))


@pytest.mark.parametrize("shape", [(40, 64, 3), (64, 40, 3), (33, 47, 3)])
def test_non_square_vs_transcriptions(shape):
    img = _image(*shape[:2], seed=2)
    for sev in SEVERITIES:
        stop, step = get_params("zoom_blur", sev, "tiny")
        ours = corruptbench.corrupt(img, "zoom_blur", sev, profile="tiny", rng=0)
        ref = ref_zoom_blur(img, np.arange(1, stop, step))
        assert np.abs(ours.astype(int) - ref).max() <= 1
        c = get_params("glass_blur", sev, "tiny")
        ours = corruptbench.corrupt(img, "glass_blur", sev, profile="tiny", rng=9)
        np.testing.assert_array_equal(ours, ref_glass(img, c, np.random.RandomState(9)))
        c = get_params("defocus_blur", sev, "tiny")
        ours = corruptbench.corrupt(img, "defocus_blur", sev, profile="tiny", rng=0)
        np.testing.assert_array_equal(ours, ref_defocus(img, c))

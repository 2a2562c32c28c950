"""ImageMagick 6 motion-blur emulation (corruptbench.ops.magick).

Unit tests of the kernel construction (widths, normalisation, offsets), of the application
against a plain NumPy transcription of effect.c's loop, and fidelity against the reference
(Wand + system ImageMagick) on real photos and snow-like sparse layers.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from corruptbench.ops.magick import kernel_width, magick_motion_blur, motion_kernel
from corruptbench.ops.zoom import clipped_zoom
from corruptbench.tables.corruptions import get_params

# ------------------------------------------------------------------------------------------------
# Kernel construction
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("radius", "width"),
    [
        (10, 21),
        (15, 31),
        (20, 41),
        (6, 13),
        (8, 17),
        (9, 19),
        (12, 25),
        (14, 29),
        (17, 35),
        (22, 45),
    ],
)
def test_kernel_width_from_radius(radius: float, width: int) -> None:
    assert kernel_width(radius, 3.0) == width
    weights, ox, oy = motion_kernel(radius, 3.0, 10.0)
    assert weights.shape == ox.shape == oy.shape == (width,)


def test_kernel_width_fractional_and_automatic_radius() -> None:
    assert kernel_width(10.2, 3) == 23  # 2 * ceil(r) + 1
    assert kernel_width(0.5, 3) == 3
    # radius 0: smallest width whose outer tap drops below one quantum step (sigma 1 -> 9).
    assert kernel_width(0, 1.0) == 9
    assert kernel_width(0, 0.0) == 3
    assert kernel_width(0, 3.0) > kernel_width(0, 1.0)


@pytest.mark.parametrize(
    ("radius", "sigma"), [(10, 3), (15, 5), (15, 12), (20, 15), (12, 8), (6, 1)]
)
def test_kernel_weights_one_sided_gaussian_summing_to_one(radius: float, sigma: float) -> None:
    weights, _, _ = motion_kernel(radius, sigma, 0.0)
    assert weights.dtype == np.float64
    assert abs(weights.sum() - 1.0) < 1e-12
    assert np.all(np.diff(weights) < 0)  # peak at tap 0, monotone tail
    i = np.arange(weights.size)
    g = np.exp(-(i**2) / (2 * sigma**2))
    np.testing.assert_allclose(weights, g / g.sum(), rtol=1e-12)


def test_offsets_axis_angles() -> None:
    i = np.arange(21)
    _, ox, oy = motion_kernel(10, 3, 0.0)
    assert ox.tolist() == i.tolist() and not oy.any()  # towards +x
    _, ox, oy = motion_kernel(10, 3, 90.0)
    assert not ox.any() and oy.tolist() == i.tolist()  # towards +y (down)
    _, ox, oy = motion_kernel(10, 3, 180.0)
    assert ox.tolist() == (-i).tolist() and not oy.any()
    _, ox, oy = motion_kernel(10, 3, -90.0)
    assert not ox.any() and oy.tolist() == (-i).tolist()


def test_offsets_oblique_angles() -> None:
    # ceil(i cos(a) - 0.5), ceil(i sin(a) - 0.5)
    _, ox, oy = motion_kernel(2, 1, 30.0)
    assert ox.tolist() == [0, 1, 2, 3, 3]
    assert oy.tolist() == [0, 0, 1, 1, 2]
    _, ox, oy = motion_kernel(10, 3, 45.0)
    expected = [math.ceil(k * math.sqrt(0.5) - 0.5) for k in range(21)]
    assert ox.tolist() == oy.tolist() == expected
    _, ox, oy = motion_kernel(10, 3, -135.0)
    assert ox.tolist() == oy.tolist() == [math.ceil(-k * math.sqrt(0.5) - 0.5) for k in range(21)]
    # consecutive taps move by at most one pixel per axis (a connected line)
    for angle in np.linspace(-180, 180, 37):
        _, ox, oy = motion_kernel(20, 15, float(angle))
        assert ox[0] == oy[0] == 0
        assert np.abs(np.diff(ox)).max() <= 1 and np.abs(np.diff(oy)).max() <= 1


# ------------------------------------------------------------------------------------------------
# Application
# ------------------------------------------------------------------------------------------------


def _transcription(image: np.ndarray, radius: float, sigma: float, angle: float) -> np.ndarray:
    """effect.c's loop written out plainly: per tap, gather the edge-clamped shifted Q16 image,
    accumulate in float64 in tap order; ClampToQuantum; truncating 16 -> 8 bit."""
    x3 = image[:, :, None] if image.ndim == 2 else image
    h, w = x3.shape[:2]
    weights, ox, oy = motion_kernel(radius, sigma, angle)
    quanta = x3.astype(np.float64) * 257.0
    acc = np.zeros(x3.shape, dtype=np.float64)
    yy = np.arange(h)[:, None]
    xx = np.arange(w)[None, :]
    for k, dx, dy in zip(weights, ox, oy):
        acc = acc + k * quanta[np.clip(yy + dy, 0, h - 1), np.clip(xx + dx, 0, w - 1)]
    q = np.where(acc <= 0, 0, np.where(acc >= 65535, 65535, np.floor(acc + 0.5))).astype(np.int64)
    return (q // 257).astype(np.uint8).reshape(image.shape)


@pytest.mark.parametrize(
    ("shape", "radius", "sigma", "angle"),
    [
        ((224, 224, 3), 15, 5, 23.7),
        ((224, 224, 3), 20, 15, -44.2),
        ((64, 80, 3), 10, 3, 135.0),
        ((37, 100, 3), 12, 8, -97.3),
        ((5, 7, 3), 22, 16, 60.0),  # image smaller than the kernel: edge clamping everywhere
        ((50, 40), 12, 4, -100.5),
        ((224, 224), 12, 12, -62.0),
    ],
)
def test_matches_plain_transcription(shape, radius, sigma, angle) -> None:
    img = np.random.RandomState(sum(shape)).randint(0, 256, shape).astype(np.uint8)
    out = magick_motion_blur(img, radius, sigma, angle)
    assert out.shape == img.shape and out.dtype == np.uint8
    np.testing.assert_array_equal(out, _transcription(img, radius, sigma, angle))


@pytest.mark.parametrize("angle", [0.0, 31.0, -77.5])
def test_saturated_and_black_areas_match_transcription(angle: float) -> None:
    # flat 255 / 0 areas put the accumulator on (or a rounding step around) 65535 and 0: the
    # clamp of ClampToQuantum and the // 257 of the PNG write at their edges
    img = np.zeros((40, 52, 3), dtype=np.uint8)
    img[:, 20:] = 255
    img[10:30, 30:40] = (0, 128, 255)
    img[5:8] = 1
    for radius, sigma in ((10, 3), (20, 15), (6, 1)):
        np.testing.assert_array_equal(
            magick_motion_blur(img, radius, sigma, angle),
            _transcription(img, radius, sigma, angle),
        )


def test_invariants(synthetic_image: np.ndarray) -> None:
    before = synthetic_image.copy()
    a = magick_motion_blur(synthetic_image, 15, 5, 12.0)
    b = magick_motion_blur(synthetic_image, 15, 5, 12.0)
    np.testing.assert_array_equal(a, b)  # deterministic
    np.testing.assert_array_equal(synthetic_image, before)  # input untouched
    assert not np.array_equal(a, synthetic_image)
    # constant images stay constant (weights sum to 1); sigma -> 0 is the identity
    for v in (0, 1, 128, 254, 255):
        flat = np.full((20, 30, 3), v, np.uint8)
        np.testing.assert_array_equal(magick_motion_blur(flat, 20, 15, 33.0), flat)
    np.testing.assert_array_equal(
        magick_motion_blur(synthetic_image, 10, 1e-3, 30.0), synthetic_image
    )
    # a gray RGB image gives the gray result replicated (ImageMagick's grayscale PNG branch)
    gray = synthetic_image[:, :, 1]
    rgb = np.repeat(gray[:, :, None], 3, axis=2)
    out_gray = magick_motion_blur(gray, 12, 8, -80.0)
    out_rgb = magick_motion_blur(rgb, 12, 8, -80.0)
    assert out_gray.shape == gray.shape
    np.testing.assert_array_equal(out_rgb, np.repeat(out_gray[:, :, None], 3, axis=2))


def test_rejects_bad_input() -> None:
    with pytest.raises(TypeError):
        magick_motion_blur(np.zeros((8, 8, 3), np.float32), 10, 3, 0)
    with pytest.raises(ValueError):
        magick_motion_blur(np.zeros((2, 8, 8, 3), np.uint8), 10, 3, 0)


def test_non_contiguous_input(synthetic_image: np.ndarray) -> None:
    view = synthetic_image[::2, ::-1]
    np.testing.assert_array_equal(
        magick_motion_blur(view, 15, 8, 5.0), magick_motion_blur(view.copy(), 15, 8, 5.0)
    )


# ------------------------------------------------------------------------------------------------
# Fidelity against the reference (Wand + the system ImageMagick)
# ------------------------------------------------------------------------------------------------


def _snow_layer(rng: np.random.RandomState, severity: int, size: int = 224) -> np.ndarray:
    """The 8-bit snow layer the reference feeds to ImageMagick
    (imagenet_c/corruptions.py:273-278)."""
    loc, scale, zoom, threshold = get_params("snow", severity, "imagenet")[:4]
    layer = rng.normal(size=(size, size), loc=loc, scale=scale)
    layer = clipped_zoom(layer[..., None], zoom)
    layer[layer < threshold] = 0
    return (np.clip(layer.squeeze(), 0, 1) * 255).astype(np.uint8)


@pytest.mark.reference
def test_matches_reference(reference, photos224: list[np.ndarray]) -> None:
    rng = np.random.RandomState(2024)
    photo_cases = []
    for severity in range(1, 6):
        radius, sigma = get_params("motion_blur", severity, "imagenet")
        for photo in photos224:
            for _ in range(2):
                photo_cases.append((photo, radius, sigma, float(rng.uniform(-45, 45))))
    snow_cases = []
    for severity in range(1, 6):
        radius, sigma = get_params("snow", severity, "imagenet")[4:6]
        for _ in range(3):
            snow_cases.append(
                (_snow_layer(rng, severity), radius, sigma, float(rng.uniform(-135, -45)))
            )
    extra_cases = [  # non-square, gray RGB, other angles and the automatic radius
        (photos224[0][:100, :150], 15, 5, 120.0),
        (np.repeat(photos224[1][:, :, :1], 3, axis=2), 12, 4, -30.0),
        (photos224[1], 0, 3, 90.0),
        (photos224[0], 10.5, 2, 180.0),
    ]
    cases = photo_cases + snow_cases + extra_cases
    raw = reference.reference_motion_blur_cases(cases, raw=True)

    # the native emulation is byte-identical to ImageMagick's MotionBlurImage (README, Fidelity)
    for k, ((image, radius, sigma, angle), ref_raw) in enumerate(zip(cases, raw)):
        ours = magick_motion_blur(image, radius, sigma, angle)
        if ref_raw.ndim == 2:  # ImageMagick wrote a grayscale PNG; the reference replicates it
            ref_out = ref_raw if image.ndim == 2 else np.repeat(ref_raw[:, :, None], 3, axis=2)
        else:
            ref_out = ref_raw[:, :, ::-1]
        assert ours.shape == ref_out.shape, (image.shape, ref_raw.shape)
        np.testing.assert_array_equal(ours, ref_out, err_msg=f"r={radius} s={sigma} a={angle:.3f}")
        if len(photo_cases) <= k < len(photo_cases) + len(snow_cases):
            assert ours.ndim == 2  # snow layers: sparse, 8-bit gray

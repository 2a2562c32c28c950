"""The 14 ImageNet-P sequence generators against transcriptions of the reference scripts (schedules,
warps, noise streams, weather layers)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image

from corruptbench.ops.geometry import affine, tilt_homography
from corruptbench.ops.preprocess import center_crop, resize_short
from corruptbench.perturbations import (
    FRAME_COUNTS,
    perturb,
)

SIZES = {"imagenet": 224, "tiny": 64, "cifar": 32, "inception": 299}


def _source(profile: str, synth: np.ndarray) -> np.ndarray:
    if profile == "cifar":
        return np.ascontiguousarray(synth[50:82, 80:112])
    return synth


def _clean(img: np.ndarray, profile: str) -> np.ndarray:
    """The reference's clean frame: CenterCrop(S) of Resize(short) (cifar: the image)."""
    if profile == "cifar":
        return img
    short = {"imagenet": 256, "tiny": 64}[profile]
    return np.asarray(center_crop(resize_short(Image.fromarray(img), short), SIZES[profile]))


def _canvas(img: np.ndarray, profile: str) -> Image.Image:
    if profile == "cifar":
        return Image.fromarray(img)
    return resize_short(Image.fromarray(img), {"imagenet": 256, "tiny": 64}[profile])


def _maxdiff(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.abs(a.astype(np.int16) - b.astype(np.int16)).max())


@pytest.mark.parametrize("profile", ["imagenet", "tiny", "cifar"])
def test_middle_frames_are_clean(profile: str, photo: np.ndarray, synth: np.ndarray) -> None:
    img = _source(profile, synth) if profile == "cifar" else photo
    clean = _clean(img, profile)
    middle = {
        "brightness": 15,
        "rotate": 15,
        "shear": 15,
        "translate": FRAME_COUNTS["translate"][profile] // 2,  # 20 / 15 / 8 -> shift 0... see below
        "scale": 24
        if profile != "cifar"
        else 15,  # (24 * 2.5 + 40) / 100 = 1; (15 * 2 + 70) / 100 = 1
    }
    middle["translate"] = {"imagenet": 20, "tiny": 15, "cifar": 7}[profile]
    for name, i in middle.items():
        frame = perturb(img, name, profile=profile)[i]
        tol = 1 if name == "brightness" else 0  # HSV round trip; the warps are exact at identity
        assert _maxdiff(frame, clean) <= tol, (name, profile)


@pytest.mark.parametrize("profile", ["imagenet", "tiny", "cifar"])
def test_translate_frames_are_exact_shifts(
    profile: str, photo: np.ndarray, synth: np.ndarray
) -> None:
    img = _source(profile, synth) if profile == "cifar" else photo
    canvas = np.asarray(_canvas(img, profile))
    h, w = canvas.shape[:2]
    s = SIZES[profile]
    i0, j0 = int(round((h - s) / 2)), int(round((w - s) / 2))
    offset = {"imagenet": 20, "tiny": 15, "cifar": 7}[profile]
    frames = perturb(img, "translate", profile=profile)
    for i, frame in enumerate(frames):
        shift = i - offset
        shifted = np.zeros_like(canvas)
        if shift >= 0:
            shifted[:, shift:] = canvas[:, : w - shift]
        else:
            shifted[:, :shift] = canvas[:, -shift:]
        np.testing.assert_array_equal(
            frame, shifted[i0 : i0 + s, j0 : j0 + s], err_msg=f"frame {i}"
        )


@pytest.mark.parametrize("profile,step", [("imagenet", 2), ("tiny", 2), ("cifar", 1.5)])
def test_brightness_offsets(profile: str, step: float) -> None:
    gray = (
        np.full((32, 32, 3), 128, np.uint8)
        if profile == "cifar"
        else np.full((300, 400, 3), 128, np.uint8)
    )
    frames = perturb(gray, "brightness", profile=profile)
    for i, frame in enumerate(frames):
        c = (i - 15) * step / 100.0
        expected = np.uint8(np.clip(128 / 255.0 + c, 0, 1) * 255)
        assert (frame == expected).all(), (i, frame[0, 0], expected)
    # the extremes: V + 0.30 / V - 0.30 (CIFAR 0.225)
    assert frames[0, 0, 0, 0] < 128 < frames[30, 0, 0, 0]


def test_brightness_matches_skimage(photo: np.ndarray) -> None:
    from skimage.color import hsv2rgb, rgb2hsv

    crop = _clean(photo, "imagenet")
    frames = perturb(photo, "brightness")
    for i in (0, 7, 22, 30):
        hsv = rgb2hsv(crop / 255.0)
        hsv[:, :, 2] = np.clip(hsv[:, :, 2] + (i - 15) * 2 / 100.0, 0, 1)
        np.testing.assert_array_equal(frames[i], np.uint8(hsv2rgb(hsv) * 255))


def _bar_orientation(frame: np.ndarray) -> float:
    """Orientation (degrees, image y axis down) of the bright pixels by second moments."""
    g = frame[..., 0].astype(np.float64)
    ys, xs = np.nonzero(g > 127)
    wts = g[ys, xs]
    mx, my = np.average(xs, weights=wts), np.average(ys, weights=wts)
    mu20 = np.average((xs - mx) ** 2, weights=wts)
    mu02 = np.average((ys - my) ** 2, weights=wts)
    mu11 = np.average((xs - mx) * (ys - my), weights=wts)
    return math.degrees(0.5 * math.atan2(2 * mu11, mu20 - mu02))


def test_rotation_and_shear_angles() -> None:
    img = np.zeros((256, 256, 3), np.uint8)
    img[126:131, 28:228] = 255  # horizontal bar through the centre
    rot = perturb(img, "rotate")
    for i in (0, 5, 15, 25, 30):
        # torchvision 0.2.1: positive angle = clockwise on screen = positive in y-down coordinates
        assert abs(_bar_orientation(rot[i]) - (i - 15)) < 0.5, i
    vimg = np.ascontiguousarray(img.transpose(1, 0, 2))  # vertical bar
    sh = perturb(vimg, "shear")
    for i in (0, 10, 15, 20, 30):
        # x_out = x - sin(shear) y / cos(shear) ... the vertical line tilts by the shear angle
        assert (
            abs(_bar_orientation(sh[i]) - (90 + (i - 15))) < 0.5
            or abs(_bar_orientation(sh[i]) - (-90 + (i - 15))) < 0.5
        ), (i, _bar_orientation(sh[i]))


def test_scale_schedule() -> None:
    img = np.zeros((256, 256, 3), np.uint8)
    img[28:228, 28:228] = 255  # a 200 px square centred on the canvas
    frames = perturb(img, "scale")
    for i in (0, 8, 16, 24, 30):
        s = (i * 2.5 + 40) / 100.0
        width = (frames[i][112, :, 0] > 127).sum()
        assert abs(width - min(200 * s, 224)) <= 2, (i, width, 200 * s)


def test_tilt_matches_transcription(photo: np.ndarray) -> None:
    """Tilt = warp of the whole Resize(256) canvas, then CenterCrop; close to today's OpenCV."""
    import cv2

    from corruptbench.ops.opencv_warp import warp_perspective_cv34

    canvas = np.asarray(_canvas(photo, "imagenet"))
    h, w = canvas.shape[:2]
    frames = perturb(photo, "tilt")
    for i in (0, 15, 30):
        mat = tilt_homography(w, h, np.deg2rad(i - 15), np.deg2rad(i - 15))
        warped = warp_perspective_cv34(canvas, mat, (w, h))
        np.testing.assert_array_equal(
            frames[i], np.asarray(center_crop(Image.fromarray(warped), 224))
        )
        modern = np.asarray(
            center_crop(Image.fromarray(cv2.warpPerspective(canvas, mat, (w, h))), 224)
        )
        assert _maxdiff(frames[i], modern) <= 6  # OpenCV >= 4.11 float32 warp kernels
        assert np.mean(frames[i] == modern) > 0.7


@pytest.mark.parametrize("profile", ["imagenet", "tiny"])
def test_motion_blur_tiny_source_and_angles(profile: str, synth: np.ndarray) -> None:
    from corruptbench.ops.magick import magick_motion_blur

    frames = perturb(synth, "motion_blur", profile=profile)
    if profile == "imagenet":
        crop = _clean(synth, "imagenet")
        for i in (0, 30):
            np.testing.assert_array_equal(frames[i], magick_motion_blur(crop, 10, 3, (i - 30) * 4))
    else:  # blur the full-resolution input, Resize(64), then CenterCrop(64)
        for i in (0, 30):
            blurred = magick_motion_blur(synth, 14, 3, (i - 30) * 5)
            expected = center_crop(resize_short(Image.fromarray(blurred), 64), 64)
            np.testing.assert_array_equal(frames[i], np.asarray(expected))


def test_gaussian_blur_matches_skimage(photo: np.ndarray) -> None:
    from skimage.filters import gaussian

    crop = _clean(photo, "imagenet")
    frames = perturb(photo, "gaussian_blur")
    for i in (0, 15, 30):
        ref = gaussian(crop / 255.0, sigma=0.25 + 0.035 * i, channel_axis=-1, truncate=6.0)
        np.testing.assert_array_equal(frames[i], np.uint8(255 * ref))
    tiny = perturb(photo, "gaussian_blur", profile="tiny")
    crop64 = _clean(photo, "tiny")
    ref = gaussian(crop64 / 255.0, sigma=0.35 + 0.014 * 30, channel_axis=-1, truncate=7.0)
    np.testing.assert_array_equal(tiny[30], np.uint8(255 * ref))


@pytest.mark.slow  # imports torch (seconds)
def test_zoom_blur_matches_torch_running_average(photo: np.ndarray) -> None:
    torch = pytest.importorskip("torch")
    canvas = _canvas(photo, "imagenet")
    frames = perturb(photo, "zoom_blur")

    def to_tensor(a: np.ndarray):  # torchvision ToTensor on uint8
        return torch.from_numpy(np.ascontiguousarray(a.transpose(2, 0, 1))).float().div(255)

    avg = to_tensor(_clean(photo, "imagenet"))
    for i in range(1, 11):  # the running average up to frame 10 (enough to test the float32 order)
        z = center_crop(
            affine(canvas, scale=1 + 0.004 * i, resample=Image.Resampling.BILINEAR), 224
        )
        avg += to_tensor(np.asarray(z))
        expected = (avg / (i + 1)).mul(255).byte().numpy().transpose(1, 2, 0)  # ToPILImage
        np.testing.assert_array_equal(frames[i], expected, err_msg=f"frame {i}")


@pytest.mark.parametrize("difficulty", [1, 2, 3])
@pytest.mark.parametrize("name", ["gaussian_noise", "shot_noise", "speckle_noise"])
def test_noise_std_per_difficulty(name: str, difficulty: int) -> None:
    x = 128 / 255.0
    level = {
        "gaussian_noise": (0.03, 0.05, 0.08),
        "shot_noise": (300, 120, 60),
        "speckle_noise": (0.05, 0.10, 0.15),
    }[name][difficulty - 1]
    expected = {
        "gaussian_noise": level,
        "shot_noise": math.sqrt(x / level),
        "speckle_noise": x * level,
    }[name] * 255
    gray = np.full((256, 256, 3), 128, np.uint8)
    frames = perturb(gray, name, difficulty=difficulty, rng=difficulty)
    assert (frames[0] == 128).all()
    std = frames[1:].astype(np.float64).std()
    assert abs(std - expected) / expected < 0.05, (std, expected)


def test_noise_levels_other_profiles() -> None:
    gray32 = np.full((32, 32, 3), 128, np.uint8)
    frames = perturb(gray32, "gaussian_noise", profile="cifar", rng=0)  # σ 0.02
    assert abs(frames[1:].astype(np.float64).std() / 255 - 0.02) < 0.002
    gray = np.full((100, 100, 3), 128, np.uint8)
    frames = perturb(gray, "shot_noise", profile="tiny", difficulty=3, rng=0)  # λ 125
    assert abs(frames[1:].astype(np.float64).std() / 255 - math.sqrt(128 / 255 / 125)) < 0.003


@pytest.mark.slow  # imports torch (seconds)
def test_gaussian_noise_float32_semantics(photo: np.ndarray) -> None:
    """Our draws through torch's ``clamp(x + σ n).mul(255).byte()`` give exactly our frames."""
    torch = pytest.importorskip("torch")
    frames = perturb(photo, "gaussian_noise", difficulty=2, rng=7)
    rs = np.random.RandomState(7)
    x = torch.from_numpy(_clean(photo, "imagenet").astype(np.float32)).div(255)
    for i in range(1, 11):
        n = torch.from_numpy(rs.normal(size=(224, 224, 3)).astype(np.float32))
        expected = torch.clamp(x + 0.05 * n, 0, 1).mul(255).byte().numpy()
        np.testing.assert_array_equal(frames[i], expected, err_msg=f"frame {i}")


def test_shot_and_speckle_follow_reference_stream(photo: np.ndarray) -> None:
    """With rng = k the frames equal the reference formulas after ``np.random.seed(k)``."""
    crop = _clean(photo, "imagenet")
    shot = perturb(photo, "shot_noise", rng=11)
    rs = np.random.RandomState(11)
    for i in range(1, 11):
        z = np.array(crop, copy=True) / 255.0
        np.testing.assert_array_equal(
            shot[i], np.uint8(255 * np.clip(rs.poisson(z * 300) / 300.0, 0, 1))
        )
    speckle = perturb(photo, "speckle_noise", difficulty=3, rng=12)
    rs = np.random.RandomState(12)
    x = np.array(crop) / 255.0
    for i in range(1, 11):
        ref = np.uint8(255 * np.clip(x + x * rs.normal(size=x.shape, scale=0.15), 0, 1))
        np.testing.assert_array_equal(speckle[i], ref)


def _reference_layer(seed: int, size: int = 224) -> np.ndarray:
    from scipy.ndimage import zoom as scizoom

    rs = np.random.RandomState(seed)
    layer = rs.normal(size=(size, size), loc=0.05, scale=0.3)[..., np.newaxis]
    ch = int(np.ceil(size / 3))
    top = (size - ch) // 2
    layer = scizoom(layer[top : top + ch, top : top + ch], (3, 3, 1), order=1)
    trim = (layer.shape[0] - size) // 2
    layer = layer[trim : trim + size, trim : trim + size]
    layer[layer < 0.5] = 0
    return (np.clip(layer.squeeze(), 0, 1) * 255).astype(np.uint8)


def _snow_frame(crop: np.ndarray, blurred: np.ndarray) -> np.ndarray:
    import cv2

    x = crop / 255.0
    layer = (blurred / 255.0)[..., np.newaxis]
    z = 0.85 * x + (1 - 0.85) * np.maximum(
        x, cv2.cvtColor(np.float32(x), cv2.COLOR_RGB2GRAY).reshape(224, 224, 1) * 1.5 + 0.5
    )
    return np.uint8(np.clip(z + layer + np.rot90(layer, k=2), 0, 1) * 255)


def test_snow_matches_transcription(photo: np.ndarray) -> None:
    from corruptbench.ops.magick import magick_motion_blur

    frames = perturb(photo, "snow", rng=5)
    crop = _clean(photo, "imagenet")
    layer8 = _reference_layer(5)
    for i in (0, 12, 30):
        expected = _snow_frame(crop, magick_motion_blur(layer8, 14, 4, i * 4 - 150))
        np.testing.assert_array_equal(frames[i], expected, err_msg=f"frame {i}")


def test_spatter_matches_transcription(photo: np.ndarray) -> None:
    """The reference's loop (np.convolve drips via apply_along_axis) within ±1."""
    import cv2
    from skimage.filters import gaussian

    crop = _clean(photo, "imagenet")
    frames = perturb(photo, "spatter", rng=4)
    rs = np.random.RandomState(4)
    x = cv2.cvtColor(np.array(crop, dtype=np.float32) / 255.0, cv2.COLOR_BGR2BGRA)
    liquid = gaussian(rs.normal(size=x.shape[:2], loc=0.65, scale=0.27), sigma=3.7)
    liquid[liquid < 0.69] = 0
    for i in range(31):
        li = (liquid * 255).astype(np.uint8)
        dist = 255 - cv2.Canny(li, 50, 150)
        dist = cv2.distanceTransform(dist, cv2.DIST_L2, 5)
        _, dist = cv2.threshold(dist, 20, 20, cv2.THRESH_TRUNC)
        dist = cv2.blur(dist, (3, 3)).astype(np.uint8)
        dist = cv2.equalizeHist(dist)
        dist = cv2.filter2D(dist, cv2.CV_8U, np.array([[-2, -1, 0], [-1, 1, 1], [0, 1, 2]]))
        dist = cv2.blur(dist, (3, 3)).astype(np.float32)
        m = cv2.cvtColor(li * dist, cv2.COLOR_GRAY2BGRA)
        m /= np.max(m, axis=(0, 1))
        m *= 0.6
        color = np.concatenate(
            [c / 255.0 * np.ones_like(m[..., :1]) for c in (175, 238, 238)], axis=2
        )
        color = cv2.cvtColor(color, cv2.COLOR_BGR2BGRA)
        expected = np.uint8(cv2.cvtColor(np.clip(x + m * color, 0, 1), cv2.COLOR_BGRA2BGR) * 255)
        assert _maxdiff(frames[i], expected) <= 1, i
        assert np.mean(frames[i] == expected) > 0.999, i
        liquid = np.apply_along_axis(
            lambda col: np.convolve(col, np.array([0.05, 0.1, 0.15, 0.7]), mode="same"), 0, liquid
        )


def test_drip_matches_np_convolve() -> None:
    from corruptbench.perturbations.sequences import _drip

    a = np.random.RandomState(0).uniform(0, 1, (64, 40))
    for kernel in ((0.05, 0.1, 0.15, 0.7), (0.2, 0.8)):
        ref = np.apply_along_axis(
            lambda c, k=kernel: np.convolve(c, np.array(k), mode="same"), 0, a
        )
        np.testing.assert_allclose(_drip(a, kernel), ref, rtol=0, atol=1e-15)


@pytest.mark.reference
def test_motion_blur_and_snow_vs_reference(
    reference, photo: np.ndarray, photo2: np.ndarray
) -> None:
    """Motion-blur and snow frames vs ImageMagick through the reference's Wand path (bit-exact).

    One reference call per (radius, sigma, angle); images for the same angle share a call.
    """
    crops = [_clean(photo, "imagenet"), _clean(photo2, "imagenet")]
    ours = [perturb(p, "motion_blur") for p in (photo, photo2)]
    for i in (0, 30):  # angles -120 and 0
        refs = reference.reference_motion_blur(crops, 10, 3, (i - 30) * 4)
        for p in range(2):
            np.testing.assert_array_equal(ours[p][i], refs[p], err_msg=f"photo {p} frame {i}")
    # tiny: the full-resolution source is blurred (radius 14, angle (i - 30) * 5), then Resize(64)
    tiny = perturb(photo, "motion_blur", profile="tiny")
    (full,) = reference.reference_motion_blur([photo], 14, 3, (10 - 30) * 5)
    expected = np.asarray(center_crop(resize_short(Image.fromarray(full), 64), 64))
    np.testing.assert_array_equal(tiny[10], expected)
    # snow: the layer of np.random.seed(9), blown at angle 20 * 4 - 150 (ImageMagick's gray PNG)
    snow = perturb(photo, "snow", rng=9)
    (blurred,) = reference.reference_motion_blur(
        [_reference_layer(9)], 14, 4, 20 * 4 - 150, raw=True
    )
    assert blurred.ndim == 2
    np.testing.assert_array_equal(snow[20], _snow_frame(crops[0], blurred))


def test_inception_profile(photo: np.ndarray) -> None:
    """299: clean frame = resized_center_crop; translate warps the full-resolution input first."""
    from corruptbench.ops.preprocess import inception_crop

    clean = np.asarray(inception_crop(Image.fromarray(photo), 299))
    np.testing.assert_array_equal(
        perturb(photo, "speckle_noise", profile="inception", rng=0)[0], clean
    )
    frames = perturb(photo, "translate", profile="inception")
    assert frames.shape == (41, 299, 299, 3)
    np.testing.assert_array_equal(frames[20], clean)
    shifted = np.zeros_like(photo)
    shifted[:, 5:] = photo[:, :-5]
    np.testing.assert_array_equal(
        frames[25], np.asarray(inception_crop(Image.fromarray(shifted), 299))
    )


def test_inception_zoom_and_scale_warp_the_299_crop(photo: np.ndarray) -> None:
    """make_imagenet_p_inception.py: zoom and scale warp the 299 crop, then CenterCrop(299)."""
    from corruptbench.ops.preprocess import inception_crop

    clean = inception_crop(Image.fromarray(photo), 299)
    scale = perturb(photo, "scale", profile="inception")
    np.testing.assert_array_equal(scale[24], np.asarray(clean))  # scale 1.0
    expected = affine(clean, scale=(3 * 2.5 + 40) / 100.0, resample=Image.Resampling.BILINEAR)
    np.testing.assert_array_equal(scale[3], np.asarray(expected))
    zoom = perturb(photo, "zoom_blur", profile="inception")
    z1 = (
        np.asarray(affine(clean, scale=1.004, resample=Image.Resampling.BILINEAR)).astype(
            np.float32
        )
        / 255
    )
    avg = np.asarray(clean).astype(np.float32) / 255 + z1
    np.testing.assert_array_equal(zoom[1], ((avg / 2) * 255).astype(np.uint8))

"""corruptbench.compat.corruptions: imagecorruptions.corruptions' helpers (their formulas, written
out here from the 1.1.2 code's definitions) and the 19 functions' inputs and outputs (types,
grayscale, sizes). The comparisons with imagecorruptions itself are in test_reference.py."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, JpegImagePlugin
from scipy import ndimage

import corruptbench
from corruptbench import compat
from corruptbench.compat import corruptions as cc
from support import ref_disk

NAMES = list(corruptbench.ALL_CORRUPTIONS)
FLOAT32 = {"zoom_blur", "elastic_transform"}
PIL_RESULT = {"pixelate", "jpeg_compression"}


def _img(h: int = 40, w: int = 48, seed: int = 0) -> np.ndarray:
    return np.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype(np.uint8)


def _seeded(k: int) -> None:
    np.random.seed(k)  # noqa: NPY002 - imagecorruptions draws from the global legacy state


# ---- helpers -----------------------------------------------------------------------------------
def test_disk_is_the_defocus_kernel() -> None:
    for radius, alias in ((3, 0.1), (8, 0.5), (10, 0.5)):
        np.testing.assert_array_equal(cc.disk(radius, alias), ref_disk(radius, alias))
    assert cc.disk(3).dtype == np.float32 and cc.disk(3, dtype=np.float64).dtype == np.float64


def test_plasma_fractal_draws_from_the_global_state() -> None:
    _seeded(4)
    a = cc.plasma_fractal(64, 2)
    after = np.random.get_state()[2]  # noqa: NPY002
    rs = np.random.RandomState(4)
    b = corruptbench.ops.kernels.plasma_fractal(64, 2.0, rs)
    np.testing.assert_array_equal(a, b)
    assert after == rs.get_state()[2]
    assert a.shape == (64, 64) and a.min() == 0 and a.max() == 1
    _seeded(4)
    np.testing.assert_array_equal(cc.plasma_fractal(wibbledecay=2)[:64, :64].shape, (64, 64))
    for bad in (0, 1, 48, 100):
        with pytest.raises(AssertionError, match="power of two"):
            cc.plasma_fractal(bad)


def test_clipped_zoom_keeps_the_whole_zoomed_crop() -> None:
    x = _img(30, 41, seed=2).astype(np.float32)
    out = cc.clipped_zoom(x, 3)
    # ceil(30 / 3) = 10 rows from (30 - 10) // 2 = 10, ceil(41 / 3) = 14 columns from 13
    want = ndimage.zoom(x[10:20, 13:27], (3, 3, 1), order=1)
    assert out.shape == (30, 42, 3) and out.dtype == np.float32
    np.testing.assert_array_equal(out, want)


def test_small_helpers() -> None:
    assert [cc.next_power_of_2(n) for n in (0, 1, 2, 3, 224, 256, 257)] == [
        1,
        1,
        2,
        4,
        256,
        256,
        512,
    ]
    assert cc.next_power_of_2(np.int64(96)) == 128
    assert cc.getOptimalKernelWidth1D(15, 5) == 31
    x = np.arange(5.0)
    np.testing.assert_allclose(
        cc.gauss_function(x, 99, 2.0), np.exp(-(x**2) / 8) / (np.sqrt(2 * np.pi) * 2.0)
    )
    k = cc.getMotionBlurKernel(7, 3.0)
    assert k.shape == (7,) and abs(k.sum() - 1) < 1e-12 and np.all(np.diff(k) < 0)
    rgb = _img(4, 5, seed=1)
    np.testing.assert_allclose(
        cc.rgb2gray(rgb), rgb[..., 0] * 0.2989 + rgb[..., 1] * 0.5870 + rgb[..., 2] * 0.1140
    )


def _shift_by_roll(image: np.ndarray, dx: int, dy: int) -> np.ndarray:
    # imagecorruptions' definition: roll, then overwrite the wrapped part with the edge
    s = image
    if dx < 0:
        s = np.roll(s, image.shape[1] + dx, axis=1)
        s[:, dx:] = s[:, dx - 1 : dx]
    elif dx > 0:
        s = np.roll(s, dx, axis=1)
        s[:, :dx] = s[:, dx : dx + 1]
    if dy < 0:
        s = np.roll(s, image.shape[0] + dy, axis=0)
        s[dy:, :] = s[dy - 1 : dy, :]
    elif dy > 0:
        s = np.roll(s, dy, axis=0)
        s[:dy, :] = s[dy : dy + 1, :]
    return s


def test_shift_replicates_the_edges() -> None:
    x = _img(9, 11, seed=3)
    for dx, dy in ((0, 0), (3, 0), (-4, 2), (0, -5), (10, 8), (-10, -8), (1, 1)):
        np.testing.assert_array_equal(cc.shift(x, dx, dy), _shift_by_roll(x, dx, dy), (dx, dy))
    assert cc.shift(x, 0, 0) is x


# ---- the functions -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_function_return_types(name: str) -> None:
    x = _img(48, 64)
    for sev in range(1, 6):
        res = compat.corruption_dict[name](x, sev)
        if name in PIL_RESULT:
            assert isinstance(res, Image.Image) and res.mode == "RGB" and res.size == (64, 48)
            continue
        want = "float32" if name in FLOAT32 or (name == "spatter" and sev <= 3) else "float64"
        assert isinstance(res, np.ndarray) and res.dtype == want, (name, sev, res.dtype)
        assert res.shape == (48, 64, 3) and res.min() >= 0 and res.max() <= 255
        assert res.flags.c_contiguous and res.flags.writeable


def test_jpeg_compression_returns_the_file_read_back() -> None:
    x = _img(40, 56, seed=6)
    out = compat.jpeg_compression(Image.fromarray(x), 3)  # type: ignore[attr-defined]
    assert isinstance(out, JpegImagePlugin.JpegImageFile) and out.format == "JPEG"
    np.testing.assert_array_equal(np.asarray(out), compat.corrupt(x, 3, "jpeg_compression"))
    gray = compat.jpeg_compression(Image.fromarray(x).convert("L"), 3)  # type: ignore[attr-defined]
    assert gray.mode == "L" and gray.size == (56, 40)


@pytest.mark.parametrize("name", NAMES)
def test_grayscale_in_grayscale_out(name: str) -> None:
    """A mode-L image (or an H x W array) gives H x W, mode L for the PIL results; H x W x 1
    keeps its shape; float32 where imagecorruptions' grayscale branch returns float32."""
    gray = _img(36, 44, seed=7)[:, :, 0]
    func = compat.corruption_dict[name]
    for sev in (1, 4):
        _seeded(sev)
        from_pil = func(Image.fromarray(gray), sev)
        _seeded(sev)
        from_array = func(gray, sev)
        _seeded(sev)
        from_hw1 = func(gray[:, :, None], sev)
        if name in PIL_RESULT:
            assert from_pil.mode == from_array.mode == from_hw1.mode == "L"
            assert from_pil.size == (44, 36)
            from_pil, from_array, from_hw1 = (
                np.asarray(i) for i in (from_pil, from_array, from_hw1)
            )
        else:
            assert from_pil.dtype == ("float32" if name in FLOAT32 else "float64"), name
            assert from_hw1.shape == (36, 44, 1)
        assert from_pil.shape == (36, 44)
        np.testing.assert_array_equal(from_pil, from_array)
        np.testing.assert_array_equal(from_pil, from_hw1.reshape(36, 44))


def test_grayscale_branches_written_out() -> None:
    """The grayscale branches that are one line of imagecorruptions' code."""
    gray = _img(30, 34, seed=8)[:, :, 0]
    x = gray / 255.0
    np.testing.assert_array_equal(compat.saturate(gray, 5), np.clip(x, 0, 1) * 255)  # type: ignore[attr-defined]
    np.testing.assert_array_equal(compat.brightness(gray, 2), np.clip(x + 0.2, 0, 1) * 255)  # type: ignore[attr-defined]
    m = np.mean(x)
    np.testing.assert_array_equal(
        compat.contrast(gray, 3),
        np.clip((x - m) * 0.2 + m, 0, 1) * 255,  # type: ignore[attr-defined]
    )
    # gaussian(x, 2, multichannel=True) on 2-D: the last axis is taken for channels
    rows = ndimage.gaussian_filter(x, (2, 0), mode="nearest", truncate=4.0)
    np.testing.assert_array_equal(compat.gaussian_blur(gray, 2), np.clip(rows, 0, 1) * 255)  # type: ignore[attr-defined]
    _seeded(1)
    want = np.clip(x + np.random.normal(size=x.shape, scale=0.12), 0, 1) * 255  # noqa: NPY002
    _seeded(1)
    np.testing.assert_array_equal(compat.gaussian_noise(gray, 2), want)  # type: ignore[attr-defined]


def test_grayscale_glass_blur_swaps() -> None:
    """On a 2-D array imagecorruptions' ``x[h, w], x[h', w'] = x[h', w'], x[h, w]`` exchanges
    two scalars: the pixel values are permuted, none is lost (between the two blurs)."""
    gray = np.zeros((20, 20), np.uint8)
    gray[::2] = 255  # stripes: a row-only blur of sigma 0.7 keeps two levels
    x0 = np.uint8(ndimage.gaussian_filter(gray / 255.0, (0.7, 0), mode="nearest") * 255)
    _seeded(0)
    out = compat.glass_blur(gray, 1)  # type: ignore[attr-defined]
    _seeded(0)
    offsets = np.random.randint(-1, 1, size=(2 * 18 * 18, 2))  # noqa: NPY002
    swapped = x0.copy()
    k = 0
    for _ in range(2):
        for h in range(19, 1, -1):
            for w in range(19, 1, -1):
                dx, dy = offsets[k]
                k += 1
                swapped[h, w], swapped[h + dy, w + dx] = swapped[h + dy, w + dx], swapped[h, w]
    assert sorted(swapped.ravel()) == sorted(x0.ravel())
    rows = ndimage.gaussian_filter(swapped / 255.0, (0.7, 0), mode="nearest")
    np.testing.assert_array_equal(out, np.clip(rows, 0, 1) * 255)


def test_any_size_imagecorruptions_handles() -> None:
    """Its functions take any size: 24 x 48, 7 x 5, 1 x 1 (pixelate: until a side would shrink
    to 0, where Pillow refuses; compat says so)."""
    for h, w in ((24, 48), (7, 5), (1, 1)):
        for gray in (False, True):
            x = _img(h, w, seed=h)
            x = x[:, :, 0] if gray else x
            for name in NAMES:
                for sev in (1, 5):
                    c = (0.6, 0.5, 0.4, 0.3, 0.25)[sev - 1]
                    if name == "pixelate" and min(int(h * c), int(w * c)) < 1:
                        with pytest.raises(ValueError, match="too small for pixelate"):
                            compat.pixelate(x, sev)  # type: ignore[attr-defined]
                        continue
                    out = np.asarray(compat.corruption_dict[name](x, sev))
                    assert out.shape == x.shape and np.isfinite(out).all(), (name, h, w)
    with pytest.raises(AttributeError, match="at least 32 x 32"):
        compat.corrupt(_img(24, 48), 1, "fog")

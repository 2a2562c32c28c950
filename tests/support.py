"""Shared test helpers (paths of the shared data, real photos, a synthetic test image, image
comparisons, the reference's disk kernel). Test modules import them with ``from support import
...``: ``conftest`` is not importable by name once sub-directories have their own conftest.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
#: set to 1, a run without ``-m`` includes the tests marked ``slow`` (tests/conftest.py's
#: pytest_configure leaves them out otherwise; .ci/run sets it)
RUN_SLOW = "CORRUPTBENCH_SLOW"
IMAGENET_SAMPLE = SHARED / "data" / "imagenet-sample"
CIFAR_TEST = SHARED / "data" / "cifar10-test"

#: two real photos used across the fidelity tests (colour, different content)
PHOTO_NAMES = ("n01440764_tench.JPEG", "n01530575_brambling.JPEG")


def need_shared() -> None:
    if not IMAGENET_SAMPLE.is_dir():
        pytest.skip(
            f"real photos not available: {IMAGENET_SAMPLE} is absent (only in the dev/CI checkout)"
        )


def load_photo(name: str) -> Image.Image:
    need_shared()
    with Image.open(IMAGENET_SAMPLE / name) as im:
        return im.convert("RGB")


def pattern_image(h: int, w: int, seed: int = 0) -> np.ndarray:
    """A smooth colour image with edges, a white and a black patch and a little noise, any size
    (more photo-like than uniform noise; no shared data needed)."""
    rs = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    base = np.stack(
        [
            128 + 100 * np.sin(xx / (3 + w / 10)),
            128 + 100 * np.cos(yy / (2 + h / 8)),
            (xx * 255 // max(w - 1, 1) + yy * 97) % 256,
        ],
        axis=2,
    )
    base += rs.normal(0, 12, size=base.shape)
    base[h // 3 : h // 2, w // 4 : w // 2] = (250, 250, 250)
    base[: h // 5, -w // 5 :] = (0, 0, 0)
    return np.clip(base, 0, 255).astype(np.uint8)


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    d = a.astype(np.float64) - b.astype(np.float64)
    mse = float(np.mean(d * d))
    return float("inf") if mse == 0 else 10 * np.log10(255.0**2 / mse)


def within1(a: np.ndarray, b: np.ndarray) -> float:
    """Fraction of values that differ by at most 1."""
    return float(np.mean(np.abs(a.astype(np.int16) - b.astype(np.int16)) <= 1))


def assert_faithful(
    ours: np.ndarray,
    ref: np.ndarray,
    *,
    min_psnr: float = 45.0,
    min_within1: float = 0.995,
    label: str = "",
) -> None:
    """The fidelity contract of issue 2: >= 99.5 % of values within +-1 and PSNR >= 45 dB."""
    assert ours.shape == ref.shape and ours.dtype == ref.dtype == np.uint8, (
        label,
        ours.shape,
        ref.shape,
    )
    p, w = psnr(ours, ref), within1(ours, ref)
    assert p >= min_psnr and w >= min_within1, (
        f"{label}: PSNR {p:.2f} dB, within +-1 {w * 100:.3f} %"
    )


def ref_disk(radius, alias_blur=0.1, dtype=np.float32):
    """The reference's ``disk`` kernel, transcribed (imagenet_c/corruptions.py:26-38)."""
    import cv2

    if radius <= 8:
        L = np.arange(-8, 8 + 1)
        ksize = (3, 3)
    else:
        L = np.arange(-radius, radius + 1)
        ksize = (5, 5)
    X, Y = np.meshgrid(L, L)
    aliased_disk = np.array((X**2 + Y**2) <= radius**2, dtype=dtype)
    aliased_disk /= np.sum(aliased_disk)
    return cv2.GaussianBlur(aliased_disk, ksize=ksize, sigmaX=alias_blur)


def check_cbar_corruption(name: str, image: np.ndarray) -> None:
    """What every ImageNet-C-bar corruption promises, on one image: uint8 of the input's shape;
    an int seed, ``RandomState(seed)`` and a second call agree; a Generator and ``None`` work;
    grayscale and RGBA inputs keep their layout (alpha untouched)."""
    import corruptbench

    for sev in (1, 5):
        a = corruptbench.corrupt(image, name, sev, rng=11)
        assert a.shape == image.shape and a.dtype == np.uint8, (name, sev)
        assert np.array_equal(a, corruptbench.corrupt(image, name, sev, rng=11))
        b = corruptbench.corrupt(image, name, sev, rng=np.random.RandomState(11))
        assert np.array_equal(a, b), name
        g = corruptbench.corrupt(image, name, sev, rng=np.random.default_rng(3))
        assert g.shape == image.shape and g.dtype == np.uint8
        assert corruptbench.corrupt(image, name, sev).shape == image.shape
    gray = corruptbench.corrupt(image[:, :, 1], name, 3, rng=2)
    assert gray.shape == image.shape[:2] and gray.dtype == np.uint8
    rgba = np.dstack([image, np.full(image.shape[:2], 77, np.uint8)])
    out = corruptbench.corrupt(rgba, name, 3, rng=2)
    assert out.shape == rgba.shape and np.all(out[:, :, 3] == 77)
    assert np.array_equal(out[:, :, :3], corruptbench.corrupt(image, name, 3, rng=2))


def cbar_test_images() -> list[np.ndarray]:
    """A real photo at 32 x 32, 47 x 47 (odd), 40 x 72 and 72 x 40 (non-square) and 16 x 16 (the
    smallest side the ``imagenet`` profile accepts)."""
    photo = load_photo(PHOTO_NAMES[0])
    return [
        np.asarray(photo.resize((w, h), Image.BILINEAR))
        for h, w in ((32, 32), (47, 47), (40, 72), (72, 40), (16, 16))
    ]

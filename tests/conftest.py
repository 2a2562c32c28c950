from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
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


@pytest.fixture(scope="session")
def photos224() -> list[np.ndarray]:
    """Two real ImageNet photos, Resize(256) + CenterCrop(224) as make-c does."""
    from corruptbench.ops.preprocess import profile_preprocess

    return [profile_preprocess(load_photo(n), "imagenet") for n in PHOTO_NAMES]


@pytest.fixture(scope="session")
def photo224(photos224: list[np.ndarray]) -> np.ndarray:
    return photos224[0]


@pytest.fixture(scope="session")
def cifar_images() -> list[np.ndarray]:
    if not CIFAR_TEST.is_dir():
        pytest.skip(f"CIFAR-10 test images not available: {CIFAR_TEST} is absent")
    out = []
    for cls in ("airplane", "cat"):
        f = sorted((CIFAR_TEST / cls).iterdir())[0]
        with Image.open(f) as im:
            out.append(np.asarray(im.convert("RGB")))
    return out


@pytest.fixture
def synthetic_image() -> np.ndarray:
    """A deterministic 224 x 224 colour image with edges and gradients (no shared data needed)."""
    yy, xx = np.mgrid[0:224, 0:224]
    img = np.stack([(xx * 255 // 223), (yy * 255 // 223), ((xx + yy) % 256)], axis=2).astype(
        np.uint8
    )
    img[60:160, 60:160] = (200, 40, 90)
    return img


@pytest.fixture(scope="session")
def reference():
    """The reference implementation client (tests/reference.py).

    Skips when the reference environment (tools/reference/setup_refenv.sh) is absent — except in
    CI (CI=true), where .ci/run builds it, so its absence is a failure.
    """
    import os

    import reference as ref  # tests/reference.py

    if not ref.reference_available():
        msg = "reference environment not built (run: bash tools/reference/setup_refenv.sh)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg + " — CI must build it")
        pytest.skip(msg)
    return ref


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
    """The reference's ``disk`` kernel, transcribed (imagenet_c/corruptions.py; spec §1.2 #7)."""
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

"""torchvision-0.2 preprocessing and make-c's per-profile preprocessing (corruptbench.ops.preprocess)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from corruptbench.ops.preprocess import (
    center_crop,
    inception_crop,
    profile_preprocess,
    resize_exact,
    resize_short,
)
from corruptbench.profiles import PROFILES


def _photo(w: int, h: int) -> Image.Image:
    yy, xx = np.mgrid[0:h, 0:w]
    arr = np.stack([xx % 256, yy % 256, (xx + yy) % 256], axis=2).astype(np.uint8)
    return Image.fromarray(arr)


def test_resize_short_and_center_crop() -> None:
    assert resize_short(_photo(500, 375), 256).size == (341, 256)  # int(256 * 500 / 375)
    assert resize_short(_photo(375, 500), 256).size == (256, 341)
    same = _photo(256, 300)
    assert resize_short(same, 256) is same
    crop = center_crop(_photo(341, 256), 224)
    assert crop.size == (224, 224)
    # offsets int(round((341 - 224) / 2)) = 58 (banker's rounding of 58.5), 16
    np.testing.assert_array_equal(np.asarray(crop), np.asarray(_photo(341, 256))[16:240, 58:282])
    assert resize_exact(_photo(90, 70), (64, 64)).size == (64, 64)
    assert inception_crop(_photo(400, 300)).size == (299, 299)


def test_profile_preprocess_sizes() -> None:
    src = _photo(500, 375)
    for name in ("imagenet", "inception", "tiny"):
        s = PROFILES[name].size
        out = profile_preprocess(src, name)
        assert out.shape == (s, s, 3) and out.dtype == np.uint8, name
    np.testing.assert_array_equal(
        profile_preprocess(src, "imagenet"), np.asarray(center_crop(resize_short(src, 256), 224))
    )
    small = np.asarray(_photo(32, 32))
    np.testing.assert_array_equal(profile_preprocess(small, "cifar"), small)
    gray = Image.fromarray(np.full((40, 50), 7, np.uint8))
    assert profile_preprocess(gray, "tiny").shape == (64, 64, 3)


def test_profile_preprocess_errors() -> None:
    with pytest.raises(
        ValueError, match="cifar profile takes 32 x 32 images as they are; got 40x30"
    ):
        profile_preprocess(_photo(40, 30), "cifar")
    with pytest.raises(ValueError, match="unknown profile 'auto'"):
        profile_preprocess(_photo(40, 30), "auto")


def test_upsampling_warnings() -> None:
    from corruptbench.ops.preprocess import upsampling

    assert upsampling(5, 5, "imagenet").startswith("upsampled: 5x5 is smaller than the imagenet")
    assert upsampling(223, 500, "imagenet") != ""
    assert upsampling(250, 340, "imagenet") == ""  # Resize(256) enlarges it a little: by design
    assert upsampling(500, 375, "imagenet") == ""
    assert upsampling(340, 400, "inception") != "" and upsampling(342, 400, "inception") == ""
    assert upsampling(63, 80, "tiny") != "" and upsampling(64, 64, "tiny") == ""
    assert upsampling(5, 5, "cifar") == ""

"""The per-item step: its seed, and the pixels it computes (what make-c / make-p write).

The expected values are computed here from the documented definitions, not with the functions
under test: ``item_seed`` is ``blake2b("seed|kind|name|level|rel", digest_size=4)`` read
little-endian, make-c's imagenet preparation is torchvision's ``Resize(256)`` + ``CenterCrop(224)``,
and an item is ``corrupt`` / ``perturb`` with ``RandomState(item_seed)``.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from PIL import Image

from corruptbench import corrupt, perturb
from corruptbench.pipeline import (
    CorruptStep,
    PerturbStep,
    arrays_source,
    item_rng,
    item_seed,
    item_step,
)
from support import load_photo


def documented_seed(seed: int, kind: str, name: str, level: int, rel: str) -> int:
    """The formula item_seed's docstring gives, computed with hashlib here."""
    key = f"{seed}|{kind}|{name}|{level}|{rel}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=4).digest(), "little")


def resize256_crop224(img: Image.Image) -> np.ndarray:
    """torchvision ``Resize(256)`` (short side 256, long side ``int(256 * long / short)``,
    bilinear) then ``CenterCrop(224)`` (offsets ``int(round((dim - 224) / 2))``), written out."""
    w, h = img.size
    size = (256, int(256 * h / w)) if w <= h else (int(256 * w / h), 256)
    big = img.resize(size, Image.Resampling.BILINEAR)
    top, left = int(round((big.height - 224) / 2)), int(round((big.width - 224) / 2))
    return np.asarray(big.crop((left, top, left + 224, top + 224)))


@pytest.mark.parametrize(
    "args",
    [
        (0, "c", "gaussian_noise", 3, "n01440764/a.JPEG"),
        (5, "p", "snow", 1, "00000.png"),
        (2**32 - 1, "c", "jpeg_compression", 5, "dir with space/Ünïcode.jpg"),
        (123456789, "p", "gaussian_noise", 2, "n0/x.JPEG"),
    ],
)
def test_item_seed_is_the_documented_blake2b(args: tuple) -> None:
    assert item_seed(*args) == documented_seed(*args)


def test_item_seed_frozen_and_every_part_counts() -> None:
    base = (0, "c", "gaussian_noise", 3, "n01440764/a.JPEG")
    assert item_seed(*base) == 283371412  # frozen: changing it changes every dataset
    variants = [
        (1, "c", "gaussian_noise", 3, "n01440764/a.JPEG"),
        (0, "p", "gaussian_noise", 3, "n01440764/a.JPEG"),
        (0, "c", "shot_noise", 3, "n01440764/a.JPEG"),
        (0, "c", "gaussian_noise", 4, "n01440764/a.JPEG"),
        (0, "c", "gaussian_noise", 3, "n01440764/b.JPEG"),
    ]
    assert len({item_seed(*v) for v in [base, *variants]}) == 6
    assert all(0 <= item_seed(*v) < 2**32 for v in variants)


def test_item_rng_is_in_the_state_of_a_fresh_random_state() -> None:
    a = item_rng(7)
    first = (a.normal(size=3), a.uniform(size=2))
    b = np.random.RandomState(7)
    assert np.array_equal(first[0], b.normal(size=3))
    assert np.array_equal(first[1], b.uniform(size=2))
    a.normal()  # leaves a cached Gaussian behind
    again = item_rng(7)
    assert again is a  # reused, and reset completely
    assert np.array_equal(again.normal(size=3), np.random.RandomState(7).normal(size=3))


@pytest.mark.parametrize(
    "photo_name",
    [
        "n01630670_common_newt.JPEG",  # 400 x 200: resized to 512 x 256, then cropped
        "n01560419_bulbul.JPEG",  # 256 x 383: portrait, top offset round(79.5) = 80
    ],
)
def test_corrupt_step_is_make_c_before_jpeg(photo_name: str) -> None:
    photo = load_photo(photo_name)
    rel = f"n0/{photo_name}"
    src = arrays_source([np.zeros((300, 300, 3), np.uint8), np.asarray(photo)], names=["a", rel])
    step = CorruptStep("imagenet", seed=5)
    img = step.prepare(src.items[1])
    want_img = resize256_crop224(photo)
    assert img.shape == (224, 224, 3) and np.array_equal(img, want_img)
    for name, sev in (("gaussian_noise", 3), ("frost", 5), ("contrast", 2)):
        seed = documented_seed(5, "c", name, sev, rel)
        want = corrupt(want_img, name, sev, profile="imagenet", rng=np.random.RandomState(seed))
        assert step.seed_of(name, sev, rel) == seed
        assert np.array_equal(step.apply_item(img, name, sev, rel), want)
        assert np.array_equal(step.apply(img, name, sev, seed), want)
    # another base seed, other pixels (for a random corruption)
    other = CorruptStep("imagenet", seed=6).apply_item(img, "gaussian_noise", 3, rel)
    assert not np.array_equal(other, step.apply_item(img, "gaussian_noise", 3, rel))


def test_perturb_step_is_make_p(cifar_images: list[np.ndarray]) -> None:
    src = arrays_source(cifar_images)
    step = PerturbStep("cifar", seed=2)
    img = step.prepare(src.items[0])
    assert np.array_equal(img, cifar_images[0])  # cifar: the 32 x 32 image as it is
    frames = step.apply_item(img, "shot_noise", 2, "00000.png")
    rs = np.random.RandomState(documented_seed(2, "p", "shot_noise", 2, "00000.png"))
    want = perturb(cifar_images[0], "shot_noise", profile="cifar", difficulty=2, rng=rs)
    assert frames.dtype == np.uint8 and frames.shape == (31, 32, 32, 3)
    assert np.array_equal(frames, want)
    big = arrays_source([np.zeros((40, 32, 3), np.uint8)])
    with pytest.raises(ValueError, match="32 x 32"):
        step.prepare(big.items[0])
    with pytest.raises(ValueError, match="too small"):
        PerturbStep("imagenet").prepare(arrays_source([np.zeros((8, 8, 3), np.uint8)]).items[0])


def test_item_step_by_kind() -> None:
    assert item_step("c", "tiny", 3) == CorruptStep("tiny", 3)
    assert item_step("p", "cifar") == PerturbStep("cifar", 0)
    assert CorruptStep.kind == "c" and PerturbStep.kind == "p"
    with pytest.raises(ValueError, match="kind must be 'c' or 'p'"):
        item_step("x", "imagenet")

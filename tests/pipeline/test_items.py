"""The per-item step: its seed, and the pixels it computes (what make-c / make-p write)."""

from __future__ import annotations

import numpy as np
import pytest

from corruptbench import corrupt, perturb
from corruptbench.ops.preprocess import profile_preprocess
from corruptbench.pipeline import (
    CorruptStep,
    PerturbStep,
    arrays_source,
    item_rng,
    item_seed,
    item_step,
)

FAST = ["brightness", "gaussian_noise"]


def test_item_seed() -> None:
    assert item_seed(0, "c", "gaussian_noise", 3, "n01440764/a.JPEG") == item_seed(
        0, "c", "gaussian_noise", 3, "n01440764/a.JPEG"
    )
    seeds = {
        item_seed(s, k, n, lv, r)
        for s in (0, 1)
        for k in "cp"
        for n in FAST
        for lv in (1, 2)
        for r in ("a", "b")
    }
    assert len(seeds) == 32 and all(0 <= s < 2**32 for s in seeds)
    assert (
        item_seed(0, "c", "gaussian_noise", 3, "n01440764/a.JPEG") == 283371412
    )  # frozen: changing it changes every dataset


def test_item_rng_is_a_fresh_random_state() -> None:
    a = item_rng(7)
    first = (a.normal(size=3), a.uniform(size=2))
    b = np.random.RandomState(7)
    assert np.array_equal(first[0], b.normal(size=3)) and np.array_equal(
        first[1], b.uniform(size=2)
    )
    a.normal()  # leaves a cached Gaussian behind
    again = item_rng(7)
    assert again is a and np.array_equal(
        again.normal(size=3), np.random.RandomState(7).normal(size=3)
    )


def test_corrupt_step_is_make_c_before_jpeg(photos224: list[np.ndarray]) -> None:
    src = arrays_source(photos224, names=["n01/a.png", "n01/b.png"])
    step = CorruptStep("imagenet", seed=5)
    img = step.prepare(src.items[1])
    assert np.array_equal(img, profile_preprocess(photos224[1], "imagenet"))
    for name, sev in (("gaussian_noise", 3), ("frost", 5)):
        seed = item_seed(5, "c", name, sev, "n01/b.png")
        want = corrupt(img, name, sev, profile="imagenet", rng=seed)
        assert step.seed_of(name, sev, "n01/b.png") == seed
        assert np.array_equal(step.apply_item(img, name, sev, "n01/b.png"), want)
        assert np.array_equal(step.apply(img, name, sev, seed), want)


def test_perturb_step_is_make_p(cifar_images: list[np.ndarray]) -> None:
    src = arrays_source(cifar_images)
    step = PerturbStep("cifar", seed=2)
    img = step.prepare(src.items[0])
    frames = step.apply_item(img, "shot_noise", 2, src.items[0].rel)
    want = perturb(
        cifar_images[0],
        "shot_noise",
        profile="cifar",
        difficulty=2,
        rng=item_seed(2, "p", "shot_noise", 2, "00000.png"),
    )
    assert frames.dtype == np.uint8 and np.array_equal(frames, want)
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

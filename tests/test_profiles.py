"""The dataset profiles (corruptbench.profiles)."""

from __future__ import annotations

import pytest

from corruptbench.profiles import PROFILE_NAMES, PROFILES, Profile, detect_profile, resolve_profile


def test_the_four_profiles() -> None:
    assert PROFILE_NAMES == ("imagenet", "inception", "tiny", "cifar")
    assert {n: (p.size, p.min_size) for n, p in PROFILES.items()} == {
        "imagenet": (224, 16),
        "inception": (299, 16),
        "tiny": (64, 8),
        "cifar": (32, 8),
    }
    assert all(p.name == n for n, p in PROFILES.items())
    # torchvision Resize(n) before CenterCrop: make-c imagenet, the ImageNet-P canvas of tiny
    assert {n: p.resize_short for n, p in PROFILES.items()} == {
        "imagenet": 256,
        "inception": None,
        "tiny": 64,
        "cifar": None,
    }


def test_detect_profile() -> None:
    assert [detect_profile(s, s) for s in (32, 64, 224, 299)] == [
        "cifar",
        "tiny",
        "imagenet",
        "inception",
    ]
    assert detect_profile(64, 65) == "imagenet"
    assert detect_profile(500, 375) == "imagenet"


def test_resolve_profile() -> None:
    assert resolve_profile("auto", (32, 32, 3)) is PROFILES["cifar"]
    assert resolve_profile(" TINY ", (40, 50)) is PROFILES["tiny"]
    custom = Profile("custom", 100, 4, 128, None, "a test profile")
    assert resolve_profile(custom, (10, 10)) is custom
    with pytest.raises(ValueError, match=r"unknown profile 'mnist' \(choices: auto, imagenet"):
        resolve_profile("mnist", (32, 32))
    with pytest.raises(TypeError, match="profile must be a str, got int"):
        resolve_profile(3, (32, 32))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="too small for the 'imagenet' profile .minimum side 16"):
        resolve_profile("imagenet", (15, 300))
    assert resolve_profile("cifar", (8, 8)) is PROFILES["cifar"]

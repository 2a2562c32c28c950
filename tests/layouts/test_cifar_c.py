"""The CIFAR-10-C layout (corruptbench.layouts.cifar_c)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from corruptbench.layouts import cifar_c


def test_cifar_c_layout(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    n = 7
    for name in ("fog", "brightness"):
        np.save(tmp_path / f"{name}.npy", rng.integers(0, 256, (5 * n, 32, 32, 3), dtype=np.uint8))
    np.save(tmp_path / "labels.npy", np.tile(np.arange(n, dtype=np.uint8), 5))
    idx = cifar_c.scan_cifar_c(tmp_path)
    assert list(idx.files) == ["fog", "brightness"] and idx.n == n and "snow" in idx.missing
    full = np.load(tmp_path / "fog.npy")
    assert np.array_equal(cifar_c.load_cifar_c(tmp_path, "fog", 3), full[2 * n : 3 * n])
    assert np.array_equal(cifar_c.load_cifar_c_labels(tmp_path, 5), np.arange(n))
    np.save(tmp_path / "snow.npy", np.zeros((5 * n + 1, 32, 32, 3), np.uint8))
    with pytest.raises(ValueError, match="5N"):
        cifar_c.scan_cifar_c(tmp_path)


def test_cifar_c_bar_layout_in_its_suites_order(tmp_path: Path) -> None:
    """CIFAR-10-C-bar's arrays: with ``suite="cbar"`` listed in the suite's order and its other
    corruptions missing; with ImageNet-C's suite (the default) they are extra files after it."""
    n = 3
    for name in ("sparkles", "blue_noise_sample"):
        np.save(tmp_path / f"{name}.npy", np.zeros((5 * n, 32, 32, 3), np.uint8))
    np.save(tmp_path / "labels.npy", np.zeros(5 * n, np.uint8))
    idx = cifar_c.scan_cifar_c(tmp_path, suite="cbar")
    assert list(idx.files) == ["sparkles", "blue_noise_sample"] and idx.n == n  # the registry's
    assert "ripple" in idx.missing and "fog" not in idx.missing
    plain = cifar_c.scan_cifar_c(tmp_path)
    assert list(plain.files) == ["blue_noise_sample", "sparkles"]  # extra files: sorted
    assert "fog" in plain.missing
    assert "ripple" not in plain.missing


def test_detect_and_which(tmp_path: Path) -> None:
    assert cifar_c.detect(tmp_path) is None
    np.save(tmp_path / "labels.npy", np.arange(50, dtype=np.uint8))
    assert cifar_c.detect(tmp_path) == "cifar-c" and cifar_c.which(tmp_path) == "cifar100-c"
    np.save(tmp_path / "labels.npy", np.arange(5, dtype=np.uint8))
    assert cifar_c.which(tmp_path) == "cifar10-c"

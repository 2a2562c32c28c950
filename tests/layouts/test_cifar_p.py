"""The CIFAR-10-P layout (corruptbench.layouts.cifar_p)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from corruptbench.layouts import cifar_p


def test_cifar_p_layout(tmp_path: Path) -> None:
    np.save(tmp_path / "translate.npy", np.zeros((3, 16, 32, 32, 3), np.uint8))
    np.save(tmp_path / "gaussian_noise_2.npy", np.zeros((3, 31, 32, 32, 3), np.uint8))
    assert sorted(cifar_p.scan_cifar_p(tmp_path)) == ["gaussian_noise_2", "translate"]
    assert cifar_p.load_cifar_p(tmp_path, "translate").shape == (3, 16, 32, 32, 3)

    assert cifar_p.detect(tmp_path) == "cifar-p"
    assert cifar_p.array_name("gaussian_noise", 2) == "gaussian_noise_2.npy"
    np.save(tmp_path / "labels.npy", np.zeros(3, np.uint8))
    assert cifar_p.detect(tmp_path) is None  # CIFAR-C

"""Small stream data: a CIFAR-C folder of 1 x 1 px rows that name themselves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from streams.tta_reference import write_cifar_c

NAMES = ["gaussian_noise", "fog", "contrast"]


@pytest.fixture(scope="session")
def tiny_cifar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``<name>.npy`` (5 x 300 rows of 1 x 1 px: row // 256, row % 256, severity) and labels."""
    labels = np.random.RandomState(5).permutation(np.repeat(np.arange(10), 30))
    return write_cifar_c(tmp_path_factory.mktemp("tiny_cifar"), NAMES, labels)

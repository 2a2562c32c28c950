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


@pytest.fixture(autouse=True)
def one_torch_thread() -> object:
    """One torch thread: the models here are small, and on a loaded 2-core machine a second
    thread spinning costs more than it gives (ResNet-20 TENT steps: 20 s against 0.7 s)."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a test dependency
        yield None
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield None
    torch.set_num_threads(threads)

"""The He et al. CIFAR ResNet: architecture and the akamaster checkpoint."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from corruptbench.models import (  # noqa: E402
    CifarResNet,
    ModelSourceError,
    load_model,
)
from support import SHARED  # noqa: E402

RESNET20 = SHARED / "models" / "resnet20-12fca82f.th"


def test_cifar_resnet_architecture_and_checkpoint() -> None:
    net = CifarResNet(20)
    assert sum(p.numel() for p in net.parameters()) == 269722  # ResNet-20: 0.27 M parameters
    if not RESNET20.is_file():
        pytest.skip(f"{RESNET20} absent")
    m = load_model("cifar_resnet20", weights=RESNET20)
    assert m.num_classes == 10 and m.preprocessing.input_size == 32
    with pytest.raises(ModelSourceError, match="needs weights .* or random_weights"):
        load_model("cifar_resnet20")
    with pytest.raises(ModelSourceError, match="does not fit"):
        load_model("cifar_resnet56", weights=RESNET20)

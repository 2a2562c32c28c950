"""He et al. (2016) CIFAR ResNet with option-A shortcuts, as a torch module factory."""

from __future__ import annotations

from typing import Any

__all__ = ["CifarResNet"]


def _cifar_resnet_class() -> Any:
    import torch
    import torch.nn.functional as F
    from torch import nn

    class _BasicBlock(nn.Module):
        def __init__(self, in_planes: int, planes: int, stride: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, 3, stride=1, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = stride != 1 or in_planes != planes
            self.pad = planes // 4

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            if self.downsample:
                # option A: subsample, zero-pad channels by planes // 4 on each side
                short = F.pad(x[:, :, ::2, ::2], (0, 0, 0, 0, self.pad, self.pad))
            else:
                short = x
            return F.relu(out + short)

    class CifarResNetImpl(nn.Module):
        """CIFAR ResNet-(6n+2): 16/32/64 channels, n BasicBlocks per stage, GAP, linear head."""

        def __init__(self, depth: int = 20, num_classes: int = 10) -> None:
            super().__init__()
            if (depth - 2) % 6:
                raise ValueError(f"CIFAR ResNet depth must be 6n+2, got {depth}")
            n = (depth - 2) // 6
            self.conv1 = nn.Conv2d(3, 16, 3, stride=1, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(16)
            in_planes = 16
            stages = []
            for planes, stride in ((16, 1), (32, 2), (64, 2)):
                blocks = []
                for i in range(n):
                    blocks.append(_BasicBlock(in_planes, planes, stride if i == 0 else 1))
                    in_planes = planes
                stages.append(nn.Sequential(*blocks))
            self.layer1, self.layer2, self.layer3 = stages
            self.linear = nn.Linear(64, num_classes)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.layer3(self.layer2(self.layer1(out)))
            out = F.adaptive_avg_pool2d(out, 1).flatten(1)
            return self.linear(out)

    return CifarResNetImpl


def CifarResNet(depth: int = 20, num_classes: int = 10) -> Any:  # noqa: N802 - class factory
    """Build the He et al. CIFAR ResNet (``depth`` = 20, 32, 44, 56, 110, ...) as a torch module.

    Layout (matches the akamaster/pytorch_resnet_cifar10 checkpoints, see shared/models/README):
    ``conv1`` 3->16 3x3, ``bn1``, ReLU; ``layer1..3`` with 16/32/64 channels and strides 1/2/2;
    parameter-free option-A shortcuts; global average pooling; ``linear`` 64->classes.
    """
    return _cifar_resnet_class()(depth=depth, num_classes=num_classes)

"""Corrupt and RandomCorruption (corruptbench.torch.transforms)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import corruptbench  # noqa: E402
from corruptbench.torch import (  # noqa: E402
    Corrupt,
    RandomCorruption,
    corrupt_batch,
)

ALL = corruptbench.ALL_CORRUPTIONS


DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def _rand_images(n: int, h: int, w: int, seed: int = 0) -> np.ndarray:
    """Smooth-ish random colour images (N, H, W, 3) uint8: gradients plus noise."""
    rs = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    out = []
    for _ in range(n):
        a, b, c = rs.uniform(0.2, 1.0, 3)
        base = np.stack([xx * a / w, yy * b / h, (xx + yy) * c / (h + w)], axis=2) * 255
        out.append(np.clip(base + rs.normal(0, 20, base.shape), 0, 255).astype(np.uint8))
    return np.stack(out)


def _to_tensor(images: np.ndarray) -> torch.Tensor:
    return torch.as_tensor(np.ascontiguousarray(images)).permute(0, 3, 1, 2).contiguous()


def test_corrupt_module():
    t = Corrupt("Gaussian-Noise", 2, generator=torch.Generator().manual_seed(0))
    assert repr(t) == "Corrupt(corruption='gaussian_noise', severity=2, profile='auto')"
    img = _to_tensor(_rand_images(1, 32, 32))[0]
    y = t(img)
    assert y.shape == img.shape and y.dtype == img.dtype
    assert t(img[None]).shape == (1, 3, 32, 32)
    with pytest.raises(ValueError):
        t(img[0])
    with pytest.raises(ValueError):
        Corrupt("fog", 0)
    t2 = Corrupt("contrast", 3)
    assert torch.equal(t2(img), corrupt_batch(img[None], "contrast", 3)[0])
    assert isinstance(t2, torch.nn.Module) and list(t2.parameters()) == []


def test_corrupt_as_dataloader_transform():
    imgs = _to_tensor(_rand_images(6, 32, 32))

    class DS(torch.utils.data.Dataset):
        def __init__(self, transform):
            self.transform = transform

        def __len__(self):
            return len(imgs)

        def __getitem__(self, i):
            return self.transform(imgs[i]), i

    loader = torch.utils.data.DataLoader(DS(Corrupt("shot_noise", 3)), batch_size=4)
    batches = list(loader)
    assert batches[0][0].shape == (4, 3, 32, 32) and batches[0][0].dtype == torch.uint8
    # ... and on the batch after the loader (on the GPU when there is one)
    on_batch = Corrupt("fog", 2)(batches[0][0].to(DEVICES[-1]))
    assert on_batch.device.type == DEVICES[-1]


def test_random_corruption():
    aug = RandomCorruption(generator=torch.Generator().manual_seed(0))
    assert "gaussian_noise" in repr(aug) and aug.severities == (1, 2, 3, 4, 5)
    assert aug.corruptions == tuple(corruptbench.CORRUPTIONS)
    x = _to_tensor(_rand_images(2, 32, 32))
    seen = set()
    for _ in range(12):
        y = aug(x)
        assert y.shape == x.shape and y.dtype == x.dtype
        seen.add(aug.last)
    assert len(seen) > 4
    # reproducible with the same seed
    a = RandomCorruption(["fog", "snow"], (2, 4), generator=torch.Generator().manual_seed(5))
    b = RandomCorruption(["fog", "snow"], (2, 4), generator=torch.Generator().manual_seed(5))
    assert torch.equal(a(x), b(x)) and a.last == b.last
    off = RandomCorruption("noise", p=0.0)
    assert torch.equal(off(x), x) and off.last is None
    with pytest.raises(ValueError):
        RandomCorruption("nothing")
    with pytest.raises(ValueError):
        RandomCorruption(p=2)
    assert RandomCorruption("all").corruptions == tuple(ALL)

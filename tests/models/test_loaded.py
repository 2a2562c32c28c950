"""LoadedModel: predictions, their checks, the record written into results files."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from corruptbench.models import (  # noqa: E402
    LoadedModel,
    ModelSourceError,
    Preprocessing,
)
from support import SHARED  # noqa: E402

RESNET20 = SHARED / "models" / "resnet20-12fca82f.th"


def test_predict_checks_the_output_and_info_records_the_model() -> None:
    m = LoadedModel(
        id="lambda",
        source="test",
        preprocessing=Preprocessing(8),
        forward=lambda x: {"logits": x.mean(dim=(2, 3))},
    )
    assert m.probe() == 3 and m.num_classes == 3
    out = m.predict(torch.ones((2, 3, 8, 8)))
    assert out.dtype == torch.float32 and out.shape == (2, 3)
    bad = LoadedModel("bad", "test", Preprocessing(8), forward=lambda x: x)
    with pytest.raises(ModelSourceError, match=r"returned shape \(2, 3, 8, 8\)"):
        bad.predict(torch.ones((2, 3, 8, 8)))
    info = m.info()
    assert list(info) == [
        "id",
        "source",
        "preprocessing",
        "input_size",
        "num_classes",
        "backend",
        "weights",
        "weights_sha256",
        "preprocessing_params",
    ]
    assert info["preprocessing_params"]["mean"] == [0.485, 0.456, 0.406]


def test_cuda_without_a_gpu_is_a_clear_error() -> None:
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    m = LoadedModel("x", "test", Preprocessing(8), forward=lambda x: x)
    with pytest.raises(ModelSourceError, match="^device cuda requested but"):
        m.to("cuda")

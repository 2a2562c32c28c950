"""Preprocessing: resize only when needed, normalisation, CLAHE."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from corruptbench.models import (  # noqa: E402
    LoadedModel,
    ModelSourceError,
    Preprocessing,
    clahe,
    load_model,
)
from support import SHARED  # noqa: E402

RESNET20 = SHARED / "models" / "resnet20-12fca82f.th"


def test_preprocessing_resizes_only_when_needed(synthetic_image: np.ndarray) -> None:
    p224 = Preprocessing(224)
    np.testing.assert_array_equal(p224.prepare(synthetic_image), synthetic_image)  # no resize/crop
    assert Preprocessing(240).prepare(synthetic_image).shape == (240, 240, 3)
    x = p224.normalize(torch.full((1, 3, 2, 2), 255, dtype=torch.uint8))
    assert torch.allclose(
        x[0, :, 0, 0], torch.tensor([(1 - 0.485) / 0.229, (1 - 0.456) / 0.224, (1 - 0.406) / 0.225])
    )
    assert "only if" in p224.describe() and "0.485" in p224.describe()


def test_clahe_option(synthetic_image: np.ndarray) -> None:
    out = clahe(synthetic_image)
    assert out.shape == synthetic_image.shape and out.dtype == np.uint8
    assert not np.array_equal(out, synthetic_image)
    np.testing.assert_array_equal(out, clahe(synthetic_image))
    p = Preprocessing(224, enhance="clahe")
    assert "CLAHE" in p.describe() and "clipLimit 2" in p.describe()
    with pytest.raises(ModelSourceError):
        Preprocessing(224, enhance="histeq")
    m = load_model("python:corruptbench.models:CifarResNet", enhance="clahe", probe=False)
    assert isinstance(m, LoadedModel) and m.preprocessing.enhance == "clahe"

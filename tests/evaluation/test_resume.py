"""Resuming: which previous results files are accepted, and the messages for the others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from corruptbench.evaluation import EvalError  # noqa: E402
from corruptbench.evaluation.resume import load_previous, model_key  # noqa: E402
from evaluation.support import fast_model  # noqa: E402


def test_load_previous(tmp_path: Path) -> None:
    model = fast_model()
    out = tmp_path / "r.json"
    assert load_previous(None, "c", model, False) is None
    assert load_previous(out, "c", model, False) is None  # absent
    out.write_text("{not json")
    with pytest.raises(EvalError, match="not a readable results file .*; pass overwrite to"):
        load_previous(out, "c", model, False)
    assert load_previous(out, "c", model, True) is None  # overwrite: start afresh
    out.write_text(json.dumps({"schema": "corruptbench.results/1", "kind": "p"}))
    with pytest.raises(EvalError, match="is not an eval-c results file .* choose another out$"):
        load_previous(out, "c", model, False)
    good = {"schema": "corruptbench.results/1", "kind": "c", "model": model.info()}
    out.write_text(json.dumps(good))
    assert load_previous(out, "c", model, False) == good
    with pytest.raises(EvalError, match="holds results of another model"):
        load_previous(out, "c", fast_model(name="other"), False)
    assert model_key(model.info()) == ["counting", model.info()["preprocessing"], None, 1000]

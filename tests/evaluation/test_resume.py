"""Resuming: which previous results files are accepted, and the messages for the others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from corruptbench.evaluation import EvalError  # noqa: E402
from corruptbench.evaluation.resume import load_previous, model_key  # noqa: E402
from corruptbench.results import Results
from evaluation.support import fast_model  # noqa: E402


def test_load_previous(tmp_path: Path) -> None:
    model = fast_model()
    out = tmp_path / "r.json"
    assert load_previous(None, "c", model, False) is None
    assert load_previous(out, "c", model, False) is None  # absent
    out.write_text("{not json")
    with pytest.raises(EvalError, match="not a readable eval-c results file .*; pass overwrite to"):
        load_previous(out, "c", model, False)
    assert load_previous(out, "c", model, True) is None  # overwrite: start afresh
    # a file that is not a valid results file is refused, naming what is wrong
    out.write_text(json.dumps({"schema": "corruptbench.results/1", "kind": "c"}))
    with pytest.raises(EvalError, match="missing key 'model'"):
        load_previous(out, "c", model, False)
    errors = {"fog": [0.5, None, None, None, None]}
    p_part = {"flip_probability": {"rotate": 0.1}}
    Results.from_dict(
        {"schema": "corruptbench.results/1", "kind": "p", "model": model.info(), **p_part}
    ).to_json(out)
    with pytest.raises(EvalError, match="is not an eval-c results file .* choose another out$"):
        load_previous(out, "c", model, False)
    good = {
        "schema": "corruptbench.results/1",
        "kind": "c",
        "model": model.info(),
        "errors": errors,
    }
    Results.from_dict(good).to_json(out)
    prev = load_previous(out, "c", model, False)
    assert isinstance(prev, Results) and prev.errors == errors and prev.model == model.info()
    with pytest.raises(EvalError, match="holds results of another model"):
        load_previous(out, "c", fast_model(name="other"), False)
    assert model_key(model.info()) == ["counting", model.info()["preprocessing"], None, 1000]

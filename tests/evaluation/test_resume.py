"""Resuming: which previous results files are accepted, and the messages for the others."""

from __future__ import annotations

import json
import re
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
    assert model_key(model.info()) == ["counting", model.info()["preprocessing"], None, 1000, None]
    # probabilities or a class map are another model's outputs: not resumed as these
    assert model_key({**model.info(), "outputs": {"kind": "probabilities"}}) != model_key(
        model.info()
    )


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (
            lambda t: t.replace('"brightness": [\n   6,', '"brightness": [\n   -3,'),
            "counts['brightness'][severity 1] must be a non-negative integer, got -3",
        ),
        (
            lambda t: re.sub(r'("errors": \{\s*"brightness": \[\s*)[0-9.]+', r"\1NaN", t),
            "errors['brightness'][severity 1] is nan (not a finite number",
        ),
        (lambda t: t.replace('"mce": null', '"mce": NaN'), "'mce' is nan (not a finite number"),
    ],
)
def test_resuming_onto_a_damaged_file_is_one_clear_error(tmp_path: Path, tamper, message) -> None:
    # issue 22 item 4: NaN errors and means were read as null (the cell was evaluated again, the
    # mean shown as a dash); a negative count is refused as before
    import numpy as np

    from corruptbench.evaluation import OnTheFly, evaluate_c
    from evaluation.support import quiet

    rng = np.random.default_rng(0)
    data = OnTheFly(rng.integers(0, 256, (6, 32, 32, 3), dtype=np.uint8), labels=[1, 2, 3] * 2)
    out = tmp_path / "r.json"
    opts: dict = dict(corruptions=["brightness"], severities=[1, 2])
    evaluate_c(fast_model(10, 32), data, run=quiet(workers=0, out=out), **opts)
    text = tamper(out.read_text())
    assert text != out.read_text()
    out.write_text(text)
    with pytest.raises(EvalError) as err:
        evaluate_c(fast_model(10, 32), data, run=quiet(workers=0, out=out), **opts)
    assert f"{out} exists but is not a readable eval-c results file" in str(err.value)
    assert message in str(err.value) and "pass overwrite to replace it" in str(err.value)

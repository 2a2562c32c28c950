"""eval-c's checks of its inputs against each other (corruptbench.evaluation.checks): a
``--baseline`` results file of other images noted, of another profile refused (issue 33 item 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corruptbench.evaluation import EvalError, evaluate_c

from .support import fast_model, quiet


def test_a_baseline_of_other_images_is_noted_and_of_another_profile_refused(
    small_c: Path, tmp_path: Path
) -> None:
    ref = tmp_path / "ref.json"
    kw = dict(corruptions=["gaussian_noise"])
    evaluate_c(fast_model(name="ref"), small_c, limit=4, run=quiet(out=ref, workers=0), **kw)
    res = evaluate_c(fast_model(), small_c, baseline=str(ref), run=quiet(workers=0), **kw)
    assert res.c is not None and res.c.baseline == str(ref)
    (note,) = [n for n in res.dataset.notes if n.startswith(f"baseline {ref}")]
    assert "other images in 5 cells (gaussian_noise/1, " in note and "limit subset" in note
    assert note in res.summary().replace("\n", " ") or "other images in 5 cells" in res.summary()
    # measured on the same images: no note
    same = evaluate_c(fast_model(), small_c, limit=4, baseline=str(ref), run=quiet(workers=0), **kw)
    assert not [n for n in same.dataset.notes if n.startswith("baseline")]
    doc = json.loads(ref.read_text())
    doc["dataset"]["profile"] = "tiny"
    ref.write_text(json.dumps(doc))
    with pytest.raises(EvalError, match="^baseline '.*ref.json': was measured on 'tiny' data"):
        evaluate_c(fast_model(), small_c, baseline=str(ref), run=quiet(workers=0), **kw)

"""ImageNet-P summaries: mFR / mT5D with a measured baseline, load_p_baseline."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from corruptbench.metrics import (
    load_p_baseline,
    summarize_p,
)
from corruptbench.perturbations import TEST_PERTURBATIONS

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
ROBUSTBENCH_CSV = SHARED / "data" / "published" / "robustbench_imagenet_c.csv"


def test_summarize_p_without_baseline():
    fp = {p: 0.05 for p in TEST_PERTURBATIONS}
    s = summarize_p(fp, {p: 2.0 for p in TEST_PERTURBATIONS})
    assert s.mfr is None and s.mt5d is None and s.fr == {}
    assert s.mean_fp == pytest.approx(0.05) and s.mean_t5d == pytest.approx(2.0)
    assert "#49" in s.notes and "never published" in s.notes
    # the note speaks to both kinds of user (it said "Pass baseline= ... (see load_p_baseline)")
    assert "--baseline FILE on the command line" in s.notes and "baseline=FILE" in s.notes
    assert not s.partial and s.baseline is None
    json.dumps(s.to_dict())


def test_summarize_p_with_baseline(tmp_path):
    fp = {p: 0.02 for p in TEST_PERTURBATIONS} | {"shear": 0.03}
    t5d = {p: 1.0 for p in TEST_PERTURBATIONS}
    base = {
        "flip_probability": {p: 0.04 for p in fp},
        "top5_distance": {p: 4.0 for p in TEST_PERTURBATIONS},
    }
    s = summarize_p(fp, t5d, baseline=base)
    assert s.mfr == pytest.approx(0.5) and s.mt5d == pytest.approx(0.25)
    assert s.validation_mfr == pytest.approx(0.75) and s.validation_mt5d is None
    assert s.fr["shear"] == pytest.approx(0.75) and not s.partial

    path = tmp_path / "alexnet_p.json"
    path.write_text(json.dumps({"model": "alexnet", **base}))
    assert summarize_p(fp, t5d, baseline=path).mfr == pytest.approx(0.5)
    assert "alexnet_p.json" in summarize_p(fp, baseline=str(path)).baseline

    partial = summarize_p({"rotate": 0.02, "tilt": 0.01}, baseline=base)
    assert partial.partial and len(partial.missing) == 8
    assert partial.mfr == pytest.approx(np.mean([0.5, 0.25])) and partial.mt5d is None


def test_load_p_baseline_csv(tmp_path):
    path = tmp_path / "base.csv"
    path.write_text("perturbation,fp,t5d\nGaussian Noise,0.1,3.5\nrotate,0.05,\n")
    base = load_p_baseline(path)
    assert base == {
        "flip_probability": {"gaussian_noise": 0.1, "rotate": 0.05},
        "top5_distance": {"gaussian_noise": 3.5},
    }
    path.write_text("perturbation,flip_probability\nrotate,0.05\n")
    assert load_p_baseline(path)["flip_probability"] == {"rotate": 0.05}
    path.write_text("name,fp\nrotate,0.05\n")
    with pytest.raises(ValueError, match="header"):
        load_p_baseline(path)
    path.write_text("perturbation,fp\nrotat,0.05\n")
    with pytest.raises(ValueError, match="did you mean 'rotate'"):
        load_p_baseline(path)
    path.write_text("perturbation,fp\nrotate,abc\n")
    with pytest.raises(ValueError, match="not a number"):
        load_p_baseline(path)
    bad_json = tmp_path / "base.json"
    bad_json.write_text(json.dumps({"fp": {"rotate": 0.1}}))
    with pytest.raises(ValueError, match="flip_probability"):
        load_p_baseline(bad_json)


@pytest.mark.parametrize(
    ("fp", "t5d", "exc", "match"),
    [
        ({"rotate": 5.0}, None, ValueError, "percentage"),
        ({"rotat": 0.1}, None, ValueError, "did you mean 'rotate'"),
        ({"rotate": 0.1}, {"rotate": 20.0}, ValueError, r"\[0, 15\]"),
        ({}, None, ValueError, "empty"),
        ({"impulse_noise": 0.1}, None, ValueError, "unknown perturbation"),
    ],
)
def test_summarize_p_validation(fp, t5d, exc, match):
    with pytest.raises(exc, match=match):
        summarize_p(fp, t5d)

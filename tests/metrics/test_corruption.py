"""ImageNet-C metrics: CE / mCE / relative mCE, input checks (the AlexNet table itself:
tests/tables/test_alexnet_table.py)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from corruptbench.corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS
from corruptbench.metrics import (
    summarize_c,
)
from corruptbench.tables.alexnet import ALEXNET_C_AVERAGES, ALEXNET_C_ERRORS, ALEXNET_CLEAN_ERROR

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
ROBUSTBENCH_CSV = SHARED / "data" / "published" / "robustbench_imagenet_c.csv"


def alexnet_errors():
    return {name: list(v) for name, v in ALEXNET_C_ERRORS.items()}


# ------------------------------------------------------------------------------------------------
# summarize_c
# ------------------------------------------------------------------------------------------------
def test_alexnet_against_itself_is_exactly_one():
    s = summarize_c(alexnet_errors(), clean_error=ALEXNET_CLEAN_ERROR)
    assert s.mce == 1.0 and s.relative_mce == 1.0
    assert s.extra_ce == 1.0 and s.extra_relative_ce == 1.0
    assert all(v == 1.0 for v in s.ce.values()) and all(v == 1.0 for v in s.relative_ce.values())
    assert not s.partial and s.missing == [] and s.extra_missing == [] and s.incomplete == []
    assert s.mean_error == pytest.approx(0.788993, abs=1e-6)
    assert s.extra_mean_error == pytest.approx(
        np.mean([ALEXNET_C_AVERAGES[n] for n in EXTRA_CORRUPTIONS])
    )
    assert "AlexNet" in s.baseline and s.baseline_clean_error == ALEXNET_CLEAN_ERROR
    json.dumps(s.to_dict())  # serialisable


def test_ce_formula_and_relative():
    errors = {n: [min(1.0, 0.6 * e) for e in v] for n, v in alexnet_errors().items()}
    s = summarize_c(errors, clean_error=0.2)
    for n in ALL_CORRUPTIONS:
        assert s.ce[n] == pytest.approx(sum(errors[n]) / sum(ALEXNET_C_ERRORS[n]))
        expected = (np.mean(errors[n]) - 0.2) / (ALEXNET_C_AVERAGES[n] - ALEXNET_CLEAN_ERROR)
        assert s.relative_ce[n] == pytest.approx(expected)
    assert s.mce == pytest.approx(np.mean([s.ce[n] for n in BENCHMARK_CORRUPTIONS]))
    assert s.extra_ce == pytest.approx(np.mean([s.ce[n] for n in EXTRA_CORRUPTIONS]))
    assert s.mce == pytest.approx(0.6)


def test_no_clean_error_means_no_relative():
    s = summarize_c(alexnet_errors())
    assert s.mce == 1.0 and s.relative_mce is None and set(s.relative_ce.values()) == {None}
    assert "clean_error" in s.notes


def test_uniform_baseline():
    errors = {"fog": [0.1, 0.2, 0.3, 0.4, 0.5], "saturate": [0.2] * 5}
    s = summarize_c(errors, clean_error=0.05, baseline="uniform")
    assert s.ce["fog"] == pytest.approx(0.3) and s.mce == pytest.approx(0.3)
    assert s.relative_ce["fog"] == pytest.approx(0.25) and s.relative_mce == pytest.approx(0.25)
    assert s.extra_ce == pytest.approx(0.2) and s.mean_error == pytest.approx(0.3)
    assert (
        s.partial
        and len(s.missing) == 14
        and s.extra_missing == ["speckle_noise", "gaussian_blur", "spatter"]
    )
    with pytest.raises(ValueError, match="uniform"):
        summarize_c(errors, baseline="uniform", baseline_clean_error=0.4)


def test_partial_and_missing_severities():
    errors = alexnet_errors()
    del errors["fog"]
    errors["snow"][2] = None
    errors["contrast"][0] = float("nan")
    s = summarize_c(errors, clean_error=ALEXNET_CLEAN_ERROR)
    assert s.partial and s.missing == ["snow", "fog", "contrast"]
    assert s.incomplete == ["snow", "contrast"]
    assert s.ce["snow"] is None and s.mean_errors["snow"] is None and "fog" not in s.ce
    assert s.mce == 1.0 and s.relative_mce == 1.0  # mean over the 12 present
    assert s.mean_error == pytest.approx(
        np.mean(
            [
                ALEXNET_C_AVERAGES[n]
                for n in BENCHMARK_CORRUPTIONS
                if n not in ("snow", "fog", "contrast")
            ]
        )
    )
    only_extra = summarize_c({"spatter": ALEXNET_C_ERRORS["spatter"]})
    assert only_extra.mce is None and only_extra.partial and only_extra.extra_ce == 1.0


def test_names_are_forgiving_but_checked():
    s = summarize_c(
        {
            "Gaussian Noise": ALEXNET_C_ERRORS["gaussian_noise"],
            "JPEG-Compression": ALEXNET_C_ERRORS["jpeg_compression"],
        }
    )
    assert set(s.ce) == {"gaussian_noise", "jpeg_compression"}
    with pytest.raises(ValueError, match="did you mean 'gaussian_noise'"):
        summarize_c({"gausian_noise": [0.5] * 5})
    with pytest.raises(ValueError, match="elastic_transform"):
        summarize_c({"elastic": [0.5] * 5})
    with pytest.raises(ValueError, match="twice"):
        summarize_c({"fog": [0.5] * 5, "Fog": [0.5] * 5})


@pytest.mark.parametrize(
    ("errors", "kwargs", "exc", "match"),
    [
        ({"fog": [0.5] * 4}, {}, ValueError, "has 4 values; expected 5"),
        ({"fog": 0.5}, {}, TypeError, "sequence of 5"),
        ({"fog": [0.5, 0.5, 76.7, 0.5, 0.5]}, {}, ValueError, "percentage"),
        ({"fog": [0.5, 0.5, -0.1, 0.5, 0.5]}, {}, ValueError, r"outside \[0, 1\]"),
        ({"fog": [0.5, 0.5, 150.0, 0.5, 0.5]}, {}, ValueError, r"outside \[0, 1\]"),
        ({"fog": [0.5, 0.5, "x", 0.5, 0.5]}, {}, TypeError, "number"),
        ({"fog": [0.5] * 5}, {"clean_error": 23.85}, ValueError, "percentage"),
        ({"fog": [0.5] * 5}, {"baseline": "resnet"}, ValueError, "unknown baseline"),
        (
            {"fog": [0.5] * 5},
            {"baseline": {"fog": [0.5, None, 0.5, 0.5, 0.5]}},
            ValueError,
            "missing",
        ),
        ({}, {}, ValueError, "empty"),
        ([0.5] * 5, {}, TypeError, "mapping"),
    ],
)
def test_summarize_c_validation(errors, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        summarize_c(errors, **kwargs)


def test_mapping_baseline_without_corruption_is_reported():
    base = {"fog": [0.5] * 5}
    s = summarize_c({"fog": [0.25] * 5, "snow": [0.3] * 5}, baseline=base)
    assert s.ce == {"snow": None, "fog": 0.5} and "snow" in s.missing and "snow" in s.notes
    assert s.relative_mce is None  # no baseline clean error given


# ------------------------------------------------------------------------------------------------
# RobustBench published figures
# ------------------------------------------------------------------------------------------------
def _robustbench_errors():
    if not ROBUSTBENCH_CSV.is_file():
        pytest.skip(f"published figures not available: {ROBUSTBENCH_CSV} is absent")
    with ROBUSTBENCH_CSV.open(newline="") as f:
        rows = list(csv.reader(f))
    names, severities = rows[0][1:], [int(s) for s in rows[1][1:]]
    models = {}
    for row in rows[2:]:
        errs = {n: [None] * 5 for n in dict.fromkeys(names)}
        for name, sev, acc in zip(names, severities, row[1:]):
            errs[name][sev - 1] = 1.0 - float(acc)  # accuracies -> errors
        models[row[0]] = errs
    return models


def test_robustbench_r50_mce():
    models = _robustbench_errors()
    alex, r50 = models["AlexNet"], models["Standard_R50"]
    assert set(alex) == set(BENCHMARK_CORRUPTIONS)
    self_s = summarize_c(alex, baseline=alex)
    assert self_s.mce * 100 == pytest.approx(100.0, abs=1e-12) and not self_s.partial
    s = summarize_c(r50, clean_error=1 - 0.7672, baseline=alex, baseline_clean_error=1 - 0.5624)
    assert abs(s.mce * 100 - 76.38) < 0.005, s.mce
    assert not s.partial
    # their "mean corruption accuracy" column: 21.12 % and 39.48 %
    assert 1 - self_s.mean_error == pytest.approx(0.2112, abs=5e-5)
    assert 1 - s.mean_error == pytest.approx(0.3948, abs=5e-5)
    official = summarize_c(r50, clean_error=1 - 0.7672)  # published AlexNet constants
    print(
        f"\nRobustBench Standard_R50: mCE vs their AlexNet row {s.mce * 100:.4f} % "
        f"(relative {s.relative_mce * 100:.2f} %); vs published AlexNet constants "
        f"{official.mce * 100:.4f} % (relative {official.relative_mce * 100:.2f} %)"
    )
    assert (
        0.6 < official.mce < 0.9
    )  # a different (5000-image, resized) subset: reported, not pinned

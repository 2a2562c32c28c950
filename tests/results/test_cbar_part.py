"""The ImageNet-C-bar / CIFAR-10-C-bar part of a results file: test_c_bar.py's numbers, the file
round trip, the files it refuses, and files without it (older ones) unchanged."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from corruptbench.metrics.calibration import CalibrationStats
from corruptbench.results import CBarResults, Results, make_calibration_part
from results.support import make_cbar, make_results, write


def _read(data: dict[str, Any], tmp_path: Path, name: str = "r.json") -> Results:
    return Results.from_json(write(tmp_path, name, data))


def test_means_are_test_c_bars() -> None:
    """Per corruption the mean over its levels evaluated (``<name>-avg``), overall the mean over
    every cell of the benchmark's corruptions (``overall-avg``); other C-bar corruptions apart."""
    part = CBarResults(
        "imagenet_c_bar",
        {
            "sparkles": [0.1, 0.2, 0.3, 0.4, 0.5],
            "caustic_refraction": [0.5, None, None, None, 0.9],
            "ripple": [0.9, 0.9, 0.9, 0.9, 1.0],  # CIFAR-10-C-bar's: outside ImageNet-C-bar
        },
    )
    assert part.corruption_errors() == pytest.approx(
        {"sparkles": 0.3, "caustic_refraction": 0.7, "ripple": 0.92}
    )
    assert part.mean_error == pytest.approx(np.mean([0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 0.9]))
    assert part.extra_mean_error == pytest.approx(0.92)
    assert part.partial and part.covered == 1 and "caustic_refraction" in part.missing
    assert part.levels["caustic_refraction"] == [2.35, 3.2, 4.9, 6.6, 9.15]
    assert part.levels["ripple"] == [3.25, 4.75, 6.25, 7.75, 9.25]  # ours: levels 1,3,5,7,9
    assert part.level_key("caustic_refraction", 5) == "caustic_refraction-9.15"
    full = CBarResults(
        "cifar10_c_bar", {n: [0.5] * 5 for n in CBarResults("cifar10_c_bar", {}).corruptions}
    )
    assert not full.partial and full.covered == 10 and full.mean_error == pytest.approx(0.5)
    assert full.levels["sparkles"] == [0.7, 3.5, 5.6, 6.3, 7.0]


def test_round_trip_is_byte_identical_and_derived_keys_are_filled(tmp_path: Path) -> None:
    data = make_cbar("m", with_c=True)
    res = _read(data, tmp_path)
    assert res.suites == ("imagenet_c", "cbar") and res.kind == "c"
    assert res.cbar_mean_error == res.cbar.mean_error  # type: ignore[union-attr]
    text = res.to_text()
    again = Results.from_dict(json.loads(text), "again")
    assert again.to_text() == text and again.cbar == res.cbar
    # a file whose derived keys are absent (another writer): computed when read
    bare = copy.deepcopy(data)
    for key in (
        "levels",
        "corruption_errors",
        "mean_error",
        "extra_mean_error",
        "partial",
        "missing",
    ):
        del bare["cbar"][key]
    assert _read(bare, tmp_path, "bare.json").cbar == res.cbar
    only = make_cbar("m")
    assert "errors" not in only and _read(only, tmp_path, "only.json").suites == ("cbar",)
    # a file written before the C-bar part existed reads as it did
    old = make_results("old", 1.0, 0.2)
    assert _read(old, tmp_path, "old.json").cbar is None and "cbar" not in old


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["cbar"].update(mean_error=0.5), r"'cbar.mean_error' = 0.5 disagrees"),
        (
            lambda d: d["cbar"]["corruption_errors"].update(sparkles=0.1),
            "'cbar.corruption_errors' = .* disagrees with the errors",
        ),
        (
            lambda d: d["cbar"]["levels"].update(sparkles=[1, 2, 3, 4, 5.5]),
            "'cbar.levels' = .* disagrees",
        ),
        (lambda d: d["cbar"].update(partial=True), "'cbar.partial' = True disagrees"),
        (lambda d: d["cbar"].update(benchmark="c_bar"), "cbar.benchmark must be one of"),
        (
            lambda d: d["cbar"]["errors"].update(fog=[0.1] * 5),
            "'cbar.errors' names an unknown C-bar corruption 'fog'",
        ),
        (
            lambda d: d["cbar"]["errors"].update(sparkles=[0.1] * 4),
            r"cbar.errors\['sparkles'\] must be a list of 5",
        ),
        (
            lambda d: d["cbar"]["errors"]["sparkles"].__setitem__(0, 30.0),
            r"outside \[0, 1\] \(fractions are expected, not percentages\)",
        ),
        (
            lambda d: d["cbar"]["errors"]["sparkles"].__setitem__(0, math.nan),
            "is nan",
        ),
        (
            lambda d: d["cbar"]["errors"]["sparkles"].__setitem__(0, 0.1234),
            "is not a whole number of its 400 images",
        ),
        (lambda d: d["cbar"].update(errors={}), "'cbar.errors' is empty"),
        (lambda d: d["cbar"].update(clean_error=0.5), "one run measures the clean images once"),
    ],
)
def test_bad_parts_are_refused_naming_the_key(edit: Any, message: str, tmp_path: Path) -> None:
    data = make_cbar("m", with_c=True)
    edit(data)
    text = json.dumps(data, allow_nan=True)
    with pytest.raises(ValueError, match=f"^{tmp_path / 'bad.json'}: .*{message}"):
        Results.from_json(write(tmp_path, "bad.json", text))


def test_calibration_of_cbar_cells_is_checked_against_the_cbar_part(tmp_path: Path) -> None:
    """A C-bar cell's statistics must count its images and its errors (the C-bar part's); the
    severity means of a file of C-bar cells only are C-bar's."""
    rng = np.random.default_rng(0)
    data = make_cbar("m", n=2, clean=None)
    stats = {}
    for name, row in data["cbar"]["errors"].items():
        for sev, err in enumerate(row, 1):
            wrong = round(err * 400)
            labels = np.zeros(400, int)
            logits = rng.normal(0, 1, (400, 3)).astype(np.float32)
            logits[:, 0] += 5
            logits[:wrong, 0] -= 10  # exactly `wrong` misses
            stats[f"{name}/{sev}"] = CalibrationStats(30).update(logits, labels)
    data["calibration"] = make_calibration_part(stats, 15).to_dict()
    res = _read(data, tmp_path)
    cal = res.calibration
    assert cal is not None and cal.groups() == ("cbar",) and cal.main_group() == "cbar"
    assert cal.severity_means("cbar")["corruptions"] == [2] * 5
    assert set(res.to_dict()["calibration"]["severity_means"]) == {"cbar"}
    bad = copy.deepcopy(data)
    bad["cbar"]["counts"][next(iter(bad["cbar"]["counts"]))] = [800] * 5  # still whole numbers
    with pytest.raises(
        ValueError, match="calibration.stats.* = 400 but the file counts 800 images"
    ):
        _read(bad, tmp_path, "bad.json")

"""The calibration part of a results file: what Results exposes (each number against a per-sample
transcription of its definition), the file round trip, and the files it refuses."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

from corruptbench.metrics.calibration import CalibrationStats
from corruptbench.results import Results, make_calibration_part
from metrics.test_calibration import reference
from results.support import (
    CAL_NAMES,
    CAL_SEVERITIES,
    calibration_batches,
    make_calibrated,
    make_results,
    write,
)

BENCH = ("gaussian_noise", "fog")  # the benchmark corruptions of CAL_NAMES (speckle: extra)


def _res(**kw: Any) -> Results:
    return Results.from_dict(make_calibrated(**kw), "cal.json")


def test_cells_match_the_definitions() -> None:
    batches = calibration_batches()
    cal = _res().calibration
    assert cal is not None and cal.ece_bins == 15 and cal.bins == 30
    assert list(cal.stats) == ["clean"] + [f"{n}/{s}" for n in CAL_NAMES for s in CAL_SEVERITIES]
    for key, (logits, labels) in batches.items():
        ref = reference(logits.astype(float).tolist(), labels.tolist(), 15)
        got = cal.cell(key)
        assert got is not None and got["n"] == len(labels)
        for metric, value in ref.items():
            assert got[metric] == pytest.approx(value, rel=1e-12, abs=1e-15), (key, metric)
    assert cal.cell("fog", 3) == cal.cell("fog/3") and cal.clean == cal.cell("clean")
    assert cal.cell("fog", 2) is None and cal.cell("snow", 1) is None
    # Ovadia et al.'s 30 bins from the same file
    logits, labels = batches["fog/5"]
    ref30 = reference(logits.astype(float).tolist(), labels.tolist(), 30)["ece"]
    assert cal.stats["fog/5"].ece(30) == pytest.approx(ref30, rel=1e-12)


def test_severity_means_over_the_15_and_the_19() -> None:
    batches = calibration_batches()
    cal = _res().calibration
    assert cal is not None

    def mean(names: tuple[str, ...], sev: int, metric: str) -> float:
        vals = [
            reference(*(x.tolist() for x in batches[f"{n}/{sev}"]), 15)[metric]  # type: ignore[arg-type]
            for n in names
        ]
        return math.fsum(vals) / len(vals)

    bench, every = cal.severity_means("benchmark"), cal.severity_means("all")
    assert bench["corruptions"] == [2, 0, 2, 0, 2] and every["corruptions"] == [3, 0, 3, 0, 3]
    for metric in ("nll", "brier", "ece", "top1_error", "top5_error", "mean_confidence"):
        for i, sev in enumerate(range(1, 6)):
            if sev not in CAL_SEVERITIES:
                assert bench[metric][i] is None and every[metric][i] is None
                continue
            assert bench[metric][i] == pytest.approx(mean(BENCH, sev, metric), rel=1e-12)
            assert every[metric][i] == pytest.approx(mean(CAL_NAMES, sev, metric), rel=1e-12)
    assert cal.ece_by_severity() == bench["ece"] and cal.nll_by_severity("all") == every["nll"]
    assert cal.worst_severity == 5 and cal.has_severities
    with pytest.raises(ValueError, match="metric must be one of"):
        cal.by_severity("accuracy")


def test_pooled_severity_is_every_cell_merged() -> None:
    batches = calibration_batches()
    cal = _res().calibration
    assert cal is not None
    pooled = cal.pooled(5)
    assert pooled is not None and pooled.n == 3 * 60
    one = CalibrationStats(30)
    for n in CAL_NAMES:
        one.update(*batches[f"{n}/5"])
    assert pooled == one
    assert cal.pooled(2) is None
    assert cal.pooled(5, "benchmark").n == 2 * 60  # type: ignore[union-attr]


def test_round_trip_is_byte_identical(tmp_path: Path) -> None:
    res = _res()
    res.to_json(tmp_path / "a.json")
    again = Results.from_json(tmp_path / "a.json")
    assert (
        again.calibration is not None and again.calibration.to_dict() == res.calibration.to_dict()
    )  # type: ignore[union-attr]
    again.to_json(tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    doc = json.loads((tmp_path / "a.json").read_text())
    assert list(doc["calibration"]) == ["ece_bins", "bins", "cells", "severity_means", "stats"]
    assert list(doc).index("calibration") > list(doc).index("missing")


def test_ece_bins_30_reads_the_same_statistics() -> None:
    cal15, cal30 = _res().calibration, _res(ece_bins=30).calibration
    assert cal15 is not None and cal30 is not None
    assert cal30.bins == 30 and cal15.stats == cal30.stats
    assert cal30.cell("fog/3")["ece"] == cal15.stats["fog/3"].ece(30)  # type: ignore[index]
    assert _res(ece_bins=10).calibration.bins == 40  # type: ignore[union-attr]


def test_files_without_calibration_stay_readable() -> None:
    res = Results.from_dict(make_results("old", 0.9, 0.25), "old.json")
    assert res.calibration is None and "calibration" not in res.to_dict()
    data = make_calibrated()
    data["calibration"] = None
    assert Results.from_dict(data, "x").calibration is None


def test_derived_numbers_are_recomputed_when_absent() -> None:
    data = make_calibrated()
    for key in ("cells", "severity_means", "bins"):
        del data["calibration"][key]
    assert Results.from_dict(data, "x").calibration == _res().calibration


def _tamper(change: Any) -> dict:
    data = copy.deepcopy(make_calibrated())
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["calibration"]["cells"]["fog/3"].update(ece=0.5),
            r"'calibration\.cells\['fog/3'\]\['ece'\]' = 0\.5 disagrees with the stored "
            r"statistics, which give 0\.",
        ),
        (
            lambda d: d["calibration"]["severity_means"]["benchmark"]["nll"].__setitem__(4, 9.0),
            r"'calibration\.severity_means\['benchmark'\]\['nll'\]\[4\]' = 9\.0 disagrees",
        ),
        (
            lambda d: d["calibration"]["severity_means"]["all"]["corruptions"].__setitem__(0, 19),
            r"'calibration\.severity_means\['all'\]\['corruptions'\]\[0\]' = 19 disagrees .* give 3$",
        ),
        (
            lambda d: d["calibration"]["cells"].pop("clean"),
            r"'calibration\.cells' = .* disagrees",
        ),
        (lambda d: d["calibration"].update(bins=60), r"'calibration\.bins' = 60 disagrees"),
        (
            lambda d: d["calibration"].update(ece_bins=7),
            r"calibration: statistics of 30 bins do not give the ECE of 7 bins exactly",
        ),
        (
            lambda d: d["calibration"].update(ece_bins=0),
            r"calibration: 'ece_bins' must be a positive integer, got 0",
        ),
        (
            lambda d: d["counts"]["fog"].__setitem__(2, 120),
            r"'calibration\.stats\['fog/3'\]\.n' = 60 but the file counts 120 images in fog/3",
        ),
        (
            lambda d: d["errors"]["fog"].__setitem__(2, 0.0),
            r"'calibration\.stats\['fog/3'\]\.top1_correct' = \d+ of 60 disagrees with the "
            r"file's error 0\.0 for fog/3",
        ),
        (
            lambda d: d["errors"]["fog"].__setitem__(2, None),
            r"'calibration\.stats\['fog/3'\]' is given but the file has no error for fog/3",
        ),
        (
            lambda d: d["calibration"]["stats"].__setitem__(
                "fog/9", d["calibration"]["stats"]["fog/3"]
            ),
            r"'calibration\.stats' names an unknown cell 'fog/9'",
        ),
        (
            lambda d: d["calibration"]["stats"].__setitem__(
                "rotate/0", d["calibration"]["stats"]["fog/3"]
            ),
            r"'calibration\.stats' has 'rotate/0', a perturbation's cell, in eval-c results",
        ),
        (
            lambda d: d["calibration"]["stats"]["fog/3"].update(n=61),
            r"'calibration\.stats\['fog/3'\]': inconsistent statistics: 'bin_count' sums to 60",
        ),
        (
            lambda d: d["calibration"]["stats"]["fog/3"].update(nll_sum=-1),
            r"'calibration\.stats\['fog/3'\]': 'nll_sum' must be a non-negative integer",
        ),
        (lambda d: d["calibration"].pop("stats"), r"missing key calibration\.'stats'"),
    ],
)
def test_a_file_that_contradicts_itself_is_refused(change: Any, message: str) -> None:
    with pytest.raises(ValueError, match="^cal.json: " + message):
        Results.from_dict(_tamper(change), "cal.json")


def test_a_refused_file_is_named(tmp_path: Path) -> None:
    data = _tamper(lambda d: d["calibration"]["cells"]["clean"].update(nll=0.0))
    path = write(tmp_path, "bad.json", data)
    with pytest.raises(ValueError, match=rf"^{path}: 'calibration\.cells\['clean'\]\['nll'\]'"):
        Results.from_json(path)


def test_make_calibration_part_checks_its_cells() -> None:
    a, b = CalibrationStats(30), CalibrationStats(60)
    a.update(*calibration_batches()["clean"])
    b.update(*calibration_batches()["clean"])
    with pytest.raises(ValueError, match="different bins"):
        make_calibration_part({"clean": a, "fog/1": b}, 15)
    with pytest.raises(ValueError, match="unknown cell 'fog/0'"):
        make_calibration_part({"fog/0": a}, 15)
    # cells without samples are left out; clean comes first, then the grid's order
    part = make_calibration_part(
        {"fog/1": a, "snow/1": a, "clean": a, "frost/2": CalibrationStats(30)}, 15
    )
    assert list(part.stats) == ["clean", "snow/1", "fog/1"]


def test_eval_p_frames_pool_into_the_clean_cell() -> None:
    batches = calibration_batches()
    a = CalibrationStats(30).update(*batches["clean"])
    b = CalibrationStats(30).update(*batches["fog/1"])
    part = make_calibration_part({"zoom_blur/0": b, "gaussian_noise/0": a}, 15)
    assert list(part.stats) == ["gaussian_noise/0", "zoom_blur/0"]
    assert part.cell_stats("clean") == a + b and not part.has_severities
    assert list(part.cells()) == ["clean", "gaussian_noise/0", "zoom_blur/0"]
    assert part.to_dict()["severity_means"] is None and part.worst_severity is None


def test_eval_p_calibration_is_checked_against_the_sequences() -> None:
    stats = CalibrationStats(30).update(*calibration_batches()["clean"])

    def p_file(keys: dict[str, CalibrationStats], sequences: int) -> dict:
        return {
            "schema": "corruptbench.results/1",
            "kind": "p",
            "model": {"id": "m"},
            "flip_probability": {"gaussian_noise": 0.1, "rotate": 0.2},
            "num_sequences": {"gaussian_noise": sequences, "rotate": sequences},
            "calibration": make_calibration_part(keys, 15).to_dict(),
        }

    res = Results.from_dict(p_file({"gaussian_noise/0": stats}, 60), "p.json")
    assert res.calibration is not None and res.calibration.clean == stats.summary(15)
    with pytest.raises(ValueError, match=r"\.n' = 60 but the file has 59 gaussian_noise sequences"):
        Results.from_dict(p_file({"gaussian_noise/0": stats}, 59), "p.json")
    with pytest.raises(ValueError, match=r"has 'fog/1' in eval-p results"):
        Results.from_dict(p_file({"fog/1": stats}, 60), "p.json")
    with pytest.raises(ValueError, match=r"has 'clean' in eval-p results"):
        Results.from_dict(p_file({"clean": stats}, 60), "p.json")

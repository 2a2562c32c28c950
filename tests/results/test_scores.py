"""The task-score part of a results file: written, read back byte-identical, derived numbers
recomputed and checked (a file that disagrees is refused, naming the key), incomplete files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corruptbench.corruptions import BENCHMARK_CORRUPTIONS
from corruptbench.metrics import summarize_scores
from corruptbench.results import Results, make_score_part
from results.support import make_results, make_score_results, write


def test_round_trip_is_byte_identical(tmp_path: Path) -> None:
    data = make_score_results("frcnn", 0.363, seed=1)
    res = Results.from_dict(data, "a.json")
    res.to_json(tmp_path / "a.json")
    again = Results.from_json(tmp_path / "a.json")
    assert again.to_text() == res.to_text() == (tmp_path / "a.json").read_text()
    s = again.score
    assert s is not None and s.complete and not s.partial and s.metric == "box AP"
    want = summarize_scores(s.scores, 0.363)
    assert again.mpc == want.mpc and again.rpc == want.rpc and again.clean_score == 0.363
    assert repr(again).startswith("Results(kind='score', model='frcnn', P=0.3630, mPC=")
    assert list(data["score"]) == [
        "metric",
        "clean",
        "scores",
        "complete",
        "partial",
        "mpc",
        "rpc",
        "corruption_means",
        "relative",
        "severity_means",
        "mpc_corruptions",
        "missing",
    ]


def test_derived_numbers_absent_are_computed() -> None:
    data = make_score_results("m", 40.0, seed=2)
    full = Results.from_dict(json.loads(json.dumps(data)), "full")
    for key in ("mpc", "rpc", "corruption_means", "relative", "severity_means", "complete"):
        del data["score"][key]
    res = Results.from_dict(data, "bare")
    assert res.score == full.score


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("mpc", 0.5, r"'score.mpc' = 0.5 disagrees with the scores, which give 0.1"),
        ("rpc", 0.9, r"'score.rpc' = 0.9 disagrees"),
        ("severity_means", [0.1] * 5, r"'score.severity_means' = .* disagrees"),
        ("mpc_corruptions", ["fog"], r"'score.mpc_corruptions' = \['fog'\] disagrees"),
        (
            "complete",
            False,
            r"'score.complete' = False disagrees with the scores \(every cell has a score\)",
        ),
        ("missing", ["fog"], r"'score.missing' = \['fog'\] disagrees"),
        ("partial", True, r"'score.partial' is true but all 15 benchmark corruptions"),
        ("clean", 0.0, r"score: the clean score is 0, so rPC = mPC / P is undefined"),
        ("clean", "0.3", r"'score.clean' must be a number or null, got a string"),
        ("metric", 3, r"score.'metric' must be a string"),
        ("partial", "no", r"'score.partial' must be true or false"),
    ],
)
def test_disagreeing_or_bad_files_are_refused(key: str, value: object, message: str) -> None:
    data = make_score_results("m", 0.3, seed=3)
    data["score"][key] = value
    with pytest.raises(ValueError, match=message) as info:
        Results.from_dict(data, "bad.json")
    assert str(info.value).startswith("bad.json: ")


def test_a_changed_score_or_mean_is_caught() -> None:
    data = make_score_results("m", 0.3, seed=4)
    data["score"]["relative"]["fog"] *= 1.001
    with pytest.raises(ValueError, match=r"'score.relative' = .* disagrees"):
        Results.from_dict(data, "x")
    data = make_score_results("m", 0.3, seed=4)
    data["score"]["scores"]["fog"][2] += 0.01  # the stored means no longer follow
    with pytest.raises(ValueError, match=r"'score.mpc' = .* disagrees"):
        Results.from_dict(data, "x")
    data = make_score_results("m", 0.3, seed=4)
    data["score"]["mpc"] *= 1 + 1e-13  # another summation order: accepted
    assert Results.from_dict(data, "x").mpc == pytest.approx(data["score"]["mpc"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"fog": [0.1, float("nan"), 0.1, 0.1, 0.1]},
            r"score.scores\['fog'\]\[severity 2\] is nan",
        ),
        ({"fog": [0.1, 0.1, float("inf"), 0.1, 0.1]}, r"\[severity 3\] is inf"),
        ({"fog": [0.1, 0.1, 0.1, 0.1]}, r"must be a list of 5 per-severity scores"),
        ({"smog": [0.1] * 5}, r"'score.scores' names an unknown corruption 'smog'"),
        ({"fog": [0.1, True, 0.1, 0.1, 0.1]}, r"must be a number or null, got a boolean"),
    ],
)
def test_bad_scores_are_refused(change: dict, message: str, tmp_path: Path) -> None:
    data = make_score_results("m", 0.3, seed=5)
    data["score"]["scores"].update(change)
    path = write(tmp_path, "s.json", json.dumps(data))  # json writes NaN / Infinity as they are
    with pytest.raises(ValueError, match=message):
        Results.from_json(path)


def test_partial_files() -> None:
    data = make_score_results("m", 0.3, seed=6, names=("fog", "snow", "saturate"))
    res = Results.from_dict(data, "p.json")
    assert res.score is not None and res.score.partial
    assert res.score.missing == [n for n in BENCHMARK_CORRUPTIONS if n not in ("fog", "snow")]
    data["score"]["partial"] = False
    with pytest.raises(ValueError, match=r"p.json: score: missing cells: no scores for 13 of"):
        Results.from_dict(data, "p.json")


def test_incomplete_files_of_a_running_evaluation() -> None:
    grid = {n: [0.2, 0.1, None, None, None] for n in BENCHMARK_CORRUPTIONS}
    part = make_score_part(grid, None, metric="mIoU")
    assert not part.complete and part.mpc is None and part.summary is None
    assert part.missing_cells()[:3] == ["clean", "gaussian_noise/3", "gaussian_noise/4"]
    assert len(part.missing_cells()) == 1 + 15 * 3
    data = make_score_results("m", 0.3)
    data["score"] = part.to_dict()
    res = Results.from_dict(data, "run.json")
    assert res.score == part and res.mpc is None
    assert "Cells scored" in res.summary() and "30 of 76" in res.summary()
    data["score"]["mpc"] = 0.1
    with pytest.raises(ValueError, match=r"'score.mpc' is given but the grid is incomplete"):
        Results.from_dict(data, "run.json")


def test_other_kinds_have_no_score_part() -> None:
    res = Results.from_dict(make_results("a", 0.9, 0.3), "c.json")
    assert res.score is None and res.mpc is None and "score" not in res.to_dict()

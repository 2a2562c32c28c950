"""Re-normalisation (report --baseline) and display labels."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest

from corruptbench.corruptions import BENCHMARK_CORRUPTIONS
from corruptbench.report import render_report
from corruptbench.results import Results
from results.support import EVIL


def test_baseline_option(three: list[Path], tmp_path: Path) -> None:
    results = [Results.from_json(p) for p in three]
    md = render_report(results, "md", baseline="uniform")
    r50 = results[0]
    assert r50.c is not None
    mean15 = np.mean([np.mean(r50.c.errors[n]) for n in BENCHMARK_CORRUPTIONS])
    assert f"{100 * mean15:.1f}%" in md
    # normalising by a model in the report: that model's own mCE becomes exactly 100 %
    csv_text = render_report(results, "csv", baseline="resnet50")
    rows = [r for r in csv.DictReader(io.StringIO(csv_text)) if r["metric"] == "mce"]
    by_model = {r["model"]: float(r["value"]) for r in rows}
    assert by_model["resnet50"] == pytest.approx(1.0)
    assert by_model[EVIL] < 1.0 < by_model["alexnet"]
    # ... and its flip probabilities give flip rates / mFR for the others
    csv_rows = list(csv.DictReader(io.StringIO(csv_text)))
    assert any(r["metric"] == "mfr" and r["model"] == EVIL and r["value"] for r in csv_rows)
    with pytest.raises(
        ValueError, match="^baseline 'nope': not alexnet, uniform, auto, a model in the report"
    ):
        render_report(results, "md", baseline="nope")


def test_unique_labels(three: list[Path]) -> None:
    from corruptbench.report.baseline import unique_labels

    same = [Results.from_json(three[1]), Results.from_json(three[1]), Results.from_json(three[0])]
    assert [r.label for r in unique_labels(same)] == [
        "alexnet (alexnet.json)",
        "alexnet (alexnet.json) #2",
        "resnet50",
    ]


def test_task_scores_of_other_data_or_metrics_are_flagged() -> None:
    from corruptbench.report.baseline import dataset_mismatches
    from results.support import make_score_results

    a = Results.from_dict(make_score_results("a", 0.36, fingerprint="x"), "a.json")
    b = Results.from_dict(make_score_results("b", 0.30, fingerprint="y"), "b.json")
    c = Results.from_dict(make_score_results("c", 0.5, fingerprint="x", metric="mIoU"), "c.json")
    assert dataset_mismatches([a, a]) == []
    (line,) = dataset_mismatches([a, b])
    assert line.startswith("the task-score results come from 2 different datasets")
    (line,) = dataset_mismatches([a, c])
    assert line == (
        "the task-score results measure different things, so their scores are not comparable: "
        "'a': box AP; 'c': mIoU"
    )


def _c_and_p(model: dict, c_file: str, p_file: str) -> tuple[Results, Results]:
    from results.support import make_results

    c_data = {**make_results("x", 0.8, 0.25), "model": model}
    p_data = {
        "schema": "corruptbench.results/1",
        "kind": "p",
        "model": model,
        "dataset": {"path": "/data/IN-P", "layout": "imagenet-p", "fingerprint": "pp"},
        "difficulty": 1,
        "flip_probability": {"rotate": 0.05, "brightness": 0.01},
        "top5_distance": {"rotate": 1.5, "brightness": 1.1},
        "baseline": "alexnet-p.json",
        "flip_rate": {"rotate": 0.5, "brightness": 0.7},
        "t5d_ratio": {"rotate": 0.6, "brightness": 0.8},
        "mfr": 0.6,
        "mt5d": 0.7,
        "notes": ["a P note"],
    }
    return Results.from_dict(c_data, c_file), Results.from_dict(p_data, p_file)


def test_c_and_p_results_of_one_model_are_one_row() -> None:
    # issue 22 item 14: `report lite0-c.json lite0-p.json` gave each its own row, one of dashes
    from corruptbench.report.baseline import merge_models, unique_labels

    lite0 = {"id": "efficientnet_lite0", "preprocessing": "p", "weights_sha256": "abc"}
    c, p = _c_and_p(lite0, "lite0-c.json", "lite0-p.json")
    other_c, _ = _c_and_p({**lite0, "id": "resnet"}, "r-c.json", "r-p.json")
    labelled = unique_labels([c, other_c, p])
    assert [r.label for r in labelled] == ["efficientnet_lite0", "resnet", "efficientnet_lite0"]
    rows = merge_models(labelled)
    assert [r.label for r in rows] == ["efficientnet_lite0", "resnet"]
    assert rows[0].c == c.c and rows[0].p == p.p and rows[0].source == "lite0-c.json + lite0-p.json"
    assert "ImageNet-P numbers from lite0-p.json (on imagenet-p, /data/IN-P)" in rows[0].notes
    md = render_report([c, other_c, p], "md")
    (row,) = [line for line in md.splitlines() if line.startswith("| efficientnet_lite0 |")]
    assert "—" not in row and row.endswith("| 60.0% | 70.0% |")  # the C columns, mFR, mT5D
    assert "(lite0-p.json)" not in md and md.count("| efficientnet_lite0 |") == 1
    html = render_report([c, p], "html", contact_sheet=False)
    assert "lite0-p.json" not in html.split("<h2")[1]  # the comparison names the model once
    long = render_report([c, p], "csv")  # one number a line, each with its own file
    assert "efficientnet_lite0,lite0-p.json,flip_probability" in long
    assert "efficientnet_lite0,lite0-c.json,mce" in long
    # another weights file is another model: two rows, told apart by their files
    _, p2 = _c_and_p({**lite0, "weights_sha256": "def"}, "c2.json", "lite0-other.json")
    assert [r.label for r in merge_models(unique_labels([c, p2]))] == [
        "efficientnet_lite0 (lite0-c.json)",
        "efficientnet_lite0 (lite0-other.json)",
    ]

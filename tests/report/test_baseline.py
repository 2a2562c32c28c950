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

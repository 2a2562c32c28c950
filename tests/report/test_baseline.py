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

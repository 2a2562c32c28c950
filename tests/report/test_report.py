"""build_report / render_report: the format from the file name, the options."""

from __future__ import annotations

from pathlib import Path

import pytest

from corruptbench.report import FORMATS, build_report, render_report
from corruptbench.report.baseline import dataset_mismatches, unique_labels
from corruptbench.results import Results
from corruptbench.results.plots import distinct_short_labels
from results.support import make_results, write


def test_format_from_the_suffix(three: list[Path], tmp_path: Path) -> None:
    md = build_report(three[:1], tmp_path / "r.markdown")
    assert md.read_text().startswith("## Robustness summary")
    csv = build_report(three[:1], tmp_path / "sub" / "r.csv")
    assert csv.read_text().startswith("model,file,metric,name,severity,value")
    html = build_report(three[:1], tmp_path / "r.htm", contact_sheet=False)
    assert html.read_text().startswith("<!DOCTYPE html>")
    assert FORMATS == ("html", "md", "csv")
    # a suffix that names no format needs one; a contradicting one is refused
    with pytest.raises(ValueError, match=r"cannot tell the report format from .*r\.pdf"):
        build_report(three[:1], tmp_path / "r.pdf")
    assert not (tmp_path / "r.pdf").exists()
    txt = build_report(three[:1], tmp_path / "r.txt", "md")
    assert txt.read_text().startswith("## Robustness summary")
    with pytest.raises(ValueError, match="md does not match the file name"):
        build_report(three[:1], tmp_path / "r.html", "md")


def test_bad_arguments(three: list[Path], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="give at least one results file"):
        build_report([], tmp_path / "r.html")
    with pytest.raises(ValueError, match="unknown format 'pdf'"):
        render_report([Results.from_json(three[0])], "pdf")


def test_results_from_different_datasets_are_flagged(tmp_path: Path) -> None:
    a = make_results("efficientnet_lite0", 0.9, 0.3)
    b = make_results("efficientnet_lite0", 0.8, 0.25, seed=2)
    b["dataset"] = dict(
        b["dataset"], path="/data/CIFAR-10-C", fingerprint="other", layout="cifar-c"
    )
    paths = [write(tmp_path, "run-a.json", a), write(tmp_path, "run-b.json", b)]
    seen: list[str] = []
    md = build_report(paths, tmp_path / "r.md", on_warning=seen.append)
    assert len(seen) == 1 and seen[0].startswith(
        "the ImageNet-C results come from 2 different datasets, so their errors are not directly "
        "comparable: 'efficientnet_lite0 (run-a.json)' on "
    )
    assert "'efficientnet_lite0 (run-b.json)' on cifar-c" in seen[0]
    assert "> **Warning:** the ImageNet-C results come from 2 different datasets" in md.read_text()
    html = build_report(paths, tmp_path / "r.html", contact_sheet=False, on_warning=seen.append)
    assert '<p class="warn"><strong>Warning:</strong> the ImageNet-C results' in html.read_text()
    with pytest.warns(UserWarning, match="different datasets"):
        build_report(paths, tmp_path / "r.csv")
    same = [write(tmp_path, "run-c.json", a), write(tmp_path, "run-d.json", a)]
    assert dataset_mismatches([Results.from_json(p) for p in same]) == []


def test_repeated_model_ids_get_distinct_plot_titles() -> None:
    long_id = "timm:vit_base_patch16_224.augreg2_in21k_ft_in1k"
    runs = unique_labels(
        [
            Results.from_dict(make_results(long_id, 0.9, 0.3), f"/x/{name}.json")
            for name in ("seed0", "seed1", "seed1")
        ]
    )
    labels = [r.label for r in runs]
    assert len(set(labels)) == 3
    short = distinct_short_labels(labels, 28)
    assert len(set(short)) == 3 and all(len(s) <= 28 for s in short)
    assert short[0].endswith("(seed0.json)") and short[1].endswith("(seed1.json)")
    assert distinct_short_labels(["a$b"], 28) == [r"a\$b"]
    # labels that differ only in the middle are numbered
    mid = ["x" * 20 + "1" + "y" * 20, "x" * 20 + "2" + "y" * 20]
    assert distinct_short_labels(mid, 28)[0].startswith("1: ")

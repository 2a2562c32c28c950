"""The one CSV format (one number per row): eval-c / eval-p ``--csv`` of one result is the
report's CSV of that result."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from corruptbench.metrics import load_p_baseline
from corruptbench.report import render_report
from corruptbench.results import Results, to_csv
from corruptbench.results.export import CSV_COLUMNS
from results.support import make_results


def _rows(text: str) -> dict[tuple[str, str, str], str]:
    """(metric, name, severity) -> value of a CSV of one result."""
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len({r["model"] for r in rows}) == 1
    return {(r["metric"], r["name"], r["severity"]): r["value"] for r in rows}


def test_one_format_for_one_result_and_for_the_report(tmp_path: Path) -> None:
    """Issue 30 item 3: eval-c --csv wrote a wide table of its own (corruption,e1..e5,...)
    beside the report's long format; both are now the one long format."""
    res = Results.from_dict(make_results("m", 0.9, 0.3), "m.json")
    assert res.c is not None
    text = to_csv(res, tmp_path / "m.csv")
    assert (tmp_path / "m.csv").read_text(encoding="utf-8") == text
    assert text.splitlines()[0] == ",".join(CSV_COLUMNS) == "model,file,metric,name,severity,value"
    assert text == render_report([res], "csv")
    get = _rows(text)
    assert float(get["error", "fog", "1"]) == res.c.errors["fog"][0]
    assert float(get["clean_error", "", ""]) == 0.3
    assert float(get["mce", "", ""]) == res.c.mce


def test_an_eval_p_csv_is_a_baseline_file(tmp_path: Path) -> None:
    demo = make_results("p", 0.9, 0.3, p=True)
    data = {k: demo[k] for k in ("schema", "model", "dataset", "versions", "time_s", "created")}
    data.update(demo["p"], kind="p")
    res = Results.from_dict(data, "p.json")
    assert res.p is not None
    path = tmp_path / "p.csv"
    to_csv(res, path)
    base = load_p_baseline(path)
    assert base["flip_probability"] == res.p.flip_probability
    assert base["top5_distance"] == res.p.top5_distance
    two = tmp_path / "two.csv"
    two.write_text(render_report([res, Results.from_dict(dict(data), "q.json")], "csv"))
    with pytest.raises(ValueError, match="numbers of 2 models; give one model's"):
        load_p_baseline(two)


def test_a_score_grid(tmp_path: Path) -> None:
    from results.support import make_score_results

    res = Results.from_dict(make_score_results("m", 0.36, seed=3), "m.json")
    assert res.score is not None
    get = _rows(to_csv(res))
    assert float(get["clean_score", "", ""]) == 0.36
    assert float(get["score", "fog", "3"]) == res.score.scores["fog"][2]  # repr: exact
    assert float(get["mpc", "", ""]) == res.score.mpc


def test_cbar_rows() -> None:
    """A file of both suites: the ImageNet-C rows, then the C-bar rows (error and level value per
    cell, the mean per corruption, the benchmark's mean), one clean error."""
    from results.support import make_cbar

    res = Results.from_dict(make_cbar("m", with_c=True, n=2), "m.json")
    assert res.cbar is not None
    text = to_csv(res)
    get = _rows(text)
    name = next(iter(res.cbar.errors))
    assert float(get["cbar_error", name, "2"]) == res.cbar.errors[name][1]
    assert float(get["cbar_level", name, "2"]) == res.cbar.levels[name][1]
    corr = float(get["cbar_corruption_error", name, ""])
    assert corr == pytest.approx(res.cbar.corruption_errors()[name])
    assert float(get["cbar_mean_error", "imagenet_c_bar", ""]) == res.cbar.mean_error
    assert [line.split(",")[2] for line in text.splitlines()].count("clean_error") == 1
    only = Results.from_dict(make_cbar("m"), "o.json")
    assert float(_rows(to_csv(only))["clean_error", "", ""]) == 0.25

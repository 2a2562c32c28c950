"""build_report / render_report: the format from the file name, the options."""

from __future__ import annotations

from pathlib import Path

import pytest

from corruptbench.report import FORMATS, build_report, render_report
from corruptbench.results import Results


def test_format_from_the_suffix(three: list[Path], tmp_path: Path) -> None:
    md = build_report(three[:1], tmp_path / "r.markdown")
    assert md.read_text().startswith("## Robustness summary")
    csv = build_report(three[:1], tmp_path / "sub" / "r.csv")
    assert csv.read_text().startswith("model,file,metric,name,severity,value")
    html = build_report(three[:1], tmp_path / "r.txt", contact_sheet=False)
    assert html.read_text().startswith("<!DOCTYPE html>")
    assert FORMATS == ("html", "md", "csv")


def test_bad_arguments(three: list[Path], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="give at least one results file"):
        build_report([], tmp_path / "r.html")
    with pytest.raises(ValueError, match="unknown format 'pdf'"):
        render_report([Results.from_json(three[0])], "pdf")

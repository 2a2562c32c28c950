"""Display helpers of the reports: percentages, names, families, summary rows."""

from __future__ import annotations

import math

from corruptbench.results import Results
from corruptbench.results.format import DASH, family_of, num, pct, pretty, summary_cells
from results.support import make_results


def test_formats() -> None:
    assert pct(0.1234) == "12.3%" and pct(0.5, 2) == "50.00%" and pct(None) == DASH
    assert pct(math.nan) == DASH and num(1.23456, 3) == "1.235" and num(None) == DASH
    assert pretty("motion_blur") == "Motion blur" and pretty("jpeg_compression") == "JPEG"
    assert family_of("glass_blur") == "blur" and family_of("fog") == "weather"
    assert family_of("brightness") == "weather"  # the paper's Figure 1
    assert family_of("spatter") is None and family_of("no_such") is None  # extra: no family


def test_summary_cells() -> None:
    res = Results.from_dict(make_results("m", 0.9, 0.3), "m.json")
    cells = summary_cells(res, with_p=True)
    assert len(cells) == 7 and cells[0] == "30.0%" and cells[-2:] == [DASH, DASH]
    assert summary_cells(Results(kind="p", model={"id": "p"}), with_p=False) == [DASH] * 5

"""``Results.to_html``: one result's self-contained page, the report's page for that file."""

from __future__ import annotations

import re
from pathlib import Path

from corruptbench.report import render_report
from corruptbench.results import Results
from results.support import EVIL, make_results

_GENERATED = re.compile(r"generated [0-9-]+ [0-9:]+ UTC")


def test_to_html_writes_an_escaped_self_contained_page(tmp_path: Path) -> None:
    res = Results.from_dict(make_results(EVIL, 0.8, 0.2), "evil.json")
    out = tmp_path / "sub" / "page.html"
    text = res.to_html(out)
    assert out.read_text(encoding="utf-8") == text
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert EVIL not in text and "<script" not in text.lower()
    assert "<title>corruptbench: &lt;script&gt;alert(1)&lt;/script&gt;</title>" in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text, re.I)
    srcs = re.findall(r'<img src="([^"]*)"', text)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert f"{100 * res.mce:.1f}%" in text  # the headline number, as a percentage


def test_to_html_is_the_reports_page_without_examples() -> None:
    res = Results.from_dict(make_results("resnet50", 0.85, 0.24), "r.json")
    own = res.to_html(title="T")
    report = render_report([res], "html", contact_sheet=False, title="T")
    assert _GENERATED.sub("", own) == _GENERATED.sub("", report)
    assert 'id="comparison"' not in own and 'id="examples"' not in own

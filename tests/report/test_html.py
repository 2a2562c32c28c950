"""The HTML report: escaping, self-contained, comparison order, ImageNet-P only, a browser."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from corruptbench.report import build_report, render_report
from corruptbench.results import Results
from results.support import EVIL, make_results, write

REPO = Path(__file__).resolve().parents[2]


def test_html_escapes_and_is_self_contained(three: list[Path], tmp_path: Path) -> None:
    data = make_results(EVIL, 0.8, 0.2)
    data["dataset"]["notes"] = ['<img src=x onerror="alert(2)">']
    data["dataset"]["path"] = "/data/<b>bold</b>&amp;"
    data["versions"]["<i>pkg</i>"] = "<u>1</u>"
    data["demo"] = {
        "photos": [{"name": EVIL, "description": "<b>bold</b>", "accepted": ["<i>pkg</i>"]}]
    }
    evil2 = write(tmp_path, "evil2.json", data)
    out = build_report([*three, evil2], tmp_path / "report.html", contact_sheet=False)
    html = out.read_text(encoding="utf-8")
    assert EVIL not in html and "<script" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "onerror=" not in html.replace("onerror=&quot;", "")
    assert "<b>bold</b>" not in html and "<i>pkg</i>" not in html and "<u>1</u>" not in html
    assert 'id="photos"' in html
    # self-contained: no external resources of any kind
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html, re.I)
    assert "<link" not in html.lower() and "@import" not in html
    srcs = re.findall(r'<img src="([^"]*)"', html)
    assert srcs and all(s.startswith("data:image/") for s in srcs)
    # duplicate model ids get distinct labels (file names)
    assert "evil.json" in html and "evil2.json" in html


def test_html_comparison_sorted_by_mce(three: list[Path], tmp_path: Path) -> None:
    html = build_report(three, tmp_path / "r.html", contact_sheet=False).read_text(encoding="utf-8")
    section = html[html.index('id="comparison"') : html.index('id="figures"')]
    order = [section.index(x) for x in ("&lt;script&gt;", "resnet50", "alexnet")]
    assert order == sorted(order)  # evil (0.7 x AlexNet) < resnet50 (0.85) < alexnet (1.0)
    for text in ("mCE", "Relative mCE", "Top-1 error by severity", "flip prob.", "Clean error"):
        assert text in html
    assert re.search(r"\d+\.\d%", html)  # percentages, not fractions


def test_single_result_no_comparison(three: list[Path], tmp_path: Path) -> None:
    html = build_report(three[1:2], tmp_path / "r.html", contact_sheet=False).read_text(
        encoding="utf-8"
    )
    assert 'id="comparison"' not in html
    assert "99." in html or "100." in html  # AlexNet's own mCE is ~100 %


def test_p_only_results(tmp_path: Path) -> None:
    demo = make_results("pmodel", 0.9, 0.3, p=True)
    data = {k: demo[k] for k in ("schema", "model", "dataset", "versions", "time_s", "created")}
    data.update(demo["p"], kind="p")
    path = write(tmp_path, "p.json", data)
    html = build_report([path], tmp_path / "p.html", contact_sheet=False).read_text(
        encoding="utf-8"
    )
    assert 'id="imagenet-p"' in html and 'id="ce"' not in html
    md = render_report([Results.from_json(path)], "md")
    assert "### ImageNet-P" in md and "Rotate" in md


@pytest.mark.slow
def test_screenshot_in_chromium(three: list[Path], tmp_path: Path) -> None:
    if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
        pytest.skip("chromium not installed (optional: apt-get install chromium)")
    from PIL import Image

    html = build_report(three, tmp_path / "r.html", contact_sheet=False)
    png = tmp_path / "r.png"
    subprocess.run(
        [str(REPO / "tools" / "screenshot_report.sh"), str(html), str(png), "1400x2000"],
        check=True,
        timeout=120,
    )
    img = np.asarray(Image.open(png).convert("L"))
    assert img.shape == (2000, 1400)
    assert (img < 128).mean() > 0.01  # text and figures were drawn, not a blank page


def test_task_score_results(three: list[Path], tmp_path: Path) -> None:
    from results.support import make_score_results

    a = write(tmp_path, "a.json", make_score_results("frcnn", 0.363, seed=1))
    b = write(tmp_path, "b.json", make_score_results("retina", 0.356, seed=2))
    html = build_report([a, b, three[1]], tmp_path / "s.html", contact_sheet=False).read_text(
        encoding="utf-8"
    )
    section = html[html.index('id="scores"') : html.index('id="provenance"')]
    mpc = {r.model_id: r.mpc for r in (Results.from_json(a), Results.from_json(b))}
    best, other = sorted(mpc, key=lambda k: -mpc[k])  # type: ignore[arg-type, return-value]
    assert section.index(best) < section.index(other)  # best mPC first
    assert "Mean of the 15 (mPC / rPC)" in section and "mean / P" in section
    assert 'id="ce"' in html  # the ImageNet-C result keeps its sections
    assert 'alt="Score vs severity"' in html and "<b>P, mPC, rPC</b>" in html
    md = render_report([Results.from_json(a)], "md")
    assert "## Robustness summary" in md and "| Model | Clean error" not in md
    assert "### box AP by severity: frcnn" in md and "### Mean score / P per corruption" in md


def test_calibration_section(three: list[Path], tmp_path: Path) -> None:
    from results.support import make_calibrated

    a = write(tmp_path, "cal.json", make_calibrated("calibrated"))
    html = build_report([a, three[1]], tmp_path / "c.html", contact_sheet=False).read_text(
        encoding="utf-8"
    )
    assert '<a href="#calibration">Calibration</a>' in html
    section = html[html.index('id="calibration"') : html.index('id="provenance"')]
    assert 'alt="ECE and NLL against severity"' in section
    assert 'alt="Reliability diagrams"' in section
    assert "<h3>calibrated</h3>" in section and "<h3>alexnet</h3>" not in section
    cal = Results.from_json(a).calibration
    assert cal is not None and cal.clean is not None
    clean = re.search(
        r"<tr><td>clean</td><td>—</td><td>([\d.]+)</td><td>([\d.]+)</td>"
        r"<td>([\d.]+)%</td>",
        section,
    )
    assert clean is not None
    assert clean.groups() == (
        f"{cal.clean['nll']:.3f}",
        f"{cal.clean['brier']:.3f}",
        f"{100 * cal.clean['ece']:.1f}",
    )
    assert "<tr><td>severity 5</td><td>2 of 15</td>" in section
    fog3 = cal.cell("fog", 3)
    assert fog3 is not None and f"{100 * fog3['ece']:.1f}%" in section
    assert "<b>Calibration</b>" in html  # how to read it


def test_cbar_section_and_contact_sheet(three: list[Path], tmp_path: Path) -> None:
    """A file holding both suites shows both: ImageNet-C's sections and the C-bar one (errors per
    corruption and level with the level values, per-corruption means, the mean, the figure), and
    the C-bar contact sheet of the sample photo."""
    from results.support import make_cbar

    both = write(tmp_path, "both.json", make_cbar("lite0", with_c=True, n=10))
    only = write(tmp_path, "only.json", make_cbar("r50", 0.8, n=4, seed=1))
    sample = np.random.default_rng(0).integers(0, 256, (230, 260, 3), dtype=np.uint8)
    html = render_report([Results.from_json(p) for p in (*three, both, only)], sample=sample)
    section = html[html.index('<section id="cbar">') :]
    section = section[: section.index("</section>")]
    assert "<h2>ImageNet-C-bar: top-1 error per corruption and level</h2>" in section
    assert 'alt="C-bar error against level"' in section
    res = Results.from_json(both)
    assert res.cbar is not None and res.c is not None
    assert f"<b>{100 * res.cbar.mean_error:.1f}%</b>" in section  # type: ignore[operator]
    assert "<td>2.35, 3.2, 4.9, 6.6, 9.15</td>" in section  # caustic refraction's levels
    assert "(partial: 4/10)" in section  # the other result covers 4 of the ten
    assert '<a href="#cbar">ImageNet-C-bar</a>' in html and 'id="ce"' in html
    assert 'alt="C-bar contact sheet"' in html
    assert "C-bar levels</dt><dd>imagenet_c_bar.csv (ImageNet-C-bar)" in html


def _sections(html: str) -> list[str]:
    return re.findall(r'<section id="([^"]+)"', html)


def test_a_cbar_report_holds_only_what_concerns_cbar(tmp_path: Path) -> None:
    """Issue 33 item 26: a C-bar-only report was 6.9 MB, 3.45 MB of it the ImageNet-C contact
    sheet and ImageNet-P frames, with an empty Figures section and a glossary explaining mCE,
    mFR and mPC, none of which it shows; its data was labelled "imagenet-c"."""
    from results.support import make_cbar

    res = Results.from_dict(make_cbar("r50", 0.8, n=10, seed=1), "cbar.json")
    html = render_report([res])  # scikit-image's chelsea: 6.7 MB before, 2.1 MB now
    assert len(html) < 3_000_000
    alts = re.findall(r'alt="([^"]*)"', html)
    assert alts == ["C-bar error against level", "C-bar contact sheet"]
    assert "figures" not in _sections(html) and 'href="#figures"' not in html
    glossary = html[html.index('id="how-to-read"') :]
    for term in ("mCE", "mFR", "mPC", "Flip probability", "Calibration"):
        assert term not in glossary, term
    assert "<b>Clean error</b>" in glossary and "<b>ImageNet-C-bar / CIFAR-10-C-bar</b>" in glossary
    assert "imagenet-c-bar, imagenet" in html  # the summary card's data line
    assert "<dt>dataset layout</dt><dd>imagenet-c-bar</dd>" in html
    assert ">imagenet-c<" not in html and "imagenet-c," not in html
    # with ImageNet-C results the grids come back (test_cbar_section_and_contact_sheet), and the
    # glossary explains mCE, still not mPC
    a = Results.from_dict(make_results("a", 1.0, 0.2), "a.json")
    with_c = render_report([res, a], contact_sheet=False)
    assert "<b>mCE</b>" in with_c and "<b>P, mPC, rPC</b>" not in with_c
    assert 'href="#figures"' in with_c


def test_a_combined_report_shows_each_cbar_benchmarks_sheet() -> None:
    """Issue 33 item 26: with ImageNet-C-bar and CIFAR-10-C-bar results the report showed the
    first benchmark's contact sheet only; the README promises CIFAR-10-C-bar's at 32 px."""
    from results.support import make_cbar

    both = [
        Results.from_dict(make_cbar("in", n=3), "in.json"),
        Results.from_dict(make_cbar("cifar", n=2, benchmark="cifar10_c_bar"), "cifar.json"),
    ]
    html = render_report(both)
    sheets = re.findall(r'alt="(C-bar contact sheet[^"]*)"', html)
    assert sheets == ["C-bar contact sheet", "C-bar contact sheet: CIFAR-10-C-bar"]
    assert "the CIFAR-10-C-bar corruptions of the results" in html and "32&times;32" in html

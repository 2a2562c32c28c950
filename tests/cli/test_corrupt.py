"""``corruptbench corrupt``: one image file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench import corrupt
from corruptbench.cli import main


def test_corrupt_png(
    tmp_path: Path, synthetic_image: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    Image.fromarray(synthetic_image).save(tmp_path / "in.png")
    args = ["corrupt", str(tmp_path / "in.png"), str(tmp_path / "out.png"), "-c", "fog", "-s", "3"]
    assert main([*args, "--seed", "4"]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 'out.png'} (fog, severity 3, 224x224)\n"
    want = corrupt(synthetic_image, "fog", 3, rng=4)
    np.testing.assert_array_equal(np.asarray(Image.open(tmp_path / "out.png")), want)


def test_corrupt_errors(
    tmp_path: Path, synthetic_image: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            ["corrupt", str(tmp_path / "nope.png"), str(tmp_path / "o.png"), "-c", "fog", "-s", "1"]
        )
        == 2
    )
    assert "input image not found" in capsys.readouterr().err
    Image.fromarray(synthetic_image).save(tmp_path / "in.png")
    assert (
        main(["corrupt", str(tmp_path / "in.png"), str(tmp_path / "o.xyz"), "-c", "fog", "-s", "1"])
        == 2
    )
    assert "unsupported output extension '.xyz'" in capsys.readouterr().err

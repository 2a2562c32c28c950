"""``corruptbench perturb``: one sequence from one image file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench import perturb
from corruptbench.cli import main


def test_perturb_npy(
    tmp_path: Path, cifar_images: list[np.ndarray], capsys: pytest.CaptureFixture[str]
) -> None:
    Image.fromarray(cifar_images[0]).save(tmp_path / "cat.png")
    args = ["perturb", str(tmp_path / "cat.png"), str(tmp_path / "o"), "-p", "shot_noise"]
    assert main([*args, "-d", "2", "--profile", "cifar", "-f", "npy", "--seed", "1"]) == 0
    path = tmp_path / "o" / "cat_shot_noise_2.npy"
    assert capsys.readouterr().out == (
        f"wrote {path} (shot_noise, difficulty 2, cifar: 31 frames of 32x32)\n"
    )
    want = perturb(cifar_images[0], "shot_noise", profile="cifar", difficulty=2, rng=1)
    np.testing.assert_array_equal(np.load(path), want)

"""``corruptbench perturb``: one sequence from one image file."""

from __future__ import annotations

import os
import stat
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


def test_png_frames_are_zero_padded_and_follow_the_umask(
    tmp_path: Path, cifar_images: list[np.ndarray], capsys: pytest.CaptureFixture[str]
) -> None:
    Image.fromarray(cifar_images[1]).save(tmp_path / "cat.png")
    old = os.umask(0o022)
    try:
        args = ["perturb", str(tmp_path / "cat.png"), str(tmp_path / "o"), "-p", "rotate"]
        assert main([*args, "--profile", "cifar"]) == 0
    finally:
        os.umask(old)
    folder = tmp_path / "o" / "cat_rotate"
    names = sorted(p.name for p in folder.iterdir())
    assert names == [f"img{i:02d}.png" for i in range(31)]  # img00 .. img30: sorted = frame order
    want = perturb(cifar_images[1], "rotate", profile="cifar")
    for i in (0, 9, 30):
        np.testing.assert_array_equal(np.asarray(Image.open(folder / names[i])), want[i])
    assert {stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()} == {0o644}
    capsys.readouterr()

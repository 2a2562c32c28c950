"""The ImageNet-P layout (corruptbench.layouts.imagenet_p)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corruptbench.layouts import imagenet_p


def test_imagenet_p_layout(tmp_path: Path) -> None:
    assert imagenet_p.perturbation_dirname("shot_noise", 3) == "shot_noise_3"
    assert imagenet_p.perturbation_dirname("translate", 1) == "translate"
    with pytest.raises(ValueError):
        imagenet_p.perturbation_dirname("translate", 2)
    assert imagenet_p.parse_perturbation_dirname("speckle_noise_2") == ("speckle_noise", 2)
    assert imagenet_p.parse_perturbation_dirname("translate") == ("translate", 1)
    for d in ("gaussian_noise", "gaussian_noise_2", "translate"):
        (tmp_path / d / "n01440764").mkdir(parents=True)
        (tmp_path / d / "n01440764" / "b.mp4").write_bytes(b"x")
        (tmp_path / d / "n01440764" / "a.mp4").write_bytes(b"x")
    idx = imagenet_p.scan_imagenet_p(tmp_path, difficulties=(1, 2, 3))
    assert sorted(idx.cells) == [("gaussian_noise", 1), ("gaussian_noise", 2), ("translate", 1)]
    assert [p.name for p, _ in idx.cells[("translate", 1)]] == ["a.mp4", "b.mp4"]
    assert ("gaussian_noise", 3) in idx.missing and ("rotate", 1) in idx.missing
    assert ("rotate", 2) not in idx.missing and len(idx) == 6

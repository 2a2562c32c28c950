"""``corruptbench list``: corruptions, perturbations, profiles."""

from __future__ import annotations

import pytest

from corruptbench.cli import main


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Corruptions (15 benchmark, then 4 extra/validation, which belong")
    assert "   0  gaussian_noise     noise    benchmark  Additive Gaussian noise: clip(" in text
    assert "  10  brightness         weather  benchmark" in text
    assert "  18  saturate           -        extra " in text
    assert "Perturbations (ImageNet-P; 10 test, then 4 validation):" in text
    assert "  shear              validation  Frame i: affine(" in text
    # descriptions for users: no references to the project's spec, no RST backticks
    assert "§" not in text and "``" not in text and "spec " not in text
    assert "  imagenet   224 px" in text and "  cifar       32 px" in text


def test_list_shows_the_cbar_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    text = capsys.readouterr().out
    assert "ImageNet-C-bar / CIFAR-10-C-bar corruptions (suite cbar" in text
    assert "   0  color_balance                   pil        cbar_extra " in text
    assert "  21  sparkles                        noise      imagenet_c_bar,cifar10_c_bar  " in text
    assert "  13  transverse_chromatic_abberation blur       cifar10_c_bar " in text
    # the ImageNet-C part above it is unchanged
    assert text.index("  18  saturate") < text.index("ImageNet-C-bar / CIFAR-10-C-bar")

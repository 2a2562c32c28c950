"""The released ImageNet-C-bar (corruptbench.layouts.cbar)."""

from __future__ import annotations

from pathlib import Path

from corruptbench.layouts import cbar, detect, imagenet_c


def test_detect_and_level_folders(tmp_path: Path) -> None:
    assert cbar.detect(tmp_path) is None
    assert len(cbar.CORRUPTIONS) == 10 and cbar.PER_CELL == 50_000
    for level in ("1", "2", "3", "4", "5"):
        (tmp_path / "sparkles" / level).mkdir(parents=True)
    assert cbar.detect(tmp_path) == "imagenet-c-bar" == detect(tmp_path).layout
    # sparkles' levels are 1.0, 2.0, 3.0, 5.0, 6.0: the folder "5" is severity 5, not level 5.0
    folders = imagenet_c.level_folders(tmp_path, "sparkles", cbar.PROFILE)
    assert folders == {1: "1", 2: "2", 3: "3", 4: "4", 5: "5"}

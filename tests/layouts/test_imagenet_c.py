"""The ImageNet-C tree reader (corruptbench.layouts.imagenet_c)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corruptbench.layouts import imagenet_c


def test_scan_imagenet_c_subset_and_missing(tmp_path: Path) -> None:
    for c, sevs in (("gaussian_noise", (1, 2, 3, 4, 5)), ("fog", (2,)), ("my_corruption", (1,))):
        for s in sevs:
            for w in ("n01440764", "n01443537"):
                d = tmp_path / c / str(s) / w
                d.mkdir(parents=True)
                (d / "b.JPEG").write_bytes(b"x")
                (d / "a.JPEG").write_bytes(b"x")
    (tmp_path / "fog" / "3").mkdir()  # empty cell counts as missing
    (tmp_path / "gaussian_noise" / "1" / "flat.jpg").write_bytes(b"x")
    (tmp_path / "docs").mkdir()
    idx = imagenet_c.scan_imagenet_c(tmp_path)
    assert idx.corruptions == ["gaussian_noise", "fog", "my_corruption"]
    assert idx.extra_dirs == ["docs"]
    cell = idx.cells[("gaussian_noise", 1)]
    assert [(p.relative_to(tmp_path).as_posix(), w) for p, w in cell] == [
        ("gaussian_noise/1/flat.jpg", None),
        ("gaussian_noise/1/n01440764/a.JPEG", "n01440764"),
        ("gaussian_noise/1/n01440764/b.JPEG", "n01440764"),
        ("gaussian_noise/1/n01443537/a.JPEG", "n01443537"),
        ("gaussian_noise/1/n01443537/b.JPEG", "n01443537"),
    ]
    assert idx.severities("fog") == [2] and ("fog", 3) in idx.missing and ("snow", 5) in idx.missing
    assert (
        len(idx.missing) == (19 + 1) * 5 - 7
    )  # 19 known + 1 other corruption, minus 7 present cells
    assert "fog: severity 1,3,4,5 missing" in idx.describe_missing()
    assert "snow: all severities missing" in idx.describe_missing()
    assert idx.classes == ["n01440764", "n01443537"]
    only = imagenet_c.scan_imagenet_c(tmp_path, ["fog"], severities=[2, 3])
    assert list(only.cells) == [("fog", 2)] and only.missing == [("fog", 3)]
    cells = list(imagenet_c.iter_imagenet_c(tmp_path, ["gaussian_noise"], [5]))
    assert len(cells) == 1 and cells[0][:2] == ("gaussian_noise", 5) and len(cells[0][2]) == 4


def _cell(root: Path, *parts: str) -> None:
    d = root.joinpath(*parts, "n01440764")
    d.mkdir(parents=True)
    (d / "a.JPEG").write_bytes(b"x")


def test_cbar_level_folders_by_severity_or_value(tmp_path: Path) -> None:
    """ImageNet-C-bar's level folders: ``1``..``5`` or the level as make_imagenet_c_bar.py names
    it (``"{:.2f}"``), mapped back through the level table of the profile."""
    assert imagenet_c.level_dirname("caustic_refraction", 1, "value") == "2.35"
    assert imagenet_c.level_dirname("inverse_sparkles", 5, "value") == "10.00"
    assert imagenet_c.level_dirname("sparkles", 2, "value", "cifar") == "3.50"  # CIFAR-10-C-bar's
    assert imagenet_c.level_dirname("fog", 3) == "3"
    with pytest.raises(ValueError, match="'fog' has no level values"):
        imagenet_c.level_dirname("fog", 3, "value")
    assert imagenet_c.level_severity("caustic_refraction", "9.15") == 5
    assert imagenet_c.level_severity("caustic_refraction", "9.150") == 5  # as a number
    assert imagenet_c.level_severity("caustic_refraction", "4") == 4
    assert imagenet_c.level_severity("fog", "2.35") is None  # not a C-bar corruption: no values
    assert imagenet_c.level_severity("sparkles", "notes") is None
    with pytest.raises(ValueError, match=r"caustic_refraction/4\.05: not a level of caustic_re"):
        imagenet_c.level_severity("caustic_refraction", "4.05")  # level 3 of the 10, not of the 5
    _cell(tmp_path, "caustic_refraction", "2.35")
    _cell(tmp_path, "caustic_refraction", "6.60")
    _cell(tmp_path, "sparkles", "2")
    _cell(tmp_path, "fog", "1")
    idx = imagenet_c.scan_imagenet_c(tmp_path, suite="cbar")
    want = {("caustic_refraction", 1), ("caustic_refraction", 4), ("sparkles", 2), ("fog", 1)}
    assert set(idx.cells) == want
    assert idx.level_dirs[("caustic_refraction", 4)] == "6.60"
    assert idx.value_named == ["caustic_refraction"]
    assert idx.extra_dirs == [] and ("fog", 1) in idx.cells  # a folder with levels is scanned too
    assert len(idx.missing) == 30 * 5 + 5 - 4  # the suite's 30 (and fog) x 5, minus 4 present
    _cell(tmp_path, "caustic_refraction", "1")  # severity 1 twice: refused
    with pytest.raises(ValueError, match="the folders 1 and 2.35 both hold severity 1"):
        imagenet_c.scan_imagenet_c(tmp_path, ["caustic_refraction"])
    _cell(tmp_path, "sparkles", "2.50")
    with pytest.raises(
        ValueError, match="sparkles/2.50: not a level of sparkles in imagenet_c_bar"
    ):
        imagenet_c.scan_imagenet_c(tmp_path, ["sparkles"])

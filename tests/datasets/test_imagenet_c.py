"""The ImageNet-C tree reader (corruptbench.datasets.imagenet_c)."""

from __future__ import annotations

from pathlib import Path

from corruptbench.datasets import imagenet_c


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

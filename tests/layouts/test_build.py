"""A make-c / make-p build (corruptbench.layouts.build): its manifest, its cells' names, the
copied files of --layout tree and the links to them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corruptbench.layouts import build


def _manifest(root: Path, **params: object) -> None:
    doc = {
        "params": {"command": "make-c", "format": "jpeg", "profile": "imagenet", **params},
        "source": {"items": 5},
        "status": "complete",
    }
    (root / "manifest.json").write_text(json.dumps(doc))


def test_build_info_and_cell_names(tmp_path: Path) -> None:
    assert not build.is_build(tmp_path) and build.manifest_profile(tmp_path) is None
    _manifest(tmp_path, corruptions=["fog", "sparkles"], severities=[1, 4])
    (tmp_path / "skipped.csv").write_text(
        "relative_path,source,status,reason\na.png,x,skipped,bad\nb.png,x,warning,odd\n"
    )
    info = build.build_info(tmp_path)
    assert info.kind == "c" and info.status == build.COMPLETE and info.per_cell == 4
    assert info.cells == [("fog", 1), ("fog", 4), ("sparkles", 1), ("sparkles", 4)]
    assert info.cell_dir("sparkles", 4) == "sparkles/4" and info.array_name("fog", 4) == "fog.npy"
    assert info.top_names() == {"fog", "sparkles"}
    assert build.manifest_profile(tmp_path) == "imagenet"
    _manifest(tmp_path, corruptions=["sparkles"], severities=[4], level_names="value")
    assert build.build_info(tmp_path).cell_dir("sparkles", 4) == "sparkles/5.00"
    _manifest(tmp_path, corruptions=["fog"], severities=[4], level_names="value")
    with pytest.raises(ValueError, match="no level values"):
        build.build_info(tmp_path).cell_dir("fog", 4)
    (tmp_path / "manifest.json").write_text("[]")
    with pytest.raises(ValueError, match="not a JSON object"):
        build.read_manifest(tmp_path)


def test_make_p_names(tmp_path: Path) -> None:
    doc = {"params": {"command": "make-p", "perturbations": ["shot_noise", "translate"],
                      "difficulties": [1, 2]}}  # fmt: skip
    info = build.build_info(tmp_path, doc)
    assert info.kind == "p" and info.cell_dir("shot_noise", 2) == "shot_noise_2"
    assert info.cell_dir("translate", 2) == "translate"  # only the noise ones have _2 data
    assert info.array_name("shot_noise", 2) == "shot_noise_2.npy"


def test_copied_files_and_link_roots(tmp_path: Path) -> None:
    _manifest(tmp_path, corruptions=["fog"], severities=[1], format="tree",
              copy_files=["annotations", "*.txt"], links=True)  # fmt: skip
    for rel in ("annotations/a.json", "annotations/sub/b.json", "lists/x.txt", "fog/1/c.txt",
                "val/img.jpg", ".hidden/z.txt"):  # fmt: skip
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    info = build.build_info(tmp_path)
    got = build.copied_files(tmp_path, info)
    assert got == ["annotations/a.json", "annotations/sub/b.json", "lists/x.txt"]  # cells aside
    assert (
        build.selected_by("a/b/c.json", ["a"]) == "a" and build.selected_by("q.png", ["a"]) is None
    )
    assert build.link_roots(["a/x.json", "a/y.json", "b/c/z.png"], ["b/i.jpg"]) == ["a", "b/c"]
    assert build.link_roots(["b/z.json"], ["b/i.jpg"]) == ["b/z.json"]

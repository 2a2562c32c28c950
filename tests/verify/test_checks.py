"""verify's checks (corruptbench.verify.checks): every build make-c writes passes untouched; the
released ImageNet-C-bar with 1..5 level folders is checked cell by cell; a build whose files
disagree with its manifest is incomplete (issue 33 items 22, 23, 24)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from builders.support import run_c
from corruptbench.layouts import cbar, detect
from corruptbench.tables.released import IMAGENET_C_BAR_LEVELS
from corruptbench.verify import format_report, layout_key, verify
from download.archives import jpeg_bytes

NAMES = ["brightness", "gaussian_noise"]


def check(root: Path, **kw: object):
    return verify(root, progress_mode="off", **kw)


def by_key(report) -> dict:
    return {c.key: c for c in report.cells}


def _photo(path: Path, size: tuple[int, int], seed: int) -> None:
    rng = np.random.default_rng(seed)
    arr = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(arr).save(path)


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict[str, Path]:
    """Tiny sources: two classes of two images, a flat folder, a COCO-style tree."""
    tmp = tmp_path_factory.mktemp("src")
    for i, rel in enumerate(
        ["n01440764/a.JPEG", "n01440764/b.JPEG", "n01443537/c.JPEG", "n01443537/d.JPEG"]
    ):
        _photo(tmp / "classes" / rel, (32, 32), i)
    for i in range(3):
        _photo(tmp / "flat" / f"{i}.png", (32, 32), 10 + i)
    _photo(tmp / "coco" / "val2017" / "1.jpg", (48, 32), 20)
    _photo(tmp / "coco" / "val2017" / "sub" / "2.png", (30, 44), 21)
    (tmp / "coco" / "annotations").mkdir()
    (tmp / "coco" / "annotations" / "instances_val2017.json").write_text('{"images": []}')
    (tmp / "coco" / "annotations" / "captions.json").write_text("{}")
    return {p.name: p for p in tmp.iterdir()}


#: (name, source, build options): every make-c format, layout and option
BUILDS = [
    ("jpeg", "classes", {}),
    ("jpeg-flat", "flat", {}),
    ("jpeg-limit", "classes", {"limit": 3}),
    (
        "jpeg-cbar-value",
        "classes",
        {"names": ["sparkles"], "suite": "cbar", "level_names": "value"},
    ),
    ("npy", "classes", {"fmt": "npy"}),
    ("npy-flat", "flat", {"fmt": "npy"}),
    ("webdataset", "classes", {"fmt": "webdataset"}),
    ("tree", "coco", {"fmt": "tree"}),
    ("tree-copy-files", "coco", {"fmt": "tree", "copy_files": ["annotations"]}),
    ("tree-copy-no-links", "coco", {"fmt": "tree", "copy_files": ["annotations"], "links": False}),
    ("tree-copy-glob", "coco", {"fmt": "tree", "copy_files": ["*.json"]}),
]


@pytest.mark.parametrize(("name", "src", "options"), BUILDS, ids=[b[0] for b in BUILDS])
def test_every_build_make_c_writes_passes(sources, tmp_path, name, src, options):
    """Issue 33 item 24: an untouched build is complete in every format, layout and option (the
    README's COCO-C recipe, --layout tree --copy-files annotations, said INCOMPLETE 76 of 76)."""
    out = tmp_path / name
    kw = {"names": NAMES, "levels": [1, 3], "profile": "cifar", **options}
    run_c(sources[src], out, **kw)
    report = check(out)
    assert report.ok, format_report(report, limit=None)
    assert report.layout.startswith("make-c build") or report.layout.startswith("webdataset")
    assert format_report(report).splitlines()[-1].startswith("complete:")


def _cbar_tree(root: Path) -> None:
    """The released ImageNet-C-bar layout, small: level folders 1..5, one class, two images."""
    for name in IMAGENET_C_BAR_LEVELS:
        for level in range(1, 6):
            d = root / name / str(level) / "n01440764"
            d.mkdir(parents=True)
            for i in range(2):
                (d / f"ILSVRC2012_val_{i:08d}.JPEG").write_bytes(jpeg_bytes(i))


def test_released_cbar_with_numbered_level_folders_checks_every_cell_once(tmp_path):
    """Issue 33 item 22: sparkles' levels are 1.0, 2.0, 3.0, 5.0, 6.0, so its level 4 was
    looked for in the folder ``5`` (and ``4`` never checked): 6 cells unchecked, 6 twice."""
    _cbar_tree(tmp_path)
    (tmp_path / "sparkles/4/n01440764/ILSVRC2012_val_00000001.JPEG").write_bytes(
        jpeg_bytes(1)[:300]
    )
    (tmp_path / "inverse_sparkles/3/n01440764/ILSVRC2012_val_00000000.JPEG").unlink()
    (tmp_path / "cocentric_sine_waves/1/n01440764/ILSVRC2012_val_00000001.JPEG").unlink()
    report = check(tmp_path)
    assert report.layout == cbar.NAME
    keys = [c.key for c in report.cells]
    assert sorted(keys) == sorted(f"{n}/{i}" for n in IMAGENET_C_BAR_LEVELS for i in range(1, 6))
    cells = by_key(report)
    assert cells["sparkles/4"].broken and cells["sparkles/4"].broken[0].startswith(
        "n01440764/ILSVRC2012_val_00000001.JPEG: "
    )
    assert cells["inverse_sparkles/3"].missing == ["n01440764/ILSVRC2012_val_00000000.JPEG"]
    assert cells["cocentric_sine_waves/1"].missing == ["n01440764/ILSVRC2012_val_00000001.JPEG"]
    assert not cells["sparkles/5"].broken and not cells["sparkles/5"].missing
    shutil.rmtree(tmp_path / "sparkles" / "2")
    assert "sparkles/2" in check(tmp_path).missing_cells  # named as the other folders are


@pytest.fixture(scope="module")
def jpeg_build(sources, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("b") / "out"
    run_c(sources["classes"], out, names=NAMES, levels=[1, 2, 3], profile="cifar")
    return out


def test_an_extra_image_in_every_cell_is_reported(jpeg_build, tmp_path):
    """Issue 33 item 23: 5 files where the manifest says 4, in every cell: it said complete."""
    out = tmp_path / "out"
    shutil.copytree(jpeg_build, out)
    for cell in out.glob("*/*"):
        shutil.copy(cell / "n01440764" / "a.JPEG", cell / "n01440764" / "z.JPEG")
    report = check(out)
    assert not report.ok
    assert all(c.extra_unnamed == 1 and c.found == 5 for c in report.cells)
    text = format_report(report)
    assert "1 more file(s) than the 4 known" in text and text.splitlines()[-1].startswith(
        "INCOMPLETE"
    )


def test_level_folders_the_manifest_does_not_list_are_extra(jpeg_build, tmp_path):
    """Issue 33 item 23: severity folders the manifest no longer lists went unreported."""
    out = tmp_path / "out"
    shutil.copytree(jpeg_build, out)
    doc = json.loads((out / "manifest.json").read_text())
    doc["params"]["severities"] = [1, 2]
    (out / "manifest.json").write_text(json.dumps(doc))
    report = check(out)
    assert not report.ok
    assert by_key(report)["(levels)"].extra == [f"{n}/3/" for n in sorted(NAMES)]


def test_a_manifest_counting_fewer_items_than_the_files(jpeg_build, tmp_path):
    """Issue 33 item 23: the manifest says 3 items, every cell holds 4."""
    out = tmp_path / "out"
    shutil.copytree(jpeg_build, out)
    doc = json.loads((out / "manifest.json").read_text())
    doc["source"]["items"] = 3
    (out / "manifest.json").write_text(json.dumps(doc))
    report = check(out)
    assert not report.ok and all(c.extra_unnamed == 1 for c in report.cells)


def test_a_dangling_copy_link_is_reported(sources, tmp_path):
    out = tmp_path / "out"
    run_c(
        sources["coco"],
        out,
        names=["brightness"],
        levels=[1],
        fmt="tree",
        copy_files=["annotations"],
    )
    assert check(out).ok
    shutil.rmtree(out / "annotations")
    report = check(out)
    assert not report.ok


def test_layout_key_of_what_was_detected(jpeg_build, tmp_path):
    assert layout_key(detect(jpeg_build)) == "build"
    assert layout_key(detect(tmp_path)) is None
    _cbar_tree(tmp_path / "c")
    assert layout_key(detect(tmp_path / "c")) == "imagenet-c-bar"

"""ImageNet wnids, source-folder scanning and image loading (corruptbench.formats.imagenet)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench.formats import imagenet
from corruptbench.formats.imagenet import ImageLoadError, load_image, scan_image_folder
from support import IMAGENET_SAMPLE, need_shared


def _photo(size: tuple[int, int] = (96, 80)) -> Image.Image:
    need_shared()
    with Image.open(IMAGENET_SAMPLE / "n01440764_tench.JPEG") as im:
        return im.convert("RGB").resize(size)


def test_wnids_are_the_1000_sorted_and_cover_the_sample() -> None:
    wnids = imagenet.imagenet_wnids()
    assert len(wnids) == 1000 and list(wnids) == sorted(set(wnids))
    assert wnids[0] == "n01440764" and wnids[-1] == "n15075141"
    assert imagenet.wnid_to_index("n01440764") == 0 and imagenet.index_to_wnid(999) == "n15075141"
    assert imagenet.class_name("n01440764") == "tench" and imagenet.class_name(1) == "goldfish"
    with pytest.raises(ValueError, match="not one of the 1000"):
        imagenet.wnid_to_index("n99999999")
    need_shared()
    sample = {imagenet.wnid_from_name(p.name) for p in IMAGENET_SAMPLE.iterdir()}
    assert len(sample) == 500 and sample <= set(wnids)


def test_scan_flat_folder_with_wnid_prefixes() -> None:
    need_shared()
    scan = scan_image_folder(IMAGENET_SAMPLE)
    assert scan.layout == "flat" and len(scan.items) == 500 and len(scan.classes) == 500
    first = scan.items[0]
    assert first.rel == "n01440764/n01440764_tench.JPEG" and first.label == "n01440764"
    assert [it.rel for it in scan.items] == sorted(it.rel for it in scan.items)


def test_scan_class_folders_sorted_hidden_and_non_images(tmp_path: Path) -> None:
    for cls in ("b", "a"):
        (tmp_path / cls).mkdir()
        for name in ("z.JPEG", "m.png", "notes.txt", ".hidden.jpg"):
            (tmp_path / cls / name).write_bytes(b"x")
    (tmp_path / ".cache").mkdir()
    (tmp_path / "top.jpg").write_bytes(b"x")
    scan = scan_image_folder(tmp_path)
    assert scan.layout == "classes" and scan.classes == ["a", "b"]
    assert [it.rel for it in scan.items] == ["a/m.png", "a/z.JPEG", "b/m.png", "b/z.JPEG"]
    assert sorted(p.name for p in scan.ignored) == ["notes.txt", "notes.txt", "top.jpg"]


def test_scan_flat_without_wnids(tmp_path: Path) -> None:
    for name in ("b.jpg", "a.png", "n01440764_x.jpg"):
        (tmp_path / name).write_bytes(b"x")
    scan = scan_image_folder(tmp_path)
    assert [(it.rel, it.label) for it in scan.items] == [
        ("a.png", None),
        ("b.jpg", None),
        ("n01440764_x.jpg", None),
    ]
    with pytest.raises(FileNotFoundError):
        scan_image_folder(tmp_path / "missing")


@pytest.mark.parametrize("mode", ["L", "CMYK", "P", "RGBA", "I;16", "LA", "1"])
def test_load_image_converts_modes_like_the_reference(tmp_path: Path, mode: str) -> None:
    im = _photo()
    src = (
        im.convert(mode)
        if mode != "I;16"
        else Image.fromarray(np.asarray(im.convert("L")).astype(np.uint16) * 200)
    )
    path = tmp_path / ("x.tif" if mode in ("I;16", "CMYK") else "x.png")
    src.save(path)
    got = load_image(path)
    assert got.mode == "RGB" and got.size == im.size
    with Image.open(path) as ref:
        if mode == "I;16":  # 16 bits -> the high byte (Pillow's own convert clips to white)
            want = np.repeat((np.asarray(ref).astype(np.uint32) >> 8)[..., None], 3, axis=2)
            assert np.array_equal(np.asarray(got), want) and 0 < want.max() < 255
        else:
            assert np.array_equal(np.asarray(got), np.asarray(ref.convert("RGB")))


def test_load_image_errors(tmp_path: Path) -> None:
    need_shared()
    data = (IMAGENET_SAMPLE / "n01440764_tench.JPEG").read_bytes()
    (tmp_path / "trunc.jpg").write_bytes(data[: len(data) // 3])
    (tmp_path / "text.jpg").write_text("not an image")
    (tmp_path / "empty.png").write_bytes(b"")
    with pytest.raises(ImageLoadError, match="truncated"):
        load_image(tmp_path / "trunc.jpg")
    with pytest.raises(ImageLoadError, match="not an image"):
        load_image(tmp_path / "text.jpg")
    with pytest.raises(ImageLoadError, match="not an image"):
        load_image(tmp_path / "empty.png")
    with pytest.raises(ImageLoadError, match="not found"):
        load_image(tmp_path / "nope.jpg")

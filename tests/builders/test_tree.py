"""make-c ``--layout tree``: any dataset folder at native size (COCO-C style).

Sizes, formats, gray / alpha, JPEG quality, EXIF orientation, copied annotations and their links,
skipped files, the profile's tables at every size, kill + resume, workers = Ray."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from builders.support import cli_cmd, kill_when, make_c_with_ray, make_coco_tree, tree
from corruptbench import ALL_CORRUPTIONS, corrupt
from corruptbench.builders import BuildError, TreeWriter, build_tree, tree_output_name
from corruptbench.builders.tree import encode_native
from corruptbench.errors import ArgumentError
from corruptbench.formats.jpeg import encode_jpeg, jpeg_quality
from corruptbench.pipeline import item_seed

FOG = ["fog", "gaussian_noise"]


def expected(path: Path, rel: str, name: str, sev: int, profile: str = "imagenet") -> np.ndarray:
    """What make-c --layout tree computes for one output: the source as it is, corrupted with
    the item's seed and the profile's tables (never the size-based auto profile)."""
    with Image.open(path) as im:
        arr = np.asarray(im)
    return corrupt(arr, name, sev, profile=profile, rng=item_seed(0, "c", name, sev, rel))


def test_coco_tree_sizes_formats_quality_bytes_and_annotations(tmp_path: Path) -> None:
    src = make_coco_tree(tmp_path)
    out = tmp_path / "out"
    s = build_tree(src, out, corruptions=FOG, severities=[1, 4], copy_files=["annotations"])
    assert s.images == 6 and s.processed == 6 and s.written == 5 * 4 and not s.failed
    assert [(r.rel, r.reason.split(":")[0]) for r in s.skipped] == [
        ("val2017/000000000785.jpg", "truncated image")
    ]
    assert s.ignored == 1  # README.txt
    for name in FOG:
        for sev in (1, 4):
            cell = out / name / str(sev)
            for p in sorted(src.rglob("*.*")):
                rel = p.relative_to(src).as_posix()
                if not rel.startswith("val2017/") or "785" in rel:
                    continue
                o = cell / rel
                with Image.open(p) as a, Image.open(o) as b:
                    assert (b.format, b.mode, b.size) == (a.format, a.mode, a.size), rel
                    if a.format == "JPEG":
                        assert jpeg_quality(b) == jpeg_quality(a) in (75, 90)
                    got = np.asarray(b)
                want = expected(p, rel, name, sev)
                if p.suffix == ".png":  # lossless: the very pixels
                    assert np.array_equal(got, want), rel
                else:  # the very bytes: JPEG at the source's quality
                    assert o.read_bytes() == encode_jpeg(want, jpeg_quality(Image.open(p))), rel
            # every corruption / severity is a dataset root: annotations next to val2017
            link = cell / "annotations"
            assert link.is_symlink() and os.readlink(link) == os.path.join(
                "..", "..", "annotations"
            )
            ann = json.loads((link / "instances_val2017.json").read_text())
            named = [im["file_name"] for im in ann["images"] if "785" not in im["file_name"]]
            assert len(named) == 5 and all((cell / "val2017" / f).exists() for f in named)
    # copied once, not per corruption; the README is not copied
    assert (out / "annotations" / "instances_val2017.json").read_bytes() == (
        src / "annotations" / "instances_val2017.json"
    ).read_bytes()
    assert not (out / "README.txt").exists()
    files = [p for p in out.rglob("*") if p.is_file() and not p.is_symlink()]
    assert sum(p.name == "instances_val2017.json" for p in files) == 1
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["params"]["jpeg_quality"] == "source" and manifest["source"]["kind"] == "tree"
    assert manifest["status"] == "complete" and not list(out.rglob("*.cbtmp"))
    assert build_tree(
        src, out, corruptions=FOG, severities=[1, 4], copy_files=["annotations"]
    ).nothing_to_do


def test_profile_tables_at_every_size_not_the_auto_switch(tmp_path: Path) -> None:
    """A 32 x 32 image keeps the imagenet tables (auto would pick cifar); --profile cifar is
    honoured at 640 x 480 too."""
    src = tmp_path / "src"
    src.mkdir()
    rng = np.random.default_rng(0)
    small = rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)
    big = rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)
    Image.fromarray(small).save(src / "small.png")
    Image.fromarray(big).save(src / "big.png")
    build_tree(src, tmp_path / "a", corruptions=["contrast"], severities=[5])
    got = np.asarray(Image.open(tmp_path / "a" / "contrast" / "5" / "small.png"))
    assert np.array_equal(got, corrupt(small, "contrast", 5, profile="imagenet"))
    assert not np.array_equal(got, corrupt(small, "contrast", 5, profile="cifar"))
    build_tree(src, tmp_path / "c", corruptions=["contrast"], severities=[5], profile="cifar")
    got = np.asarray(Image.open(tmp_path / "c" / "contrast" / "5" / "big.png"))
    assert np.array_equal(got, corrupt(big, "contrast", 5, profile="cifar"))


@pytest.mark.parametrize(
    "shape", [(480, 640, 3), (640, 480, 3), (16, 2000, 3), (2000, 16, 3), (17, 333), (101, 203, 4)]
)
def test_every_corruption_at_native_sizes(shape: tuple[int, ...]) -> None:
    """Landscape, portrait, the thinnest strip the imagenet profile takes (16 px), odd sizes,
    gray and RGBA: every corruption returns the input's shape (severities 1 and 5)."""
    img = np.random.default_rng(1).integers(0, 256, shape, dtype=np.uint8)
    for name in ALL_CORRUPTIONS:
        for sev in (1, 5):
            out = corrupt(img, name, sev, profile="imagenet", rng=3)
            assert out.shape == img.shape and out.dtype == np.uint8, (name, sev)


def test_small_modes_alpha_and_other_formats(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    rng = np.random.default_rng(2)
    rgb = rng.integers(0, 256, (40, 56, 3), dtype=np.uint8)
    Image.fromarray(rgb[:15]).save(src / "too_small.png")  # 15 px < the imagenet minimum 16
    Image.fromarray(np.dstack([rgb, rgb[:, :, :1]])).save(src / "rgba.png")
    Image.fromarray(rgb[:, :, :2], "LA").save(src / "la.png")
    Image.fromarray(rgb).convert("P").save(src / "palette.gif")
    Image.fromarray(rgb).save(src / "tiff.tif")
    Image.fromarray(rgb).save(src / "bitmap.bmp")
    Image.fromarray(rgb[:, :, 0]).save(src / "gray.pgm")
    Image.fromarray(rgb).save(src / "lossless.webp", lossless=True)
    # PNG bytes with alpha under a .jpg name: a JPEG output cannot hold the alpha channel
    Image.fromarray(np.dstack([rgb, rgb[:, :, :1]])).save(src / "alpha_named.jpg", format="PNG")
    Image.fromarray(rgb[:, :, 0].astype(np.uint16) * 257).save(src / "deep.png")  # 16-bit
    s = build_tree(src, tmp_path / "out", corruptions=["shot_noise"], severities=[2])
    reasons = {r.rel: r.reason for r in s.skipped}
    assert "too small" in reasons["too_small.png"] and "minimum side 16" in reasons["too_small.png"]
    assert "alpha channel" in reasons["alpha_named.jpg"]
    assert "deep.png" not in reasons  # 16-bit gray: its high byte, as every reader does
    cell = tmp_path / "out" / "shot_noise" / "2"
    want = {
        "rgba.png": ("PNG", "RGBA"),
        "la.png": ("PNG", "LA"),
        "palette.png": ("PNG", "RGB"),  # GIF holds 256 colours: written as PNG
        "tiff.tif": ("TIFF", "RGB"),
        "bitmap.bmp": ("BMP", "RGB"),
        "gray.pgm": ("PPM", "L"),
        "deep.png": ("PNG", "L"),
        "lossless.webp": ("WEBP", "RGB"),
    }
    assert sorted(p.name for p in cell.iterdir()) == sorted(want)
    for fname, (fmt, mode) in want.items():
        with Image.open(cell / fname) as im:
            assert (im.format, im.mode, im.size) == (fmt, mode, (56, 40)), fname
    # lossless formats keep the exact corrupted pixels; alpha is kept as it was
    rgba = np.asarray(Image.open(cell / "rgba.png"))
    src_rgba = np.asarray(Image.open(src / "rgba.png"))
    seed = item_seed(0, "c", "shot_noise", 2, "rgba.png")
    assert np.array_equal(rgba, corrupt(src_rgba, "shot_noise", 2, profile="imagenet", rng=seed))
    la = np.asarray(Image.open(cell / "la.png"))
    seed = item_seed(0, "c", "shot_noise", 2, "la.png")
    assert np.array_equal(la[:, :, 1], rgb[:, :, 1])
    assert np.array_equal(la[:, :, 0], corrupt(rgb[:, :, 0].copy(), "shot_noise", 2, rng=seed))
    webp = np.asarray(Image.open(cell / "lossless.webp"))
    seed = item_seed(0, "c", "shot_noise", 2, "lossless.webp")
    assert np.array_equal(webp, corrupt(rgb, "shot_noise", 2, profile="imagenet", rng=seed))


def test_jpeg_quality_option_fallback_and_exif_orientation(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    rgb = np.random.default_rng(3).integers(0, 256, (48, 64, 3), dtype=np.uint8)
    exif = Image.Exif()
    exif[0x0112] = 6  # stored landscape, shown portrait
    Image.fromarray(rgb).save(src / "rotated.jpg", quality=80, exif=exif.tobytes())
    # another encoder's tables (flat 3s): the quality cannot be read -> 95
    Image.fromarray(rgb).save(src / "custom.jpg", qtables=[[3] * 64, [3] * 64])
    Image.fromarray(rgb).save(src / "rotated.png", exif=exif.tobytes())
    build_tree(src, tmp_path / "auto", corruptions=["brightness"], severities=[3])
    cell = tmp_path / "auto" / "brightness" / "3"
    with Image.open(cell / "rotated.jpg") as im:
        assert jpeg_quality(im) == 80 and im.getexif().get(0x0112) == 6
    with Image.open(cell / "custom.jpg") as im:
        assert jpeg_quality(im) == 95 and 0x0112 not in im.getexif()
    with Image.open(cell / "rotated.png") as im:
        assert im.getexif().get(0x0112) == 6
    # the JPEG bytes are Pillow's save(quality=q, optimize=True, exif=orientation only)
    out = expected(src / "rotated.jpg", "rotated.jpg", "brightness", 3)
    buf = io.BytesIO()
    only = Image.Exif()
    only[0x0112] = 6
    Image.fromarray(out).save(buf, "JPEG", quality=80, optimize=True, exif=only.tobytes())
    assert (cell / "rotated.jpg").read_bytes() == buf.getvalue()
    build_tree(src, tmp_path / "q60", corruptions=["brightness"], severities=[3], quality=60)
    for f in ("rotated.jpg", "custom.jpg"):
        with Image.open(tmp_path / "q60" / "brightness" / "3" / f) as im:
            assert jpeg_quality(im) == 60
    with pytest.raises(ArgumentError, match="quality must be an int in 1..100, got 0"):
        build_tree(src, tmp_path / "bad", quality=0)


def test_copy_files_patterns_links_and_collisions(tmp_path: Path) -> None:
    """Cityscapes-like: label PNGs under gtFine/ are copied (not corrupted); a copied folder
    that also holds images is linked file by file."""
    src = tmp_path / "src"
    rgb = np.random.default_rng(4).integers(0, 256, (32, 48, 3), dtype=np.uint8)
    for d in ("leftImg8bit/val/city", "gtFine/val/city", "lists"):
        (src / d).mkdir(parents=True)
    Image.fromarray(rgb).save(src / "leftImg8bit/val/city/a_leftImg8bit.png")
    Image.fromarray(rgb[:, :, 0]).save(src / "gtFine/val/city/a_gtFine_labelIds.png")
    (src / "lists" / "val.txt").write_text("a\n")
    (src / "leftImg8bit" / "val" / "classes.json").write_text("{}")
    Image.fromarray(rgb).save(src / "leftImg8bit/val/city/b.gif")
    Image.fromarray(rgb).save(src / "leftImg8bit/val/city/b.png")  # b.gif's output name
    out = tmp_path / "out"
    s = build_tree(
        src,
        out,
        corruptions=["pixelate"],
        severities=[1],
        copy_files=["gtFine", "lists/*.txt", "*/classes.json", "leftImg8bit/val/city/b.png"],
    )
    assert [(r.rel, r.reason) for r in s.skipped] == [
        (
            "leftImg8bit/val/city/b.gif",
            "output name collides with the copied file leftImg8bit/val/city/b.png",
        )
    ]
    label = out / "gtFine/val/city/a_gtFine_labelIds.png"
    assert label.read_bytes() == (src / "gtFine/val/city/a_gtFine_labelIds.png").read_bytes()
    cell = out / "pixelate" / "1"
    assert sorted(p.name for p in cell.iterdir()) == ["gtFine", "leftImg8bit", "lists"]
    assert (cell / "gtFine").is_symlink() and (cell / "lists").is_symlink()
    # leftImg8bit holds images: its copied files are linked one by one, next to the images
    assert not (cell / "leftImg8bit").is_symlink()
    assert (cell / "leftImg8bit/val/classes.json").is_symlink()
    assert (cell / "leftImg8bit/val/classes.json").read_text() == "{}"
    assert (cell / "leftImg8bit/val/city/a_leftImg8bit.png").stat().st_size > 0
    # without links; errors
    s2 = build_tree(src, tmp_path / "nolinks", corruptions=["pixelate"], severities=[1],
                    copy_files=["gtFine"], links=False)  # fmt: skip
    assert not s2.failed and not (tmp_path / "nolinks" / "pixelate" / "1" / "gtFine").exists()
    with pytest.raises(BuildError, match="'labels' selects no file"):
        build_tree(src, tmp_path / "x", copy_files=["labels"])
    (src / "fog").mkdir()
    (src / "fog" / "notes.txt").write_text("clashes with OUT/fog")
    with pytest.raises(BuildError, match="would land in OUT/fog"):
        build_tree(src, tmp_path / "y", corruptions=["fog"], copy_files=["fog"])


def test_writer_names_and_encoding() -> None:
    assert tree_output_name("a/b.GIF") == "a/b.png" and tree_output_name("a/b.JPG") == "a/b.JPG"
    w = TreeWriter("OUT")
    assert w.target("fog", 2, "val2017/x.jpg") == os.path.join(
        "OUT", "fog", "2", "val2017", "x.jpg"
    )
    assert w.output_key("A/B.pbm") == "a/b.png" and w.manifest_params()["jpeg_quality"] == "source"
    gray = np.arange(48 * 64, dtype=np.uint8).reshape(48, 64)
    assert encode_native(gray, "JPEG", 90) == encode_jpeg(gray, 90)
    back = np.asarray(Image.open(io.BytesIO(encode_native(gray, "PNG", 0))))
    assert np.array_equal(back, gray)


def test_sigkill_and_resume_gives_identical_bytes(tmp_path: Path) -> None:
    src = make_coco_tree(tmp_path)
    opts = ["--layout", "tree", "--corruptions", "glass_blur,frost,zoom_blur", "--no-progress"]
    opts += ["--copy-files", "annotations", "--workers", "1"]
    full, killed = tmp_path / "full", tmp_path / "killed"
    r = subprocess.run(cli_cmd("make-c", str(src), str(full), *opts), capture_output=True)
    assert r.returncode == 0, r.stderr
    n = len(list(full.rglob("*.jpg"))) + len(list(full.rglob("*.png")))
    assert n == 5 * 15
    cmd = cli_cmd("make-c", str(src), str(killed), *opts)
    kill_when(cmd, lambda: len(list(killed.rglob("*.jpg"))) >= 8)
    assert json.loads((killed / "manifest.json").read_text())["status"] == "running"
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    assert tree(killed) == tree(full)


@pytest.mark.slow
def test_one_worker_two_workers_and_ray_give_identical_bytes(
    ray_cluster: Any, tmp_path: Path
) -> None:
    """Ray: ``make-c --ray auto --workers 2`` joins the cluster named by RAY_ADDRESS."""
    src = make_coco_tree(tmp_path)
    kw = dict(corruptions=["snow", "glass_blur", "jpeg_compression"], severities=[2, 5])
    kw["copy_files"] = ["annotations"]
    one = build_tree(src, tmp_path / "one", **kw)  # type: ignore[arg-type]
    two = build_tree(src, tmp_path / "two", workers=2, **kw)  # type: ignore[arg-type]
    env = {**ray_cluster.driver_env(), "RAY_ADDRESS": ray_cluster.address}
    text = make_c_with_ray(
        [str(src), str(tmp_path / "ray"), "--layout", "tree", "--copy-files", "annotations",
         "--corruptions", "snow,glass_blur,jpeg_compression", "--severities", "2,5",
         "--workers", "2", "--ray", "auto", "--no-progress"], env,
    )  # fmt: skip
    assert one.written == two.written == 5 * 6 and "30 outputs written" in text, text
    assert tree(tmp_path / "one") == tree(tmp_path / "two") == tree(tmp_path / "ray")


def test_tiff_orientation_is_applied_once(tmp_path: Path) -> None:
    """Pillow turns a TIFF upright on reading: the output holds those pixels and no orientation,
    so it looks like the source in any orientation-aware reader."""
    src = tmp_path / "src"
    src.mkdir()
    rgb = np.random.default_rng(5).integers(0, 256, (40, 56, 3), dtype=np.uint8)
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.fromarray(rgb).save(src / "turned.tif", exif=exif.tobytes())
    build_tree(src, tmp_path / "out", corruptions=["contrast"], severities=[1])
    with (
        Image.open(src / "turned.tif") as a,
        Image.open(tmp_path / "out/contrast/1/turned.tif") as b,
    ):
        assert b.size == a.size and b.getexif().get(0x0112) is None
        seed = item_seed(0, "c", "contrast", 1, "turned.tif")
        assert np.array_equal(np.asarray(b), corrupt(np.asarray(a), "contrast", 1, rng=seed))

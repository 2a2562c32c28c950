"""Writers: the JPEG tree (bytes, names, collisions), npy arrays, the MP4 tree's names."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
from PIL import Image

from builders.support import FAST, left_temp, make_source, run_c
from corruptbench import corrupt
from corruptbench.builders import (
    JpegTreeWriter,
    Mp4TreeWriter,
    NpyCWriter,
    NpyPWriter,
    build,
    output_name,
)
from corruptbench.ops.preprocess import profile_preprocess
from corruptbench.pipeline import item_seed
from support import IMAGENET_SAMPLE, need_shared


def test_output_names() -> None:
    assert (
        output_name("n1/x.JPEG", "jpeg") == "n1/x.JPEG"
        and output_name("n1/x.jpeg", "jpeg") == "n1/x.jpeg"
    )
    assert (
        output_name("n1/x.png", "jpeg") == "n1/x.jpg"
        and output_name("n1/x.JPEG", "mp4") == "n1/x.mp4"
    )


def test_writer_targets_layouts_and_params() -> None:
    j = JpegTreeWriter("OUT", 90)
    assert j.target("fog", 3, "n1/a.png") == str(Path("OUT", "fog", "3", "n1", "a.jpg"))
    assert j.output_key("n1/A.PNG") == "n1/a.jpg" and j.manifest_params() == {"jpeg_quality": 90}
    m = Mp4TreeWriter("OUT", "veryslow", "yuv420p")
    assert m.target("gaussian_noise", 2, "n1/a.JPEG") == str(
        Path("OUT", "gaussian_noise_2", "n1", "a.mp4")
    )
    assert m.manifest_params() == {"x264": {"preset": "veryslow", "pix_fmt": "yuv420p", "fps": 1}}
    assert NpyCWriter("OUT").output_key("a.png") is None  # array rows cannot collide
    assert "severity-major" in NpyCWriter("OUT").layout() and "(N, T" in NpyPWriter("OUT").layout()
    # about 64 MB of output per npy shard, at most 100 items, at least 1
    assert NpyCWriter("OUT").default_shard_size("cifar", 95) == 100
    assert NpyCWriter("OUT").default_shard_size("imagenet", 95) == 4
    assert NpyPWriter("OUT").default_shard_size("imagenet", 20) == 1


def test_jpeg_writer_bytes_are_pillows(photo224: np.ndarray, tmp_path: Path) -> None:
    """(Was tests/test_jpeg.py::test_build_uses_it.)"""
    target = tmp_path / "a.JPEG"
    JpegTreeWriter(str(tmp_path), 85).write(str(target), photo224, "fog")
    buf = io.BytesIO()
    Image.fromarray(photo224).save(buf, format="JPEG", quality=85, optimize=True)
    assert target.read_bytes() == buf.getvalue() and not list(tmp_path.glob(".*"))


def test_make_c_jpeg_layout_bytes_and_rerun(tmp_path: Path) -> None:
    src = make_source(tmp_path)
    out = tmp_path / "out"
    s = run_c(src, out)
    assert s.processed == 3 and s.written == 3 * 2 * 5 and not s.skipped and not s.failed
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert len(files) == 30 + 2 and "manifest.json" in files and "skipped.csv" in files
    rel = sorted((src).rglob("*.JPEG"))[0].relative_to(src).as_posix()
    for name in FAST:
        for sev in (1, 5):
            path = out / name / str(sev) / rel
            with Image.open(path) as im:
                assert im.format == "JPEG" and im.size == (224, 224) and im.mode == "RGB"
            # the bytes are exactly: preprocess -> corrupt with item_seed -> JPEG q85 optimize
            with Image.open(src / rel) as im:
                img = profile_preprocess(im.convert("RGB"), "imagenet")
            arr = corrupt(
                img,
                name,
                sev,
                profile="imagenet",
                rng=np.random.RandomState(item_seed(0, "c", name, sev, rel)),
            )
            buf = io.BytesIO()
            Image.fromarray(arr).save(buf, format="JPEG", quality=85, optimize=True)
            assert path.read_bytes() == buf.getvalue()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["params"]["seed"] == 0
    assert manifest["params"]["corruptions"] == FAST and manifest["params"]["severities"] == [
        1,
        2,
        3,
        4,
        5,
    ]
    assert manifest["params"]["corruptbench_version"] and manifest["params"]["source_fingerprint"]

    before = {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in out.rglob("*")}
    again = run_c(src, out)
    assert again.nothing_to_do and again.processed == 0 and again.written == 0
    assert {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in out.rglob("*")} == before

    # a deleted output is re-made, identically; a stale temporary file is cleaned up
    victim = out / "gaussian_noise" / "3" / rel
    good = victim.read_bytes()
    victim.unlink()
    left_temp(victim.parent / "stale.JPEG")
    s3 = run_c(src, out)
    assert s3.processed == 1 and s3.written == 1 and victim.read_bytes() == good
    assert not list(out.rglob("*.cbtmp"))


def test_cifar_profile_rejects_wrong_size_per_file(tmp_path: Path) -> None:
    need_shared()
    src = tmp_path / "src" / "cat"
    src.mkdir(parents=True)
    Image.new("RGB", (32, 32), (10, 200, 30)).save(src / "a.png")
    Image.new("RGB", (40, 32), (10, 200, 30)).save(src / "b.png")
    s = build(
        "c",
        tmp_path / "src",
        tmp_path / "out",
        profile="cifar",
        fmt="npy",
        names=["brightness"],
        levels=[1, 2, 3, 4, 5],
        progress=False,
    )
    assert [r.rel for r in s.skipped] == ["cat/b.png"] and "32 x 32" in s.skipped[0].reason
    assert np.load(tmp_path / "out" / "brightness.npy").shape == (5, 32, 32, 3)
    assert (tmp_path / "out" / "sources.txt").read_text() == "cat/a.png\n"


def test_make_c_flat_source_and_name_collisions(tmp_path: Path) -> None:
    need_shared()
    src = tmp_path / "src"
    src.mkdir()
    with Image.open(IMAGENET_SAMPLE / "n01440764_tench.JPEG") as im:
        im.save(src / "photo.png")
        im.save(src / "photo.jpg")
    s = run_c(src, tmp_path / "out", names=["brightness"], levels=[1])
    assert [r.reason.split(" with")[0] for r in s.skipped] == ["output name collides"]
    assert sorted(p.name for p in (tmp_path / "out" / "brightness" / "1").iterdir()) == [
        "photo.jpg"
    ]

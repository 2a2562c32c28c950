"""build(): argument checks, the end-of-run summary."""

from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from builders.support import FAST, make_source, run_c, tree, write_batch
from corruptbench import corrupt
from corruptbench.builders import BuildError, BuildSummary, ItemResult, build, format_summary
from corruptbench.errors import ArgumentError
from corruptbench.grid import subsets
from corruptbench.ops.preprocess import profile_preprocess
from corruptbench.pipeline import item_seed, open_source


def tar_members(path: Path) -> dict[str, bytes]:
    """Every member of a tar shard: name -> bytes."""
    with tarfile.open(path) as tf:
        return {m.name: tf.extractfile(m).read() for m in tf if m.isfile()}  # type: ignore[union-attr]


def test_arguments_are_checked_before_any_work(tmp_path: Path) -> None:
    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    with pytest.raises(ValueError, match="kind must be 'c' or 'p'"):
        build("x", src, out, profile="imagenet", fmt="jpeg", names=["fog"], levels=[1])
    with pytest.raises(BuildError, match="format must be one of mp4, npy, webdataset for make-p"):
        build("p", src, out, profile="imagenet", fmt="jpeg", names=["rotate"], levels=[1])
    with pytest.raises(BuildError, match="^corruptions is empty$"):
        run_c(src, out, names=[])
    with pytest.raises(BuildError, match="^unknown corruption 'fogg'; did you mean 'fog'"):
        run_c(src, out, names=["fogg"])
    with pytest.raises(BuildError, match="^limit must be >= 1, got 0$"):
        run_c(src, out, limit=0)
    with pytest.raises(BuildError, match="must not be the source folder or inside it"):
        run_c(src, src / "inside")
    with pytest.raises(BuildError, match="source not found"):
        run_c(tmp_path / "nope", out)
    with pytest.raises(BuildError, match="difficulties 2 and 3 exist only for"):
        build("p", src, out, profile="imagenet", fmt="mp4", names=["rotate"], levels=[2])
    with pytest.raises(BuildError, match=r"^severities must be in 1..5, got \[0, 1\]$"):
        run_c(src, out, levels=[0, 1])
    with pytest.raises(ArgumentError, match=r"^quality must be an int in 1..100, got 0 \(Pillow"):
        run_c(src, out, quality=0)
    with pytest.raises(BuildError, match="^copy_files applies to the tree layout only$"):
        run_c(src, out, copy_files=["x"])
    # each format takes its own options: one that does not apply is refused, not dropped
    with pytest.raises(
        BuildError, match="^quality applies to --format jpeg, tree, webdataset only$"
    ):
        run_c(src, out, fmt="npy", quality=90)
    with pytest.raises(BuildError, match="^preset applies to --format mp4, webdataset only$"):
        build(
            "p",
            src,
            out,
            profile="imagenet",
            fmt="npy",
            names=["rotate"],
            levels=[1],
            preset="fast",
        )
    assert not out.exists()


def test_relative_paths_reach_the_workers_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ray worker does not run in the driver's working directory: the shards carry absolute
    paths (the summary still shows OUT as given)."""
    make_source(tmp_path, 1)
    (tmp_path / "src" / "n01440764" / "broken.JPEG").write_bytes(b"not a JPEG")
    monkeypatch.chdir(tmp_path)
    s = run_c(Path("src"), Path("out"), names=["brightness"], levels=[1])
    assert s.out == Path("out") and s.written == 1
    assert [r.source for r in s.skipped] == [str(tmp_path / "src" / "n01440764" / "broken.JPEG")]


def test_format_summary(tmp_path: Path) -> None:
    s = BuildSummary(
        tmp_path, images=4, made=2, already_done=1, processed=3, written=6, elapsed=2.0
    )
    s.skipped = [ItemResult("a.png", "skipped", reason="truncated")]
    text = format_summary(s)
    assert text.startswith(
        "4 images: 2 made in this run, 1 already done, 1 skipped, 0 failed; 6 outputs written; "
        "2.0 s (1.50 img/s)"
    )
    assert text.splitlines()[1:] == [
        f"1 input(s) not made (all listed in {tmp_path / 'skipped.csv'}):",
        "  skipped: a.png: truncated",
    ]
    assert s.exit_code == 0
    # warnings are not skips: their own line, after the skips, never called an upsampling
    s.warnings = [ItemResult("b.png", "warning", reason="a remark")]
    assert text + "\n" + "\n".join(
        [
            f"warning: 1 input(s) made with a remark (all listed in {tmp_path / 'skipped.csv'}):",
            "  b.png: a remark",
        ]
    ) == format_summary(s)
    done = BuildSummary(tmp_path, images=4, nothing_to_do=True, ignored=2)
    assert format_summary(done).splitlines() == [
        f"nothing to do: {tmp_path} is complete (4 images)",
        "2 non-image files in the source were ignored (extension not an image type)",
    ]
    assert BuildSummary(tmp_path, failed=[ItemResult("a", "failed")]).exit_code == 1


def _photo(path: Path, size: tuple[int, int], index: int = 0) -> None:
    """A real photo, resized to ``size``, saved at ``path`` (the format from the extension)."""
    from PIL import Image

    from support import IMAGENET_SAMPLE, need_shared

    need_shared()
    with Image.open(sorted(IMAGENET_SAMPLE.iterdir())[index]) as im:
        im.convert("RGB").resize(size).save(path)


def test_the_summary_counts_add_up(tmp_path: Path) -> None:
    """make-c printed "17 images" where 13 were made and 5 skipped (a name collision): every
    source image is counted once, as made, already done, skipped or failed."""
    src = make_source(tmp_path, 4)
    cls = sorted(src.iterdir())[0]
    _photo(cls / "dup.png", (300, 260))  # dup.png and dup.bmp both make dup.jpg
    _photo(cls / "dup.bmp", (300, 260), 1)
    (cls / "bad1.JPEG").write_bytes(b"not a JPEG")
    (cls / "bad2.png").write_bytes((cls / "dup.png").read_bytes()[:200])  # truncated
    out = tmp_path / "out"
    s = run_c(src, out, names=["brightness"], levels=[1])
    assert s.images == 8
    assert (s.made, s.already_done, len(s.skipped), len(s.failed)) == (5, 0, 3, 0)
    assert (
        "output name collides with" in {r.rel: r.reason for r in s.skipped}[f"{cls.name}/dup.png"]
    )
    assert format_summary(s).startswith(
        "8 images: 5 made in this run, 0 already done, 3 skipped, 0 failed; 5 outputs written;"
    )
    victim = next((out / "brightness" / "1").rglob("*.JPEG"))
    victim.unlink()
    again = run_c(src, out, names=["brightness"], levels=[1])
    assert (again.images, again.made, again.already_done, len(again.skipped)) == (8, 1, 4, 3)
    done = run_c(src, out, names=["brightness"], levels=[1])
    assert done.nothing_to_do and (done.images, done.already_done, len(done.skipped)) == (8, 5, 3)
    assert len((out / "skipped.csv").read_text().splitlines()) == 1 + 3


def test_out_that_is_a_file_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from corruptbench.cli import main

    src = make_source(tmp_path, 1)
    out = tmp_path / "out.jpg"
    out.write_bytes(b"mine")
    with pytest.raises(BuildError, match=r"^OUT \(.*out\.jpg\) is an existing file; give a folder"):
        run_c(src, out, names=["brightness"], levels=[1])
    assert main(["make-c", str(src), str(out), "--corruptions", "fog", "--severities", "1"]) == 2
    err = capsys.readouterr().err
    assert "is an existing file; give a folder" in err and "Errno" not in err
    assert out.read_bytes() == b"mine"


def test_links_that_lead_nowhere_are_skipped_and_listed_in_every_layout(tmp_path: Path) -> None:
    """A symlink loop stopped an ImageNet-layout build (rc 2), the tree layout dropped it
    silently and dangling links were never listed: each is now a skipped row with its reason."""
    classes = make_source(tmp_path, 2, name="classes")
    cls = sorted(classes.iterdir())[0]
    flat = tmp_path / "flat"
    flat.mkdir()
    _photo(flat / "photo.png", (300, 260))
    tree_root = tmp_path / "tree"
    (tree_root / "a").mkdir(parents=True)
    _photo(tree_root / "a" / "photo.png", (300, 260))
    for folder in (cls, flat, tree_root / "a"):
        (folder / "loop.jpg").symlink_to("loop.jpg")
        (folder / "dangling.jpg").symlink_to("missing.jpg")
    (classes / "loopdir").symlink_to("loopdir")  # where a class folder would be
    (tree_root / "loopdir").symlink_to("loopdir")
    cases = [
        (classes, "jpeg", [f"{cls.name}/dangling.jpg", f"{cls.name}/loop.jpg", "loopdir"], 2),
        (flat, "jpeg", ["dangling.jpg", "loop.jpg"], 1),
        (tree_root, "tree", ["a/dangling.jpg", "a/loop.jpg", "loopdir"], 1),
    ]
    for root, fmt, broken, made in cases:
        out = tmp_path / f"out-{root.name}"
        s = run_c(root, out, names=["brightness"], levels=[1], fmt=fmt)
        reasons = {r.rel: r.reason for r in s.skipped}
        assert sorted(reasons) == sorted(broken), root
        assert s.made == made and s.images == made + len(broken)
        for rel in broken:
            if rel.endswith("dangling.jpg"):
                assert reasons[rel] == "dangling symbolic link to 'missing.jpg' (no such file)"
            else:
                assert reasons[rel].startswith("symbolic link loop"), rel
        rows = (out / "skipped.csv").read_text()
        assert all(f"{rel}," in rows for rel in broken)


def test_skipped_csv_keeps_the_rows_of_every_run(tmp_path: Path) -> None:
    """After an interrupt and a resume, skipped.csv kept only the last run's rows: an input made
    with a remark in the first run lost its row."""
    import signal
    import threading
    import time

    from corruptbench.builders.outputs import read_skipped

    cls = tmp_path / "src" / "n01440764"
    cls.mkdir(parents=True)
    _photo(cls / "a_small.png", (300, 159))  # made, upsampled: a warning row
    (cls / "b_bad.JPEG").write_bytes(b"not a JPEG")  # a skipped row
    for i, name in enumerate("cdef"):
        _photo(cls / f"{name}.png", (320, 260), i + 1)
    out = tmp_path / "out"
    fourth = out / "brightness" / "1" / "n01440764" / "d.jpg"

    def interrupt_after_the_fourth_item() -> None:
        for _ in range(60000):  # a hang guard, not a speed check
            if fourth.exists():
                os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C
                return
            time.sleep(0.002)

    watcher = threading.Thread(target=interrupt_after_the_fourth_item)
    watcher.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_c(tmp_path / "src", out, names=FAST, levels=[1, 2, 3, 4, 5])
    finally:
        watcher.join()
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    expected = {("n01440764/a_small.png", "warning"), ("n01440764/b_bad.JPEG", "skipped")}
    assert {(r.rel, r.status) for r in read_skipped(out)} == expected
    s = run_c(tmp_path / "src", out, names=FAST, levels=[1, 2, 3, 4, 5])
    assert s.already_done >= 2 and s.made + s.already_done == 5
    assert {(r.rel, r.status) for r in read_skipped(out)} == expected
    assert [r.rel for r in s.warnings] == ["n01440764/a_small.png"]


def test_a_full_disk_leaves_no_temporary_files(tmp_path: Path) -> None:
    """A full disk left 94 .cbtmp files that kept it full until the next run. A file-size limit
    (RLIMIT_FSIZE, in the command's process only) fails the writes the same way, with EFBIG:
    the run removes its temporary files, says so in one line, and resumes once there is room."""
    import resource
    import subprocess

    from builders.support import cli_cmd
    from support import REPO

    src = make_source(tmp_path, 6)
    out = tmp_path / "out"
    args = ["--format", "webdataset", "--corruptions", "fog", "contrast", "--severities", "1-3"]
    cmd = cli_cmd("make-c", str(src), str(out), *args, "--shard-size", "6", "--workers", "2")
    limit = 60_000  # bytes: the manifest fits, a shard of 6 photos does not

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    full = subprocess.run(
        [*cmd, "--no-progress"],
        preexec_fn=small_files,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
    )
    assert full.returncode == 2, full.stderr
    assert "Traceback" not in full.stderr
    last = full.stderr.strip().splitlines()[-1]
    assert last.startswith("corruptbench make-c: error: File too large")
    assert "temporary file(s) were removed and the finished outputs kept" in last
    assert not [p for p in out.rglob("*") if p.name.endswith(".cbtmp")]
    assert json.loads((out / "manifest.json").read_text())["status"] == "failed"
    again = subprocess.run([*cmd, "--no-progress"], capture_output=True, text=True, cwd=REPO)
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "shards.json").read_text())["complete"]


# ------------------------------------------------------------------------------------------------
# ImageNet-C-bar / CIFAR-10-C-bar (suite cbar)
# ------------------------------------------------------------------------------------------------
#: two ImageNet-C-bar corruptions with random draws (a compiled noise, a Python-loop pattern)
CBAR_FAST = ["blue_noise_sample", "checkerboard_cutout"]


def _pillow_jpeg(arr: np.ndarray) -> bytes:
    """make_imagenet_c_bar.py's save: ``Image.fromarray(np.uint8(image)).save(path, quality=85,
    optimize=True)``."""
    buf = io.BytesIO()
    Image.fromarray(np.uint8(arr)).save(buf, format="JPEG", quality=85, optimize=True)
    return buf.getvalue()


def test_imagenet_c_bar_build_value_named_levels_and_bytes(tmp_path: Path) -> None:
    """make-c --suite cbar: <corruption>/<level>/<wnid>/<file>.JPEG, Resize(256) +
    CenterCrop(224), corrupt with the item's seed at ImageNet-C-bar's level, Pillow's q85
    optimize bytes; the level folders named 1..5 or by value hold the same files."""
    src = make_source(tmp_path, 3)
    kw = dict(profile="imagenet", fmt="jpeg", levels=[1, 2, 3, 4, 5], workers=1, progress=False)
    value = build(
        "c", src, tmp_path / "v", names=CBAR_FAST, suite="cbar", level_names="value", **kw
    )
    plain = build("c", src, tmp_path / "s", names=CBAR_FAST, suite="cbar", **kw)
    assert value.exit_code == plain.exit_code == 0 and value.written == 3 * 2 * 5
    v_tree, s_tree = tree(tmp_path / "v"), tree(tmp_path / "s")
    levels = {
        "blue_noise_sample": (0.8, 1.6, 2.4, 4.0, 5.6),
        "checkerboard_cutout": (2, 3, 4, 5, 6),
    }
    for name, values in levels.items():
        assert sorted(p.name for p in (tmp_path / "v" / name).iterdir()) == sorted(
            f"{x:.2f}" for x in values
        )
    for rel in [p.relative_to(src).as_posix() for p in sorted(src.rglob("*.JPEG"))]:
        img = profile_preprocess(Image.open(src / rel), "imagenet")
        for name in CBAR_FAST:
            for s, level in enumerate(levels[name], 1):
                out = corrupt(img, name, s, rng=item_seed(0, "c", name, s, rel))
                data = (tmp_path / "s" / name / str(s) / rel).read_bytes()
                assert data == _pillow_jpeg(out)
                assert v_tree[f"{name}/{level:.2f}/{rel}"] == s_tree[f"{name}/{s}/{rel}"]
    manifest = json.loads((tmp_path / "v" / "manifest.json").read_text())
    assert manifest["params"]["suite"] == "cbar"
    assert manifest["params"]["level_names"] == "value"
    assert manifest["layout"] == "<corruption>/<level value>/<class>/<file> (JPEG)"
    assert "level_names" not in json.loads((tmp_path / "s" / "manifest.json").read_text())["params"]


def test_imagenet_c_manifests_name_no_suite_or_level_naming(tmp_path: Path) -> None:
    """The suite and the level naming are recorded only when not the default: an ImageNet-C
    build's manifest (and its resume) is as before."""
    src = make_source(tmp_path, 1)
    run_c(src, tmp_path / "out", names=["gaussian_noise"], levels=[1])
    params = json.loads((tmp_path / "out" / "manifest.json").read_text())["params"]
    assert "suite" not in params and "level_names" not in params
    assert run_c(src, tmp_path / "out", names=["gaussian_noise"], levels=[1]).nothing_to_do


def test_cbar_defaults_are_the_profiles_benchmark(tmp_path: Path) -> None:
    """No names: ImageNet-C-bar's ten, CIFAR-10-C-bar's ten with the cifar profile (checked
    before any work, through the one grid)."""
    src = make_source(tmp_path, 1)
    kw = dict(fmt="jpeg", levels=[1], workers=1, progress=False, limit=1)
    with pytest.raises(BuildError, match="^suite must be one of imagenet_c, cbar, got 'cbarr'$"):
        build("c", src, tmp_path / "x", profile="imagenet", suite="cbarr", **kw)
    assert subsets("c", "cbar")["imagenet_c_bar"] != subsets("c", "cbar")["cifar10_c_bar"]
    write_batch(tmp_path / "test_batch", 4)
    build("c", tmp_path / "test_batch", tmp_path / "c", profile="cifar", fmt="npy", levels=[1],
          suite="cbar", workers=1, progress=False)  # fmt: skip
    names = json.loads((tmp_path / "c" / "manifest.json").read_text())["params"]["corruptions"]
    assert names == list(subsets("c", "cbar")["cifar10_c_bar"])
    assert sorted(p.stem for p in (tmp_path / "c").glob("*.npy")) == sorted([*names, "labels"])


def test_level_names_are_refused_where_they_do_not_apply(tmp_path: Path) -> None:
    src = make_source(tmp_path, 1)
    with pytest.raises(BuildError, match="^level_names 'value': 'fog' has no level values"):
        run_c(src, tmp_path / "o", names=["fog", "sparkles"], level_names="value")
    with pytest.raises(BuildError, match="^level_names applies to --format jpeg only$"):
        run_c(src, tmp_path / "o", fmt="webdataset", names=["sparkles"], level_names="value")
    with pytest.raises(BuildError, match="^level_names must be one of severity, value, got 'x'"):
        run_c(src, tmp_path / "o", names=["sparkles"], level_names="x")
    assert not (tmp_path / "o").exists()


def test_cifar10_c_bar_build_as_make_cifar10_c_bar(tmp_path: Path) -> None:
    """make-c --suite cbar --profile cifar on a CIFAR batch: <corruption>.npy (5 x N, 32, 32, 3)
    severity-major and labels.npy (5 x N) as make_cifar10_c_bar.py, each image corrupted at
    CIFAR-10-C-bar's level with its item seed (the batch's row names it)."""
    images, labels = write_batch(tmp_path / "test_batch", 6)
    s = build("c", tmp_path / "test_batch", tmp_path / "out", profile="cifar", fmt="npy",
              names=["pinch_and_twirl", "sparkles"], levels=[1, 2, 3, 4, 5], suite="cbar",
              workers=1, progress=False)  # fmt: skip
    assert s.exit_code == 0
    arr = np.load(tmp_path / "out" / "pinch_and_twirl.npy")
    assert arr.shape == (30, 32, 32, 3) and arr.dtype == np.uint8
    assert np.array_equal(np.load(tmp_path / "out" / "labels.npy"), np.tile(labels, 5))
    source = open_source(tmp_path / "test_batch")
    for sev in (1, 5):
        for i, item in enumerate(source.items):
            rng = item_seed(0, "c", "pinch_and_twirl", sev, item.rel)
            want = corrupt(images[i], "pinch_and_twirl", sev, profile="cifar", rng=rng)
            assert np.array_equal(arr[(sev - 1) * 6 + i], want)


def test_tiny_imagenet_c_bar_and_shards(tmp_path: Path) -> None:
    """Tiny-ImageNet-C-bar (ours: the tiny profile, 64 px, ImageNet-C-bar's levels) and the
    WebDataset format of a C-bar build hold the same JPEG bytes as the folder build."""
    src = make_source(tmp_path, 2)
    kw = dict(
        profile="tiny", names=["sparkles"], levels=[2], suite="cbar", workers=1, progress=False
    )
    build("c", src, tmp_path / "tiny", fmt="jpeg", **kw)
    build("c", src, tmp_path / "shards", fmt="webdataset", **kw)
    files = sorted((tmp_path / "tiny" / "sparkles" / "2").rglob("*.JPEG"))
    assert len(files) == 2
    with Image.open(files[0]) as im:
        assert im.size == (64, 64)
    rel = files[0].relative_to(tmp_path / "tiny" / "sparkles" / "2").as_posix()
    img = profile_preprocess(Image.open(src / rel), "tiny")
    want = corrupt(img, "sparkles", 2, profile="tiny", rng=item_seed(0, "c", "sparkles", 2, rel))
    assert files[0].read_bytes() == _pillow_jpeg(want)
    (tar,) = (tmp_path / "shards").glob("sparkles-2-*.tar")
    jpgs = {n: d for n, d in tar_members(tar).items() if n.endswith(".jpg")}
    assert sorted(jpgs.values()) == sorted(f.read_bytes() for f in files)

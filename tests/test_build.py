"""make-c / make-p: layouts, formats, reproducible bytes, resume, kill -9, workers, Ray, bad input."""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench import corrupt
from corruptbench.build import BuildError, build, item_seed, output_name
from corruptbench.cli import main
from corruptbench.datasets import cifar, video
from corruptbench.ops.preprocess import profile_preprocess
from support import CIFAR_TEST, IMAGENET_SAMPLE, REPO, need_shared, psnr

FAST = ["brightness", "gaussian_noise"]


def tree(root: Path) -> dict[str, str]:
    """relative path -> md5 of every file under root (hidden ones included)."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = Path(dirpath, f)
            out[p.relative_to(root).as_posix()] = hashlib.md5(p.read_bytes()).hexdigest()
    return out


def make_source(tmp_path: Path, n: int = 3, name: str = "src") -> Path:
    """n real photos in a class-folder layout (two classes)."""
    need_shared()
    src = tmp_path / name
    files = sorted(IMAGENET_SAMPLE.iterdir())[:n]
    for f in files:
        wnid = f.name.split("_")[0]
        (src / wnid).mkdir(parents=True, exist_ok=True)
        (src / wnid / f"ILSVRC2012_val_{f.stem[-6:]}.JPEG").write_bytes(f.read_bytes())
    return src


def run_c(src: Path, out: Path, **kw: object):
    args = dict(
        profile="imagenet",
        fmt="jpeg",
        names=FAST,
        levels=[1, 2, 3, 4, 5],
        seed=0,
        workers=1,
        progress=False,
    )
    args.update(kw)
    return build("c", src, out, **args)  # type: ignore[arg-type]


def test_item_seed_and_output_names() -> None:
    assert item_seed(0, "c", "gaussian_noise", 3, "n01440764/a.JPEG") == item_seed(
        0, "c", "gaussian_noise", 3, "n01440764/a.JPEG"
    )
    seeds = {
        item_seed(s, k, n, lv, r)
        for s in (0, 1)
        for k in "cp"
        for n in FAST
        for lv in (1, 2)
        for r in ("a", "b")
    }
    assert len(seeds) == 32 and all(0 <= s < 2**32 for s in seeds)
    assert (
        item_seed(0, "c", "gaussian_noise", 3, "n01440764/a.JPEG") == 283371412
    )  # frozen: changing it changes every dataset
    assert (
        output_name("n1/x.JPEG", "jpeg") == "n1/x.JPEG"
        and output_name("n1/x.jpeg", "jpeg") == "n1/x.jpeg"
    )
    assert (
        output_name("n1/x.png", "jpeg") == "n1/x.jpg"
        and output_name("n1/x.JPEG", "mp4") == "n1/x.mp4"
    )


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
    (victim.parent / ".stale.JPEG.cbtmp").write_bytes(b"partial")
    s3 = run_c(src, out)
    assert s3.processed == 1 and s3.written == 1 and victim.read_bytes() == good
    assert not list(out.rglob("*.cbtmp"))


def test_parameter_mismatch_is_refused(tmp_path: Path) -> None:
    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    run_c(src, out, names=["brightness"], levels=[1])
    with pytest.raises(BuildError, match="seed: 0 there, 1 now"):
        run_c(src, out, names=["brightness"], levels=[1], seed=1)
    with pytest.raises(BuildError, match="different parameters"):
        run_c(src, out, names=["brightness", "fog"], levels=[1])
    rc = main(
        [
            "make-c",
            str(src),
            str(out),
            "--corruptions",
            "brightness",
            "--severities",
            "2",
            "--workers",
            "1",
        ]
    )
    assert rc == 2
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "keep.txt").write_text("mine")
    with pytest.raises(BuildError, match="not empty"):
        run_c(src, tmp_path / "other", names=["brightness"], levels=[1])


def test_bad_inputs_are_skipped_and_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    need_shared()
    src = tmp_path / "src"
    (src / "n01440764").mkdir(parents=True)
    photo = IMAGENET_SAMPLE / "n01440764_tench.JPEG"
    data = photo.read_bytes()
    (src / "n01440764" / "good.JPEG").write_bytes(data)
    (src / "n01440764" / "truncated.JPEG").write_bytes(data[: len(data) // 2])
    (src / "n01440764" / "text.jpg").write_text("this is not a JPEG")
    with Image.open(photo) as im:
        im.convert("CMYK").save(src / "n01440764" / "cmyk.jpg")
        im.convert("P").save(src / "n01440764" / "palette.png")
        im.convert("L").save(src / "n01440764" / "gray.JPEG")
    (src / "n01440764" / "README.txt").write_text("ignored: not an image extension")
    out = tmp_path / "out"
    rc = main(
        [
            "make-c",
            str(src),
            str(out),
            "--corruptions",
            "brightness",
            "--severities",
            "1",
            "--workers",
            "1",
            "--no-progress",
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "2 skipped" in text and "0 failed" in text and "1 non-image files" in text
    rows = (out / "skipped.csv").read_text().splitlines()
    assert rows[0] == "relative_path,source,status,reason" and len(rows) == 3
    assert rows[1].startswith("n01440764/text.jpg,") and "not an image" in rows[1]
    assert rows[2].startswith("n01440764/truncated.JPEG,") and "truncated" in rows[2]
    made = sorted(p.name for p in (out / "brightness" / "1" / "n01440764").iterdir())
    assert made == ["cmyk.jpg", "good.JPEG", "gray.JPEG", "palette.jpg"]
    rc = main(
        [
            "make-c",
            str(src),
            str(out),
            "--corruptions",
            "brightness",
            "--severities",
            "1",
            "--workers",
            "1",
            "--strict",
        ]
    )
    assert rc == 1  # --strict: any skip is an error exit
    capsys.readouterr()


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


def _kill_when(cmd: list[str], ready, timeout: float = 120.0) -> None:
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    t0 = time.time()
    try:
        while proc.poll() is None and not ready():
            if time.time() - t0 > timeout:
                raise AssertionError("build did not make progress in time")
            time.sleep(0.005)
        assert proc.poll() is None, "the build finished before it could be killed; make it bigger"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "corruptbench", *args]


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_sigkill_and_resume_gives_identical_bytes_jpeg(tmp_path: Path, workers: int) -> None:
    src = make_source(tmp_path, 8)
    opts = ["--corruptions", "glass_blur,gaussian_noise,frost", "--no-progress"]
    full, killed = tmp_path / "full", tmp_path / "killed"
    assert main(["make-c", str(src), str(full), *opts, "--workers", "1"]) == 0
    n_files = len(list(full.rglob("*.JPEG")))
    assert n_files == 8 * 15
    cmd = _cli("make-c", str(src), str(killed), *opts, "--workers", str(workers))
    _kill_when(cmd, lambda: len(list(killed.rglob("*.JPEG"))) >= 20)
    snapshot = tree(killed)
    time.sleep(1.0)  # no orphaned worker goes on writing after the driver died
    assert tree(killed) == snapshot
    partial = len(list(killed.rglob("*.JPEG")))
    assert 20 <= partial < n_files
    assert json.loads((killed / "manifest.json").read_text())["status"] == "running"
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    assert tree(killed) == tree(full)


def _write_batch(path: Path, n: int) -> tuple[np.ndarray, np.ndarray]:
    if not CIFAR_TEST.is_dir():
        pytest.skip(f"CIFAR-10 test images not available: {CIFAR_TEST} is absent")
    classes = sorted(p.name for p in CIFAR_TEST.iterdir())
    imgs, labels = [], []
    for i in range(n):
        f = CIFAR_TEST / classes[(i * 7) % 10] / f"{i:04d}.jpg"
        with Image.open(f) as im:
            imgs.append(np.asarray(im.convert("RGB")))
        labels.append((i * 7) % 10)
    images = np.stack(imgs)
    data = images.transpose(0, 3, 1, 2).reshape(n, -1)
    with open(path, "wb") as fh:
        pickle.dump({b"data": data, b"labels": labels, b"batch_label": b"test"}, fh, protocol=2)
    return images, np.asarray(labels)


def test_make_c_cifar_npy_shapes_labels_and_values(tmp_path: Path) -> None:
    images, labels = _write_batch(tmp_path / "test_batch", 12)
    out = tmp_path / "out"
    rc = main(
        [
            "make-c",
            str(tmp_path / "test_batch"),
            str(out),
            "--profile",
            "cifar",
            "--corruptions",
            "fog,gaussian_noise",
            "--workers",
            "1",
        ]
    )
    assert rc == 0
    idx = cifar.scan_cifar_c(out, ["fog", "gaussian_noise"])
    assert idx.n == 12 and not idx.missing
    lab = np.load(out / "labels.npy")
    assert lab.dtype == np.uint8 and np.array_equal(lab, np.tile(labels, 5))
    arr = np.load(out / "gaussian_noise.npy")
    assert arr.shape == (60, 32, 32, 3) and arr.dtype == np.uint8
    for sev in (1, 4):
        for i in (0, 11):
            rel = f"{labels[i]}/{i:05d}.png"
            want = corrupt(
                images[i],
                "gaussian_noise",
                sev,
                profile="cifar",
                rng=item_seed(0, "c", "gaussian_noise", sev, rel),
            )
            assert np.array_equal(arr[(sev - 1) * 12 + i], want)
    assert not (out / ".corruptbench").exists() or not any((out / ".corruptbench").rglob("*.npz"))
    before = tree(out)
    assert (
        main(
            [
                "make-c",
                str(tmp_path / "test_batch"),
                str(out),
                "--profile",
                "cifar",
                "--corruptions",
                "fog,gaussian_noise",
                "--workers",
                "1",
            ]
        )
        == 0
    )
    assert tree(out) == before


@pytest.mark.slow
def test_sigkill_and_resume_gives_identical_bytes_npy(tmp_path: Path) -> None:
    _write_batch(tmp_path / "test_batch", 500)
    opts = [
        "--profile",
        "cifar",
        "--corruptions",
        "glass_blur,zoom_blur",
        "--workers",
        "1",
        "--no-progress",
    ]
    full, killed = tmp_path / "full", tmp_path / "killed"
    assert main(["make-c", str(tmp_path / "test_batch"), str(full), *opts]) == 0
    _kill_when(
        _cli("make-c", str(tmp_path / "test_batch"), str(killed), *opts),
        lambda: len(list(killed.rglob("shard-*.npz"))) >= 2,
    )
    assert not (killed / "glass_blur.npy").exists()
    assert (
        subprocess.run(
            _cli("make-c", str(tmp_path / "test_batch"), str(killed), *opts), capture_output=True
        ).returncode
        == 0
    )
    assert tree(killed) == tree(full)
    assert np.load(full / "glass_blur.npy").shape == (2500, 32, 32, 3)


@pytest.mark.slow
def test_one_worker_two_workers_and_ray_give_identical_bytes(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    src = make_source(tmp_path, 4)
    kw = dict(names=["gaussian_noise", "snow", "frost"], levels=[2, 5])
    one, two, ray_out = tmp_path / "one", tmp_path / "two", tmp_path / "ray"
    run_c(src, one, **kw)
    s2 = run_c(src, two, workers=2, **kw)
    assert s2.processed == 4
    s3 = run_c(
        src,
        ray_out,
        workers=2,
        ray="auto",
        ray_init={"num_cpus": 2, "include_dashboard": False},
        **kw,
    )
    assert s3.processed == 4 and not s3.failed
    assert tree(one) == tree(two) == tree(ray_out)
    assert len(tree(one)) == 4 * 6 + 2


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


def test_make_p_mp4_layout_frames_and_loss(tmp_path: Path) -> None:
    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    rc = main(
        [
            "make-p",
            str(src),
            str(out),
            "--perturbations",
            "translate,gaussian_noise",
            "--difficulty",
            "1,2",
            "--workers",
            "1",
        ]
    )
    assert rc == 0
    rel = next(src.rglob("*.JPEG")).relative_to(src)
    stem = rel.with_suffix(".mp4").as_posix()
    from corruptbench import perturb

    with Image.open(src / rel) as im:
        img = np.asarray(im.convert("RGB"))
    for folder, name, d, t in (
        ("translate", "translate", 1, 41),
        ("gaussian_noise", "gaussian_noise", 1, 31),
        ("gaussian_noise_2", "gaussian_noise", 2, 31),
    ):
        frames = video.read_mp4(out / folder / stem)
        assert frames.shape == (t, 224, 224, 3)
        want = perturb(
            img,
            name,
            profile="imagenet",
            difficulty=d,
            rng=item_seed(0, "p", name, d, rel.as_posix()),
        )
        loss = psnr(frames, want)
        print(f"\nmake-p {folder}: MP4 PSNR vs the exact frames {loss:.2f} dB")
        assert loss > (30 if "noise" in name else 40)
    assert not (out / "translate_2").exists()
    idx = video.scan_imagenet_p(out, difficulties=(1, 2))
    assert sorted(idx.cells) == [("gaussian_noise", 1), ("gaussian_noise", 2), ("translate", 1)]


def test_make_p_cifar_npy(tmp_path: Path) -> None:
    images, _labels = _write_batch(tmp_path / "test_batch", 4)
    out = tmp_path / "out"
    rc = main(
        [
            "make-p",
            str(tmp_path / "test_batch"),
            str(out),
            "--profile",
            "cifar",
            "--perturbations",
            "translate,shot_noise",
            "--difficulty",
            "1,3",
            "--workers",
            "1",
        ]
    )
    assert rc == 0
    got = cifar.scan_cifar_p(out)
    assert sorted(got) == ["shot_noise", "shot_noise_3", "translate"]
    tr = np.load(out / "translate.npy")
    assert tr.shape == (4, 16, 32, 32, 3)
    from corruptbench import perturb

    sn3 = np.load(out / "shot_noise_3.npy")
    rel = f"{_labels[2]}/{2:05d}.png"
    assert np.array_equal(
        sn3[2],
        perturb(
            images[2],
            "shot_noise",
            profile="cifar",
            difficulty=3,
            rng=item_seed(0, "p", "shot_noise", 3, rel),
        ),
    )
    assert not (out / "labels.npy").exists()


def test_cli_argument_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    assert (
        main(["make-p", str(src), str(out), "--perturbations", "translate", "--difficulty", "2"])
        == 2
    )
    assert "only for gaussian_noise" in capsys.readouterr().err and not out.exists()
    assert main(["make-c", str(src), str(out), "--severities", "0-2"]) == 2
    assert main(["make-c", str(src), str(out), "--corruptions", "gausian_noise"]) == 2
    assert "did you mean 'gaussian_noise'" in capsys.readouterr().err
    (tmp_path / "file.bin").write_bytes(b"GIF89a")
    assert main(["make-c", str(tmp_path / "file.bin"), str(out)]) == 2
    assert "not a CIFAR python batch" in capsys.readouterr().err
    assert main(["make-c", str(src), str(src / "inside")]) == 2

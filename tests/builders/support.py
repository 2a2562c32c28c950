"""Helpers of the build tests (and of the make-c / make-p command tests)."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench.builders import BuildSummary, build
from support import CIFAR_TEST, IMAGENET_SAMPLE, REPO, need_shared

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


def make_coco_tree(tmp_path: Path, name: str = "coco") -> Path:
    """A small COCO-style dataset root made from real photos (native sizes, mixed formats).

    ``val2017/``: 640x480 JPEG q90, 480x640 JPEG q75, 333x217 gray JPEG q90, a truncated JPEG;
    ``val2017/sub/deeper/``: 640x480 RGB PNG, 300x200 gray PNG; ``annotations/instances_val2017
    .json`` (COCO-style, naming the images); ``README.txt`` (neither image nor selected).
    """
    need_shared()
    root = tmp_path / name
    val, deep, ann = root / "val2017", root / "val2017" / "sub" / "deeper", root / "annotations"
    for d in (val, deep, ann):
        d.mkdir(parents=True)
    photos = sorted(IMAGENET_SAMPLE.iterdir())

    def photo(i: int, size: tuple[int, int]) -> Image.Image:
        with Image.open(photos[i]) as im:
            return im.convert("RGB").resize(size, Image.Resampling.BICUBIC)

    photo(0, (640, 480)).save(val / "000000000139.jpg", quality=90)
    photo(1, (480, 640)).save(val / "000000000285.jpg", quality=75)
    photo(2, (333, 217)).convert("L").save(val / "000000000632.jpg", quality=90)
    photo(3, (640, 480)).save(deep / "000000000724.png")
    photo(4, (300, 200)).convert("L").save(deep / "000000000776.png")
    data = photos[5].read_bytes()
    (val / "000000000785.jpg").write_bytes(data[: len(data) // 2])
    images = [
        {"id": i, "file_name": p.relative_to(val).as_posix()}
        for i, p in enumerate(sorted(val.rglob("*.*")))
    ]
    (ann / "instances_val2017.json").write_text(json.dumps({"images": images, "annotations": []}))
    (root / "README.txt").write_text("not an image, not selected")
    return root


def run_c(src: Path, out: Path, **kw: object) -> BuildSummary:
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


def write_batch(path: Path, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A CIFAR python batch of n real CIFAR-10 test images at ``path``; (images, labels)."""
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


def kill_when(cmd: list[str], ready: Callable[[], bool], timeout: float = 120.0) -> None:
    """Start ``cmd``, SIGKILL it as soon as ``ready()``."""
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


def cli_cmd(*args: str) -> list[str]:
    """``python -m corruptbench ARGS`` in a subprocess."""
    return [sys.executable, "-m", "corruptbench", *args]


def dead_pid() -> int:
    """The pid of a process of this host that has exited (and was reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def left_temp(target: Path, pid: int | None = None, host: str | None = None) -> Path:
    """A temporary file of ``target`` as a writer with ``pid`` on ``host`` leaves it (default:
    a process of this host that is gone)."""
    from corruptbench.fileio import TMP_SUFFIX, this_host

    pid = dead_pid() if pid is None else pid
    name = f".{target.name}.{host or this_host()}.{pid}.0badc0de{TMP_SUFFIX}"
    path = target.parent / name
    path.write_bytes(b"partial")
    return path

"""Helpers of the build tests (and of the make-c / make-p command tests)."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from PIL import Image

from corruptbench.builders import BuildSummary, build
from corruptbench.formats.webdataset import TarShardWriter, iter_samples, members
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


class BuildCache:
    """The run's make-c builds of shared photos, one per parameter set (the session fixture
    ``c_builds`` of ``tests/conftest.py``): modules that only read a build ask for it here instead
    of building their own, so equal builds are made once.

    ``c(photos, **kw)`` is ``run_c(make_source(photos), out, **kw)``: the path of the build
    (its source: ``source(photos)``). Files and folders are read-only: a test that changes a
    build copies it first (``shutil.copytree``); as root, where modes do not stop a write, the
    build's digest is checked again at the session's end (:meth:`check_untouched`).
    """

    def __init__(self, base: Path) -> None:
        self.base = base
        self._builds: dict[str, Path] = {}
        self._digests: dict[Path, dict[str, str]] = {}

    def source(self, photos: int) -> Path:
        """``make_source(photos)``: ``photos`` shared photos in class folders, made once."""
        src = self.base / f"src-{photos}" / "src"
        if not src.is_dir():
            make_source(src.parent, photos)
            self._freeze(src)
        return src

    def c(self, photos: int, **kw: Any) -> Path:
        """``run_c(source(photos), OUT, **kw)`` made once per ``(photos, kw)``; OUT."""
        key = json.dumps([photos, kw], sort_keys=True, default=str)
        out = self._builds.get(key)
        if out is None:
            out = self.base / f"c-{len(self._builds)}"
            summary = run_c(self.source(photos), out, **kw)
            assert summary.exit_code == 0, f"make-c {key} failed"
            self._freeze(out)
            self._builds[key] = out
        return out

    def _freeze(self, root: Path) -> None:
        self._digests[root] = tree(root)
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                os.chmod(os.path.join(dirpath, name), 0o444)
            os.chmod(dirpath, 0o555)

    def check_untouched(self) -> list[str]:
        """The builds and sources whose files changed since they were made."""
        return [str(root) for root, digest in self._digests.items() if tree(root) != digest]

    def thaw(self) -> None:
        """Writable again, so that pytest can remove its old temporary folders."""
        for root in self._digests:
            for dirpath, _dirs, _files in os.walk(root):
                os.chmod(dirpath, 0o755)


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


# --- Ray: every Ray process runs outside the pytest process -------------------------------------

#: seconds per driver run: far above the ~5-30 s one takes on a loaded 2-core machine
RAY_DRIVER_TIMEOUT = 300
#: Ray's message when a node misses its fixed start-up deadline (see tools/loopback_ray.py)
RAY_START_TIMED_OUT = "The current node timed out during startup"


def need_ray() -> None:
    """Skip unless ray and psutil are installed; ray itself is never imported here."""
    for dist in ("ray", "psutil"):
        try:
            importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pytest.skip(f"{dist} not installed (pip install 'corruptbench[ray]')")


def loopback_ray() -> ModuleType:
    """``tools/loopback_ray.py``: the cluster in its own process (importing it imports no ray)."""
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import loopback_ray
    finally:
        sys.path.remove(str(REPO / "tools"))
    return loopback_ray


def start_cluster(workers: int = 2) -> Any:
    """A ready loopback cluster of ``workers`` one-CPU nodes; says when a node start was retried."""
    need_ray()
    cl = loopback_ray().LoopbackCluster(workers=workers, cpus_per_worker=1)
    cl.start()
    retried = [a for a in cl.attempts if a["error"]]
    print(f"loopback cluster ready in {cl.startup_s:.1f} s; failed node starts: {retried}")
    return cl


def stop_cluster(cl: Any) -> None:
    """Close ``cl``; no process of it may survive, and ray must not be in the pytest process."""
    cl.close()
    left = cl.leftovers()
    assert not left, f"processes of the Ray cluster outlived close(): {left}"
    assert "ray" not in sys.modules, (
        "ray was imported into the pytest process: run Ray drivers in a subprocess "
        "(its threads outlive ray.shutdown())"
    )


def make_c_with_ray(args: list[str], env: dict[str, str], cwd: Path = REPO) -> str:
    """``make-c ARGS`` as a driver process (``ARGS`` holds ``--ray``); its output, or a failure."""
    try:
        r = subprocess.run(
            cli_cmd("make-c", *args), cwd=cwd, env=env, capture_output=True, text=True,
            timeout=RAY_DRIVER_TIMEOUT,
        )  # fmt: skip
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"make-c {' '.join(args)} did not finish in {RAY_DRIVER_TIMEOUT} s: {e}")
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout + r.stderr


def make_c_on_local_ray(args: list[str], attempts: int = 4) -> str:
    """``make-c ARGS --ray auto`` starting its own Ray, as on a user's machine: no RAY_ADDRESS and
    a private ``RAY_TMPDIR`` (no other Ray of this machine is joined). Every socket of the driver
    and of its Ray, sampled while it runs, must be on 127.0.0.1. A run that hits Ray's fixed
    start-up deadline (it did nothing yet) is run again, up to ``attempts`` times."""
    need_ray()
    lr = loopback_ray()
    tmp = tempfile.mkdtemp(prefix="cbray-", dir="/tmp")  # short: AF_UNIX paths < 108 bytes
    env = {**lr.ray_env(), "RAY_TMPDIR": tmp}
    out = ""
    try:
        for _ in range(attempts):
            rc, out, sockets = _run_sampling_sockets(cli_cmd("make-c", *args, "--ray", "auto"), env)
            if rc == 0:
                off = [
                    s for s in sockets if s[1] not in lr.LOOPBACK or s[2] not in (*lr.LOOPBACK, "")
                ]
                assert sockets and not off, f"sockets outside 127.0.0.1: {off}"
                return out
            assert RAY_START_TIMED_OUT in out, out
            lr.kill_processes(lr.processes_naming(tmp))
        pytest.fail(f"Ray did not start in {attempts} attempts:\n{out[-3000:]}")
    finally:
        deadline = time.monotonic() + 10  # ray.shutdown() stops them; give them time to exit
        while (left := lr.processes_naming(tmp)) and time.monotonic() < deadline:
            time.sleep(0.2)
        lr.kill_processes(left)
        shutil.rmtree(tmp, ignore_errors=True)
        assert not left, f"processes of the local Ray outlived make-c: {left}"


def _run_sampling_sockets(
    cmd: list[str], env: dict[str, str]
) -> tuple[int, str, set[tuple[int, str, str]]]:
    """Run ``cmd``; its exit code, its output and every inet socket ``(pid, local ip, remote
    ip)`` of it and its children (a Ray it starts: raylet, agents, workers) seen while it runs."""
    import psutil

    lr = loopback_ray()
    seen: set[tuple[int, str, str]] = set()
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        t0 = time.monotonic()
        while proc.poll() is None:
            if time.monotonic() - t0 > RAY_DRIVER_TIMEOUT:
                proc.kill()
                proc.wait()
                pytest.fail(f"{' '.join(cmd)} did not finish in {RAY_DRIVER_TIMEOUT} s")
            try:
                me = psutil.Process(proc.pid)
                procs = [me, *me.children(recursive=True)]
            except psutil.Error:
                procs = []
            seen.update((pid, laddr, raddr) for pid, _, laddr, raddr in lr.inet_sockets(procs))
            time.sleep(0.1)
        log.seek(0)
        return proc.returncode, log.read(), seen


def tamper_jpegs(tar: Path, n_bytes: int = 800) -> None:
    """Overwrite ``n_bytes`` inside every .jpg member of ``tar`` (the tar stays valid: same size,
    same headers; only the image data changes)."""
    data = bytearray(tar.read_bytes())
    for name, offset, size in members(tar):
        if name.endswith(".jpg"):
            start = offset + size // 3
            data[start : start + n_bytes] = bytes((b * 7 + 1) % 256 for b in range(n_bytes))
    tar.write_bytes(bytes(data))


def shorten_shard(tar: Path, keep: int) -> None:
    """Rewrite ``tar`` as a valid shard holding only its first ``keep`` samples."""
    samples = list(iter_samples(tar))[:keep]
    tmp = tar.with_suffix(".new")
    w = TarShardWriter(tmp, tar.name)
    for key, mem in samples:
        w.add(key, mem)
    w.close()
    tmp.replace(tar)


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

"""The dataset build engine behind ``corruptbench make-c`` and ``make-p``.

Guarantees (each one has a test in ``tests/test_build.py``):

* **Reproducible bytes.** Every output item draws from its own ``np.random.RandomState`` seeded with
  :func:`item_seed` — a BLAKE2b hash of ``(seed, kind, corruption/perturbation, severity/difficulty,
  item's relative path)`` cut to 32 bits — so the bytes do not depend on the worker count, the order
  of work, resuming, Ray vs local processes, or the machine (given the same library versions).
* **Crash-safe and resumable.** Each output file is written to ``.<name>.<pid>.cbtmp`` in its target folder
  and renamed with :func:`os.replace`; a re-run skips outputs that exist and does no work when all
  are there. Temporary files left by a killed run are removed when the next run starts. For ``npy``
  outputs, shards of items are computed into ``OUT/.corruptbench/work/`` (also atomically) and the
  final arrays are assembled at the end, each through a temporary file + rename. A run killed with
  SIGKILL at any moment and re-run gives exactly the bytes of an uninterrupted run.
* **One parameter set per OUT.** ``OUT/manifest.json`` records the parameters, the seed, the
  corruptbench version and a fingerprint of the source (relative paths and sizes, or the batch
  file's hash). A run with different parameters on the same OUT is refused. The manifest holds no
  timestamps, so it is itself reproducible; timing goes to the printed summary only.
* **Bad input does not stop a run.** Unreadable, truncated and non-image files are skipped and listed
  with the reason in ``OUT/skipped.csv`` (also items whose corruption raised: ``failed``);
  ``strict=True`` turns any skip into a non-zero exit status.

Bookkeeping lives only at the top of OUT (``manifest.json``, ``skipped.csv``, and for a folder source
built as ``npy`` ``sources.txt``, the source item of each row) and in the hidden ``OUT/.corruptbench/``.

Work is split into shards: one source image (all corruptions x severities of it, so it is decoded
once) for file outputs, or a chunk of items for ``npy``. Shards run in-process (``workers=1``), in a
local process pool (``concurrent.futures`` with the ``spawn`` start method, one thread per worker;
on Linux the workers die with the driver), or as Ray tasks that write to the same OUT path (which must then be shared).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import multiprocessing as mp
import os
import shutil
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from . import __version__
from .datasets.cifar import is_cifar_batch, read_cifar_batch
from .datasets.imagenet import ImageLoadError, is_wnid, load_image, scan_image_folder, wnid_to_index
from .datasets.video import (
    DEFAULT_PIX_FMT,
    DEFAULT_PRESET,
    NOISE_PERTURBATIONS,
    perturbation_dirname,
    write_mp4,
)
from .profiles import PROFILES

__all__ = [
    "BuildError",
    "BuildSpec",
    "BuildSummary",
    "SourceItem",
    "Source",
    "item_seed",
    "open_source",
    "build",
    "output_name",
    "TMP_SUFFIX",
]

TMP_SUFFIX = ".cbtmp"
WORK_DIR = ".corruptbench"
MANIFEST = "manifest.json"
SKIPPED = "skipped.csv"
SOURCES = "sources.txt"
_JPEG_EXTS = (".jpg", ".jpeg")


class BuildError(ValueError):
    """A build cannot start (bad source, parameter mismatch with an existing OUT, ...)."""


# --------------------------------------------------------------------------------------------------
# seeds and names


def item_seed(seed: int, kind: str, name: str, level: int, rel: str) -> int:
    """The 32-bit seed of one output item.

    ``blake2b(f"{seed}|{kind}|{name}|{level}|{rel}", digest_size=4)`` read little-endian, where
    ``kind`` is ``"c"`` (make-c) or ``"p"`` (make-p), ``level`` the severity or difficulty and
    ``rel`` the item's POSIX relative path (e.g. ``n01440764/ILSVRC2012_val_00000293.JPEG``).
    Reproduce one file with ``corrupt(img, name, level, profile=..., rng=item_seed(...))``.
    """
    key = f"{int(seed)}|{kind}|{name}|{int(level)}|{rel}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=4).digest(), "little")


def output_name(rel: str, fmt: str) -> str:
    """Relative output path of a source item.

    ``jpeg``: the relative path is kept when the extension is ``.jpg``/``.jpeg`` in any case (so
    ``ILSVRC2012_val_00000293.JPEG`` keeps its name, as in the released ImageNet-C); any other
    extension is replaced by ``.jpg`` (the bytes are always JPEG). ``mp4``: the stem + ``.mp4``
    (the reference strips ``.JPEG``).
    """
    stem, ext = os.path.splitext(rel)
    if fmt == "jpeg":
        return rel if ext.lower() in _JPEG_EXTS else stem + ".jpg"
    if fmt == "mp4":
        return stem + ".mp4"
    raise ValueError(fmt)


# --------------------------------------------------------------------------------------------------
# sources


@dataclass(frozen=True)
class SourceItem:
    """One source image: relative path (names outputs, seeds randomness), file or pixels, label."""

    index: int
    rel: str
    path: str | None = None
    array: np.ndarray | None = field(default=None, compare=False)
    label: str | int | None = None


@dataclass
class Source:
    kind: str  #: "folder" or "cifar-batch"
    root: Path
    items: list[SourceItem]
    fingerprint: str
    ignored: list[Path] = field(default_factory=list)
    label_kind: str = "none"  #: "imagenet" | "batch" | "classes" | "none"
    classes: list[str] = field(default_factory=list)

    def numeric_labels(self, items: Sequence[SourceItem]) -> np.ndarray | None:
        """Labels as integers (ImageNet index for wnids, batch labels, sorted-class index)."""
        if self.label_kind == "none":
            return None
        if self.label_kind == "batch":
            vals = [int(it.label) for it in items]  # type: ignore[arg-type]
        elif self.label_kind == "imagenet":
            vals = [wnid_to_index(str(it.label)) for it in items]
        else:
            pos = {c: i for i, c in enumerate(self.classes)}
            vals = [pos[str(it.label)] for it in items]
        arr = np.asarray(vals, dtype=np.int64)
        return arr.astype(np.uint8) if arr.size == 0 or arr.max() < 256 else arr


def _hash_lines(lines: Iterable[str]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for line in lines:
        h.update(line.encode("utf-8", "surrogateescape") + b"\n")
    return h.hexdigest()


def open_source(src: str | os.PathLike[str]) -> Source:
    """Open a make-c/make-p source: an image folder (class sub-folders or flat) or a CIFAR python
    batch file (``test_batch``; read with pickle — only pass files you trust)."""
    p = Path(src)
    if p.is_file():
        if not is_cifar_batch(p):
            raise BuildError(
                f"{p} is a file but not a CIFAR python batch (test_batch); pass a folder of images"
            )
        try:
            images, labels = read_cifar_batch(p)
        except ValueError as exc:
            raise BuildError(str(exc)) from None
        h = hashlib.blake2b(digest_size=16)
        with open(p, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        # rel = "<label>/<index>.png" (names the item; the suffix never reaches npy outputs)
        items = [
            SourceItem(i, f"{int(lab)}/{i:05d}.png", None, images[i], int(lab))
            for i, lab in enumerate(labels)
        ]
        return Source("cifar-batch", p, items, h.hexdigest(), label_kind="batch")
    if not p.exists():
        raise BuildError(f"source not found: {p}")
    scan = scan_image_folder(p)
    if not scan.items:
        raise BuildError(f"no image files found in {p}")
    items = [SourceItem(i, it.rel, str(it.path), None, it.label) for i, it in enumerate(scan.items)]
    fp = _hash_lines(f"{it.rel}\t{os.stat(it.path).st_size}" for it in items)  # type: ignore[arg-type]
    labs = [it.label for it in items]
    if all(lab is not None and is_wnid(str(lab)) for lab in labs):
        try:
            for lab in set(labs):
                wnid_to_index(str(lab))
            label_kind = "imagenet"
        except ValueError:
            label_kind = "classes"
    elif all(lab is not None for lab in labs):
        label_kind = "classes"
    else:
        label_kind = "none"
    return Source("folder", p, items, fp, scan.ignored, label_kind, list(scan.classes))


# --------------------------------------------------------------------------------------------------
# the spec shipped to workers


@dataclass(frozen=True)
class BuildSpec:
    """Everything a worker needs (picklable)."""

    kind: str  #: "c" or "p"
    out: str
    profile: str
    fmt: str  #: "jpeg" | "npy" (c), "mp4" | "npy" (p)
    cells: tuple[tuple[str, int], ...]  #: (corruption, severity) or (perturbation, difficulty)
    seed: int
    quality: int = 85
    preset: str = DEFAULT_PRESET
    pix_fmt: str = DEFAULT_PIX_FMT
    shard_size: int = 1

    def target(self, name: str, level: int, rel: str) -> Path:
        return Path(self.target_str(name, level, rel))

    def target_str(self, name: str, level: int, rel: str) -> str:
        """:meth:`target` as a string (the per-output hot path: no pathlib objects)."""
        if self.kind == "c":
            return os.path.join(self.out, name, str(level), output_name(rel, "jpeg"))
        return os.path.join(self.out, perturbation_dirname(name, level), output_name(rel, "mp4"))

    @property
    def work(self) -> Path:
        return Path(self.out, WORK_DIR, f"work-{self.shard_size}")


@dataclass
class ItemResult:
    rel: str
    status: str  #: "done" (already there), "written", "skipped", "failed"
    written: int = 0
    reason: str = ""
    source: str = ""
    cpu: float = 0.0  #: CPU seconds the worker spent (on the shard's first item: the whole shard)


# --------------------------------------------------------------------------------------------------
# worker side


def _source_image(item: SourceItem) -> Image.Image:
    if item.array is not None:
        return Image.fromarray(np.asarray(item.array, dtype=np.uint8))
    return load_image(item.path)  # type: ignore[arg-type]


def _preprocess(spec: BuildSpec, item: SourceItem) -> np.ndarray:
    """Load and preprocess; ImageLoadError (or ValueError for a wrong-size cifar input) on bad input."""
    im = _source_image(item)
    if spec.kind == "c":
        from .ops.preprocess import profile_preprocess

        return profile_preprocess(im, spec.profile)
    # make-p: perturb() takes the full source image and applies the profile's own resize/crop

    arr = np.asarray(im, dtype=np.uint8)
    h, w = arr.shape[:2]
    if spec.profile == "cifar" and (h, w) != (32, 32):
        raise ValueError(f"the cifar profile takes 32 x 32 images as they are; got {w}x{h}")
    if min(h, w) < PROFILES[spec.profile].min_size:
        raise ValueError(f"image of {w}x{h} is too small for the {spec.profile!r} profile")
    return arr


_RNG = threading.local()


def _item_rng(seed: int) -> np.random.RandomState:
    """A RandomState in exactly the state of ``RandomState(seed)``, without building a new one.

    ``RandomState(k)`` costs ~0.3 ms (95 times per image in make-c); re-seeding this thread's
    instance with ``.seed(k)`` gives the identical stream (legacy seeding also clears the cached
    Gaussian) in a few microseconds.
    """
    rs = getattr(_RNG, "rs", None)
    if rs is None:
        rs = _RNG.rs = np.random.RandomState()
    rs.seed(seed)
    return rs


_MADE_DIRS: set[str] = set()


def _ensure_dir(path: str) -> None:
    """``mkdir -p`` once per process and folder (95 outputs per image share ~95 folders)."""
    if path not in _MADE_DIRS:
        os.makedirs(path, exist_ok=True)
        if len(_MADE_DIRS) > 100_000:
            _MADE_DIRS.clear()
        _MADE_DIRS.add(path)


def _apply(spec: BuildSpec, img: np.ndarray, name: str, level: int, rel: str) -> np.ndarray:
    rng = _item_rng(item_seed(spec.seed, spec.kind, name, level, rel))
    if spec.kind == "c":
        from .api import corrupt

        return corrupt(img, name, level, profile=spec.profile, rng=rng)
    from . import perturbations

    out = perturbations.perturb(img, name, profile=spec.profile, difficulty=level, rng=rng)
    return np.asarray(out, dtype=np.uint8)


def _write_atomic(path: str | Path, writer: Callable[[Any], Any]) -> None:
    """Write through ``writer(binary file)`` into ``.<name>.<pid>.cbtmp`` beside ``path``, then rename.

    The pid keeps two processes that happen to make the same item (a worker orphaned by a killed
    run and the re-run) from sharing one temporary file; both write the same bytes.
    """
    _orphan_check()
    head, name = os.path.split(path)
    tmp = os.path.join(head, f".{name}.{os.getpid()}{TMP_SUFFIX}")
    try:
        with open(tmp, "wb") as fh:
            writer(fh)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _write_bytes(path: str | Path, data: bytes) -> None:
    _write_atomic(path, lambda fh: fh.write(data))


def _encode_jpeg(arr: np.ndarray, quality: int) -> bytes:
    # the bytes of Image.fromarray(arr).save(buf, "JPEG", quality=quality, optimize=True),
    # with the optimal Huffman tables built by corruptbench.datasets.jpeg (faster, same bytes)
    from .datasets.jpeg import encode_jpeg

    return encode_jpeg(arr, quality)


def _short_error(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
    return f"{type(exc).__name__}: {exc}{where}".replace("\n", " ")


def _process_file_item(spec: BuildSpec, item: SourceItem) -> ItemResult:
    src = item.path or f"#{item.index}"
    targets = {cell: spec.target_str(*cell, item.rel) for cell in spec.cells}
    todo = [cell for cell in spec.cells if not os.path.exists(targets[cell])]
    if not todo:
        return ItemResult(item.rel, "done", source=src)
    try:
        img = _preprocess(spec, item)
    except (ImageLoadError, ValueError) as exc:
        return ItemResult(item.rel, "skipped", reason=str(exc), source=src)
    written = 0
    for name, level in todo:
        target = targets[name, level]
        try:
            out = _apply(spec, img, name, level, item.rel)
        except Exception as exc:  # noqa: BLE001 - one bad item must not stop the run
            return ItemResult(
                item.rel, "failed", written, f"{name} {level}: {_short_error(exc)}", src
            )
        _ensure_dir(os.path.dirname(target))
        _orphan_check()
        if spec.kind == "c":
            data = _encode_jpeg(out, spec.quality)
            _write_bytes(target, data)
        else:
            noise = name in NOISE_PERTURBATIONS
            write_mp4(target, out, noise=noise, preset=spec.preset, pix_fmt=spec.pix_fmt)
        written += 1
    return ItemResult(item.rel, "written", written, source=src)


def _shard_path(spec: BuildSpec, shard_id: int) -> Path:
    return spec.work / f"shard-{shard_id:07d}.npz"


def _process_npy_shard(
    spec: BuildSpec, shard_id: int, items: Sequence[SourceItem]
) -> list[ItemResult]:
    path = _shard_path(spec, shard_id)
    if path.exists():
        with np.load(path, allow_pickle=False) as z:
            z_ok, z_reasons, z_status = z["ok"], z["reasons"], z["status"]
        return [
            ItemResult(
                it.rel,
                "done" if z_ok[i] else str(z_status[i]),
                0,
                str(z_reasons[i]),
                it.path or f"#{it.index}",
            )
            for i, it in enumerate(items)
        ]
    results: list[ItemResult] = []
    per_cell: list[list[np.ndarray]] = [[] for _ in spec.cells]
    ok = np.zeros(len(items), dtype=bool)
    reasons: list[str] = []
    status: list[str] = []
    for i, item in enumerate(items):
        src = item.path or f"#{item.index}"
        try:
            img = _preprocess(spec, item)
        except (ImageLoadError, ValueError) as exc:
            results.append(ItemResult(item.rel, "skipped", reason=str(exc), source=src))
            reasons.append(str(exc))
            status.append("skipped")
            continue
        outs = []
        try:
            for name, level in spec.cells:
                outs.append(_apply(spec, img, name, level, item.rel))
        except Exception as exc:  # noqa: BLE001
            msg = f"{name} {level}: {_short_error(exc)}"
            results.append(ItemResult(item.rel, "failed", reason=msg, source=src))
            reasons.append(msg)
            status.append("failed")
            continue
        for j, o in enumerate(outs):
            per_cell[j].append(o)
        ok[i] = True
        reasons.append("")
        status.append("ok")
        results.append(ItemResult(item.rel, "written", len(outs), source=src))
    arrays: dict[str, np.ndarray] = {}
    for j, outs in enumerate(per_cell):
        if outs:
            arrays[f"cell{j}"] = np.stack(outs)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays["ok"] = ok
    arrays["reasons"] = np.asarray(reasons, dtype=str)
    arrays["status"] = np.asarray(status, dtype=str)
    _write_atomic(path, lambda fh: np.savez(fh, **arrays))  # type: ignore[arg-type]
    return results


def run_shard(spec: BuildSpec, shard_id: int, items: Sequence[SourceItem]) -> list[ItemResult]:
    """Process one shard (the unit of work given to a worker process or a Ray task)."""
    t0 = time.process_time()
    if spec.fmt == "npy":
        res = _process_npy_shard(spec, shard_id, items)
    else:
        res = [_process_file_item(spec, it) for it in items]
    if res:
        res[0].cpu = time.process_time() - t0
    return res


_DRIVER_PID: int | None = None


def _init_worker(
    die_with_parent: bool = False, warm: BuildSpec | None = None, driver_pid: int | None = None
) -> None:
    global _DRIVER_PID
    if die_with_parent:
        # A pool worker must not outlive a killed build (kill -9 of the driver). First ask the
        # kernel to SIGKILL it when its parent dies (Linux prctl PR_SET_PDEATHSIG = 1) — before the
        # slow warm-up, so the window is tiny —, then check the parent is still the driver (it may
        # have died before the prctl); _orphan_check() repeats that check before every write.
        if sys.platform.startswith("linux"):
            try:
                import ctypes
                import signal

                ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)
            except Exception:  # pragma: no cover  # noqa: BLE001
                pass
        _DRIVER_PID = driver_pid if driver_pid is not None else os.getppid()
        _orphan_check()
    try:
        import cv2

        cv2.setNumThreads(1)
    except Exception:  # pragma: no cover  # noqa: BLE001
        pass
    if warm is not None:
        _warm_up(warm)


def _orphan_check() -> None:
    """In a pool worker: exit at once if the driver process is gone (never write as an orphan)."""
    if _DRIVER_PID is not None and os.getppid() != _DRIVER_PID:
        os._exit(1)


# --------------------------------------------------------------------------------------------------
# driver side


@dataclass
class BuildSummary:
    out: Path
    images: int = 0  #: source images in this build
    already_done: int = 0  #: images complete before this run
    processed: int = 0  #: images processed in this run
    written: int = 0  #: output items (files, or array entries for npy) written in this run
    skipped: list[ItemResult] = field(default_factory=list)
    failed: list[ItemResult] = field(default_factory=list)
    ignored: int = 0  #: non-image files in the source folder (not image extensions)
    elapsed: float = 0.0
    cpu_seconds: float = 0.0  #: CPU time spent in workers on this run's shards
    nothing_to_do: bool = False

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0


_THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def _mp_context() -> mp.context.BaseContext:
    # spawn: workers are children of this process (so PR_SET_PDEATHSIG ties them to it) and
    # start clean (no inherited locks or thread pools)
    return mp.get_context("spawn")


def _iter_local(
    spec: BuildSpec, shards: Sequence[tuple[int, list[SourceItem]]], workers: int
) -> Iterator[list[ItemResult]]:
    if workers <= 1:
        for sid, items in shards:
            yield run_shard(spec, sid, items)
        return
    saved = {k: os.environ.get(k) for k in _THREAD_ENV}
    os.environ.update({k: "1" for k in _THREAD_ENV})
    try:
        with ProcessPoolExecutor(
            workers,
            mp_context=_mp_context(),
            initializer=_init_worker,
            initargs=(True, spec, os.getpid()),
        ) as ex:
            pending: set[Future[list[ItemResult]]] = set()
            queue = iter(shards)
            try:
                for sid, items in queue:
                    pending.add(ex.submit(run_shard, spec, sid, items))
                    if len(pending) >= 4 * workers:
                        done, pending = wait(pending, return_when=FIRST_COMPLETED)
                        for f in done:
                            yield f.result()
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in done:
                        yield f.result()
            except BaseException:
                for f in pending:
                    f.cancel()
                raise
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _iter_ray(
    spec: BuildSpec,
    shards: Sequence[tuple[int, list[SourceItem]]],
    address: str,
    workers: int,
    init_kwargs: dict[str, Any] | None,
) -> Iterator[list[ItemResult]]:
    try:
        import ray
    except ImportError:  # pragma: no cover
        raise BuildError("--ray needs the 'ray' package: pip install 'corruptbench[ray]'") from None
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address in ("auto", "local"):
            if workers > 1:
                kwargs["num_cpus"] = workers
        else:
            kwargs["address"] = address
        kwargs.update(init_kwargs or {})
        ray.init(**kwargs)
        started = True
    try:
        remote = ray.remote(num_cpus=1)(_ray_shard)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        pending: list[Any] = []
        for sid, items in shards:
            pending.append(remote.remote(spec, sid, items))
            if len(pending) >= 4 * cpus:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield ray.get(ref)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def _warm_up(spec: BuildSpec) -> None:
    """Run each requested operation once on a small grey image: imports, numba cache loads and
    texture reads then happen at worker start (about 2 s of CPU), not inside the first shards."""
    side = PROFILES[spec.profile].size
    img = np.full((side, side, 3), 128, np.uint8)
    for name, level in dict.fromkeys((n, lv) for n, lv in spec.cells):
        try:
            _apply(spec, img, name, level, "warm-up")
        except Exception:  # noqa: BLE001 - a real failure shows up on real items
            pass


def _ray_shard(spec: BuildSpec, shard_id: int, items: Sequence[SourceItem]) -> list[ItemResult]:
    _init_worker()
    return run_shard(spec, shard_id, items)


def _sweep_temps(out: Path) -> int:
    n = 0
    for dirpath, _dirnames, filenames in os.walk(out):
        for f in filenames:
            if f.startswith(".") and f.endswith(TMP_SUFFIX):
                try:
                    os.unlink(os.path.join(dirpath, f))
                    n += 1
                except FileNotFoundError:  # pragma: no cover
                    pass
    return n


def _write_json(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    _write_atomic(path, lambda fh: fh.write(text.encode()))


def _check_manifest(out: Path, params: dict[str, Any]) -> dict[str, Any] | None:
    mpath = out / MANIFEST
    if not mpath.exists():
        visible = (
            [p.name for p in out.iterdir() if not p.name.startswith(".")] if out.is_dir() else []
        )
        if visible:
            raise BuildError(
                f"{out} is not empty and has no {MANIFEST}; refusing to write into it (use a new or empty folder)"
            )
        return None
    try:
        old = json.loads(mpath.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise BuildError(f"cannot read {mpath}: {exc}") from None
    diffs = [
        f"{k}: {old.get('params', {}).get(k)!r} there, {v!r} now"
        for k, v in params.items()
        if old.get("params", {}).get(k) != v
    ]
    if diffs:
        raise BuildError(
            f"{out} was built with different parameters; refusing to mix outputs. Use another OUT "
            f"folder or delete this one. Differences: " + "; ".join(diffs)
        )
    return old


def _progress(enabled: bool, total: int, label: str) -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    prog = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        disable=not enabled,
        transient=False,
    )
    return prog


def _assemble_npy(
    spec: BuildSpec,
    shards: Sequence[tuple[int, list[SourceItem]]],
    source: Source,
    levels_by_name: dict[str, list[int]],
) -> tuple[list[SourceItem], int]:
    """Build the final arrays from the shard files. Returns the kept items and entries written."""
    shard_files = [_shard_path(spec, sid) for sid, _ in shards]
    kept: list[SourceItem] = []
    cell_index = {cell: j for j, cell in enumerate(spec.cells)}
    oks = []
    for (_sid, items), p in zip(shards, shard_files):
        with np.load(p, allow_pickle=False) as z:
            ok = z["ok"].copy()
        oks.append(ok)
        kept.extend(it for it, k in zip(items, ok) if k)
    n = len(kept)
    out = Path(spec.out)
    written = 0

    def fill(final: Path, cells: list[tuple[str, int]], stack_levels: bool) -> None:
        nonlocal written
        # find the item shape from the first non-empty shard
        shape = None
        for p in shard_files:
            with np.load(p, allow_pickle=False) as z:
                key = f"cell{cell_index[cells[0]]}"
                if key in z.files:
                    shape = z[key].shape[1:]
                    break
        if shape is None:
            raise BuildError("no item could be processed; nothing to assemble")
        total = n * len(cells)
        tmp = final.with_name(f".{final.name}.{os.getpid()}{TMP_SUFFIX}")
        try:
            arr = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.uint8, shape=(total, *shape))
            for li, cell in enumerate(cells):
                pos = li * n
                key = f"cell{cell_index[cell]}"
                for p in shard_files:
                    with np.load(p, allow_pickle=False) as z:
                        if key not in z.files:
                            continue
                        block = z[key]
                    arr[pos : pos + len(block)] = block
                    pos += len(block)
            arr.flush()
            del arr
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        written += total

    if spec.kind == "c":
        for name, levels in levels_by_name.items():
            fill(out / f"{name}.npy", [(name, lv) for lv in levels], True)
        labels = source.numeric_labels(kept)
        if labels is not None:
            nlev = len(next(iter(levels_by_name.values())))
            lab = np.tile(labels, nlev)
            _write_atomic(out / "labels.npy", lambda fh: np.save(fh, lab, allow_pickle=False))
    else:
        for cell in spec.cells:
            fill(out / f"{perturbation_dirname(*cell)}.npy", [cell], False)
    if source.kind == "folder":
        text = "".join(f"{it.rel}\n" for it in kept)
        _write_atomic(out / SOURCES, lambda fh: fh.write(text.encode("utf-8", "surrogateescape")))
    return kept, written


def _final_npy_files(spec: BuildSpec, names: Sequence[str]) -> list[Path]:
    out = Path(spec.out)
    if spec.kind == "c":
        return [out / f"{n}.npy" for n in names]
    return [out / f"{perturbation_dirname(*cell)}.npy" for cell in spec.cells]


def _write_skipped(out: Path, rows: Sequence[ItemResult]) -> None:
    def writer(fh: Any) -> None:
        text = io.StringIO()
        w = csv.writer(text, lineterminator="\n")
        w.writerow(["relative_path", "source", "status", "reason"])
        for r in sorted(rows, key=lambda r: r.rel):
            w.writerow([r.rel, r.source, r.status, r.reason])
        fh.write(text.getvalue().encode("utf-8", "surrogateescape"))

    _write_atomic(out / SKIPPED, writer)


def _npy_shard_size(kind: str, profile: str, n_cells: int) -> int:
    """Items per npy shard: about 64 MB of output per shard, at most 100 items."""
    side = PROFILES[profile].size
    per_item = n_cells * side * side * 3 * (41 if kind == "p" else 1)
    return int(max(1, min(100, (64 << 20) // per_item)))


def build(
    kind: str,
    src: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    profile: str,
    fmt: str,
    names: Sequence[str],
    levels: Sequence[int],
    seed: int = 0,
    workers: int = 1,
    ray: str | None = None,
    ray_init: dict[str, Any] | None = None,
    limit: int | None = None,
    quality: int = 85,
    preset: str = DEFAULT_PRESET,
    pix_fmt: str = DEFAULT_PIX_FMT,
    shard_size: int | None = None,
    progress: bool = True,
) -> BuildSummary:
    """Build (or resume) a corrupted dataset. The Python API behind make-c / make-p.

    Args:
        kind: ``"c"`` (corruptions x severities) or ``"p"`` (perturbation sequences x difficulties).
        src: image folder or CIFAR python batch file (see :func:`open_source`).
        out: output folder (created; must be empty or a previous build with the same parameters).
        profile: imagenet | inception | tiny | cifar.
        fmt: ``jpeg`` / ``npy`` for c, ``mp4`` / ``npy`` for p.
        names: corruptions (or perturbations), in output order.
        levels: severities 1..5 (c) or difficulties 1..3 (p; levels above 1 only apply to the
            noise perturbations).
        seed: base seed of :func:`item_seed`.
        workers: local worker processes (1 = in this process), or CPUs for a local Ray.
        ray: None (local), ``"auto"`` (start or join Ray via ``ray.init()``) or a Ray address.
        ray_init: extra ``ray.init`` keyword arguments.
        limit: use only the first ``limit`` source items (in sorted order).
        quality: JPEG quality (c, jpeg).
        preset, pix_fmt: x264 settings (p, mp4).
        shard_size: items per shard (default 1 for files; for npy about 64 MB of output, <= 100).
        progress: show a rich progress bar on stderr.
    """
    t0 = time.perf_counter()
    if kind not in ("c", "p"):
        raise ValueError(f"kind must be 'c' or 'p', got {kind!r}")
    allowed = ("jpeg", "npy") if kind == "c" else ("mp4", "npy")
    if fmt not in allowed:
        raise BuildError(f"format must be one of {', '.join(allowed)} for make-{kind}, got {fmt!r}")
    if not names:
        raise BuildError("nothing to build: no corruptions/perturbations selected")
    if limit is not None and limit < 1:
        raise BuildError(f"--limit must be >= 1, got {limit}")
    out = Path(out)
    source = open_source(src)
    items = source.items[:limit] if limit else source.items
    src_res, out_res = Path(src).resolve(), out.resolve()
    if src_res == out_res or (source.kind == "folder" and src_res in out_res.parents):
        raise BuildError(f"OUT ({out}) must not be the source folder or inside it")

    if kind == "c":
        cells = tuple((n, int(s)) for n in names for s in levels)
        levels_by_name = {n: [int(s) for s in levels] for n in names}
    else:
        cells = tuple(
            (n, int(d)) for n in names for d in levels if d == 1 or n in NOISE_PERTURBATIONS
        )
        levels_by_name = {}
        if not cells:
            raise BuildError(
                "nothing to build: difficulties 2 and 3 exist only for "
                + ", ".join(NOISE_PERTURBATIONS)
                + " (the other perturbations have one dataset, difficulty 1)"
            )
    size = shard_size or (_npy_shard_size(kind, profile, len(cells)) if fmt == "npy" else 1)
    spec = BuildSpec(kind, str(out), profile, fmt, cells, int(seed), quality, preset, pix_fmt, size)

    # output-name collisions (a.png and a.jpg both -> a.jpg)
    collisions: list[ItemResult] = []
    if fmt != "npy":
        seen: dict[str, str] = {}
        unique = []
        for it in items:
            key = output_name(it.rel, "jpeg" if kind == "c" else "mp4").lower()
            if key in seen:
                collisions.append(
                    ItemResult(
                        it.rel,
                        "skipped",
                        reason=f"output name collides with {seen[key]}",
                        source=it.path or "",
                    )
                )
            else:
                seen[key] = it.rel
                unique.append(it)
        items = unique

    params: dict[str, Any] = {
        "command": f"make-{kind}",
        "profile": profile,
        "format": fmt,
        ("corruptions" if kind == "c" else "perturbations"): list(names),
        ("severities" if kind == "c" else "difficulties"): [int(v) for v in levels],
        "seed": int(seed),
        "limit": limit,
        "source_fingerprint": source.fingerprint,
        "corruptbench_version": __version__,
    }
    if kind == "c" and fmt == "jpeg":
        params["jpeg_quality"] = quality
    if kind == "p" and fmt == "mp4":
        params["x264"] = {"preset": preset, "pix_fmt": pix_fmt, "fps": 1}
    out.mkdir(parents=True, exist_ok=True)
    old = _check_manifest(out, params)
    complete = bool(old and old.get("status") == "complete")
    manifest: dict[str, Any] = {
        "tool": "corruptbench",
        "params": params,
        "source": {"kind": source.kind, "path": str(source.root.resolve()), "items": len(items)},
        "layout": _layout_doc(kind, fmt),
        "item_seed": "blake2b(f'{seed}|{kind}|{name}|{level}|{rel}', digest_size=4), little-endian",
    }
    summary = BuildSummary(out, images=len(items), ignored=len(source.ignored))
    known_skips: dict[str, ItemResult] = {}
    if complete:
        for row in _read_skipped(out):
            known_skips[row.rel] = row
        shutil.rmtree(out / WORK_DIR, ignore_errors=True)

    # plan
    if fmt == "npy":
        shards_all = [(i // size, items[i : i + size]) for i in range(0, len(items), size)]
        finals = _final_npy_files(spec, names)
        if complete and all(p.exists() for p in finals):
            summary.already_done = len(items)
            summary.skipped = list(known_skips.values())
            summary.nothing_to_do = True
            summary.elapsed = time.perf_counter() - t0
            return summary
        todo = [(sid, its) for sid, its in shards_all if not _shard_path(spec, sid).exists()]
        done_shards = [(sid, its) for sid, its in shards_all if _shard_path(spec, sid).exists()]
    else:
        todo_items = []
        for it in items:
            if it.rel in known_skips:
                continue
            if all(spec.target(n, lv, it.rel).exists() for n, lv in cells):
                summary.already_done += 1
            else:
                todo_items.append(it)
        todo = [(i // size, todo_items[i : i + size]) for i in range(0, len(todo_items), size)]
        done_shards = []
        shards_all = todo

    n_todo = sum(len(its) for _, its in todo)
    if complete and n_todo == 0:
        summary.skipped = list(known_skips.values())
        summary.nothing_to_do = True
        summary.elapsed = time.perf_counter() - t0
        return summary
    _sweep_temps(out)
    _write_json(out / MANIFEST, {**manifest, "status": "running"})

    results: list[ItemResult] = []
    for _sid, its in done_shards:
        results.extend(run_shard(spec, _sid, its))  # reads the shard's status only
    if fmt == "npy":
        summary.already_done = sum(len(its) for _, its in done_shards)

    if n_todo:
        desc = f"make-{kind} {profile}"
        with _progress(progress, n_todo, desc) as prog:
            task = prog.add_task(desc, total=n_todo, rate="")
            t_start = time.perf_counter()
            done_count = 0
            gen = (
                _iter_ray(spec, todo, ray, workers, ray_init)
                if ray
                else _iter_local(spec, todo, workers)
            )
            for res in gen:
                results.extend(res)
                summary.cpu_seconds += sum(r.cpu for r in res)
                done_count += len(res)
                dt = time.perf_counter() - t_start
                prog.update(
                    task, advance=len(res), rate=f"{done_count / dt:.2f} img/s" if dt > 0 else ""
                )
    summary.processed = n_todo

    if fmt == "npy":
        _kept, written = _assemble_npy(spec, shards_all, source, levels_by_name)
        summary.written = written
    for r in results:
        if r.status == "written":
            summary.written += r.written if fmt != "npy" else 0
        elif r.status == "skipped":
            summary.skipped.append(r)
        elif r.status == "failed":
            summary.failed.append(r)
    summary.skipped.extend(collisions)
    summary.skipped.extend(known_skips.values())
    _write_skipped(out, summary.skipped + summary.failed)
    totals = {
        "images": len(items),
        "skipped": len(summary.skipped),
        "failed": len(summary.failed),
        "outputs_per_image": len(cells),
    }
    status = "complete" if not summary.failed else "incomplete"
    _write_json(out / MANIFEST, {**manifest, "status": status, "totals": totals})
    if fmt == "npy" and not summary.failed:
        shutil.rmtree(out / WORK_DIR, ignore_errors=True)
    summary.elapsed = time.perf_counter() - t0
    return summary


def _read_skipped(out: Path) -> list[ItemResult]:
    p = out / SKIPPED
    if not p.exists():
        return []
    with open(p, newline="", encoding="utf-8", errors="surrogateescape") as fh:
        return [
            ItemResult(r["relative_path"], r["status"], 0, r["reason"], r["source"])
            for r in csv.DictReader(fh)
        ]


def _layout_doc(kind: str, fmt: str) -> str:
    if kind == "c" and fmt == "jpeg":
        return "<corruption>/<severity>/<class>/<file> (JPEG)"
    if kind == "c":
        return "<corruption>.npy uint8 (S*N, H, W, 3) severity-major; labels.npy (S*N,)"
    if fmt == "mp4":
        return "<perturbation>[_<difficulty>]/<class>/<stem>.mp4 (H.264)"
    return "<perturbation>[_<difficulty>].npy uint8 (N, T, H, W, 3)"


def format_summary(s: BuildSummary) -> str:
    """Human-readable end-of-run summary."""
    lines = []
    if s.nothing_to_do:
        lines.append(f"nothing to do: {s.out} is complete ({s.images} images)")
    else:
        rate = s.processed / s.elapsed if s.elapsed > 0 else 0.0
        lines.append(
            f"{s.images} images: {s.processed} processed in this run, {s.already_done} already done; "
            f"{s.written} outputs written; {len(s.skipped)} skipped; {len(s.failed)} failed; "
            f"{s.elapsed:.1f} s ({rate:.2f} img/s)"
        )
    if s.ignored:
        lines.append(
            f"{s.ignored} non-image files in the source were ignored (extension not an image type)"
        )
    if s.skipped or s.failed:
        lines.append(f"see {s.out / SKIPPED} for the reasons")
        for r in (s.skipped + s.failed)[:5]:
            lines.append(f"  {r.status}: {r.rel}: {r.reason}")
    return "\n".join(lines)


def summary_dict(s: BuildSummary) -> dict[str, Any]:  # pragma: no cover - convenience
    d = asdict(s)
    d["out"] = str(s.out)
    return d

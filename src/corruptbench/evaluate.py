"""The evaluation harness behind ``corruptbench eval-c`` and ``eval-p``.

Data sources
    * ImageNet-C layout ``<root>/<corruption>/<severity>/<wnid>/<file>`` (also Tiny-ImageNet-C,
      ImageNet-64x64-C, ImageNet-C 299 and what ``make-c`` writes). Labels: a wnid's standard
      1000-class index (position in the sorted list of the 1000 ILSVRC-2012 wnids), whatever subset
      of classes is present; for a model with another number of outputs (e.g. Tiny ImageNet, 200)
      the index among the sorted wnid folders present.
    * CIFAR-10-C / CIFAR-100-C: ``<corruption>.npy`` (5N images, severity-major) + ``labels.npy``.
    * On the fly (``--on-the-fly SRC``): a clean image folder (or a CIFAR python batch) is corrupted
      inside the data-loader workers exactly as ``make-c`` does before JPEG encoding: the profile's
      preprocessing (:func:`corruptbench.ops.preprocess.profile_preprocess`), then
      ``corrupt(..., rng=RandomState(item_seed(seed, "c", corruption, severity, rel)))`` with
      :func:`corruptbench.pipeline.item_seed`. The pixels are the bytes make-c would encode; the JPEG
      (q85) step is skipped, which matters at small sizes (spec §6 pitfall 11).
    * ImageNet-P ``<perturbation>[_<d>]/<wnid>/<stem>.mp4`` (PyAV), CIFAR-10-P ``<p>.npy``
      ``(N, T, 32, 32, 3)``, or on the fly with :func:`corruptbench.perturb` (make-p's seeding).

Preprocessing
    Corrupted ImageNet-C images are already at the profile size (224): no ``Resize(256)`` /
    ``CenterCrop(224)`` is applied again (the reference's ``CenterCrop(224)`` is a no-op on them).
    The clean error (``--clean``) uses the benchmark's own preparation of clean images - ImageNet:
    ``Resize(256) + CenterCrop(224)``; CIFAR: none - so clean and corrupted inputs differ only by the
    corruption. Then the model's :class:`~corruptbench.models.Preprocessing` (optional CLAHE, resize
    to the model's input size only if different, ImageNet mean/std).

Throughput
    Decoding, corruption and the model's uint8 preprocessing run in ``torch.utils.data.DataLoader``
    worker processes (one OpenCV/torch thread each); the model runs in the main process under
    :func:`torch.inference_mode`, batches normalised on the model's device.

Resume
    After each finished (corruption, severity) cell - or perturbation for eval-p - the results file
    is rewritten atomically (temporary file + :func:`os.replace`). Re-running with the same ``out``
    keeps every finished cell whose model (id, preprocessing, weights hash), data fingerprint, seed
    and ``limit`` match, and evaluates only the rest. A file written for another model is never
    overwritten unless ``overwrite=True``.
"""

from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import io
import json
import math
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__
from .models import LoadedModel
from .registry import ALL_CORRUPTIONS, ALL_PERTURBATIONS, BENCHMARK_CORRUPTIONS

__all__ = [
    "SCHEMA",
    "EvalError",
    "evaluate_c",
    "evaluate_p",
    "write_results",
    "results_to_csv",
    "print_summary",
    "library_versions",
]

SCHEMA = "corruptbench.results/1"
SEVERITIES = (1, 2, 3, 4, 5)
_CLEAN = ("clean", 0)

Cell = tuple[str, int]
Log = Callable[[str], None]


class EvalError(ValueError):
    """The evaluation cannot run (bad data folder, label mismatch, incompatible results file)."""


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ================================================================================================
# items and the worker-side dataset
# ================================================================================================
@dataclass(frozen=True)
class _Config:
    """Picklable settings shared by all items (sent to the workers once)."""

    prep: Any  #: models.Preprocessing
    profile: str
    seed: int
    kind: str  #: "c" or "p"


class _ItemDataset:
    """``torch`` map-style dataset over heterogeneous items; see :func:`_load_item`.

    An item is a tuple ``(op, cell_index, label, payload)``. ``__getitem__`` returns
    ``(uint8 array (3,S,S) or (T,3,S,S) | None, label, cell_index, reason)``; ``None`` with a reason
    for an input that cannot be read (it is counted as skipped, not as an error of the model).
    """

    def __init__(self, items: Sequence[tuple[Any, ...]], cfg: _Config) -> None:
        self.items = items
        self.cfg = cfg
        self._arrays: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.items)

    def _npy(self, path: str) -> np.ndarray:
        arr = self._arrays.get(path)
        if arr is None:
            arr = np.load(path, mmap_mode="r", allow_pickle=False)
            self._arrays[path] = arr
        return arr

    def __getitem__(self, i: int) -> tuple[Any, int, int, str]:
        op, cell, label, payload = self.items[i]
        try:
            arr = _load_item(self, op, payload)
        except Exception as exc:  # noqa: BLE001 - bad input is reported, not fatal
            from .datasets.imagenet import ImageLoadError

            if not isinstance(exc, (ImageLoadError, OSError, ValueError)):
                raise
            return None, label, cell, f"{type(exc).__name__}: {exc}"
        return arr, label, cell, ""


def _chw(img: np.ndarray, prep: Any) -> np.ndarray:
    return np.ascontiguousarray(prep.prepare(img).transpose(2, 0, 1))


def _load_item(ds: _ItemDataset, op: str, payload: Any) -> np.ndarray:
    cfg = ds.cfg
    if op == "file":  # an already corrupted image (ImageNet-C JPEG)
        from .datasets.imagenet import load_image

        return _chw(np.asarray(load_image(payload)), cfg.prep)
    if op == "npy":  # one image of a CIFAR-C array
        path, row = payload
        return _chw(np.asarray(ds._npy(path)[row]), cfg.prep)
    if op == "npyseq":  # one CIFAR-P sequence
        path, row = payload
        frames = np.asarray(ds._npy(path)[row])
        return np.stack([_chw(f, cfg.prep) for f in frames])
    if op == "video":  # one ImageNet-P mp4
        from .datasets.video import read_mp4

        return np.stack([_chw(f, cfg.prep) for f in read_mp4(payload)])
    from .pipeline import CorruptStep, item_step

    if op == "clean":  # make-c's preprocessing of a clean source item, no corruption
        return _chw(CorruptStep(cfg.profile, cfg.seed).prepare(payload), cfg.prep)
    if op == "raw":  # make-c's preprocessing only; corrupted later on the model's device
        img = CorruptStep(cfg.profile, cfg.seed).prepare(payload[0])
        return np.ascontiguousarray(np.asarray(img, dtype=np.uint8).transpose(2, 0, 1))
    if op == "otf":  # make-c / make-p pixels, computed here instead of read from disk
        item, name, level = payload
        step = item_step(cfg.kind, cfg.profile, cfg.seed)
        out = step.apply_item(step.prepare(item), name, level, item.rel)
        if cfg.kind == "p":
            return np.stack([_chw(f, cfg.prep) for f in out])
        return _chw(out, cfg.prep)
    raise AssertionError(op)  # pragma: no cover


def _collate(batch: list[tuple[Any, int, int, str]]) -> tuple[Any, Any, Any, list[tuple[int, str]]]:
    import torch

    good = [b for b in batch if b[0] is not None]
    bad = [(b[2], b[3]) for b in batch if b[0] is None]
    if not good:
        return None, None, None, bad
    x = torch.from_numpy(np.stack([b[0] for b in good]))
    y = torch.tensor([b[1] for b in good], dtype=torch.int64)
    c = torch.tensor([b[2] for b in good], dtype=torch.int64)
    return x, y, c, bad


def _mp_context() -> str:
    import multiprocessing as mp

    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


def _worker_init(_: int) -> None:
    try:
        import cv2

        cv2.setNumThreads(1)
    except Exception:  # noqa: BLE001  # pragma: no cover
        pass


def _batches(cell_of: Sequence[int], batch_size: int) -> list[list[int]]:
    """Contiguous index batches of at most ``batch_size`` that never span two cells."""
    out: list[list[int]] = []
    cur: list[int] = []
    for i, c in enumerate(cell_of):
        if cur and (len(cur) >= batch_size or cell_of[cur[-1]] != c):
            out.append(cur)
            cur = []
        cur.append(i)
    if cur:
        out.append(cur)
    return out


def plan_resources(
    device: str, *, heavy: bool, workers: int | None = None, threads: int | None = None
) -> tuple[int, int | None]:
    """Data-loader workers and model threads that do not oversubscribe the CPU.

    On CPU the model's intra-op threads and the loader processes share the cores, and an
    OpenMP model slows down badly when a thread is preempted, so ``workers + threads <= CPUs``:
    decoding stored images is cheap next to the model (``workers = CPUs // 4``; 0 on a 2-core
    machine), corrupting on the fly is not (``workers = CPUs // 2``); the model gets the rest. On a
    GPU the loader gets up to 8 processes and torch keeps its own thread setting (``None``).
    Explicit ``workers`` / ``threads`` are kept.
    """
    n = os.cpu_count() or 1
    if device.startswith("cuda"):
        return (min(8, n) if workers is None else int(workers)), threads
    w = (n // 2 if heavy else n // 4) if workers is None else int(workers)
    t = max(1, n - w) if threads is None else int(threads)
    return w, t


class _Threads:
    """Context manager: ``torch.set_num_threads(n)`` for the duration, restored afterwards."""

    def __init__(self, n: int | None) -> None:
        self.n = n
        self.old: int | None = None

    def __enter__(self) -> _Threads:
        if self.n is not None:
            import torch

            self.old = torch.get_num_threads()
            torch.set_num_threads(self.n)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.old is not None:
            import torch

            torch.set_num_threads(self.old)


def _iterate(
    model: LoadedModel,
    items: Sequence[tuple[Any, ...]],
    cfg: _Config,
    *,
    batch_size: int,
    workers: int,
    threads: int | None = None,
    on_device: Callable[[Any, int], Any] | None = None,
) -> Iterable[tuple[Any, Any, Any, list[tuple[int, str]]]]:
    """Yield ``(logits or None, labels, cells, bad)`` per batch, model run in this process."""
    import torch
    from torch.utils.data import DataLoader

    ds = _ItemDataset(items, cfg)
    batches = _batches([it[1] for it in items], batch_size)
    loader: Any = DataLoader(
        ds,  # type: ignore[arg-type]
        batch_sampler=batches,
        num_workers=workers,
        collate_fn=_collate,
        worker_init_fn=_worker_init if workers else None,
        pin_memory=model.device.startswith("cuda"),
        prefetch_factor=4 if workers else None,
        persistent_workers=False,
        # Never fork this process: it holds torch/OpenMP/numba thread pools, and a forked worker
        # can deadlock on their locks (seen as workers hanging in worker_init).
        multiprocessing_context=_mp_context() if workers else None,
    )
    dev = torch.device(model.device)
    with _Threads(threads), torch.inference_mode():
        for x, y, c, bad in loader:
            if x is None:
                yield None, None, None, bad
                continue
            frames = x.shape[1] if x.ndim == 5 else None
            xb = (x.reshape(-1, *x.shape[-3:]) if frames else x).to(dev, non_blocking=True)
            if on_device is not None:  # corrupt on the device, then the model's resize there
                xb = _device_prepare(on_device(xb, int(c[0])), model.preprocessing)
            logits = model.predict(model.preprocessing.normalize(xb))
            if frames:
                logits = logits.reshape(x.shape[0], frames, -1)
            yield logits, y, c, bad


# ================================================================================================
# fingerprints, versions, files
# ================================================================================================
def _hash(lines: Iterable[str]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for line in lines:
        h.update(line.encode("utf-8", "surrogateescape") + b"\n")
    return h.hexdigest()


def _files_fingerprint(root: Path, paths: Iterable[Path]) -> str:
    return _hash(f"{p.relative_to(root).as_posix()}\t{p.stat().st_size}" for p in paths)


def library_versions() -> dict[str, str]:
    """Versions of everything that can change a number: corruptbench, Python, numpy, torch, ..."""
    out = {"corruptbench": __version__, "python": platform.python_version()}
    for mod in (
        "numpy",
        "torch",
        "scipy",
        "cv2",
        "PIL",
        "skimage",
        "av",
        "onnxruntime",
        "torchvision",
        "timm",
    ):
        m = sys.modules.get(mod)
        if m is None and mod in ("numpy", "torch", "scipy", "cv2", "PIL"):
            try:
                m = __import__(mod)
            except ImportError:  # pragma: no cover
                m = None
        if m is not None and getattr(m, "__version__", None):
            out[
                "opencv"
                if mod == "cv2"
                else "pillow"
                if mod == "PIL"
                else "scikit-image"
                if mod == "skimage"
                else mod
            ] = str(m.__version__)
    return out


def write_results(path: str | os.PathLike[str], results: dict[str, Any]) -> None:
    """Write ``results`` as JSON atomically (temporary file in the same folder + rename)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=1, allow_nan=False)
            fh.write("\n")
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def _model_key(info: dict[str, Any]) -> list[Any]:
    return [
        info.get("id"),
        info.get("preprocessing"),
        info.get("weights_sha256"),
        info.get("num_classes"),
    ]


def _load_previous(
    out: Path | None, kind: str, model: LoadedModel, overwrite: bool, log: Log
) -> dict[str, Any] | None:
    """The previous results file at ``out`` if it can be resumed (same model), else None."""
    if out is None or not out.exists() or overwrite:
        return None
    try:
        prev = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise EvalError(
            f"{out} exists but is not a readable results file ({exc}); pass --overwrite to replace it"
        ) from None
    if not isinstance(prev, dict) or prev.get("schema") != SCHEMA or prev.get("kind") != kind:
        raise EvalError(
            f"{out} exists and is not an eval-{kind} results file ({SCHEMA}); pass --overwrite "
            "to replace it or choose another --out"
        )
    if _model_key(prev.get("model", {})) != _model_key(model.info()):
        raise EvalError(
            f"{out} holds results of another model or preprocessing "
            f"({prev.get('model', {}).get('id')!r}: {prev.get('model', {}).get('preprocessing')!r}); "
            "refusing to mix them - pass --overwrite to replace the file or choose another --out"
        )
    return prev


# ================================================================================================
# ImageNet-C
# ================================================================================================
@dataclass
class _CPlan:
    layout: str
    root: Path
    profile: str
    items: list[tuple[Any, ...]] = field(default_factory=list)
    cells: list[Cell] = field(default_factory=list)  #: cells to evaluate now, index = cell id
    #: "name/sev" -> fingerprint, for every present cell
    cell_fp: dict[str, str] = field(default_factory=dict)
    present: list[Cell] = field(default_factory=list)  #: requested cells with data
    missing: list[Cell] = field(default_factory=list)  #: requested cells without data
    notes: list[str] = field(default_factory=list)
    images_per_cell: int = 0
    clean_path: str | None = None
    # layout-specific state filled by the _plan_* functions
    _index: Any = None  #: ImageNetCIndex
    _label: Any = None  #: wnid -> class index
    _keys: set[str] = field(default_factory=set)  #: "<wnid>/<file>" of the selected images
    _sel: list[int] = field(default_factory=list)  #: CIFAR-C rows used (per severity)
    _labels: Any = None  #: CIFAR-C labels.npy
    _files: dict[str, Path] = field(default_factory=dict)
    _n: int = 0
    _source_items: list[tuple[Any, int]] = field(default_factory=list)
    _clean: list[tuple[Any, int]] = field(default_factory=list)
    _raw: bool = False


def _cell_key(cell: Cell) -> str:
    return "clean" if cell == _CLEAN else f"{cell[0]}/{cell[1]}"


def _select(n: int, keys: Sequence[str], limit: int | None, seed: int) -> list[int]:
    """Indices of the ``limit`` items to use: a seeded pseudo-random subset chosen by key hash,
    so the same images are picked in every cell (kept in their original order)."""
    if limit is None or limit >= n:
        return list(range(n))
    ranked = sorted(
        range(n),
        key=lambda i: hashlib.blake2b(f"{seed}|{keys[i]}".encode(), digest_size=8).digest(),
    )
    return sorted(ranked[:limit])


def _check_names(names: Sequence[str] | None, allowed: Sequence[str], what: str) -> list[str]:
    if names is None:
        return list(allowed)
    from .api import get_corruption_names

    out: list[str] = []
    for raw in names:
        key = raw.strip().lower().replace("-", "_")
        if what == "corruption" and key in (
            "benchmark",
            "common",
            "extra",
            "validation",
            "all",
            "noise",
            "blur",
            "weather",
            "digital",
        ):
            out.extend(n for n in get_corruption_names(key) if n not in out)
            continue
        if what == "perturbation" and key in ("all", "test", "validation"):
            from .perturbations import ALL_PERTURBATIONS as ALLP
            from .perturbations import EXTRA_PERTURBATIONS, PERTURBATIONS

            grp = {"all": ALLP, "test": PERTURBATIONS, "validation": EXTRA_PERTURBATIONS}[key]
            out.extend(n for n in grp if n not in out)
            continue
        if key not in allowed:
            import difflib

            close = difflib.get_close_matches(key, allowed, n=2)
            hint = (
                f"; did you mean {' or '.join(close)}?"
                if close
                else f"; known: {', '.join(allowed)}"
            )
            raise EvalError(f"unknown {what} {raw!r}{hint}")
        if key not in out:
            out.append(key)
    return [n for n in allowed if n in out]


def _detect_profile(size: tuple[int, int]) -> str:
    return {224: "imagenet", 299: "inception", 64: "tiny", 32: "cifar"}.get(min(size), "imagenet")


def _label_mapper(
    wnids: Sequence[str], num_classes: int | None, notes: list[str]
) -> Callable[[str | None], int]:
    from .datasets.imagenet import is_wnid, wnid_to_index

    classes = sorted(set(wnids))
    if num_classes == 1000 and all(is_wnid(w) for w in classes):
        try:
            for w in classes:
                wnid_to_index(w)
        except ValueError as exc:
            raise EvalError(f"class folder {exc}") from None
        notes.append(
            f"labels: standard ImageNet-1k index of each wnid ({len(classes)} classes present)"
        )
        return lambda w: wnid_to_index(str(w))
    if num_classes is not None and len(classes) > num_classes:
        raise EvalError(
            f"the data has {len(classes)} classes but the model outputs {num_classes} logits"
        )
    pos = {c: i for i, c in enumerate(classes)}
    notes.append(
        f"labels: index among the {len(classes)} sorted class folders (model has {num_classes} outputs)"
    )
    return lambda w: pos[str(w)]


def _plan_imagenet_c(
    root: Path,
    corruptions: list[str],
    severities: list[int],
    limit: int | None,
    seed: int,
    num_classes: int | None,
    profile: str | None,
) -> _CPlan:
    from .datasets.imagenet_c import scan_imagenet_c

    index = scan_imagenet_c(root, corruptions, severities)
    if not index.cells:
        raise EvalError(
            f"{root}: no ImageNet-C cells found (expected <corruption>/<severity>/<wnid>/<file> for "
            f"{', '.join(corruptions[:3])}...); is this the right folder?"
        )
    if profile is None:
        profile = "imagenet"
        from PIL import Image

        for path, _ in [e for items in index.cells.values() for e in items[:5]][:20]:
            try:
                with Image.open(path) as im:
                    profile = _detect_profile(im.size)
                break
            except (OSError, ValueError):
                continue
    plan = _CPlan(
        "imagenet-c", root, profile, present=list(index.cells), missing=list(index.missing)
    )
    if index.extra_dirs:
        plan.notes.append(
            f"ignored folders (not requested corruptions): {', '.join(index.extra_dirs)}"
        )
    if any(w is None for items in index.cells.values() for _, w in items):
        raise EvalError(
            f"{root}: files directly in a severity folder have no class (wnid) folder, so no label"
        )
    plan._index = index
    plan._label = _label_mapper(index.classes, num_classes, plan.notes)
    for cell, entries in index.cells.items():
        keys = [f"{w}/{p.name}" for p, w in entries]
        sel = _select(len(entries), keys, limit, seed)
        chosen = [entries[i] for i in sel]
        plan._keys.update(keys[i] for i in sel)
        plan.cell_fp[_cell_key(cell)] = _files_fingerprint(root, (p for p, _ in chosen))
        plan.images_per_cell = max(plan.images_per_cell, len(chosen))
    return plan


def _cells_items_imagenet_c(plan: _CPlan, todo: list[Cell], limit: int | None, seed: int) -> None:
    index = plan._index
    label = plan._label
    for cell in todo:
        entries = index.cells[cell]
        sel = _select(len(entries), [f"{w}/{p.name}" for p, w in entries], limit, seed)
        cid = len(plan.cells)
        plan.cells.append(cell)
        plan.items.extend(("file", cid, label(entries[i][1]), str(entries[i][0])) for i in sel)


def _npy_fingerprint(arr: np.ndarray, labels: np.ndarray | None) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(str(arr.shape).encode())
    h.update(np.ascontiguousarray(arr).tobytes())
    if labels is not None:
        h.update(np.ascontiguousarray(labels).tobytes())
    return h.hexdigest()


def _plan_cifar_c(
    root: Path,
    corruptions: list[str],
    severities: list[int],
    limit: int | None,
    seed: int,
    num_classes: int | None,
) -> _CPlan:
    from .datasets.cifar import load_cifar_c, load_cifar_c_labels, scan_cifar_c

    index = scan_cifar_c(root, corruptions)
    if index.labels_path is None:
        raise EvalError(
            f"{root}: CIFAR-C layout needs labels.npy next to the <corruption>.npy files"
        )
    if not index.files:
        raise EvalError(f"{root}: none of the requested corruption .npy files is present")
    plan = _CPlan("cifar-c", root, "cifar")
    n = index.n
    keys = [str(i) for i in range(n)]
    sel = _select(n, keys, limit, seed)
    plan.images_per_cell = len(sel)
    plan._sel = sel
    labels = load_cifar_c_labels(root)
    if num_classes is not None and labels.size and int(labels.max()) >= num_classes:
        raise EvalError(
            f"labels.npy has class {int(labels.max())} but the model outputs {num_classes} logits"
        )
    plan._labels = labels
    plan.notes.append(f"labels: labels.npy ({int(labels.max()) + 1 if labels.size else 0} classes)")
    for c in corruptions:
        for s in severities:
            if c not in index.files:
                plan.missing.append((c, s))
                continue
            plan.present.append((c, s))
            arr = load_cifar_c(root, c, s)
            plan.cell_fp[_cell_key((c, s))] = _npy_fingerprint(
                arr[sel], labels[(s - 1) * n : s * n][sel]
            )
    plan._files = index.files
    plan._n = n
    return plan


def _match_clean(plan: _CPlan, source: Any) -> list[Any] | None:
    """The clean items that correspond to the corrupted images evaluated (same relative path for
    an ImageNet-C folder; same index for a CIFAR batch of N images), or None if none match."""
    if plan.layout == "imagenet-c":
        keys = plan._keys
        chosen = [it for it in source.items if it.rel in keys]
        if chosen and len(chosen) < len(source.items):
            plan.notes.append(
                f"clean error over the {len(chosen)} clean images whose <wnid>/<file> also appears "
                f"in the corrupted data (of {len(source.items)} in the clean folder)"
            )
        if chosen:
            return chosen
    if plan.layout == "cifar-c" and source.kind == "cifar-batch" and len(source.items) == plan._n:
        return [source.items[i] for i in plan._sel]
    plan.notes.append(
        "the clean images cannot be matched one-to-one to the corrupted ones (different names or "
        "order), so the clean error is over the clean source itself"
        + (" (--limit: a seeded subset of it)" if plan._sel or plan._keys else "")
    )
    return None


def _cells_items_cifar_c(plan: _CPlan, todo: list[Cell]) -> None:
    n, sel, labels = plan._n, plan._sel, plan._labels
    for c, s in todo:
        cid = len(plan.cells)
        plan.cells.append((c, s))
        path = str(plan._files[c])
        base = (s - 1) * n
        plan.items.extend(("npy", cid, int(labels[base + i]), (path, base + i)) for i in sel)


def _open_source(
    src: Path,
    num_classes: int | None,
    notes: list[str],
    limit: int | None,
    seed: int,
    restrict: Callable[[Any], list[Any] | None] | None = None,
) -> tuple[Any, list[Any], list[int]]:
    """A make-c source (folder / CIFAR batch), the selected items and their labels.

    ``restrict(source)`` may return the items to use (e.g. the clean images matching the corrupted
    ones); otherwise the seeded ``limit`` subset is taken.
    """
    from .pipeline import SourceError, open_source

    try:
        source = open_source(src)
    except SourceError as exc:
        raise EvalError(str(exc)) from None
    items = restrict(source) if restrict is not None else None
    if items is None:
        sel = _select(len(source.items), [it.rel for it in source.items], limit, seed)
        items = [source.items[i] for i in sel]
    if source.label_kind == "none":
        raise EvalError(
            f"{src}: images have no labels (use class sub-folders named by wnid or class)"
        )
    if source.label_kind == "batch":
        labels = [int(it.label) for it in items]
        notes.append("labels: from the CIFAR batch file")
    else:
        mapper = _label_mapper([str(it.label) for it in source.items], num_classes, notes)
        labels = [mapper(str(it.label)) for it in items]
    if num_classes is not None and labels and max(labels) >= num_classes:
        raise EvalError(f"{src}: label {max(labels)} but the model outputs {num_classes} logits")
    return source, items, labels


def _plan_on_the_fly(
    src: Path,
    corruptions: list[str],
    severities: list[int],
    limit: int | None,
    seed: int,
    num_classes: int | None,
    profile: str | None,
) -> _CPlan:
    notes: list[str] = []
    source, items, labels = _open_source(src, num_classes, notes, limit, seed)
    prof = profile or ("cifar" if source.kind == "cifar-batch" else "imagenet")
    plan = _CPlan("on-the-fly", src, prof, notes=notes)
    plan.notes.append(
        f"corrupted on the fly: same pixels as `corruptbench make-c --seed {seed} --profile {prof}` "
        "would write before JPEG encoding (make-c then saves JPEG q85; that step is skipped here)"
    )
    plan.images_per_cell = len(items)
    plan.present = [(c, s) for c in corruptions for s in severities]
    base = _hash([source.fingerprint, str(seed), prof, *(it.rel for it in items)])
    for cell in plan.present:
        plan.cell_fp[_cell_key(cell)] = _hash([base, _cell_key(cell)])
    plan._source_items = list(zip(items, labels))
    plan.cell_fp["clean"] = _hash([base, "clean"])
    plan.clean_path = str(src)
    return plan


def _cells_items_on_the_fly(plan: _CPlan, todo: list[Cell]) -> None:
    for cell in todo:
        cid = len(plan.cells)
        plan.cells.append(cell)
        if cell == _CLEAN:
            plan.items.extend(("clean", cid, lab, it) for it, lab in plan._source_items)
        elif getattr(plan, "_raw", False):
            src_items = plan._source_items
            plan.items.extend(("raw", cid, lab, (it,)) for it, lab in src_items)
        else:
            plan.items.extend(
                ("otf", cid, lab, (it, cell[0], cell[1])) for it, lab in plan._source_items
            )


def _baseline_arg(baseline: str, layout: str) -> tuple[Any, float | None, str]:
    """``--baseline`` -> (summarize_c baseline, baseline clean error, name for the results file)."""
    b = (baseline or "auto").strip()
    if b.lower() == "auto":
        b = "uniform" if layout == "cifar-c" or layout == "cifar" else "alexnet"
    if b.lower() in ("alexnet", "uniform"):
        return b.lower(), None, b.lower()
    p = Path(b)
    if not p.is_file():
        raise EvalError(
            f"--baseline must be alexnet, uniform or a results JSON file; {b!r} is none of these"
        )
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        errs = data["errors"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise EvalError(
            f"--baseline {p}: not an eval-c results file with 'errors' ({exc})"
        ) from None
    complete = {
        k: v
        for k, v in errs.items()
        if isinstance(v, list) and len(v) == 5 and all(x is not None for x in v)
    }
    if not complete:
        raise EvalError(f"--baseline {p}: no corruption with all 5 severities")
    return complete, data.get("clean_error"), str(p)


def _c_results(
    model: LoadedModel,
    plan: _CPlan,
    corruptions: list[str],
    tally: dict[Cell, list[int]],
    baseline: str,
    elapsed: float,
    extra_notes: list[str],
    run: dict[str, Any],
) -> dict[str, Any]:
    from .metrics import summarize_c

    errors: dict[str, list[float | None]] = {}
    counts: dict[str, list[int | None]] = {}
    for c in corruptions:
        e_row: list[float | None] = []
        n_row: list[int | None] = []
        for s in SEVERITIES:
            t = tally.get((c, s))
            if t and t[1] > 0:
                e_row.append(1.0 - t[0] / t[1])
                n_row.append(t[1])
            else:
                e_row.append(None)
                n_row.append(None)
        errors[c] = e_row
        counts[c] = n_row
    clean = tally.get(_CLEAN)
    clean_error = 1.0 - clean[0] / clean[1] if clean and clean[1] else None
    base, base_clean, base_name = _baseline_arg(baseline, plan.layout)
    summary = summarize_c(
        errors, clean_error=clean_error, baseline=base, baseline_clean_error=base_clean
    )
    notes = list(plan.notes) + list(extra_notes)
    done = {k for k, v in tally.items() if v[1] > 0}
    missing_cells = [(c, s) for c in corruptions for s in SEVERITIES if (c, s) not in done]
    done_names = {c for c, _ in done}
    if missing_cells:
        by: dict[str, list[int]] = {}
        for c, s in missing_cells:
            by.setdefault(c, []).append(s)
        absent = [c for c, v in by.items() if len(v) == len(SEVERITIES) or c not in done_names]
        partial_rows = [
            f"{c} (severity {','.join(map(str, sorted(v)))})"
            for c, v in by.items()
            if c not in absent
        ]
        if absent:
            notes.append(f"not evaluated (absent from the data): {', '.join(absent)}")
        if partial_rows:
            notes.append(f"missing severities: {'; '.join(partial_rows)}")
    if summary.partial:
        n_ce = sum(1 for n in BENCHMARK_CORRUPTIONS if summary.ce.get(n) is not None)
        notes.append(f"partial: mCE over {n_ce} of the 15 benchmark corruptions")
    finger = _hash(f"{k}\t{v}" for k, v in sorted(plan.cell_fp.items()))
    return {
        "schema": SCHEMA,
        "kind": "c",
        "model": model.info(),
        "dataset": {
            "path": str(plan.root),
            "layout": plan.layout,
            "profile": plan.profile,
            "fingerprint": finger,
            "num_images": plan.images_per_cell,
            "notes": notes,
        },
        "versions": library_versions(),
        "time_s": round(elapsed, 3),
        "created": _now(),
        "errors": errors,
        "counts": counts,
        "clean_error": clean_error,
        "clean_count": clean[1] if clean and clean[1] else None,
        "baseline": base_name,
        "ce": {c: summary.ce.get(c) for c in corruptions},
        "relative_ce": {c: summary.relative_ce.get(c) for c in corruptions},
        "mce": summary.mce,
        "relative_mce": summary.relative_mce,
        "mean_error": summary.mean_error,
        "extra_mean_error": summary.extra_mean_error,
        "extra_ce": {c: summary.ce.get(c) for c in corruptions if c not in BENCHMARK_CORRUPTIONS},
        "partial": bool(summary.partial),
        "missing": list(summary.missing),
        "run": run,
    }


def evaluate_c(
    model: LoadedModel,
    *,
    data: str | os.PathLike[str] | None = None,
    on_the_fly: str | os.PathLike[str] | None = None,
    clean: str | os.PathLike[str] | None = None,
    corruptions: Sequence[str] | None = None,
    severities: Sequence[int] = SEVERITIES,
    out: str | os.PathLike[str] | None = None,
    baseline: str = "auto",
    batch_size: int = 64,
    workers: int | None = None,
    limit: int | None = None,
    seed: int = 0,
    profile: str | None = None,
    overwrite: bool = False,
    threads: int | None = None,
    corrupt_on: str = "auto",
    log: Log | None = _stderr,
) -> dict[str, Any]:
    """Evaluate ``model`` on ImageNet-C style data and return the results dict (RESULTS_SCHEMA).

    Args:
        model: from :func:`corruptbench.models.load_model`.
        data: an ImageNet-C folder or a CIFAR-10/100-C folder (layout detected).
        on_the_fly: instead of ``data``, a clean image folder / CIFAR batch corrupted in the workers
            (the clean error is then computed from it too).
        clean: clean images for the clean error (ImageNet folder: ``Resize(256)+CenterCrop(224)``;
            CIFAR: a batch file or a folder of 32 x 32 class sub-folders).
        corruptions: names or subsets (``benchmark``, ``extra``, ``all``, a family); default all 19.
        severities: subset of 1..5.
        out: results JSON, rewritten after each finished cell; resumed when it exists.
        baseline: ``auto`` (AlexNet for ImageNet, uniform for CIFAR), ``alexnet``, ``uniform`` or an
            eval-c results file of the baseline model.
        batch_size: images per model call.
        workers: data-loader processes (0 = load in this process); default: :func:`plan_resources`.
        threads: torch threads of the model during the run (default: :func:`plan_resources`).
        corrupt_on: on-the-fly only. ``workers``: CPU data-loader workers, the exact make-c
            pixels; ``device``: the model's device with :func:`corruptbench.torch.corrupt_batch`
            (fast on a GPU; seeded per batch, not make-c's bytes); ``auto``: device on CUDA.
        limit: use at most this many images per cell (a seeded subset, the same images per cell).
        seed: base seed of on-the-fly corruption (as ``make-c --seed``) and of the ``limit`` subset.
        profile: parameter profile for on-the-fly/clean preparation (default: detected).
        overwrite: replace an existing ``out`` written for another model instead of failing.
        log: progress messages (``None`` = silent).
    """
    t0 = time.perf_counter()
    log = log or (lambda _m: None)
    if (data is None) == (on_the_fly is None):
        raise EvalError("give exactly one of --data D or --on-the-fly SRC")
    names = _check_names(corruptions, ALL_CORRUPTIONS, "corruption")
    sevs = sorted({int(s) for s in severities})
    if not sevs or any(s not in SEVERITIES for s in sevs):
        raise EvalError(f"severities must be in 1..5, got {list(severities)}")
    if limit is not None and limit < 1:
        raise EvalError(f"--limit must be positive, got {limit}")
    nc = model.num_classes
    if corrupt_on not in ("auto", "workers", "device"):
        raise EvalError(f"corrupt_on must be auto, workers or device, got {corrupt_on!r}")
    on_device = on_the_fly is not None and (
        corrupt_on == "device" or (corrupt_on == "auto" and model.device.startswith("cuda"))
    )
    if on_device:
        _require_torch_backend()
        if model.preprocessing.enhance != "none":
            raise EvalError("--preprocess clahe runs on the CPU: use --corrupt-on workers with it")
    if on_the_fly is not None:
        plan = _plan_on_the_fly(Path(on_the_fly), names, sevs, limit, seed, nc, profile)
        if on_device:
            plan._raw = True
            plan.cell_fp = {k: _hash([v, "device"]) for k, v in plan.cell_fp.items()}
            plan.notes[-1] = (
                "corrupted on the fly on the model's device with corruptbench.torch.corrupt_batch "
                f"(make-c's preprocessing, profile {plan.profile}; random draws from torch "
                "generators seeded per batch, so not the bytes make-c writes)"
            )
    else:
        root = Path(data)  # type: ignore[arg-type]
        if not root.is_dir():
            raise EvalError(f"--data {root}: folder not found")
        if (root / "labels.npy").is_file():
            plan = _plan_cifar_c(root, names, sevs, limit, seed, nc)
        else:
            plan = _plan_imagenet_c(root, names, sevs, limit, seed, nc, profile)
    if clean is not None:
        if on_the_fly is not None:
            raise EvalError(
                "--clean is implied by --on-the-fly (its clean error is computed from SRC)"
            )
        csrc, citems, clabels = _open_source(
            Path(clean), nc, [], limit, seed, restrict=lambda src: _match_clean(plan, src)
        )
        plan._clean = list(zip(citems, clabels))
        plan.cell_fp["clean"] = _hash([csrc.fingerprint, plan.profile, *(it.rel for it in citems)])
        plan.clean_path = str(clean)
        plan.notes.append(
            f"clean error: {clean} prepared like make-c's {plan.profile!r} profile"
            + (" (Resize(256) + CenterCrop(224))" if plan.profile == "imagenet" else "")
        )
    want: list[Cell] = list(plan.present) + ([_CLEAN] if plan.clean_path else [])

    out_p = Path(out) if out is not None else None
    prev = _load_previous(out_p, "c", model, overwrite, log)
    tally: dict[Cell, list[int]] = {}
    prev_time = 0.0
    if prev is not None:
        old_fp = prev.get("run", {}).get("cell_fingerprints", {})
        same_run = (
            prev.get("run", {}).get("limit") == limit and prev.get("run", {}).get("seed") == seed
        )
        for cell in want:
            key = _cell_key(cell)
            if not same_run or old_fp.get(key) != plan.cell_fp.get(key):
                continue
            if cell == _CLEAN:
                e, n = prev.get("clean_error"), prev.get("clean_count")
            else:
                e = (prev.get("errors", {}).get(cell[0]) or [None] * 5)[cell[1] - 1]
                n = (prev.get("counts", {}).get(cell[0]) or [None] * 5)[cell[1] - 1]
            if e is not None and n:
                tally[cell] = [int(round((1.0 - e) * n)), int(n), 0]
        prev_time = float(prev.get("time_s") or 0.0)
        if tally:
            log(
                f"resuming {out_p}: {len(tally)} finished cells kept (not recomputed), {len(want) - len(tally)} to do"
            )
    todo = [c for c in want if c not in tally]
    if plan.layout == "imagenet-c":
        _cells_items_imagenet_c(plan, [c for c in todo if c != _CLEAN], limit, seed)
    elif plan.layout == "cifar-c":
        _cells_items_cifar_c(plan, [c for c in todo if c != _CLEAN])
    else:
        _cells_items_on_the_fly(plan, todo)
    if _CLEAN in todo and plan.layout != "on-the-fly":
        cid = len(plan.cells)
        plan.cells.append(_CLEAN)
        plan.items.extend(("clean", cid, lab, it) for it, lab in plan._clean)

    extra_notes: list[str] = []
    skipped: dict[Cell, int] = {}
    run = {
        "limit": limit,
        "seed": seed,
        "batch_size": batch_size,
        "cell_fingerprints": dict(plan.cell_fp),
        "resumed_cells": len(tally),
        "finished": False,
    }

    def results(finished: bool) -> dict[str, Any]:
        notes = list(extra_notes)
        if skipped:
            notes.append(
                "unreadable inputs skipped (not counted): "
                + ", ".join(f"{_cell_key(c)} {n}" for c, n in skipped.items())
            )
        run["finished"] = finished
        return _c_results(
            model, plan, names, tally, baseline, prev_time + time.perf_counter() - t0, notes, run
        )

    if out_p is not None and prev is None:
        write_results(out_p, results(False))  # fail early on an unwritable --out
    remaining = [0] * len(plan.cells)
    for it in plan.items:
        remaining[it[1]] += 1
    started = [time.perf_counter()] * len(plan.cells)
    nw, nthreads = plan_resources(
        model.device, heavy=plan.layout == "on-the-fly", workers=workers, threads=threads
    )
    cfg = _Config(model.preprocessing, plan.profile, seed, "c")
    log(
        f"eval-c: {model.id} on {plan.root} ({plan.layout}, profile {plan.profile}): "
        f"{len(plan.cells)} cells, {len(plan.items)} images, {nw} workers, "
        f"{nthreads or 'default'} model threads"
    )
    if plan.missing:
        log(f"  {len(plan.missing)} requested cells absent from the data (reported as missing)")
    for cid, cell in enumerate(plan.cells):
        tally.setdefault(cell, [0, 0, 0])
        if remaining[cid] == 0:  # pragma: no cover - empty cells are not planned
            continue

    def finish(cid: int) -> None:
        cell = plan.cells[cid]
        t = tally[cell]
        err = 1.0 - t[0] / t[1] if t[1] else float("nan")
        log(
            f"  {_cell_key(cell):<24} error {err:.4f}  ({t[1]} images, {time.perf_counter() - started[cid]:.1f} s)"
        )
        if cid + 1 < len(plan.cells):
            started[cid + 1] = time.perf_counter()
        if out_p is not None:
            write_results(out_p, results(False))

    if not plan.items:
        log("  nothing to evaluate: every requested cell is already in the results file")
    batches = (
        _iterate(
            model,
            plan.items,
            cfg,
            batch_size=batch_size,
            workers=nw,
            threads=nthreads,
            on_device=_device_corruptor(plan, seed) if on_device else None,
        )
        if plan.items
        else []
    )
    for logits, y, c, bad in batches:
        done_cells: set[int] = set()
        for cid, reason in bad:
            cell = plan.cells[cid]
            skipped[cell] = skipped.get(cell, 0) + 1
            tally[cell][2] += 1
            remaining[cid] -= 1
            if skipped[cell] <= 3:
                log(f"  skipped an unreadable input in {_cell_key(cell)}: {reason}")
            if remaining[cid] == 0:
                done_cells.add(cid)
        if logits is not None:
            nc_out = logits.shape[1]
            if int(y.max()) >= nc_out:
                raise EvalError(f"label {int(y.max())} but the model outputs {nc_out} logits")
            correct = (logits.argmax(1) == y).numpy()
            for cid in np.unique(c.numpy()):
                m = c.numpy() == cid
                cell = plan.cells[int(cid)]
                tally[cell][0] += int(correct[m].sum())
                tally[cell][1] += int(m.sum())
                remaining[int(cid)] -= int(m.sum())
                if remaining[int(cid)] == 0:
                    done_cells.add(int(cid))
        for cid in sorted(done_cells):
            finish(cid)
    tally = {k: v for k, v in tally.items() if v[1] > 0}
    res = results(True)
    if out_p is not None:
        write_results(out_p, res)
    return res


def _require_torch_backend() -> Any:
    try:
        from .torch import corrupt_batch
    except ImportError:
        raise EvalError(
            "on-the-fly corruption on the model's device (--device cuda, --corrupt-on device) needs "
            "corruptbench.torch.corrupt_batch, which is not available in this installation. Use "
            "--corrupt-on workers (CPU workers corrupt exactly like make-c) or --device cpu, or "
            "build the dataset with `corruptbench make-c` and evaluate it with --data."
        ) from None
    return corrupt_batch


def _device_prepare(x: Any, prep: Any) -> Any:
    """The model's resize step on a uint8 device batch (CLAHE needs the CPU path)."""
    import torch

    s = prep.input_size
    if x.shape[-1] == s and x.shape[-2] == s:
        return x
    y = torch.nn.functional.interpolate(
        x.float(), size=(s, s), mode=prep.interpolation, align_corners=False
    )
    return y.round_().clamp_(0, 255).to(torch.uint8)


def _device_corruptor(plan: _CPlan, seed: int) -> Callable[[Any, int], Any]:
    """Per batch: ``corrupt_batch`` with a generator seeded from (seed, cell, batch number)."""
    import torch

    from .pipeline import item_seed

    corrupt_batch = _require_torch_backend()
    counters: dict[int, int] = {}

    def fn(x: Any, cid: int) -> Any:
        cell = plan.cells[cid]
        if cell == _CLEAN:
            return x
        k = counters.get(cid, 0)
        counters[cid] = k + 1
        g = torch.Generator(device=x.device)
        g.manual_seed(item_seed(seed, "c-device", cell[0], cell[1], f"batch-{k}"))
        return corrupt_batch(x, cell[0], cell[1], profile=plan.profile, generator=g)

    return fn


# ================================================================================================
# ImageNet-P
# ================================================================================================
def _p_results(
    model: LoadedModel,
    layout: str,
    root: Path,
    profile: str,
    difficulty: int,
    sums: dict[str, list[float]],
    baseline: str | None,
    elapsed: float,
    notes: list[str],
    cell_fp: dict[str, str],
    run: dict[str, Any],
    num_sequences: int,
    top_notes: list[str],
) -> dict[str, Any]:
    from .metrics import summarize_p

    done = {k: v for k, v in sums.items() if v[3] > 0}
    order = [p for p in ALL_PERTURBATIONS if p in done]
    fp = {p: done[p][0] / done[p][3] for p in order}
    t5d = {p: done[p][1] / done[p][3] for p in order}
    zipf = {p: done[p][2] / done[p][3] for p in order}
    nseq = {p: int(done[p][3]) for p in order}
    all_notes = list(top_notes)
    fr = t5r = None
    mfr = mt5d = None
    if fp:
        s = summarize_p(fp, t5d, baseline=baseline)
        if baseline is not None:
            fr, t5r = dict(s.fr), dict(s.t5d_ratio)
            mfr, mt5d = s.mfr, s.mt5d
        if s.notes:
            all_notes.append(s.notes)
    return {
        "schema": SCHEMA,
        "kind": "p",
        "model": model.info(),
        "dataset": {
            "path": str(root),
            "layout": layout,
            "profile": profile,
            "fingerprint": _hash(f"{k}\t{v}" for k, v in sorted(cell_fp.items())),
            "num_images": num_sequences,
            "notes": list(notes),
        },
        "versions": library_versions(),
        "time_s": round(elapsed, 3),
        "created": _now(),
        "difficulty": difficulty,
        "flip_probability": fp,
        "top5_distance": t5d,
        "zipf_distance": zipf,
        "num_sequences": nseq,
        "baseline": baseline,
        "flip_rate": fr,
        "t5d_ratio": t5r,
        "mfr": mfr,
        "mt5d": mt5d,
        "notes": all_notes,
        "run": run,
    }


def evaluate_p(
    model: LoadedModel,
    *,
    data: str | os.PathLike[str] | None = None,
    on_the_fly: str | os.PathLike[str] | None = None,
    perturbations: Sequence[str] | None = None,
    difficulty: int = 1,
    out: str | os.PathLike[str] | None = None,
    baseline: str | os.PathLike[str] | None = None,
    batch_size: int = 64,
    workers: int | None = None,
    limit: int | None = None,
    seed: int = 0,
    profile: str | None = None,
    overwrite: bool = False,
    threads: int | None = None,
    log: Log | None = _stderr,
) -> dict[str, Any]:
    """Evaluate ``model`` on ImageNet-P style sequences: FP, T5D and Zipf per perturbation.

    ``data`` is an ImageNet-P folder (``<p>[_<d>]/<wnid>/*.mp4``) or a CIFAR-10-P folder
    (``<p>.npy`` / ``<p>_<d>.npy``); ``on_the_fly`` a clean source turned into sequences with
    :func:`corruptbench.perturb` in the workers (make-p's seeding). Difficulty: the noise
    perturbations read their ``_<d>`` dataset; the others use it as the frame stride (spec §4.2).
    ``batch_size`` counts frames: ``max(1, batch_size // T)`` sequences per model call. mFR / mT5D
    need ``baseline`` (an eval-p results file or CSV, see :func:`corruptbench.metrics.load_p_baseline`).
    Resume works per perturbation like :func:`evaluate_c`.
    """
    from .metrics import flip_probability, is_noise_perturbation, top5_distance, zipf_distance

    t0 = time.perf_counter()
    log = log or (lambda _m: None)
    if (data is None) == (on_the_fly is None):
        raise EvalError("give exactly one of --data D or --on-the-fly SRC")
    if difficulty not in (1, 2, 3):
        raise EvalError(f"--difficulty must be 1, 2 or 3, got {difficulty}")
    names = _check_names(perturbations, ALL_PERTURBATIONS, "perturbation")
    notes: list[str] = []
    cell_items: dict[str, list[tuple[str, Any]]] = {}
    cell_fp: dict[str, str] = {}
    missing: list[str] = []
    if on_the_fly is not None:
        if model.device.startswith("cuda"):
            notes.append("sequences generated by CPU workers")
        source, items, _labels = _open_source_unlabelled(Path(on_the_fly), limit, seed)
        prof = profile or ("cifar" if source.kind == "cifar-batch" else "imagenet")
        layout, root = "on-the-fly", Path(on_the_fly)
        base = _hash([source.fingerprint, str(seed), prof, *(it.rel for it in items)])
        for p in names:
            cell_items[p] = [("otf", (it, p, difficulty)) for it in items]
            cell_fp[p] = _hash([base, p, str(difficulty)])
        notes.append(
            f"sequences generated on the fly: same frames as `corruptbench make-p --seed {seed} "
            f"--profile {prof}` would encode (the MP4 encoding step is skipped)"
        )
    else:
        root = Path(data)  # type: ignore[arg-type]
        if not root.is_dir():
            raise EvalError(f"--data {root}: folder not found")
        from .datasets.cifar import load_cifar_p, scan_cifar_p
        from .datasets.video import NOISE_PERTURBATIONS, perturbation_dirname, scan_imagenet_p

        npys = scan_cifar_p(root)
        if npys:
            layout, prof = "cifar-p", profile or "cifar"
            for p in names:
                stem = p if difficulty == 1 or p not in NOISE_PERTURBATIONS else f"{p}_{difficulty}"
                if stem not in npys:
                    missing.append(p)
                    continue
                arr = load_cifar_p(root, stem)
                sel = _select(arr.shape[0], [str(i) for i in range(arr.shape[0])], limit, seed)
                cell_items[p] = [("npyseq", (str(npys[stem]), i)) for i in sel]
                cell_fp[p] = _npy_fingerprint(arr[sel], None)
        else:
            layout = "imagenet-p"
            index = scan_imagenet_p(root, names, (difficulty,) if difficulty > 1 else (1,))
            if difficulty > 1:  # non-noise perturbations: difficulty is a stride on the _1 data
                more = scan_imagenet_p(
                    root, [n for n in names if n not in NOISE_PERTURBATIONS], (1,)
                )
                index.cells.update(more.cells)
            for p in names:
                d = difficulty if p in NOISE_PERTURBATIONS else 1
                entries = index.cells.get((p, d))
                if not entries:
                    missing.append(p)
                    continue
                keys = [f"{w}/{f.name}" for f, w in entries]
                sel = _select(len(entries), keys, limit, seed)
                chosen = [entries[i][0] for i in sel]
                cell_items[p] = [("video", str(f)) for f in chosen]
                cell_fp[p] = _files_fingerprint(root, chosen)
                _ = perturbation_dirname  # folder naming lives in datasets.video
            prof = profile or "imagenet"
        if not cell_items:
            raise EvalError(
                f"{root}: no requested perturbation found (ImageNet-P: <perturbation>[_<d>]/<wnid>/*.mp4; "
                "CIFAR-10-P: <perturbation>.npy)"
            )
    top_notes = [f"missing perturbations: {', '.join(missing)}"] if missing else []

    out_p = Path(out) if out is not None else None
    prev = _load_previous(out_p, "p", model, overwrite, log)
    sums: dict[str, list[float]] = {}
    prev_time = 0.0
    if prev is not None:
        prun = prev.get("run", {})
        if (
            prun.get("limit") == limit
            and prun.get("seed") == seed
            and prev.get("difficulty") == difficulty
        ):
            for p in cell_items:
                if prun.get("cell_fingerprints", {}).get(p) == cell_fp[p] and p in prev.get(
                    "flip_probability", {}
                ):
                    n = int(prev["num_sequences"][p])
                    sums[p] = [
                        prev["flip_probability"][p] * n,
                        prev["top5_distance"][p] * n,
                        prev["zipf_distance"][p] * n,
                        n,
                    ]
        prev_time = float(prev.get("time_s") or 0.0)
        if sums:
            log(f"resuming {out_p}: {len(sums)} finished perturbations kept (not recomputed)")
    todo = [p for p in cell_items if p not in sums]
    run = {
        "limit": limit,
        "seed": seed,
        "batch_size": batch_size,
        "cell_fingerprints": cell_fp,
        "resumed_cells": len(sums),
        "finished": False,
    }
    nseq_total = max((len(v) for v in cell_items.values()), default=0)
    base_arg = None if baseline is None else str(baseline)
    if base_arg is not None and not Path(base_arg).is_file():
        raise EvalError(f"--baseline {base_arg}: file not found")
    skipped: dict[str, int] = {}

    def results(finished: bool) -> dict[str, Any]:
        run["finished"] = finished
        extra = list(notes)
        if skipped:
            extra.append(
                "unreadable sequences skipped: " + ", ".join(f"{k} {v}" for k, v in skipped.items())
            )
        return _p_results(
            model,
            layout,
            root,
            prof,
            difficulty,
            sums,
            base_arg,
            prev_time + time.perf_counter() - t0,
            extra,
            cell_fp,
            run,
            nseq_total,
            top_notes,
        )

    nw, nthreads = plan_resources(
        model.device, heavy=layout == "on-the-fly", workers=workers, threads=threads
    )
    cfg = _Config(model.preprocessing, prof, seed, "p")
    log(
        f"eval-p: {model.id} on {root} ({layout}, difficulty {difficulty}): {len(todo)} perturbations, {nw} workers"
    )
    for p in todo:
        items = [(op, 0, 0, payload) for op, payload in cell_items[p]]
        noise = is_noise_perturbation(p)
        acc = [0.0, 0.0, 0.0, 0]
        t_cell = time.perf_counter()
        try:
            from .perturbations import frame_count

            frames_hint = frame_count(p, prof)
        except Exception:  # noqa: BLE001 - unknown profile: assume the longest sequences
            frames_hint = 41
        per_batch = max(1, batch_size // frames_hint)
        for logits, _y, _c, bad in _iterate(
            model, items, cfg, batch_size=per_batch, workers=nw, threads=nthreads
        ):
            if bad:
                skipped[p] = skipped.get(p, 0) + len(bad)
            if logits is None:
                continue
            arr = logits.numpy()
            n = arr.shape[0]
            acc[0] += flip_probability(arr.argmax(-1), noise=noise, difficulty=difficulty) * n
            acc[1] += top5_distance(arr, noise=noise, difficulty=difficulty) * n
            acc[2] += zipf_distance(arr, noise=noise, difficulty=difficulty) * n
            acc[3] += n
        if acc[3] == 0:
            top_notes.append(f"{p}: no readable sequence")
            continue
        sums[p] = acc
        log(
            f"  {p:<16} FP {acc[0] / acc[3]:.4f}  T5D {acc[1] / acc[3]:.3f}  ({acc[3]} sequences, {time.perf_counter() - t_cell:.1f} s)"
        )
        if out_p is not None:
            write_results(out_p, results(False))
    if not sums:
        raise EvalError("no sequence could be evaluated")
    res = results(True)
    if out_p is not None:
        write_results(out_p, res)
    return res


def _open_source_unlabelled(src: Path, limit: int | None, seed: int) -> tuple[Any, list[Any], None]:
    from .pipeline import SourceError, open_source

    try:
        source = open_source(src)
    except SourceError as exc:
        raise EvalError(str(exc)) from None
    sel = _select(len(source.items), [it.rel for it in source.items], limit, seed)
    return source, [source.items[i] for i in sel], None


# ================================================================================================
# exports
# ================================================================================================
def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.6f}"
    return str(v)


def results_to_csv(results: dict[str, Any], path: str | os.PathLike[str] | None = None) -> str:
    """CSV export; returns the text and writes it to ``path`` when given.

    eval-c: one row per corruption ``corruption,e1..e5,mean_error,ce,relative_ce,n``, then rows
    ``clean`` (clean error in ``mean_error``) and ``mCE`` (mCE in ``ce``, relative mCE in
    ``relative_ce``). eval-p: ``perturbation,fp,t5d,zipf,num_sequences,flip_rate,t5d_ratio`` - the
    format :func:`corruptbench.metrics.load_p_baseline` reads.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if results.get("kind") == "p":
        w.writerow(["perturbation", "fp", "t5d", "zipf", "num_sequences", "flip_rate", "t5d_ratio"])
        fr, t5r = results.get("flip_rate") or {}, results.get("t5d_ratio") or {}
        for p, v in results["flip_probability"].items():
            w.writerow(
                [
                    p,
                    _fmt(v),
                    _fmt(results["top5_distance"].get(p)),
                    _fmt(results["zipf_distance"].get(p)),
                    results["num_sequences"].get(p),
                    _fmt(fr.get(p)),
                    _fmt(t5r.get(p)),
                ]
            )
    else:
        w.writerow(
            ["corruption", "e1", "e2", "e3", "e4", "e5", "mean_error", "ce", "relative_ce", "n"]
        )
        for c, errs in results["errors"].items():
            present = [e for e in errs if e is not None]
            mean = sum(present) / 5 if len(present) == 5 else None
            counts = [n for n in (results.get("counts", {}).get(c) or []) if n]
            w.writerow(
                [
                    c,
                    *map(_fmt, errs),
                    _fmt(mean),
                    _fmt(results["ce"].get(c)),
                    _fmt(results["relative_ce"].get(c)),
                    max(counts) if counts else "",
                ]
            )
        w.writerow(
            [
                "clean",
                "",
                "",
                "",
                "",
                "",
                _fmt(results.get("clean_error")),
                "",
                "",
                results.get("clean_count") or "",
            ]
        )
        w.writerow(
            [
                "mCE",
                "",
                "",
                "",
                "",
                "",
                _fmt(results.get("mean_error")),
                _fmt(results.get("mce")),
                _fmt(results.get("relative_mce")),
                "",
            ]
        )
    text = buf.getvalue()
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


def print_summary(results: dict[str, Any], file: Any = None) -> None:
    """Terminal summary: ``corruptbench.report.terminal.print_summary`` when it exists, else a plain table."""
    try:
        from .report.terminal import print_summary as fancy
    except ImportError:
        pass
    else:
        fancy(results)
        return
    f = file or sys.stdout
    m = results["model"]
    print(
        f"model {m['id']}  ({results['dataset']['layout']}: {results['dataset']['path']})", file=f
    )
    if results.get("kind") == "p":
        print(f"{'perturbation':<16} {'FP':>8} {'T5D':>8} {'Zipf':>8} {'n':>6}", file=f)
        for p, v in results["flip_probability"].items():
            print(
                f"{p:<16} {v:8.4f} {results['top5_distance'][p]:8.3f} {results['zipf_distance'][p]:8.4f} {results['num_sequences'][p]:6d}",
                file=f,
            )
        if results.get("mfr") is not None:
            print(
                f"mFR {results['mfr'] * 100:.1f} %  mT5D {(results.get('mt5d') or float('nan')) * 100:.1f} %",
                file=f,
            )
        for n in results.get("notes", []):
            print(f"note: {n}", file=f)
        return

    def pct(v: Any) -> str:
        return "    -" if v is None else f"{v * 100:5.1f}"

    print(f"{'corruption':<18} " + " ".join(f"  s{s}" for s in SEVERITIES) + "    CE", file=f)
    for c, errs in results["errors"].items():
        print(
            f"{c:<18} " + " ".join(pct(e) for e in errs) + f" {pct(results['ce'].get(c))}", file=f
        )
    print(
        f"clean error {pct(results.get('clean_error'))} %   mCE {pct(results.get('mce'))} %   "
        f"relative mCE {pct(results.get('relative_mce'))} %   (baseline {results.get('baseline')})",
        file=f,
    )
    if results.get("partial"):
        print(f"partial: missing {', '.join(results.get('missing', []))}", file=f)

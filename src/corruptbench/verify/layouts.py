"""The layouts ``verify`` recognises, what a complete copy of each holds, and their checks.

Known counts (each a fact of the source data):

* ImageNet-C / ImageNet-C-bar: the ILSVRC-2012 validation set, 50 images in each of 1,000
  classes = 50,000 per cell; 19 corruptions x 5 severities (ImageNet-C), 10 corruptions x 5
  levels (ImageNet-C-bar, :data:`~corruptbench.tables.released.IMAGENET_C_BAR_LEVELS`).
* Tiny-ImageNet-C: the Tiny ImageNet validation set, 50 images in each of 200 classes = 10,000
  per cell; the 15 benchmark corruptions are required, the 4 extra ones checked when present.
* CIFAR-10-C / CIFAR-100-C: 19 ``<corruption>.npy`` uint8 ``(50000, 32, 32, 3)`` (5 severities x
  the 10,000 test images) and ``labels.npy`` ``(50000,)`` uint8 (Hendrycks' make_cifar_c.py).
* MNIST-C: 16 folders (:data:`~corruptbench.tables.released.MNIST_C_CORRUPTIONS`), each with
  ``train_images.npy`` uint8 ``(60000, 28, 28, 1)``, ``test_images.npy`` ``(10000, 28, 28, 1)``
  and their ``*_labels.npy`` (the MNIST train / test sizes; TFDS' mnist_corrupted reads them as
  28 x 28 x 1 uint8 images).
* ImageNet-P / Tiny-ImageNet-P: no published count per perturbation was found, so each
  perturbation folder present is checked against the others (the cells vote on the names).
* make-c / make-p builds (``manifest.json``): per cell the source's items minus those listed as
  skipped in ``skipped.csv``; the manifest records no per-file hashes, so files are checked by
  count, name and structure. WebDataset shards (``shards.json``): every listed shard, its size,
  its tar headers and sample count, and with ``hash`` its SHA-256.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS
from ..datasets.imagenet import is_wnid
from ..datasets.imagenet_c import level_dirname
from ..datasets.webdataset import SHARD_INDEX, shard_problem
from ..perturbations import ALL_PERTURBATIONS, NOISE_PERTURBATIONS
from ..progress import Progress
from ..tables.released import CIFAR_C_NPY_MD5, IMAGENET_C_BAR_LEVELS, MNIST_C_CORRUPTIONS
from .files import check_npy, npy_header
from .report import CellReport, VerifyReport
from .trees import check_cells

__all__ = ["VerifyError", "Selected", "LAYOUTS", "detect_layout", "IMAGE_EXTENSIONS"]

IMAGENET_VAL_PER_CELL = 50_000
TINY_VAL_PER_CELL = 10_000
CIFAR_C_ROWS = 50_000
MNIST_ROWS = {"train": 60_000, "test": 10_000}
SEVERITIES = (1, 2, 3, 4, 5)
IMAGE_EXTENSIONS = (".jpeg", ".jpg", ".png")
#: top-level files a folder may hold besides its data (bookkeeping, downloaded archives)
_IGNORED_TOP = ("manifest.json", "skipped.csv", "sources.txt", SHARD_INDEX, "README.txt")
_ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".zip", ".part", ".mismatch")


class VerifyError(ValueError):
    """``verify`` cannot tell what the folder is (a usage error: exit status 2)."""


@dataclass(frozen=True)
class Selected:
    """The part of a dataset to check (``verify(names=..., levels=...)``): corruption or
    perturbation names and levels (None: all of the layout's)."""

    names: tuple[str, ...] | None = None
    levels: tuple[int, ...] | None = None

    def has_name(self, name: str) -> bool:
        return self.names is None or name in self.names

    def has_level(self, level: int) -> bool:
        return self.levels is None or level in self.levels


def _dirs(root: Path) -> list[str]:
    return sorted(e.name for e in os.scandir(root) if e.is_dir() and not e.name.startswith("."))


def _top_extras(root: Path, expected: set[str]) -> CellReport:
    """The top-level entries that belong to no expected cell (archives and bookkeeping aside)."""
    extra = []
    for e in sorted(os.scandir(root), key=lambda e: e.name):
        if e.name.startswith(".") or e.name in expected or e.name in _IGNORED_TOP:
            continue
        if e.is_file() and e.name.endswith(_ARCHIVE_SUFFIXES):
            continue
        extra.append(e.name + ("/" if e.is_dir() else ""))
    return CellReport("(top level)", found=0, extra=extra)


# ------------------------------------------------------------------------------------------------
# image / video trees
# ------------------------------------------------------------------------------------------------
def _level_dir(root: Path, name: str, index: int, value: float | None) -> str | None:
    """The folder of level ``index`` (1-based) of ``name``: ``3``, or for ImageNet-C-bar its
    value (``2.35``, formatted ``{:.2f}`` by make_imagenet_c_bar.py, or as written)."""
    names = (
        [str(index)] if value is None else [f"{value:.2f}", f"{value:g}", str(value), str(index)]
    )
    for n in names:
        if (root / name / n).is_dir():
            return n
    return None


def _tree_report(
    root: Path,
    layout: str,
    required: list[tuple[str, list[float | None]]],
    optional: list[tuple[str, list[float | None]]],
    *,
    per_cell: int | None,
    decode: bool,
    bar_factory: Callable[[int], Progress],
    present_only: bool,
    only: Selected | None = None,
    **_: Any,
) -> VerifyReport:
    """``<name>/<level>/<class>/<file>`` trees: ImageNet-C, Tiny-ImageNet-C, ImageNet-C-bar (no
    published per-file hashes: ``hash`` changes nothing); ``only``: the names and levels to
    check (all when None)."""
    report = VerifyReport(root, layout)
    cells: list[tuple[str, str]] = []
    top = {n for n, _ in required + optional}  # expected at the top, checked or not
    if only is not None:
        required = [(n, lv) for n, lv in required if only.has_name(n)]
        optional = [(n, lv) for n, lv in optional if only.has_name(n)]
    for name, levels in required + optional:
        if not (root / name).is_dir():
            if (name, levels) in required and not present_only:
                report.missing_cells.extend(f"{name}/{i}" for i in range(1, len(levels) + 1))
            continue
        top.add(name)
        for i, value in enumerate(levels, 1):
            if only is not None and not only.has_level(i):
                continue
            d = _level_dir(root, name, i, value)
            if d is None:
                report.missing_cells.append(f"{name}/{value if value is not None else i}")
            else:
                cells.append((f"{name}/{d}", str(root / name / d)))
    with bar_factory(len(cells)) as bar:
        reports, files, notes = check_cells(
            cells,
            expected_per_cell=per_cell,
            with_classes=True,
            extensions=IMAGE_EXTENSIONS,
            decode=decode,
            bar=bar,
        )
    report.cells = reports
    report.files_checked = files
    report.notes.extend(notes)
    extras = _top_extras(root, top)
    if extras.extra:
        report.cells.insert(0, extras)
    if present_only:
        report.notes.append("only the corruption folders present were checked (--present-only)")
    return report


def _imagenet_c(root: Path, **kw: Any) -> VerifyReport:
    names = [(n, [None] * 5) for n in ALL_CORRUPTIONS]
    return _tree_report(root, "imagenet-c", names, [], per_cell=IMAGENET_VAL_PER_CELL, **kw)  # type: ignore[arg-type]


def _tiny_imagenet_c(root: Path, **kw: Any) -> VerifyReport:
    req = [(n, [None] * 5) for n in BENCHMARK_CORRUPTIONS]
    opt = [(n, [None] * 5) for n in EXTRA_CORRUPTIONS]
    return _tree_report(root, "tiny-imagenet-c", req, opt, per_cell=TINY_VAL_PER_CELL, **kw)  # type: ignore[arg-type]


def _imagenet_c_bar(root: Path, **kw: Any) -> VerifyReport:
    names = [(n, list(v)) for n, v in IMAGENET_C_BAR_LEVELS.items()]
    return _tree_report(root, "imagenet-c-bar", names, [], per_cell=IMAGENET_VAL_PER_CELL, **kw)  # type: ignore[arg-type]


def _need_av() -> None:
    """``--decode`` of MP4 files needs PyAV: say so before any work (one line, exit 2)."""
    from ..extras import require

    require("av", "verify --decode of MP4 files")


def _perturbation_dirs() -> list[str]:
    return [*ALL_PERTURBATIONS, *(f"{n}_{d}" for n in NOISE_PERTURBATIONS for d in (2, 3))]


def _imagenet_p(
    root: Path, *, decode: bool, bar_factory: Callable[[int], Progress], **_: Any
) -> VerifyReport:
    """``<perturbation>[_<d>]/<class>/<stem>.mp4``: every perturbation folder present."""
    if decode:
        _need_av()
    report = VerifyReport(root, "imagenet-p")
    present = [d for d in _perturbation_dirs() if (root / d).is_dir()]
    cells = [(d, str(root / d)) for d in present]
    with bar_factory(len(cells)) as bar:
        report.cells, report.files_checked, notes = check_cells(
            cells,
            expected_per_cell=None,
            with_classes=True,
            extensions=(".mp4",),
            decode=decode,
            bar=bar,
        )
    report.notes.extend(notes)
    report.notes.append(
        "no published count of ImageNet-P sequences is known: the perturbation folders present "
        "were checked against each other"
    )
    extras = _top_extras(root, set(present))
    if extras.extra:
        report.cells.insert(0, extras)
    return report


# ------------------------------------------------------------------------------------------------
# arrays
# ------------------------------------------------------------------------------------------------
def _md5(path: Path) -> str:
    h = hashlib.md5()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def _array_cell(
    path: Path, key: str, shape: tuple[int | None, ...], dtype: str | None, md5: str | None
) -> CellReport:
    """One ``.npy`` file: present, whole (size), its shape (None: any) and dtype, its MD5."""
    cell = CellReport(key, expected=1)
    if not path.is_file():
        cell.missing.append(path.name)
        return cell
    cell.found = 1
    size = path.stat().st_size
    problem = "zero bytes" if size == 0 else check_npy(str(path), size)
    if problem is None:
        got, got_dtype, _ = npy_header(str(path))
        want = "(" + ", ".join("N" if s is None else str(s) for s in shape) + ")"
        if len(got) != len(shape) or any(w is not None and w != g for w, g in zip(shape, got)):
            problem = f"shape {got}, expected {want}"
        elif dtype is not None and got_dtype != np.dtype(dtype):
            problem = f"dtype {got_dtype}, expected {dtype}"
        elif md5 is not None and (digest := _md5(path)) != md5:
            problem = f"md5 {digest}, expected {md5}"
    if problem is not None:
        cell.broken.append(f"{path.name}: {problem}")
    return cell


def _cifar_which(root: Path) -> str:
    """``cifar10-c`` or ``cifar100-c``, from the largest label (CIFAR-100 has 100 classes)."""
    try:
        labels = np.load(root / "labels.npy", mmap_mode="r", allow_pickle=False)
        return "cifar100-c" if int(np.max(labels)) >= 10 else "cifar10-c"
    except (OSError, ValueError):
        return "cifar10-c"


def _cifar_c(
    root: Path,
    *,
    hash: bool,
    bar_factory: Callable[[int], Progress],
    only: Selected | None = None,
    **_: Any,
) -> VerifyReport:
    which = _cifar_which(root)
    report = VerifyReport(root, which)
    sums = CIFAR_C_NPY_MD5[which] if hash else {}
    names = [*(n for n in ALL_CORRUPTIONS if only is None or only.has_name(n)), "labels"]
    with bar_factory(len(names)) as bar:
        for n in names:
            shape: tuple[int | None, ...] = (
                (CIFAR_C_ROWS,) if n == "labels" else (CIFAR_C_ROWS, 32, 32, 3)
            )
            report.cells.append(
                _array_cell(root / f"{n}.npy", f"{n}.npy", shape, "uint8", sums.get(n))
            )
            bar.advance(1, label=f"verify {n}.npy")
    report.files_checked = sum(c.found for c in report.cells)
    extras = _top_extras(root, {f"{n}.npy" for n in [*ALL_CORRUPTIONS, "labels"]})
    if extras.extra:
        report.cells.insert(0, extras)
    report.notes.append(
        "MD5 of each file checked against torch-uncertainty 0.13.0's list"
        if hash
        else "file hashes not checked (--hash compares each .npy with its published MD5)"
    )
    return report


def _mnist_c(
    root: Path, *, bar_factory: Callable[[int], Progress], present_only: bool, **_: Any
) -> VerifyReport:
    report = VerifyReport(root, "mnist-c")
    names = [n for n in MNIST_C_CORRUPTIONS if (root / n).is_dir() or not present_only]
    with bar_factory(len(names)) as bar:
        for n in names:
            if not (root / n).is_dir():
                report.missing_cells.append(n)
                continue
            for split, rows in MNIST_ROWS.items():
                images = _array_cell(
                    root / n / f"{split}_images.npy",
                    f"{n}/{split}_images.npy",
                    (rows, 28, 28, 1),
                    "uint8",
                    None,
                )
                labels = _array_cell(
                    root / n / f"{split}_labels.npy", f"{n}/{split}_labels.npy", (rows,), None, None
                )
                report.cells.extend([images, labels])
            bar.advance(1, label=f"verify {n}")
    report.files_checked = sum(c.found for c in report.cells)
    extras = _top_extras(root, set(MNIST_C_CORRUPTIONS))
    if extras.extra:
        report.cells.insert(0, extras)
    return report


# ------------------------------------------------------------------------------------------------
# corruptbench builds and shards
# ------------------------------------------------------------------------------------------------
def _read_json(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise VerifyError(f"cannot read {path}: {exc}") from None
    if not isinstance(doc, dict):
        raise VerifyError(f"{path}: not a JSON object")
    return doc


def _skipped(root: Path) -> int:
    try:
        with open(root / "skipped.csv", newline="", encoding="utf-8") as fh:
            return sum(1 for r in csv.DictReader(fh) if r.get("status") == "skipped")
    except OSError:
        return 0


def _build_cells(params: dict[str, Any]) -> tuple[str, list[tuple[str, int]]]:
    kind = "p" if params.get("command") == "make-p" else "c"
    names = params.get("perturbations" if kind == "p" else "corruptions") or []
    levels = params.get("difficulties" if kind == "p" else "severities") or []
    return kind, [(str(n), int(v)) for n in names for v in levels]


def _p_dirname(name: str, level: int) -> str:
    return f"{name}_{level}" if level > 1 and name in NOISE_PERTURBATIONS else name


def _build(
    root: Path,
    *,
    decode: bool,
    hash: bool,
    bar_factory: Callable[[int], Progress],
    only: Selected | None = None,
    **_: Any,
) -> VerifyReport:
    """A make-c / make-p build in a folder layout (``manifest.json``, no shards)."""
    manifest = _read_json(root / "manifest.json")
    params = manifest.get("params", {})
    fmt = str(params.get("format"))
    kind, cells = _build_cells(params)
    every = {_p_dirname(n, v) if kind == "p" else n for n, v in cells}
    if only is not None:
        cells = [(n, v) for n, v in cells if only.has_name(n) and only.has_level(v)]
    report = VerifyReport(root, f"make-{kind} build ({fmt})")
    items = int(manifest.get("source", {}).get("items", 0))
    per_cell = items - _skipped(root)
    if manifest.get("status") != "complete":
        report.cells.append(
            CellReport(
                "manifest.json",
                broken=[f"status {manifest.get('status')!r}: the build did not finish"],
            )
        )
    report.notes.append(
        "the manifest records counts, not file hashes: files checked by count, name and structure"
    )
    if fmt == "npy":
        return _build_arrays(root, report, kind, cells, per_cell, bar_factory)
    if kind == "p":
        if decode:
            _need_av()
        dirs = sorted({_p_dirname(n, v) for n, v in cells})
        present = [(d, str(root / d)) for d in dirs if (root / d).is_dir()]
        report.missing_cells.extend(d for d in dirs if not (root / d).is_dir())
        exts: tuple[str, ...] = (".mp4",)
    else:
        dirs = sorted({n for n, _ in cells})
        named = [(n, _build_level_dir(params, n, v)) for n, v in cells]
        present = [(f"{n}/{d}", str(root / n / d)) for n, d in named if (root / n / d).is_dir()]
        report.missing_cells.extend(f"{n}/{d}" for n, d in named if not (root / n / d).is_dir())
        exts = IMAGE_EXTENSIONS if fmt == "jpeg" else ()
    with bar_factory(len(present)) as bar:
        reports, files, notes = check_cells(
            present,
            expected_per_cell=per_cell,
            with_classes=kind == "p" or _has_classes(present),
            extensions=exts or _any_ext(present),
            decode=decode,
            bar=bar,
        )
    report.cells.extend(reports)
    report.files_checked = files
    report.notes.extend(notes)
    extras = _top_extras(root, every)
    if extras.extra:
        report.cells.insert(0, extras)
    return report


def _build_level_dir(params: dict[str, Any], name: str, level: int) -> str:
    """The folder of one level of a make-c build: ``3``, or with ``level_names`` ``value`` (an
    ImageNet-C-bar build) the level of the build's profile (``2.35``)."""
    naming = str(params.get("level_names") or "severity")
    try:
        return level_dirname(name, level, naming, str(params.get("profile") or "imagenet"))
    except ValueError as exc:
        raise VerifyError(f"manifest.json: {exc}") from None


def _has_classes(cells: list[tuple[str, str]]) -> bool:
    """Whether a build's cells hold class folders (a labelled source) or files directly."""
    for _, path in cells:
        for e in os.scandir(path):
            if not e.name.startswith("."):
                return e.is_dir()
    return True


def _any_ext(cells: list[tuple[str, str]]) -> tuple[str, ...]:
    """The extensions of a ``--layout tree`` build: whatever its files have (native formats)."""
    exts: set[str] = set()
    for _, path in cells[:1]:
        for _dirpath, _dirs, files in os.walk(path):
            exts.update(os.path.splitext(f)[1].lower() for f in files if not f.startswith("."))
    return tuple(sorted(exts)) or IMAGE_EXTENSIONS


def _build_arrays(
    root: Path,
    report: VerifyReport,
    kind: str,
    cells: list[tuple[str, int]],
    per_cell: int,
    bar_factory: Callable[[int], Progress],
) -> VerifyReport:
    """``--format npy``: make-c ``<corruption>.npy`` (S*N, H, W, 3) + ``labels.npy``; make-p
    ``<perturbation>[_<d>].npy`` (N, T, H, W, 3)."""
    files: list[tuple[str, tuple[int | None, ...]]]
    if kind == "c":
        levels = len({v for _, v in cells})
        names = sorted({n for n, _ in cells})
        files = [(f"{n}.npy", (levels * per_cell, None, None, 3)) for n in names]
        if (root / "labels.npy").exists():
            files.append(("labels.npy", (levels * per_cell,)))
    else:
        files = [(f"{_p_dirname(n, v)}.npy", (per_cell, None, None, None, 3)) for n, v in cells]
    with bar_factory(len(files)) as bar:
        for fname, shape in files:
            dtype = None if fname == "labels.npy" else "uint8"
            report.cells.append(_array_cell(root / fname, fname, shape, dtype, None))
            bar.advance(1, label=f"verify {fname}")
    report.files_checked = sum(c.found for c in report.cells)
    extras = _top_extras(root, {f for f, _ in files})
    if extras.extra:
        report.cells.insert(0, extras)
    return report


def _webdataset(
    root: Path, *, hash: bool, bar_factory: Callable[[int], Progress], **_: Any
) -> VerifyReport:
    """WebDataset shards listed in ``shards.json`` (with the cells of ``manifest.json``)."""
    from ..datasets.webdataset import read_index

    try:
        doc = read_index(root)
    except ValueError as exc:
        raise VerifyError(str(exc)) from None
    report = VerifyReport(root, f"webdataset shards ({doc.get('kind')}, {doc.get('media')})")
    nk, lk = doc["name_key"], doc["level_key"]
    rows = {f"{r[nk]}/{int(r[lk])}": r for r in doc["cells"]}
    if (root / "manifest.json").is_file():
        _kind, wanted = _build_cells(_read_json(root / "manifest.json").get("params", {}))
        report.missing_cells.extend(
            f"{n}/{v}" for n, v in wanted if not rows.get(f"{n}/{v}", {}).get("shards")
        )
    if not doc.get("complete", True):
        report.notes.append(f"{SHARD_INDEX} says the shards are not complete")
    listed: set[str] = set()
    with bar_factory(len(rows)) as bar:
        for key, row in rows.items():
            cell = CellReport(key, expected=int(row.get("samples", 0)))
            for s in row["shards"]:
                listed.add(s["name"])
                problem = shard_problem(root / s["name"], s, hash=hash)
                if problem == "missing":
                    cell.missing.append(s["name"])
                elif problem is not None:
                    cell.broken.append(f"{s['name']}: {problem}")
                else:
                    cell.found += int(s["samples"])
                report.files_checked += 1
            report.cells.append(cell)
            bar.advance(1, label=f"verify {key}")
    extra = sorted(p.name for p in root.glob("*.tar") if p.name not in listed)
    if extra:
        report.cells.insert(0, CellReport("(top level)", extra=extra))
    report.notes.append(
        "SHA-256 of every shard checked against shards.json"
        if hash
        else "shard sizes, tar headers and sample counts checked; --hash also compares each SHA-256"
    )
    return report


# ------------------------------------------------------------------------------------------------
# detection
# ------------------------------------------------------------------------------------------------
def _has_level_dirs(path: Path) -> bool:
    return any(d.isdigit() or d.replace(".", "", 1).isdigit() for d in _dirs(path))


def _first_class_count(root: Path, names: list[str]) -> int:
    for n in names:
        for lv in _dirs(root / n):
            return sum(1 for d in _dirs(root / n / lv) if is_wnid(d))
    return 0


def detect_layout(root: Path) -> str | None:
    """The layout of ``root`` (a key of :data:`LAYOUTS`), or None."""
    if (root / SHARD_INDEX).is_file():
        return "webdataset"
    if (root / "manifest.json").is_file():
        return "build"
    if (root / "labels.npy").is_file() and any(
        (root / f"{n}.npy").is_file() for n in ALL_CORRUPTIONS
    ):
        return "cifar-c"
    dirs = set(_dirs(root))
    if dirs & set(MNIST_C_CORRUPTIONS) and any(
        (root / d / "test_images.npy").exists() for d in dirs
    ):
        return "mnist-c"
    if dirs & set(IMAGENET_C_BAR_LEVELS):
        return "imagenet-c-bar"
    c_dirs = [d for d in dirs if d in ALL_CORRUPTIONS and _has_level_dirs(root / d)]
    if c_dirs:
        return "tiny-imagenet-c" if 0 < _first_class_count(root, c_dirs) <= 200 else "imagenet-c"
    if dirs & set(_perturbation_dirs()):
        return "imagenet-p"
    return None


#: layout -> its check (keyword arguments: decode, hash, bar_factory, present_only, only: the
#: :class:`Selected` names and levels, honoured by the trees, make-c / make-p builds and CIFAR-C)
LAYOUTS: dict[str, Callable[..., VerifyReport]] = {
    "webdataset": _webdataset,
    "build": _build,
    "cifar-c": _cifar_c,
    "mnist-c": _mnist_c,
    "imagenet-c-bar": _imagenet_c_bar,
    "imagenet-c": _imagenet_c,
    "tiny-imagenet-c": _tiny_imagenet_c,
    "imagenet-p": _imagenet_p,
}

"""One check per layout ``verify`` recognises: what a complete copy holds, compared with the files.

What each layout is (its detection, names and known counts) lives in its module of
:mod:`corruptbench.layouts`; here is only how ``verify`` compares a folder with it:

* ImageNet-C / Tiny-ImageNet-C / ImageNet-C-bar trees: each requested cell's level folder
  (:func:`~corruptbench.layouts.imagenet_c.level_folders`: ``3``, or ``2.35`` for C-bar), its
  files voted on by the cells and counted against the known total per cell (no published
  per-file hashes: ``hash`` changes nothing).
* ImageNet-P: every perturbation folder present, checked against the others.
* CIFAR-10-C / CIFAR-100-C and MNIST-C: each ``.npy``'s header, size, shape and dtype, and with
  ``hash`` CIFAR-C's published MD5.
* make-c / make-p builds: the manifest's cells, counted against the source's items minus the
  skipped ones, and every entry the manifest does not account for (a level folder it does not
  list, copied files and their links excepted) reported as extra.
* WebDataset shards: every listed shard, its size, tar headers and sample count, and with
  ``hash`` its SHA-256.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS
from ..formats.checks import check_npy, npy_header
from ..layouts import Detected, build, cbar, cifar_c, imagenet_c, imagenet_p, mnist_c, webdataset
from ..layouts.common import IMAGE_EXTENSIONS, sorted_entries
from ..progress import Progress
from ..tables.released import CIFAR_C_NPY_MD5
from .report import CellReport, VerifyError, VerifyReport
from .trees import TreeRules, check_cells

__all__ = ["VerifyError", "Selected", "LAYOUTS", "BUILD", "layout_key"]

#: verify's check of a make-c / make-p build (its manifest beside any data layout but shards)
BUILD = "build"
#: top-level files a folder may hold besides its data (bookkeeping, downloaded archives)
_IGNORED_TOP = (*build.BOOKKEEPING, webdataset.SHARD_INDEX, "README.txt")
_ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".zip", ".part", ".mismatch")


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


def layout_key(found: Detected) -> str | None:
    """The check (a key of :data:`LAYOUTS`) for what :func:`corruptbench.layouts.detect` found:
    shards first, then a build's manifest, then the data layout."""
    if found.layout == webdataset.NAME:
        return webdataset.NAME
    if found.build:
        return BUILD
    return found.layout if found.layout in LAYOUTS else None


def _top_extras(root: Path, expected: set[str]) -> CellReport:
    """The top-level entries that belong to no expected cell (archives and bookkeeping aside)."""
    extra = []
    for e in sorted_entries(root):
        if e.name in expected or e.name in _IGNORED_TOP:
            continue
        if e.is_file() and e.name.endswith(_ARCHIVE_SUFFIXES):
            continue
        extra.append(e.name + ("/" if e.is_dir() else ""))
    return CellReport("(top level)", found=0, extra=extra)


def _add_top_extras(report: VerifyReport, root: Path, expected: set[str]) -> None:
    extras = _top_extras(root, expected)
    if extras.extra:
        report.cells.insert(0, extras)


# ------------------------------------------------------------------------------------------------
# image / video trees
# ------------------------------------------------------------------------------------------------
def _cell_folders(
    root: Path, name: str, profile: str, report: VerifyReport, only: Selected | None
) -> list[tuple[str, str]]:
    """``(key, path)`` of the requested levels of ``name`` (missing ones into ``report``)."""
    try:
        folders = imagenet_c.level_folders(root, name, profile)
    except ValueError as exc:
        report.cells.append(CellReport(name, broken=[str(exc)]))
        return []
    valued = any(imagenet_c.is_value_named(d) for d in folders.values())
    cells = []
    for sev in imagenet_c.SEVERITIES:
        if only is not None and not only.has_level(sev):
            continue
        if sev in folders:
            cells.append((f"{name}/{folders[sev]}", str(root / name / folders[sev])))
        else:
            naming = "value" if valued else "severity"
            report.missing_cells.append(
                f"{name}/{imagenet_c.level_dirname(name, sev, naming, profile)}"
            )
    return cells


def _tree_report(
    root: Path,
    layout: str,
    required: tuple[str, ...],
    optional: tuple[str, ...],
    *,
    per_cell: int,
    decode: bool,
    bar_factory: Callable[[int], Progress],
    present_only: bool,
    only: Selected | None = None,
    profile: str = "imagenet",
    **_: Any,
) -> VerifyReport:
    """``<name>/<level>/<class>/<file>`` trees: ImageNet-C, Tiny-ImageNet-C, ImageNet-C-bar (no
    published per-file hashes: ``hash`` changes nothing); ``only``: the names and levels to
    check (all when None)."""
    report = VerifyReport(root, layout)
    cells: list[tuple[str, str]] = []
    top = set(required + optional)  # expected at the top, checked or not
    for name in (*required, *optional):
        if only is not None and not only.has_name(name):
            continue
        if not (root / name).is_dir():
            if name in required and not present_only:
                report.missing_cells.extend(f"{name}/{i}" for i in imagenet_c.SEVERITIES)
            continue
        cells.extend(_cell_folders(root, name, profile, report, only))
    with bar_factory(len(cells)) as bar:
        reports, files, notes = check_cells(
            cells,
            expected_per_cell=per_cell,
            rules=TreeRules(IMAGE_EXTENSIONS),
            decode=decode,
            bar=bar,
        )
    report.cells.extend(reports)
    report.files_checked = files
    report.notes.extend(notes)
    _add_top_extras(report, root, top)
    if present_only:
        report.notes.append("only the corruption folders present were checked (--present-only)")
    return report


def _imagenet_c(root: Path, **kw: Any) -> VerifyReport:
    return _tree_report(
        root, imagenet_c.NAME, ALL_CORRUPTIONS, (), per_cell=imagenet_c.IMAGENET_PER_CELL, **kw
    )


def _tiny_imagenet_c(root: Path, **kw: Any) -> VerifyReport:
    return _tree_report(
        root,
        imagenet_c.TINY_NAME,
        BENCHMARK_CORRUPTIONS,
        EXTRA_CORRUPTIONS,
        per_cell=imagenet_c.TINY_PER_CELL,
        **kw,
    )


def _imagenet_c_bar(root: Path, **kw: Any) -> VerifyReport:
    return _tree_report(
        root, cbar.NAME, cbar.CORRUPTIONS, (), per_cell=cbar.PER_CELL, profile=cbar.PROFILE, **kw
    )


def _need_av() -> None:
    """``--decode`` of MP4 files needs PyAV: say so before any work (one line, exit 2)."""
    from ..extras import require

    require("av", "verify --decode of MP4 files")


def _imagenet_p(
    root: Path, *, decode: bool, bar_factory: Callable[[int], Progress], **_: Any
) -> VerifyReport:
    """``<perturbation>[_<d>]/<class>/<stem>.mp4``: every perturbation folder present."""
    if decode:
        _need_av()
    report = VerifyReport(root, imagenet_p.NAME)
    present = [d for d in imagenet_p.perturbation_dirs() if (root / d).is_dir()]
    cells = [(d, str(root / d)) for d in present]
    with bar_factory(len(cells)) as bar:
        report.cells, report.files_checked, notes = check_cells(
            cells,
            expected_per_cell=None,
            rules=TreeRules((imagenet_p.VIDEO_EXTENSION,)),
            decode=decode,
            bar=bar,
        )
    report.notes.extend(notes)
    report.notes.append(
        "no published count of ImageNet-P sequences is known: the perturbation folders present "
        "were checked against each other"
    )
    _add_top_extras(report, root, set(present))
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


def _cifar_c(
    root: Path,
    *,
    hash: bool,
    bar_factory: Callable[[int], Progress],
    only: Selected | None = None,
    **_: Any,
) -> VerifyReport:
    which = cifar_c.which(root)
    report = VerifyReport(root, which)
    sums = CIFAR_C_NPY_MD5[which] if hash else {}
    names = [n for n in ALL_CORRUPTIONS if only is None or only.has_name(n)]
    files = [(cifar_c.array_name(n), n) for n in names] + [(cifar_c.LABELS, "labels")]
    with bar_factory(len(files)) as bar:
        for fname, n in files:
            labels = fname == cifar_c.LABELS
            shape: tuple[int | None, ...] = (
                (cifar_c.ROWS,) if labels else (cifar_c.ROWS, *cifar_c.IMAGE_SHAPE)
            )
            report.cells.append(_array_cell(root / fname, fname, shape, "uint8", sums.get(n)))
            bar.advance(1, label=f"verify {fname}")
    report.files_checked = sum(c.found for c in report.cells)
    _add_top_extras(
        report, root, {cifar_c.array_name(n) for n in ALL_CORRUPTIONS} | {cifar_c.LABELS}
    )
    report.notes.append(
        "MD5 of each file checked against torch-uncertainty 0.13.0's list"
        if hash
        else "file hashes not checked (--hash compares each .npy with its published MD5)"
    )
    return report


def _mnist_c(
    root: Path, *, bar_factory: Callable[[int], Progress], present_only: bool, **_: Any
) -> VerifyReport:
    report = VerifyReport(root, mnist_c.NAME)
    names = [n for n in mnist_c.CORRUPTIONS if (root / n).is_dir() or not present_only]
    with bar_factory(len(names)) as bar:
        for n in names:
            if not (root / n).is_dir():
                report.missing_cells.append(n)
                continue
            for split, rows in mnist_c.ROWS.items():
                images, labels = mnist_c.images_file(split), mnist_c.labels_file(split)
                report.cells.append(
                    _array_cell(
                        root / n / images,
                        f"{n}/{images}",
                        (rows, *mnist_c.IMAGE_SHAPE),
                        "uint8",
                        None,
                    )
                )
                report.cells.append(
                    _array_cell(root / n / labels, f"{n}/{labels}", (rows,), None, None)
                )
            bar.advance(1, label=f"verify {n}")
    report.files_checked = sum(c.found for c in report.cells)
    _add_top_extras(report, root, set(mnist_c.CORRUPTIONS))
    return report


# ------------------------------------------------------------------------------------------------
# corruptbench builds and shards
# ------------------------------------------------------------------------------------------------
def _build_info(root: Path) -> build.BuildInfo:
    try:
        return build.build_info(root)
    except ValueError as exc:
        raise VerifyError(str(exc)) from None


def _cell_dir(info: build.BuildInfo, name: str, level: int) -> str:
    try:
        return info.cell_dir(name, level)
    except ValueError as exc:
        raise VerifyError(f"{build.MANIFEST}: {exc}") from None


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
    info = _build_info(root)
    every = {_cell_dir(info, n, v) for n, v in info.cells}
    cells = [
        (n, v) for n, v in info.cells if only is None or (only.has_name(n) and only.has_level(v))
    ]
    report = VerifyReport(root, f"make-{info.kind} build ({info.format})")
    if info.status != build.COMPLETE:
        report.cells.append(
            CellReport(
                build.MANIFEST,
                broken=[f"status {info.status!r}: the build did not finish"],
            )
        )
    report.notes.append(
        "the manifest records counts, not file hashes: files checked by count, name and structure"
    )
    if info.format == "npy":
        return _build_arrays(root, report, info, cells, bar_factory)
    if info.kind == "p" and decode:
        _need_av()
    copied = build.copied_files(root, info) if info.copy_patterns else []
    dirs = [_cell_dir(info, n, v) for n, v in cells]
    present = [(d, str(root / d)) for d in dirs if (root / d).is_dir()]
    report.missing_cells.extend(d for d in dirs if not (root / d).is_dir())
    rules = _build_rules(root, info, present, copied)
    with bar_factory(len(present)) as bar:
        reports, files, notes = check_cells(
            present, expected_per_cell=info.per_cell, rules=rules, decode=decode, bar=bar
        )
    report.cells.extend(reports)
    report.files_checked = files + len(copied)
    report.notes.extend(notes)
    top = {d.split("/")[0] for d in every} | {c.split("/")[0] for c in copied}
    _add_top_extras(report, root, top)
    _add_level_extras(report, root, info, every)
    return report


def _build_rules(
    root: Path, info: build.BuildInfo, present: list[tuple[str, str]], copied: list[str]
) -> TreeRules:
    """How a build's cells are listed: make-p's ``<class>/<stem>.mp4``; make-c ``--format jpeg``
    ``<class>/<file>`` (or files directly, from a source without classes); ``--layout tree``
    any depth, its files' own extensions, links to the copied files expected."""
    if info.kind == "p":
        return TreeRules((imagenet_p.VIDEO_EXTENSION,))
    if info.format == "tree":
        links = root if info.links and copied else None
        return TreeRules(_any_ext(present), any_depth=True, link_root=links, copied=set(copied))
    return TreeRules(IMAGE_EXTENSIONS, with_classes=_has_classes(present))


def _add_level_extras(
    report: VerifyReport, root: Path, info: build.BuildInfo, every: set[str]
) -> None:
    """Folders inside a corruption folder of a make-c build that are no level it lists (an
    earlier build's severities): extra."""
    if info.kind != "c":
        return
    extra = []
    for top in sorted({d.split("/")[0] for d in every}):
        if not (root / top).is_dir():
            continue
        for e in sorted_entries(root / top):
            if f"{top}/{e.name}" not in every:
                extra.append(f"{top}/{e.name}" + ("/" if e.is_dir() else ""))
    if extra:
        report.cells.insert(0, CellReport("(levels)", found=0, extra=extra))


def _has_classes(cells: list[tuple[str, str]]) -> bool:
    """Whether a build's cells hold class folders (a labelled source) or files directly."""
    for _, path in cells:
        for e in sorted_entries(path):
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
    info: build.BuildInfo,
    cells: list[tuple[str, int]],
    bar_factory: Callable[[int], Progress],
) -> VerifyReport:
    """``--format npy``: make-c ``<corruption>.npy`` (S*N, H, W, 3) + ``labels.npy``; make-p
    ``<perturbation>[_<d>].npy`` (N, T, H, W, 3)."""
    per_cell = info.per_cell
    files: list[tuple[str, tuple[int | None, ...]]]
    if info.kind == "c":
        levels = len({v for _, v in cells})
        names = sorted({n for n, _ in cells})
        files = [(info.array_name(n, 1), (levels * per_cell, None, None, 3)) for n in names]
        if (root / cifar_c.LABELS).exists():
            files.append((cifar_c.LABELS, (levels * per_cell,)))
        every = {info.array_name(n, v) for n, v in info.cells} | {cifar_c.LABELS}
    else:
        files = [(info.array_name(n, v), (per_cell, None, None, None, 3)) for n, v in cells]
        every = {info.array_name(n, v) for n, v in info.cells}
    with bar_factory(len(files)) as bar:
        for fname, shape in files:
            dtype = None if fname == cifar_c.LABELS else "uint8"
            report.cells.append(_array_cell(root / fname, fname, shape, dtype, None))
            bar.advance(1, label=f"verify {fname}")
    report.files_checked = sum(c.found for c in report.cells)
    _add_top_extras(report, root, every)
    return report


def _webdataset(
    root: Path, *, hash: bool, bar_factory: Callable[[int], Progress], **_: Any
) -> VerifyReport:
    """WebDataset shards listed in ``shards.json`` (with the cells of ``manifest.json``)."""
    try:
        doc = webdataset.read_index(root)
    except ValueError as exc:
        raise VerifyError(str(exc)) from None
    report = VerifyReport(root, f"webdataset shards ({doc.get('kind')}, {doc.get('media')})")
    nk, lk = doc["name_key"], doc["level_key"]
    rows = {f"{r[nk]}/{int(r[lk])}": r for r in doc["cells"]}
    if build.is_build(root):
        wanted = _build_info(root).cells
        report.missing_cells.extend(
            f"{n}/{v}" for n, v in wanted if not rows.get(f"{n}/{v}", {}).get("shards")
        )
    if not doc.get("complete", True):
        report.notes.append(f"{webdataset.SHARD_INDEX} says the shards are not complete")
    listed: set[str] = set()
    with bar_factory(len(rows)) as bar:
        for key, row in rows.items():
            cell = CellReport(key, expected=int(row.get("samples", 0)))
            for s in row["shards"]:
                listed.add(s["name"])
                problem = webdataset.shard_problem(root / s["name"], s, hash=hash)
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
        f"SHA-256 of every shard checked against {webdataset.SHARD_INDEX}"
        if hash
        else "shard sizes, tar headers and sample counts checked; --hash also compares each SHA-256"
    )
    return report


#: layout -> its check (keyword arguments: decode, hash, bar_factory, present_only, only: the
#: :class:`Selected` names and levels, honoured by the trees, make-c / make-p builds and CIFAR-C)
LAYOUTS: dict[str, Callable[..., VerifyReport]] = {
    webdataset.NAME: _webdataset,
    BUILD: _build,
    cifar_c.NAME: _cifar_c,
    mnist_c.NAME: _mnist_c,
    cbar.NAME: _imagenet_c_bar,
    imagenet_c.NAME: _imagenet_c,
    imagenet_c.TINY_NAME: _tiny_imagenet_c,
    imagenet_p.NAME: _imagenet_p,
}

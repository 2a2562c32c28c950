"""How a build stores its outputs: one :class:`Writer` per output format.

A writer turns shards of source items into files under OUT, resumably:

* :class:`FileTreeWriter` — one file per (item, cell), in a folder tree; a shard is one source
  image (all its cells, so it is decoded once), an item is done when all its files exist.
  :class:`JpegTreeWriter` (make-c, ``<corruption>/<severity>/<class>/<file>``) and
  :class:`Mp4TreeWriter` (make-p, ``<perturbation>[_<d>]/<class>/<stem>.mp4``).
* :class:`NpyWriter` — arrays: each shard of items is computed into ``OUT/.corruptbench/work/``
  (atomically) and the final ``.npy`` files are assembled at the end. :class:`NpyCWriter` writes
  ``<corruption>.npy`` (severity-major) + ``labels.npy``, :class:`NpyPWriter`
  ``<perturbation>[_<d>].npy``.

The driver asks a writer to :meth:`~Writer.plan` the shards, runs :meth:`~Writer.run_shard` in the
workers and calls :meth:`~Writer.finish` once every shard is done. A new format (another folder
layout, tar shards, ...) is one more subclass.
"""

from __future__ import annotations

import os
import traceback
from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..errors import Arg
from ..fileio import temp_path
from ..formats.imagenet import ImageLoadError
from ..formats.video import DEFAULT_PIX_FMT, DEFAULT_PRESET, NOISE_PERTURBATIONS, write_mp4
from ..layouts import cifar_c, cifar_p, imagenet_c, imagenet_p
from ..layouts.imagenet_c import LEVEL_NAMES, level_dirname
from ..layouts.imagenet_p import perturbation_dirname
from ..pipeline import Source, SourceItem
from ..profiles import PROFILES
from ..validation import DATASET_QUALITY
from .outputs import (
    SOURCES,
    WORK_DIR,
    clear_work,
    ensure_dir,
    orphan_check,
    write_atomic,
    write_bytes,
)
from .spec import BuildError, BuildSpec, Cell, ItemResult, ShardPlan, Writer

__all__ = [
    "FileTreeWriter",
    "JpegTreeWriter",
    "Mp4TreeWriter",
    "NpyWriter",
    "NpyCWriter",
    "NpyPWriter",
    "output_name",
    "short_error",
]


def output_name(rel: str, fmt: str) -> str:
    """Relative output path of a source item in a cell: ``jpeg``
    (:func:`corruptbench.layouts.imagenet_c.file_name`) or ``mp4``
    (:func:`corruptbench.layouts.imagenet_p.file_name`)."""
    if fmt == "jpeg":
        return imagenet_c.file_name(rel)
    if fmt == "mp4":
        return imagenet_p.file_name(rel)
    raise ValueError(fmt)


def short_error(exc: BaseException) -> str:
    """``Type: message at file:line`` on one line (the reason of a failed item)."""
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
    return f"{type(exc).__name__}: {exc}{where}".replace("\n", " ")


# ------------------------------------------------------------------------------------------------
# one file per item and cell
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FileTreeWriter(Writer):
    """One file per (source item, cell) in a folder tree."""

    @abstractmethod
    def target(self, name: str, level: int, rel: str) -> str:
        """The output file of item ``rel`` for one cell (the per-output hot path: strings)."""

    @abstractmethod
    def write(self, target: str, out: np.ndarray, name: str) -> None:
        """Encode ``out`` into ``target`` atomically."""

    def encoder(self, item: SourceItem) -> Callable[[str, np.ndarray, str], None]:
        """How the outputs of ``item`` are written: :meth:`write`, unless the encoding depends on
        the source file (the tree layout keeps each file's JPEG quality). Called once per item;
        raises ImageLoadError / ValueError for a source that cannot be written (skipped)."""
        return self.write

    def plan(
        self, spec: BuildSpec, items: list[SourceItem], known_skips: set[str], complete: bool
    ) -> ShardPlan:
        todo_items = []
        already = 0
        for it in items:
            if it.rel in known_skips:
                continue
            if all(os.path.exists(self.target(n, lv, it.rel)) for n, lv in spec.cells):
                already += 1
            else:
                todo_items.append(it)
        size = spec.shard_size
        todo = [(i // size, todo_items[i : i + size]) for i in range(0, len(todo_items), size)]
        return ShardPlan(todo, [], todo, already, finished=complete and not todo)

    def run_shard(
        self, spec: BuildSpec, shard_id: int, items: Sequence[SourceItem]
    ) -> list[ItemResult]:
        return [self._run_item(spec, it) for it in items]

    def _run_item(self, spec: BuildSpec, item: SourceItem) -> ItemResult:
        src = item.where
        targets = {cell: self.target(*cell, item.rel) for cell in spec.cells}
        todo = [cell for cell in spec.cells if not os.path.exists(targets[cell])]
        if not todo:
            return ItemResult(item.rel, "done", source=src, warning=spec.step.note(item))
        try:
            img, note = spec.step.prepare_noted(item)
            write = self.encoder(item)
        except (ImageLoadError, ValueError) as exc:
            return ItemResult(item.rel, "skipped", reason=str(exc), source=src)
        written = 0
        for name, level in todo:
            target = targets[name, level]
            try:
                out = spec.step.apply_item(img, name, level, item.rel)
            except Exception as exc:  # noqa: BLE001 - one bad item must not stop the run
                return ItemResult(
                    item.rel, "failed", written, f"{name} {level}: {short_error(exc)}", src
                )
            ensure_dir(os.path.dirname(target))
            orphan_check()
            write(target, out, name)
            written += 1
        return ItemResult(item.rel, "written", written, source=src, warning=note)

    def finish(
        self, spec: BuildSpec, plan: ShardPlan, source: Source, results: Sequence[ItemResult]
    ) -> int:
        return sum(r.written for r in results if r.status == "written")


@dataclass(frozen=True)
class JpegTreeWriter(FileTreeWriter):
    """make-c: ``<corruption>/<severity>/<relative path>`` as JPEG (``quality``, optimised Huffman
    tables: the bytes of Pillow's ``save(..., quality=q, optimize=True)``).

    ``level_names="value"`` (corruptions of suite ``cbar``): the level folders are named by the
    original level of ``profile``'s table, as make_imagenet_c_bar.py names them (``2.35``:
    :func:`~corruptbench.layouts.imagenet_c.level_dirname`)."""

    format: ClassVar[str] = "jpeg"
    quality: int = DATASET_QUALITY
    level_names: str = "severity"
    profile: str = "imagenet"

    def __post_init__(self) -> None:
        if self.level_names not in LEVEL_NAMES:
            raise BuildError(
                Arg("level_names"),
                f" must be one of {', '.join(LEVEL_NAMES)}, got {self.level_names!r}",
            )

    def layout(self) -> str:
        level = "<level value>" if self.level_names == "value" else "<severity>"
        return f"<corruption>/{level}/<class>/<file> (JPEG)"

    def manifest_params(self) -> dict[str, Any]:
        # recorded only when not the default, so ImageNet-C manifests stay as they were
        named = {"level_names": self.level_names} if self.level_names != "severity" else {}
        return {"jpeg_quality": self.quality, **named}

    def target(self, name: str, level: int, rel: str) -> str:
        folder = level_dirname(name, level, self.level_names, self.profile)
        return os.path.join(self.out, name, folder, output_name(rel, "jpeg"))

    def output_key(self, rel: str) -> str | None:
        return output_name(rel, "jpeg").lower()

    def write(self, target: str, out: np.ndarray, name: str) -> None:
        from ..formats.jpeg import encode_jpeg

        write_bytes(target, encode_jpeg(out, self.quality))


@dataclass(frozen=True)
class Mp4TreeWriter(FileTreeWriter):
    """make-p: ``<perturbation>[_<d>]/<relative path stem>.mp4`` (H.264, 1 fps; the reference's
    x264 settings, ``tune=grain`` for the noise perturbations)."""

    format: ClassVar[str] = "mp4"
    preset: str = DEFAULT_PRESET
    pix_fmt: str = DEFAULT_PIX_FMT

    def __post_init__(self) -> None:
        from ..extras import require

        require("av", "make-p --format mp4")  # before any work, not in every worker

    def layout(self) -> str:
        return "<perturbation>[_<difficulty>]/<class>/<stem>.mp4 (H.264)"

    def manifest_params(self) -> dict[str, Any]:
        return {"x264": {"preset": self.preset, "pix_fmt": self.pix_fmt, "fps": 1}}

    def target(self, name: str, level: int, rel: str) -> str:
        return os.path.join(self.out, perturbation_dirname(name, level), output_name(rel, "mp4"))

    def output_key(self, rel: str) -> str | None:
        return output_name(rel, "mp4").lower()

    def write(self, target: str, out: np.ndarray, name: str) -> None:
        noise = name in NOISE_PERTURBATIONS
        write_mp4(
            target,
            out,
            noise=noise,
            preset=self.preset,
            pix_fmt=self.pix_fmt,
        )


# ------------------------------------------------------------------------------------------------
# arrays: shards of items, assembled at the end
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class NpyWriter(Writer):
    """uint8 arrays assembled from per-shard work files (``OUT/.corruptbench/work-<size>/``)."""

    format: ClassVar[str] = "npy"
    frames: ClassVar[int] = 1  #: frames per output item (for the shard size)

    @abstractmethod
    def finals(self, spec: BuildSpec) -> list[tuple[Path, list[Cell]]]:
        """Each final array and the cells stacked into it, in order."""

    def extra_outputs(  # noqa: B027 - optional hook
        self, spec: BuildSpec, source: Source, kept: list[SourceItem]
    ) -> None:
        """Files written next to the arrays (labels)."""

    def default_shard_size(self, profile: str, n_cells: int) -> int:
        """About 64 MB of output per shard, at most 100 items."""
        side = PROFILES[profile].size
        per_item = n_cells * side * side * 3 * self.frames
        return int(max(1, min(100, (64 << 20) // per_item)))

    @staticmethod
    def work(spec: BuildSpec) -> Path:
        return Path(spec.writer.out, WORK_DIR, f"work-{spec.shard_size}")

    def shard_path(self, spec: BuildSpec, shard_id: int) -> Path:
        return self.work(spec) / f"shard-{shard_id:07d}.npz"

    def plan(
        self, spec: BuildSpec, items: list[SourceItem], known_skips: set[str], complete: bool
    ) -> ShardPlan:
        size = spec.shard_size
        shards = [(i // size, items[i : i + size]) for i in range(0, len(items), size)]
        if complete and all(p.exists() for p, _ in self.finals(spec)):
            return ShardPlan([], [], shards, len(items), finished=True)
        todo = [(sid, its) for sid, its in shards if not self.shard_path(spec, sid).exists()]
        done = [(sid, its) for sid, its in shards if self.shard_path(spec, sid).exists()]
        return ShardPlan(todo, done, shards, sum(len(its) for _, its in done))

    def run_shard(
        self, spec: BuildSpec, shard_id: int, items: Sequence[SourceItem]
    ) -> list[ItemResult]:
        path = self.shard_path(spec, shard_id)
        if path.exists():
            with np.load(path, allow_pickle=False) as z:
                z_ok, z_reasons, z_status = z["ok"], z["reasons"], z["status"]
                z_notes = z["notes"] if "notes" in z.files else [""] * len(items)
            return [
                ItemResult(
                    it.rel,
                    "done" if z_ok[i] else str(z_status[i]),
                    0,
                    str(z_reasons[i]),
                    it.where,
                    warning=str(z_notes[i]),
                )
                for i, it in enumerate(items)
            ]
        results: list[ItemResult] = []
        per_cell: list[list[np.ndarray]] = [[] for _ in spec.cells]
        ok = np.zeros(len(items), dtype=bool)
        reasons: list[str] = []
        status: list[str] = []
        notes: list[str] = []
        for i, item in enumerate(items):
            src = item.where
            try:
                img, note = spec.step.prepare_noted(item)
            except (ImageLoadError, ValueError) as exc:
                results.append(ItemResult(item.rel, "skipped", reason=str(exc), source=src))
                reasons.append(str(exc))
                status.append("skipped")
                notes.append("")
                continue
            notes.append(note)
            outs = []
            try:
                for name, level in spec.cells:
                    outs.append(spec.step.apply_item(img, name, level, item.rel))
            except Exception as exc:  # noqa: BLE001
                msg = f"{name} {level}: {short_error(exc)}"
                results.append(ItemResult(item.rel, "failed", reason=msg, source=src))
                reasons.append(msg)
                status.append("failed")
                continue
            for j, o in enumerate(outs):
                per_cell[j].append(o)
            ok[i] = True
            reasons.append("")
            status.append("ok")
            results.append(ItemResult(item.rel, "written", len(outs), source=src, warning=note))
        arrays: dict[str, np.ndarray] = {}
        for j, outs in enumerate(per_cell):
            if outs:
                arrays[f"cell{j}"] = np.stack(outs)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays["ok"] = ok
        arrays["reasons"] = np.asarray(reasons, dtype=str)
        arrays["status"] = np.asarray(status, dtype=str)
        arrays["notes"] = np.asarray(notes, dtype=str)
        write_atomic(path, lambda fh: np.savez(fh, **arrays))  # type: ignore[arg-type]
        return results

    def finish(
        self, spec: BuildSpec, plan: ShardPlan, source: Source, results: Sequence[ItemResult]
    ) -> int:
        """Build the final arrays from the shard files; return the entries written."""
        shard_files = [self.shard_path(spec, sid) for sid, _ in plan.shards]
        kept: list[SourceItem] = []
        cell_index = {cell: j for j, cell in enumerate(spec.cells)}
        for (_sid, items), p in zip(plan.shards, shard_files):
            with np.load(p, allow_pickle=False) as z:
                ok = z["ok"].copy()
            kept.extend(it for it, k in zip(items, ok) if k)
        n = len(kept)
        written = 0
        for final, cells in self.finals(spec):
            written += _assemble(final, cells, n, shard_files, cell_index)
        self.extra_outputs(spec, source, kept)
        if source.kind == "folder":
            text = "".join(f"{it.rel}\n" for it in kept)
            out = Path(self.out)
            write_atomic(
                out / SOURCES, lambda fh: fh.write(text.encode("utf-8", "surrogateescape"))
            )
        return written

    def cleanup(self) -> None:
        clear_work(Path(self.out))


def _assemble(
    final: Path,
    cells: list[Cell],
    n: int,
    shard_files: list[Path],
    cell_index: dict[Cell, int],
) -> int:
    """Stack the shards' arrays of ``cells`` (cell-major) into ``final``; return the entries."""
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
    tmp = Path(temp_path(final))
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
    return total


def _levels_by_name(cells: Sequence[Cell]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for name, level in cells:
        out.setdefault(name, []).append(level)
    return out


@dataclass(frozen=True)
class NpyCWriter(NpyWriter):
    """make-c: ``<corruption>.npy`` uint8 ``(S*N, H, W, 3)`` severity-major, ``labels.npy``."""

    def layout(self) -> str:
        return "<corruption>.npy uint8 (S*N, H, W, 3) severity-major; labels.npy (S*N,)"

    def finals(self, spec: BuildSpec) -> list[tuple[Path, list[Cell]]]:
        return [
            (Path(self.out, cifar_c.array_name(name)), [(name, lv) for lv in levels])
            for name, levels in _levels_by_name(spec.cells).items()
        ]

    def extra_outputs(self, spec: BuildSpec, source: Source, kept: list[SourceItem]) -> None:
        labels = source.numeric_labels(kept)
        if labels is not None:
            nlev = len(next(iter(_levels_by_name(spec.cells).values())))
            lab = np.tile(labels, nlev)
            write_atomic(
                Path(self.out, cifar_c.LABELS), lambda fh: np.save(fh, lab, allow_pickle=False)
            )


@dataclass(frozen=True)
class NpyPWriter(NpyWriter):
    """make-p: ``<perturbation>[_<d>].npy`` uint8 ``(N, T, H, W, 3)``."""

    frames: ClassVar[int] = 41

    def layout(self) -> str:
        return "<perturbation>[_<difficulty>].npy uint8 (N, T, H, W, 3)"

    def finals(self, spec: BuildSpec) -> list[tuple[Path, list[Cell]]]:
        return [(Path(self.out, cifar_p.array_name(*cell)), [cell]) for cell in spec.cells]

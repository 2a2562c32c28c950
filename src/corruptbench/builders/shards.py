"""WebDataset output of make-c / make-p: tar shards written directly by the workers.

Planning. The source items (sorted, after name collisions are removed) are cut into blocks of
``shard_size``; shard ``k`` of every cell holds the samples of block ``k`` —
``items[k * size : (k + 1) * size]`` minus the items that could not be read — in item order. So
which sample lands in which shard depends only on the source and the shard size, never on the
worker count, the executor or resuming.

Work. One block is one unit of work (a :data:`~corruptbench.builders.spec.Shard`): the worker
decodes each image of the block once, computes every cell and streams each sample into that cell's
open shard (a hidden ``.<name>.<host>.<pid>.<random>.cbtmp`` in OUT,
:func:`corruptbench.fileio.temp_path`). At the end of the block each shard is closed,
fsynced and renamed into place, so a ``.tar`` under its final name is always complete; a killed
run leaves only temporary files (removed by the next run), and the next run redoes only the
missing shards. Nothing is assembled afterwards: the bytes are written once.

Resuming trusts no file for its name alone: every shard already there is compared with the
statistics written with it (sample count, size and SHA-256, from the block's sidecar or
``shards.json``; :func:`~corruptbench.layouts.webdataset.shard_problems`) and one that differs,
or has no statistics, is deleted and made again (:attr:`ShardPlan.remade` says which and why).

Bookkeeping. Before the renames, the block's statistics (samples, bytes, SHA-256 of each shard)
and its skipped items go to ``OUT/.corruptbench/shards/<block>.json``; :meth:`ShardWriter.finish`
collects them into ``OUT/shards.json`` (:data:`~corruptbench.layouts.webdataset.SHARD_INDEX`).

Samples: see :mod:`corruptbench.formats.webdataset`. make-c: ``.jpg`` (the JPEG bytes the folder
layout gets) or, for the lossless ``cifar`` profile, ``.png``; make-p: ``.mp4`` (the MP4 the
folder layout gets) or, for ``cifar``, ``.npy`` (the ``(T, H, W, 3)`` uint8 frames).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import os
import shutil
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..fileio import temp_path
from ..formats.imagenet import ImageLoadError
from ..formats.video import DEFAULT_PIX_FMT, DEFAULT_PRESET, NOISE_PERTURBATIONS
from ..formats.webdataset import (
    ShardStats,
    TarShardWriter,
    json_bytes,
    png_bytes,
    sample_key,
    shard_stats,
)
from ..layouts.webdataset import INDEX_FORMAT, SHARD_INDEX, read_index, shard_name, shard_problems
from ..pipeline import Source, SourceItem
from ..validation import DATASET_QUALITY
from .outputs import WORK_DIR, ensure_dir, orphan_check, sweep_temps, write_json
from .spec import BuildSpec, Cell, ItemResult, Shard, ShardPlan, Writer
from .writers import output_name, short_error

__all__ = [
    "ShardWriter",
    "WebDatasetCWriter",
    "WebDatasetPWriter",
    "default_shard_size",
    "drop_damaged_shards",
    "shard_index",
    "shard_writer_args",
]

#: shards per cell the default shard size aims at (parallelism: one block per worker task)
_TARGET_BLOCKS = 64


def default_shard_size(n_items: int, floor: int, cap: int) -> int:
    """Samples per shard when none is given: ``ceil(n_items / 64)`` within ``[floor, cap]``.

    About 64 shards per cell keep up to 64 workers busy (a worker's task is one block of items)
    while shards stay large (782 samples, 8-40 MB, for the 50,000 ImageNet validation images);
    the floor keeps small builds from making tiny shards (one shard per cell below 64 x floor).
    """
    return int(min(cap, max(floor, math.ceil(n_items / _TARGET_BLOCKS))))


def shard_writer_args(source: Source, n_items: int, shard_size: int | None) -> dict[str, Any]:
    """The source-dependent fields of a :class:`ShardWriter` (labels, shard size)."""
    return {
        "label_kind": source.label_kind,
        "classes": tuple(source.classes),
        "n_items": n_items,
        "size": shard_size or 0,
    }


@dataclass(frozen=True)
class ShardWriter(Writer):
    """WebDataset tar shards, ``<name>-<level>-<block:06d>.tar`` (see the module docstring)."""

    format: ClassVar[str] = "webdataset"
    name_key: ClassVar[str]  #: the .json / index key of the cell's name ("corruption")
    level_key: ClassVar[str]  #: ... and of its level ("severity")
    floor: ClassVar[int]  #: the smallest default shard size
    cap: ClassVar[int]  #: the largest default shard size

    profile: str = "imagenet"
    label_kind: str = "none"  #: the source's label kind (how .cls is numbered)
    classes: tuple[str, ...] = ()  #: the source's classes (for label kind "classes")
    n_items: int = 0  #: source items (for the default shard size)
    size: int = 0  #: samples per shard (0: the default)

    def for_source(self, source: Source, n_items: int, shard_size: int | None) -> ShardWriter:
        return dataclasses.replace(self, **shard_writer_args(source, n_items, shard_size))

    @abstractmethod
    def media(self) -> str:
        """The extension of the sample's main member (``jpg``, ``png``, ``mp4``, ``npy``)."""

    @abstractmethod
    def encode(self, out: np.ndarray, name: str) -> bytes:
        """The bytes of the main member for the operation's output ``out``."""

    @abstractmethod
    def folder_file(self, rel: str) -> str | None:
        """The sample's relative path in the folder layout of the same build (JPEG / MP4 tree),
        or None where that layout is an array (npy)."""

    # -- the Writer interface ------------------------------------------------------------------
    def layout(self) -> str:
        members = (["cls"] if self.label_kind != "none" else []) + [self.media(), "json"]
        return (
            f"<{self.name_key}>-<{self.level_key}>-<shard:06d>.tar (WebDataset: "
            + ", ".join(f"<key>.{m}" for m in sorted(members))
            + f"); {SHARD_INDEX}"
        )

    def shard_size(self) -> int:
        """Samples per shard: ``size``, else :func:`default_shard_size`."""
        return self.size or default_shard_size(self.n_items, self.floor, self.cap)

    def manifest_params(self) -> dict[str, Any]:
        return {"webdataset": {"media": self.media(), "shard_size": self.shard_size()}}

    def default_shard_size(self, profile: str, n_cells: int) -> int:
        return self.shard_size()

    def output_key(self, rel: str) -> str | None:
        return sample_key(rel).lower()

    def shard_path(self, cell: Cell, block: int) -> str:
        return os.path.join(self.out, shard_name(cell[0], cell[1], block))

    def sidecar(self, block: int) -> Path:
        return Path(self.out, WORK_DIR, "shards", f"{block:06d}.json")

    def plan(
        self, spec: BuildSpec, items: list[SourceItem], known_skips: set[str], complete: bool
    ) -> ShardPlan:
        size = spec.shard_size
        units: list[Shard] = [
            (k, [it for it in items[i : i + size] if it.rel not in known_skips])
            for k, i in enumerate(range(0, len(items), size))
        ]
        remade = self._drop_damaged(spec, [k for k, _ in units])
        done = [u for u in units if self._block_done(spec, u[0])]
        todo = [u for u in units if not self._block_done(spec, u[0])]
        finished = complete and not todo and Path(self.out, SHARD_INDEX).exists()
        return ShardPlan(todo, done, units, sum(len(its) for _, its in done), finished, remade)

    def _recorded(self, blocks: Sequence[int]) -> dict[str, dict[str, Any]]:
        """The statistics written with each shard: ``shards.json`` of an earlier complete run,
        then the blocks' sidecars (newer)."""
        known: dict[str, dict[str, Any]] = {}
        try:
            for cell in read_index(self.out)["cells"]:
                known.update({s["name"]: s for s in cell["shards"]})
        except ValueError:
            pass
        for block in blocks:
            known.update(_read_json(self.sidecar(block)).get("shards", {}))
        return known

    def _drop_damaged(self, spec: BuildSpec, blocks: Sequence[int]) -> list[str]:
        """:func:`drop_damaged_shards` of the blocks' shards already there."""
        names = [shard_name(c[0], c[1], block) for block in blocks for c in spec.cells]
        return drop_damaged_shards(self.out, names, self._recorded(blocks))

    def _block_done(self, spec: BuildSpec, block: int) -> bool:
        return all(os.path.exists(self.shard_path(cell, block)) for cell in spec.cells)

    def run_shard(
        self, spec: BuildSpec, shard_id: int, items: Sequence[SourceItem]
    ) -> list[ItemResult]:
        block = shard_id
        todo = [c for c in spec.cells if not os.path.exists(self.shard_path(c, block))]
        old = _read_json(self.sidecar(block))
        if not todo:  # finished earlier: report what the sidecar says
            skipped = {r[0]: r for r in old.get("skipped", [])}
            return [
                ItemResult(it.rel, skipped[it.rel][1], 0, skipped[it.rel][2], it.where)
                if it.rel in skipped
                else ItemResult(it.rel, "done", source=it.where, warning=spec.step.note(it))
                for it in items
            ]
        labels = self._labels(items)
        ensure_dir(self.out)
        tmp = {c: self._tmp(c, block) for c in todo}
        writers: dict[Cell, TarShardWriter] = {}
        try:
            for c in todo:
                writers[c] = TarShardWriter(tmp[c], shard_name(c[0], c[1], block))
            results, added, failed = self._fill(spec, items, labels, writers)
            stats: dict[str, ShardStats] = {}
            for c in todo:
                if c in failed:
                    writers.pop(c).abort()
                else:
                    s = writers.pop(c).close()
                    stats[s.name] = s
            # the sidecar first: a shard under its final name always has its statistics
            side = {
                "shards": {**old.get("shards", {}), **{n: s.to_dict() for n, s in stats.items()}},
                "skipped": [
                    [r.rel, r.status, r.reason, r.source] for r in results if r.status == "skipped"
                ],
            }
            self.sidecar(block).parent.mkdir(parents=True, exist_ok=True)
            write_json(self.sidecar(block), side)
            for c in todo:
                if c not in failed:
                    orphan_check()
                    os.replace(tmp[c], self.shard_path(c, block))
        except BaseException:
            for w in writers.values():
                w.abort()
            raise
        for r, cells in zip(results, added):
            r.written = sum(1 for c in cells if c not in failed)
        return results

    def _fill(
        self,
        spec: BuildSpec,
        items: Sequence[SourceItem],
        labels: list[int] | None,
        writers: dict[Cell, TarShardWriter],
    ) -> tuple[list[ItemResult], list[list[Cell]], dict[Cell, str]]:
        """Compute the block's samples into the open shards; per item its result and cells."""
        results: list[ItemResult] = []
        added: list[list[Cell]] = []
        failed: dict[Cell, str] = {}  #: cells whose shard cannot be finished in this run
        for i, item in enumerate(items):
            src = item.where
            cells: list[Cell] = []
            added.append(cells)
            try:
                img, note = spec.step.prepare_noted(item)
            except (ImageLoadError, ValueError) as exc:
                results.append(ItemResult(item.rel, "skipped", reason=str(exc), source=src))
                continue
            key = sample_key(item.rel)
            reason = ""
            for cell in writers:
                if cell in failed:
                    continue
                name, level = cell
                try:
                    out = spec.step.apply_item(img, name, level, item.rel)
                    data = self.encode(out, name)
                except Exception as exc:  # noqa: BLE001 - one bad item must not stop the run
                    failed[cell] = f"{name} {level}: {short_error(exc)}"
                    reason = reason or failed[cell]
                    continue
                members = {self.media(): data, "json": json_bytes(self._meta(spec, cell, item))}
                if labels is not None:
                    members["cls"] = str(labels[i]).encode()
                orphan_check()
                writers[cell].add(key, members)
                cells.append(cell)
            status = "failed" if reason else "written"
            results.append(ItemResult(item.rel, status, len(cells), reason, src, warning=note))
        return results, added, failed

    def _meta(self, spec: BuildSpec, cell: Cell, item: SourceItem) -> dict[str, Any]:
        name, level = cell
        return {
            self.name_key: name,
            self.level_key: int(level),
            "source": item.rel,
            "file": self.folder_file(item.rel),
            "wnid": item.label if isinstance(item.label, str) else None,
            "seed": spec.step.seed,
            "item_seed": spec.step.seed_of(name, level, item.rel),
        }

    def _labels(self, items: Sequence[SourceItem]) -> list[int] | None:
        # Source.numeric_labels numbers them (imagenet index, sorted classes, batch labels); the
        # workers get the label kind and classes, not the whole source
        probe = Source("", Path(), [], "", label_kind=self.label_kind, classes=list(self.classes))
        arr = probe.numeric_labels(list(items))
        return None if arr is None else [int(v) for v in arr]

    def _tmp(self, cell: Cell, block: int) -> str:
        # unique per attempt (host, pid, random): a Ray task retried on another machine while
        # the first attempt still runs never writes into the same file
        return temp_path(self.shard_path(cell, block))

    def finish(
        self, spec: BuildSpec, plan: ShardPlan, source: Source, results: Sequence[ItemResult]
    ) -> int:
        """Write ``shards.json``; return the samples written in this run."""
        # every task is over: partial shards of tasks that died (a Ray node lost mid-task, then
        # retried) can go now, not only at the next run; never those of a live writer
        sweep_temps(Path(self.out), own=True, recursive=False)
        known: dict[str, dict[str, Any]] = {}
        try:  # a previous index (a complete build resumed after shards were deleted)
            for cell in read_index(self.out)["cells"]:
                known.update({s["name"]: s for s in cell["shards"]})
        except ValueError:
            pass
        for block, _ in plan.shards:
            known.update(_read_json(self.sidecar(block)).get("shards", {}))
        cells: list[tuple[Cell, list[ShardStats]]] = []
        for cell in spec.cells:
            listed = []
            for block, _ in plan.shards:
                path = self.shard_path(cell, block)
                if not os.path.exists(path):
                    continue
                name = os.path.basename(path)
                s = known.get(name)
                listed.append(ShardStats(**s) if s else shard_stats(path))
            cells.append((cell, listed))
        complete = all(len(s) == len(plan.shards) for _, s in cells)
        doc = shard_index(
            "c" if self.name_key == "corruption" else "p",
            self.name_key,
            self.level_key,
            cells,
            media=self.media(),
            labels=self.label_kind,
            profile=self.profile,
            shard_size=spec.shard_size,
            complete=complete,
        )
        write_json(Path(self.out, SHARD_INDEX), doc)
        return sum(r.written for r in results if r.status == "written")

    def cleanup(self) -> None:
        shutil.rmtree(Path(self.out, WORK_DIR, "shards"), ignore_errors=True)
        with contextlib.suppress(OSError):  # only when nothing else is kept there
            os.rmdir(Path(self.out, WORK_DIR))


def drop_damaged_shards(
    out: str | os.PathLike[str], names: Sequence[str], known: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    """Delete the shards of ``names`` present in ``out`` that differ from the statistics written
    with them (``known``: name -> sample count, size, SHA-256), or that have none, so that a
    resumed run makes them again; ``"<name>: <what differs>"`` of each, sorted.

    A ``.tar`` under its final name was complete when it was renamed into place, but the disk,
    a copy or a person may have changed it since; the check reads every shard once
    (:func:`~corruptbench.layouts.webdataset.shard_problems`).
    """
    present = [n for n in names if os.path.exists(os.path.join(out, n))]
    unknown = [(n, "no statistics were recorded with it") for n in present if n not in known]
    checked = shard_problems(
        out, [known[n] for n in present if n in known], said="it was written with"
    )
    bad = sorted(unknown + checked)
    for name, _ in bad:
        os.unlink(os.path.join(out, name))
    return [f"{name}: {problem}" for name, problem in bad]


def shard_index(
    kind: str,
    name_key: str,
    level_key: str,
    cells: Sequence[tuple[Cell, Sequence[ShardStats]]],
    *,
    media: str,
    labels: str,
    profile: str | None,
    shard_size: int,
    complete: bool,
    source: str = "make",
) -> dict[str, Any]:
    """The ``shards.json`` document (no timestamps or absolute paths: reproducible)."""
    rows = []
    for (name, level), shards in cells:
        row: dict[str, Any] = {
            name_key: name,
            level_key: int(level),
            "samples": sum(s.samples for s in shards),
            "bytes": sum(s.bytes for s in shards),
            "shards": [s.to_dict() for s in shards],
        }
        if shards:
            row["pattern"] = f"{name}-{int(level)}-{{{0:06d}..{len(shards) - 1:06d}}}.tar"
        rows.append(row)
    return {
        "format": INDEX_FORMAT,
        "kind": kind,
        "source": source,
        "name_key": name_key,
        "level_key": level_key,
        "media": media,
        "labels": labels,
        "profile": profile,
        "shard_size": int(shard_size),
        "complete": bool(complete),
        "cells": rows,
        "totals": {
            "shards": sum(len(s) for _, s in cells),
            "samples": sum(r["samples"] for r in rows),
            "bytes": sum(r["bytes"] for r in rows),
        },
    }


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError):
        return {}


@dataclass(frozen=True)
class WebDatasetCWriter(ShardWriter):
    """make-c shards: ``.jpg`` (JPEG ``quality``, the folder layout's bytes) or ``.png`` (cifar)."""

    name_key: ClassVar[str] = "corruption"
    level_key: ClassVar[str] = "severity"
    floor: ClassVar[int] = 100
    cap: ClassVar[int] = 1000
    quality: int = DATASET_QUALITY

    def media(self) -> str:
        return "png" if self.profile == "cifar" else "jpg"

    def manifest_params(self) -> dict[str, Any]:
        p = super().manifest_params()
        return {**p, "jpeg_quality": self.quality} if self.media() == "jpg" else p

    def encode(self, out: np.ndarray, name: str) -> bytes:
        if self.media() == "png":
            return png_bytes(out)
        from ..formats.jpeg import encode_jpeg

        return encode_jpeg(out, self.quality)

    def folder_file(self, rel: str) -> str | None:
        return output_name(rel, "jpeg") if self.media() == "jpg" else None


@dataclass(frozen=True)
class WebDatasetPWriter(ShardWriter):
    """make-p shards: one sequence per sample, ``.mp4`` (the folder layout's MP4 bytes) or
    ``.npy`` (cifar: the uint8 ``(T, H, W, 3)`` frames)."""

    name_key: ClassVar[str] = "perturbation"
    level_key: ClassVar[str] = "difficulty"
    floor: ClassVar[int] = 10
    cap: ClassVar[int] = 100
    preset: str = DEFAULT_PRESET
    pix_fmt: str = DEFAULT_PIX_FMT

    def __post_init__(self) -> None:
        if self.media() == "mp4":
            from ..extras import require

            require("av", "make-p --format webdataset (MP4 samples)")

    def media(self) -> str:
        return "npy" if self.profile == "cifar" else "mp4"

    def manifest_params(self) -> dict[str, Any]:
        p = super().manifest_params()
        if self.media() == "mp4":
            p["x264"] = {"preset": self.preset, "pix_fmt": self.pix_fmt, "fps": 1}
        return p

    def folder_file(self, rel: str) -> str | None:
        return output_name(rel, "mp4") if self.media() == "mp4" else None

    def encode(self, out: np.ndarray, name: str) -> bytes:
        if self.media() == "npy":
            buf = io.BytesIO()
            np.save(buf, np.ascontiguousarray(out, dtype=np.uint8), allow_pickle=False)
            return buf.getvalue()
        from ..formats.video import encode_mp4_bytes

        noise = name in NOISE_PERTURBATIONS
        return encode_mp4_bytes(out, noise=noise, preset=self.preset, pix_fmt=self.pix_fmt)

"""``corruptbench convert``: an existing ImageNet-C folder or CIFAR-10-C arrays to WebDataset shards.

Sources:

* an ImageNet-C style tree ``<corruption>/<severity>/<wnid>/<file>`` (the released ImageNet-C,
  Tiny-ImageNet-C, ..., extracted; or a ``make-c --format jpeg`` build): each file's bytes are
  copied into its sample unchanged (``.jpg`` for ``.jpg``/``.jpeg`` files), never re-encoded;
* a CIFAR-10-C style folder (``<corruption>.npy`` + ``labels.npy``): each row becomes a lossless
  ``.png`` sample, keyed ``<label>/<index>`` like ``make-c`` on the CIFAR batch.

Shards follow ``make-c --format webdataset`` (:mod:`corruptbench.builders.shards`): shard ``k`` of a
cell holds its sorted samples ``[k * size, (k + 1) * size)``, the ``.json`` has the same keys (the
seeds are null: the converter does not know them), and ``shards.json`` lists every shard. Each shard
is written to a hidden temporary file, fsynced and renamed, so the conversion is resumable and a
killed run never leaves a truncated shard under its final name.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import Arg
from ..fileio import temp_path
from ..formats.checks import file_problem
from ..formats.webdataset import (
    ShardStats,
    TarShardWriter,
    json_bytes,
    png_bytes,
    sample_key,
    shard_stats,
)
from ..grid import Cell
from ..layouts import Detected, cifar_c, detect
from ..layouts.cifar_c import load_cifar_c, load_cifar_c_labels, scan_cifar_c
from ..layouts.imagenet_c import SEVERITIES, scan_imagenet_c
from ..layouts.webdataset import SHARD_INDEX, read_index, shard_name
from ..pipeline import Source, SourceItem, batch_rel, folder_label_kind, hash_lines
from ..progress import progress as make_progress
from ..registry import canonical_name
from ..verify import VerifyError, VerifyReport, layout_key, verify
from ..version import __version__
from .lock import OutLock
from .outputs import (
    MANIFEST,
    WORK_DIR,
    check_manifest,
    orphan_check,
    sweep_temps,
    write_json,
    write_skipped,
)
from .shards import default_shard_size, drop_damaged_shards, shard_index
from .spec import BuildError, ItemResult

__all__ = ["ConvertSummary", "convert", "compare_with_release", "format_convert_summary"]

_MAGIC = {"jpg": (b"\xff\xd8\xff",), "png": (b"\x89PNG\r\n\x1a\n",)}


@dataclass(frozen=True)
class _Sample:
    key: str
    meta: dict[str, Any]
    cls: int | None
    read: Callable[[], bytes]  #: the main member's bytes (raises _Skip)
    where: str  #: the file (or array row) it comes from, for skipped.csv


class _Skip(Exception):
    """A source sample that cannot go into a shard (the reason is the message)."""


@dataclass
class _Plan:
    layout: str  #: "imagenet-c" or "cifar-c"
    media: str
    labels: str
    profile: str | None
    fingerprint: str
    cells: dict[tuple[str, int], list[_Sample]] = field(default_factory=dict)
    skipped: list[ItemResult] = field(default_factory=list)


@dataclass
class ConvertSummary:
    out: Path
    layout: str = ""
    samples: int = 0  #: samples in the shards (what ``shards.json`` lists)
    shards: int = 0  #: shards in the index
    shards_written: int = 0  #: shards written by this run
    bytes_written: int = 0
    skipped: list[ItemResult] = field(default_factory=list)
    elapsed: float = 0.0
    nothing_to_do: bool = False
    #: shards of an earlier run that differed from what it wrote, made again ("<name>: <why>")
    remade: list[str] = field(default_factory=list)
    #: what the source lacks against the layout ``verify`` recognises (lines; empty: nothing)
    missing: list[str] = field(default_factory=list)


def convert(
    src: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    to: str = "webdataset",
    corruptions: Sequence[str] | None = None,
    severities: Sequence[int] = SEVERITIES,
    shard_size: int | None = None,
    progress: str | bool = False,
) -> ConvertSummary:
    """Convert an ImageNet-C tree or a CIFAR-10-C folder at ``src`` into shards in ``out``.

    Args:
        src: ``<corruption>/<severity>/<wnid>/<file>`` tree, or ``<corruption>.npy`` + ``labels.npy``.
        out: output folder (new, empty, or an earlier conversion of the same source: resumed).
        to: output format; ``"webdataset"``.
        corruptions: names to convert (default: every corruption present).
        severities: severities to convert.
        shard_size: samples per shard (default ``ceil(N / 64)`` within [100, 1000], as make-c).
        progress: ``"auto"`` (a bar on a terminal, plain lines otherwise), ``"bar"``, ``"lines"``
            or ``"off"`` (:func:`corruptbench.progress.progress`); True = auto, False = off.
    """
    src_p, out_p = _check_paths(src, out, to=to, shard_size=shard_size)
    # one writer per OUT, as make-c: a second convert (or make-c) into it stops at once; taken
    # once the plan is checked (a refused source leaves no OUT), held until the end
    with contextlib.ExitStack() as stack:

        def lock() -> None:
            out_p.mkdir(parents=True, exist_ok=True)
            stack.enter_context(OutLock(out_p, out_p, "convert"))

        return _convert(src_p, out_p, to, corruptions, severities, shard_size, progress, lock)


def _convert(
    src_p: Path,
    out_p: Path,
    to: str,
    corruptions: Sequence[str] | None,
    severities: Sequence[int],
    shard_size: int | None,
    progress: str | bool,
    lock: Callable[[], None],
) -> ConvertSummary:
    """:func:`convert`; ``lock()`` creates OUT and takes its lock before anything is written."""
    t0 = time.perf_counter()
    names = list(corruptions) if corruptions is not None else None
    sevs = [int(s) for s in severities]
    found = detect(src_p)
    plan = _plan_cifar(src_p, names, sevs) if found.layout == cifar_c.NAME else None
    plan = plan or _plan_tree(src_p, names, sevs)
    if not plan.cells:
        raise BuildError(f"{src_p}: none of the requested cells has any file")
    size = shard_size or default_shard_size(max(len(v) for v in plan.cells.values()), 100, 1000)
    params = {
        "command": "convert",
        "to": to,
        "layout": plan.layout,
        "cells": [f"{c}/{s}" for c, s in plan.cells],
        "shard_size": size,
        "source_fingerprint": plan.fingerprint,
        "corruptbench_version": __version__,
    }
    lock()
    old = check_manifest(out_p, params)
    summary = ConvertSummary(out_p, plan.layout)
    units = [
        (cell, k, samples[i : i + size])
        for cell, samples in plan.cells.items()
        for k, i in enumerate(range(0, len(samples), size))
    ]
    summary.shards = len(units)
    shard_names = [shard_name(cell[0], cell[1], k) for cell, k, _ in units]
    summary.remade = drop_damaged_shards(out_p, shard_names, _recorded(out_p, shard_names))
    todo = [u for u in units if not (out_p / shard_name(u[0][0], u[0][1], u[1])).exists()]
    if old and old.get("status") == "complete" and not todo:
        summary.samples = int(read_index(out_p)["totals"]["samples"])
        summary.nothing_to_do = True
        summary.elapsed = time.perf_counter() - t0
        return summary
    summary.missing = compare_with_release(src_p, names, sevs, progress, found=found)
    manifest = {
        "tool": "corruptbench",
        "params": params,
        "source": {"kind": plan.layout, "path": str(src_p.resolve())},
        "layout": f"<corruption>-<severity>-<shard:06d>.tar (WebDataset: <key>.cls, <key>.{plan.media}, <key>.json); {SHARD_INDEX}",
    }
    sweep_temps(out_p)
    write_json(out_p / MANIFEST, {**manifest, "status": "running"})
    _write_shards(out_p, todo, plan.media, summary, progress)
    summary.skipped, summary.samples = _write_index(out_p, plan, units, size)
    write_skipped(out_p, summary.skipped)
    totals = {"samples": summary.samples, "shards": len(units), "skipped": len(summary.skipped)}
    # the sidecars stay: they hold the skipped items of each shard for a later resume
    write_json(out_p / MANIFEST, {**manifest, "status": "complete", "totals": totals})
    summary.elapsed = time.perf_counter() - t0
    return summary


_Unit = tuple[tuple[str, int], int, list[_Sample]]  #: (cell, shard number, its samples)


def _check_paths(
    src: str | os.PathLike[str], out: str | os.PathLike[str], *, to: str, shard_size: int | None
) -> tuple[Path, Path]:
    """``convert``'s arguments checked before any work: the format, the shard size, a source
    folder that exists, an OUT that is neither the source nor inside it."""
    if to != "webdataset":
        raise BuildError(Arg("to"), f" must be webdataset, got {to!r}")
    if shard_size is not None and shard_size < 1:
        raise BuildError(Arg("shard_size"), f" must be >= 1, got {shard_size}")
    src_p, out_p = Path(src), Path(out)
    if not src_p.is_dir():
        raise BuildError(f"source folder not found: {src_p}")
    s_res, o_res = src_p.resolve(), out_p.resolve()
    if s_res == o_res or s_res in o_res.parents:
        raise BuildError(f"OUT ({out_p}) must not be the source folder or inside it")
    return src_p, out_p


def _write_shards(
    out: Path, todo: Sequence[_Unit], media: str, summary: ConvertSummary, progress: str | bool
) -> None:
    """Write the shards still missing, counting them into ``summary``, with a progress display."""
    total = sum(len(u[2]) for u in todo)
    with make_progress(total, "convert", unit="images", mode=progress) as bar:
        for cell, k, samples in todo:
            stats = _write_shard(out, cell, k, samples, media)
            summary.shards_written += 1
            summary.bytes_written += stats.bytes
            bar.advance(len(samples))


def _write_index(
    out: Path, plan: _Plan, units: Sequence[_Unit], size: int
) -> tuple[list[ItemResult], int]:
    """Write ``shards.json`` for every shard (this run's and an earlier run's); return every
    skipped sample, sorted by relative path (from the sidecars; a shard whose sidecar is gone is
    read itself), and the samples the index lists."""
    known: dict[str, ShardStats] = {}
    skipped = list(plan.skipped)
    side_dir = out / WORK_DIR / "shards"
    for cell, k, _ in units:
        name = shard_name(cell[0], cell[1], k)
        side = _read_side(side_dir / f"{name}.json")
        if side:
            known[name] = ShardStats(**side["stats"])
            skipped.extend(ItemResult(r[0], "skipped", 0, r[1], r[2]) for r in side["skipped"])
        else:  # the bookkeeping was removed: read the shard itself
            known[name] = shard_stats(out / name)
    rows = [
        (cell, [known[shard_name(cell[0], cell[1], k)] for c, k, _ in units if c == cell])
        for cell in plan.cells
    ]
    doc = shard_index(
        "c",
        "corruption",
        "severity",
        rows,
        media=plan.media,
        labels=plan.labels,
        profile=plan.profile,
        shard_size=size,
        complete=True,
        source="convert",
    )
    write_json(out / SHARD_INDEX, doc)
    return sorted(skipped, key=lambda r: r.rel), int(doc["totals"]["samples"])


def _write_shard(
    out: Path, cell: tuple[str, int], k: int, samples: list[_Sample], media: str
) -> ShardStats:
    """Write one shard (temporary file, fsync, sidecar with its skipped items, rename)."""
    name = shard_name(cell[0], cell[1], k)
    tmp = Path(temp_path(out / name))
    w = TarShardWriter(tmp, name)
    skipped: list[list[str]] = []
    try:
        for s in samples:
            try:
                data = s.read()
            except _Skip as exc:
                rel = f"{cell[0]}/{cell[1]}/{s.meta['source']}"
                skipped.append([rel, str(exc), s.where])
                continue
            members = {media: data, "json": json_bytes(s.meta)}
            if s.cls is not None:
                members["cls"] = str(s.cls).encode()
            w.add(s.key, members)
        stats = w.close()
    except BaseException:
        w.abort()
        raise
    side = out / WORK_DIR / "shards" / f"{name}.json"
    side.parent.mkdir(parents=True, exist_ok=True)
    write_json(side, {"stats": stats.to_dict(), "skipped": skipped})
    orphan_check()
    os.replace(tmp, out / name)
    return stats


def _recorded(out: Path, names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The statistics written with each shard: ``shards.json`` of an earlier run, then the
    shards' sidecars (newer)."""
    known: dict[str, dict[str, Any]] = {}
    try:
        for cell in read_index(out)["cells"]:
            known.update({s["name"]: s for s in cell["shards"]})
    except ValueError:
        pass
    for name in names:
        side = _read_side(out / WORK_DIR / "shards" / f"{name}.json")
        if side:
            known[name] = dict(side["stats"])
    return known


def _read_side(path: Path) -> dict[str, Any] | None:
    import json

    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError):
        return None


def _meta(c: str, s: int, source: str, file: str | None, wnid: str | None) -> dict[str, Any]:
    # the keys of make-c's samples (builders.shards); the seeds are unknown here
    return {
        "corruption": c,
        "severity": s,
        "source": source,
        "file": file,
        "wnid": wnid,
        "seed": None,
        "item_seed": None,
    }


def _plan_tree(src: Path, names: list[str] | None, sevs: list[int]) -> _Plan:
    try:  # ImageNet-C-bar's level folders may be named by value (2.35): a bad value is refused
        index = scan_imagenet_c(src, names, sevs)
    except ValueError as exc:
        raise BuildError(str(exc)) from None
    media_of = {".jpg": "jpg", ".jpeg": "jpg"}
    exts = {p.suffix.lower() for v in index.cells.values() for p, _ in v}
    medias = sorted({media_of.get(e, e.lstrip(".")) for e in exts})
    if len(medias) > 1:
        raise BuildError(
            f"{src} mixes image types ({', '.join(medias)}); one dataset holds one type (convert "
            "each type into its own folder, e.g. with --corruptions)"
        )
    wnids = [w for v in index.cells.values() for _, w in v]
    if any(w is None for w in wnids) and not all(w is None for w in wnids):
        raise BuildError(
            f"{src}: some files lie directly in a severity folder, others in class folders"
        )
    classes = sorted({w for w in wnids if w is not None})
    kind = folder_label_kind(classes) if classes else "none"
    label = _label_numbers(kind, classes)
    plan = _Plan(
        "imagenet-c",
        medias[0] if medias else "jpg",
        kind,
        None,
        hash_lines(
            f"{c}/{s}/{p.relative_to(src / c / index.level_dirs[Cell(c, s)]).as_posix()}"
            for (c, s), v in index.cells.items()
            for p, _ in v
        ),
    )
    for (c, s), entries in index.cells.items():
        seen: dict[str, str] = {}
        samples: list[_Sample] = []
        for path, wnid in entries:
            rel = f"{wnid}/{path.name}" if wnid else path.name
            key = sample_key(rel)
            if key.lower() in seen:
                plan.skipped.append(
                    ItemResult(
                        f"{c}/{s}/{rel}",
                        "skipped",
                        0,
                        f"key {key!r} collides with {seen[key.lower()]}",
                        str(path),
                    )
                )
                continue
            seen[key.lower()] = rel
            meta = _meta(c, s, rel, rel, wnid)
            read = _file_reader(path, plan.media)
            samples.append(_Sample(key, meta, label.get(wnid or ""), read, str(path)))
        plan.cells[(c, s)] = samples
    return plan


def _label_numbers(kind: str, classes: list[str]) -> dict[str, int]:
    # the numbering of make-c's .cls (Source.numeric_labels): ImageNet index or sorted classes
    if kind == "none":
        return {}
    probe = Source("", Path(), [], "", label_kind=kind, classes=classes)
    nums = probe.numeric_labels([SourceItem(i, c, label=c) for i, c in enumerate(classes)])
    assert nums is not None
    return {c: int(n) for c, n in zip(classes, nums)}


def _file_reader(path: Path, media: str) -> Callable[[], bytes]:
    def read() -> bytes:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise _Skip(f"cannot read: {exc.strerror or exc}") from None
        magic = _MAGIC.get(media)
        if not data or (magic and not data.startswith(magic)):
            raise _Skip(f"not a {media.upper()} file (content does not match its extension)")
        # verify's cheap check (end marker of a JPEG, IEND of a PNG): a truncated file is not
        # packed as it is
        problem = file_problem(str(path), len(data))
        if problem is not None:
            raise _Skip(f"damaged {media.upper()} file: {problem}")
        return data

    return read


def _plan_cifar(src: Path, names: list[str] | None, sevs: list[int]) -> _Plan:
    try:
        index = scan_cifar_c(src, names)
    except ValueError as exc:
        raise BuildError(str(exc)) from None
    try:
        labels = load_cifar_c_labels(src)
    except ValueError as exc:
        raise BuildError(str(exc)) from None
    n = index.n
    fp = hash_lines(
        f"{p.name}\t{p.stat().st_size}" for p in [src / cifar_c.LABELS, *index.files.values()]
    )
    plan = _Plan("cifar-c", "png", "batch", "cifar", fp)
    for c in index.files:
        arr = load_cifar_c(src, c)  # memory-mapped
        for s in sevs:
            base = (s - 1) * n
            samples = []
            for i in range(n):
                lab = int(labels[base + i])
                rel = batch_rel(i, lab)
                meta = _meta(c, s, rel, None, None)
                where = f"{index.files[c]}[{base + i}]"
                samples.append(
                    _Sample(sample_key(rel), meta, lab, _row_reader(arr, base + i), where)
                )
            plan.cells[(c, s)] = samples
    return plan


def _row_reader(arr: np.ndarray, row: int) -> Callable[[], bytes]:
    return lambda: png_bytes(np.asarray(arr[row]))


def compare_with_release(
    src: Path,
    names: Sequence[str] | None,
    levels: Sequence[int],
    progress: str | bool = False,
    *,
    found: Detected | None = None,
) -> list[str]:
    """What the source tree or CIFAR-C folder at ``src`` lacks against a complete copy of the
    layout :func:`corruptbench.verify.verify` recognises (the released ImageNet-C, Tiny-ImageNet-C,
    CIFAR-10/100-C, or a make-c build's manifest), for the corruptions ``names`` (None: every
    one of the layout) and severities ``levels``: absent cells, cells with fewer files (naming
    them where the other cells have them), arrays of another shape. Lines of text; empty when
    nothing is missing. Damaged files are not listed here: convert skips and lists them.
    ``found``: what :func:`corruptbench.layouts.detect` found in ``src`` (detected when None).
    """
    wanted = None if names is None else [canonical_name(n) for n in names]
    key = layout_key(found if found is not None else detect(src))
    try:
        if key is None:
            raise VerifyError("not a known layout")
        report = verify(src, layout=key, names=wanted, levels=levels, progress_mode=progress)
    except VerifyError:
        return [
            f"{src}: not a layout corruptbench verify knows, so it was not compared with a "
            "complete copy"
        ]
    return _missing_lines(report)


def _missing_lines(report: VerifyReport, limit: int = 5) -> list[str]:
    """:func:`compare_with_release`'s lines from a verify report."""
    lines: list[str] = []
    if report.missing_cells:
        shown = report.missing_cells[: 4 * limit]
        more = len(report.missing_cells) - len(shown)
        lines.append(
            f"{len(report.missing_cells)} cells absent: "
            + ", ".join(shown)
            + (f", ... ({more} more)" if more else "")
        )
    arrays = report.layout.startswith("cifar")
    for c in report.cells:
        short = len(c.missing) + c.missing_unnamed
        if short:
            named = ", ".join(c.missing[:limit]) + (", ..." if len(c.missing) > limit else "")
            lines.append(
                f"{c.key}: {c.found} of {c.expected} files ({short} missing"
                + (f": {named}" if named else "")
                + ")"
            )
        if arrays:  # the shape of a whole array is part of what a release has
            lines.extend(b for b in c.broken if "zero bytes" not in b)
    if lines:
        lines.insert(0, f"the source lacks what a complete {report.layout} has:")
    return lines


def format_convert_summary(s: ConvertSummary) -> str:
    """Human-readable end-of-run summary."""
    if s.nothing_to_do:
        return f"nothing to do: {s.out} is complete ({s.shards} shards)"
    mb = s.bytes_written / 1e6
    rate = mb / s.elapsed if s.elapsed > 0 else 0.0
    lines = (
        [
            f"remade {len(s.remade)} shard(s) of an earlier run that differed from what it wrote: "
            + "; ".join(s.remade[:5])
            + ("; ..." if len(s.remade) > 5 else "")
        ]
        if s.remade
        else []
    )
    lines += [
        f"{s.layout}: {s.samples} samples in {s.shards} shard{'s' * (s.shards != 1)}; "
        f"{s.shards_written} written in "
        f"this run ({mb:.1f} MB, {s.elapsed:.1f} s, {rate:.1f} MB/s); {len(s.skipped)} skipped"
    ]
    for r in s.skipped[:5]:
        lines.append(f"  skipped: {r.rel}: {r.reason}")
    if len(s.skipped) > 5:
        lines.append(f"  ... ({len(s.skipped) - 5} more skipped, all in {s.out / 'skipped.csv'})")
    if s.missing:
        lines.append(f"warning: {s.missing[0]}")
        lines.extend(f"  {m}" for m in s.missing[1:])
    return "\n".join(lines)

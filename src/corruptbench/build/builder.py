"""The driver of a build: check the parameters, plan the shards, run them, finish, summarise."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from ..datasets.video import DEFAULT_PIX_FMT, DEFAULT_PRESET
from ..errors import Arg
from ..perturbations import NOISE_PERTURBATIONS
from ..pipeline import SourceError, item_step, open_source
from .engine import iter_local, iter_ray, progress_bar, run_shard
from .outputs import (
    MANIFEST,
    SKIPPED,
    WORK_DIR,
    check_manifest,
    read_skipped,
    sweep_temps,
    write_json,
    write_skipped,
)
from .shards import WebDatasetCWriter, WebDatasetPWriter, shard_writer_args
from .spec import BuildError, BuildSpec, Cell, ItemResult, Writer
from .writers import JpegTreeWriter, Mp4TreeWriter, NpyCWriter, NpyPWriter

__all__ = ["BuildKind", "KINDS", "BuildSummary", "build", "format_summary"]


@dataclass(frozen=True)
class BuildKind:
    """What differs between make-c and make-p (apart from the per-item step)."""

    kind: str  #: "c" or "p"
    names_key: str  #: manifest key of the names
    levels_key: str  #: manifest key of the levels
    writers: dict[str, Callable[..., Writer]]  #: format -> writer(out, **format options)
    cells: Callable[[Sequence[str], Sequence[int]], tuple[Cell, ...]]


def _c_cells(names: Sequence[str], levels: Sequence[int]) -> tuple[Cell, ...]:
    return tuple((n, int(s)) for n in names for s in levels)


def _p_cells(names: Sequence[str], levels: Sequence[int]) -> tuple[Cell, ...]:
    cells = tuple((n, int(d)) for n in names for d in levels if d == 1 or n in NOISE_PERTURBATIONS)
    if not cells:
        raise BuildError(
            "nothing to build: difficulties 2 and 3 exist only for "
            + ", ".join(NOISE_PERTURBATIONS)
            + " (the other perturbations have one dataset, difficulty 1)"
        )
    return cells


KINDS: dict[str, BuildKind] = {
    "c": BuildKind(
        "c",
        "corruptions",
        "severities",
        {
            "jpeg": lambda out, quality=85, **_: JpegTreeWriter(out, quality),
            "npy": lambda out, **_: NpyCWriter(out),
            "webdataset": lambda out, quality=85, profile="imagenet", shards=None, **_: (
                WebDatasetCWriter(out, profile=profile, quality=quality, **(shards or {}))
            ),
        },
        _c_cells,
    ),
    "p": BuildKind(
        "p",
        "perturbations",
        "difficulties",
        {
            "mp4": lambda out, preset=DEFAULT_PRESET, pix_fmt=DEFAULT_PIX_FMT, **_: Mp4TreeWriter(
                out, preset, pix_fmt
            ),
            "npy": lambda out, **_: NpyPWriter(out),
            "webdataset": lambda out, preset=DEFAULT_PRESET, pix_fmt=DEFAULT_PIX_FMT, profile="imagenet", shards=None, **_: (
                WebDatasetPWriter(
                    out, profile=profile, preset=preset, pix_fmt=pix_fmt, **(shards or {})
                )
            ),
        },
        _p_cells,
    ),
}


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
        src: image folder or CIFAR python batch file (see :func:`~corruptbench.pipeline.open_source`).
        out: output folder (created; must be empty or a previous build with the same parameters).
        profile: imagenet | inception | tiny | cifar.
        fmt: ``jpeg`` / ``npy`` / ``webdataset`` for c, ``mp4`` / ``npy`` / ``webdataset`` for p.
        names: corruptions (or perturbations), in output order.
        levels: severities 1..5 (c) or difficulties 1..3 (p; levels above 1 only apply to the
            noise perturbations).
        seed: base seed of :func:`~corruptbench.pipeline.item_seed`.
        workers: local worker processes (1 = in this process), or CPUs for a local Ray.
        ray: None (local), ``"auto"`` (start or join Ray via ``ray.init()``) or a Ray address.
        ray_init: extra ``ray.init`` keyword arguments.
        limit: use only the first ``limit`` source items (in sorted order).
        quality: JPEG quality (c, jpeg).
        preset, pix_fmt: x264 settings (p, mp4).
        shard_size: items per shard (default 1 for files; for npy about 64 MB of output, <= 100;
            for webdataset the samples per tar shard, default ``ceil(N / 64)`` within [100, 1000]
            for make-c and [10, 100] for make-p).
        progress: show a rich progress bar on stderr.
    """
    t0 = time.perf_counter()
    if kind not in KINDS:
        raise ValueError(f"kind must be 'c' or 'p', got {kind!r}")
    bk = KINDS[kind]
    if fmt not in bk.writers:
        raise BuildError(
            f"format must be one of {', '.join(bk.writers)} for make-{kind}, got {fmt!r}"
        )
    if not names:
        raise BuildError("nothing to build: no corruptions/perturbations selected")
    if limit is not None and limit < 1:
        raise BuildError(Arg("limit"), f" must be >= 1, got {limit}")
    out = Path(out)
    try:
        source = open_source(src)
    except SourceError as exc:
        raise BuildError(*exc.parts) from None
    items = source.items[:limit] if limit else source.items
    src_res, out_res = Path(src).resolve(), out.resolve()
    if src_res == out_res or (source.kind == "folder" and src_res in out_res.parents):
        raise BuildError(f"OUT ({out}) must not be the source folder or inside it")

    cells = bk.cells(names, levels)
    writer = bk.writers[fmt](
        str(out),
        quality=quality,
        preset=preset,
        pix_fmt=pix_fmt,
        profile=profile,
        shards=shard_writer_args(source, len(items), shard_size),
    )
    size = shard_size or writer.default_shard_size(profile, len(cells))
    spec = BuildSpec(item_step(kind, profile, int(seed)), writer, cells, size)

    # output-name collisions (a.png and a.jpg both -> a.jpg)
    collisions: list[ItemResult] = []
    seen: dict[str, str] = {}
    unique = []
    for it in items:
        key = writer.output_key(it.rel)
        if key is None:
            unique.append(it)
        elif key in seen:
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
        bk.names_key: list(names),
        bk.levels_key: [int(v) for v in levels],
        "seed": int(seed),
        "limit": limit,
        "source_fingerprint": source.fingerprint,
        "corruptbench_version": __version__,
        **writer.manifest_params(),
    }
    out.mkdir(parents=True, exist_ok=True)
    old = check_manifest(out, params)
    complete = bool(old and old.get("status") == "complete")
    manifest: dict[str, Any] = {
        "tool": "corruptbench",
        "params": params,
        "source": {"kind": source.kind, "path": str(source.root.resolve()), "items": len(items)},
        "layout": writer.layout(),
        "item_seed": "blake2b(f'{seed}|{kind}|{name}|{level}|{rel}', digest_size=4), little-endian",
    }
    summary = BuildSummary(out, images=len(items), ignored=len(source.ignored))
    known_skips: dict[str, ItemResult] = {}
    if complete:
        for row in read_skipped(out):
            known_skips[row.rel] = row
        shutil.rmtree(out / WORK_DIR, ignore_errors=True)

    plan = writer.plan(spec, items, set(known_skips), complete)
    summary.already_done = plan.already_done
    if plan.finished:
        summary.skipped = list(known_skips.values())
        summary.nothing_to_do = True
        summary.elapsed = time.perf_counter() - t0
        return summary
    n_todo = sum(len(its) for _, its in plan.todo)
    sweep_temps(out)
    write_json(out / MANIFEST, {**manifest, "status": "running"})

    results: list[ItemResult] = []
    for sid, its in plan.done:
        results.extend(run_shard(spec, sid, its))  # reads the shard's status only

    if n_todo:
        desc = f"make-{kind} {profile}"
        with progress_bar(progress) as prog:
            task = prog.add_task(desc, total=n_todo, rate="")
            t_start = time.perf_counter()
            done_count = 0
            gen = (
                iter_ray(spec, plan.todo, ray, workers, ray_init)
                if ray
                else iter_local(spec, plan.todo, workers)
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

    summary.written = writer.finish(spec, plan, source, results)
    for r in results:
        if r.status == "skipped":
            summary.skipped.append(r)
        elif r.status == "failed":
            summary.failed.append(r)
    summary.skipped.extend(collisions)
    summary.skipped.extend(known_skips.values())
    write_skipped(out, summary.skipped + summary.failed)
    totals = {
        "images": len(items),
        "skipped": len(summary.skipped),
        "failed": len(summary.failed),
        "outputs_per_image": len(cells),
    }
    status = "complete" if not summary.failed else "incomplete"
    write_json(out / MANIFEST, {**manifest, "status": status, "totals": totals})
    if not summary.failed:
        writer.cleanup()
    summary.elapsed = time.perf_counter() - t0
    return summary


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

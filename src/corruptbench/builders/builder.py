"""The driver of a build: check the parameters, plan the shards, run them, finish, summarise."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..datasets.video import DEFAULT_PIX_FMT, DEFAULT_PRESET
from ..errors import Arg
from ..perturbations import NOISE_PERTURBATIONS
from ..pipeline import spread_subset
from ..progress import progress as make_progress
from ..validation import check_quality
from ..version import __version__
from .engine import iter_local, iter_ray, run_shard
from .outputs import (
    MANIFEST,
    SKIPPED,
    SOURCES,
    WORK_DIR,
    check_manifest,
    forget_dirs,
    read_skipped,
    sweep_temps,
    write_json,
    write_skipped,
)
from .shards import WebDatasetCWriter, WebDatasetPWriter
from .spec import BuildError, BuildSpec, Cell, ItemResult, Writer
from .tree import TreeWriter
from .writers import JpegTreeWriter, Mp4TreeWriter, NpyCWriter, NpyPWriter

__all__ = ["BuildKind", "KINDS", "BuildSummary", "build", "build_tree", "format_summary"]


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
            "jpeg": lambda out, quality=None, **_: JpegTreeWriter(
                out, 85 if quality is None else quality
            ),
            "npy": lambda out, **_: NpyCWriter(out),
            "tree": lambda out, quality=None, copy_files=(), links=True, **_: TreeWriter(
                out, quality, tuple(copy_files), bool(links)
            ),
            "webdataset": lambda out, quality=None, profile="imagenet", **_: WebDatasetCWriter(
                out, profile=profile, quality=85 if quality is None else quality
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
            "webdataset": lambda out, preset=DEFAULT_PRESET, pix_fmt=DEFAULT_PIX_FMT, profile="imagenet", **_: (
                WebDatasetPWriter(out, profile=profile, preset=preset, pix_fmt=pix_fmt)
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
    #: items made with a remark (status "warning", the remark in ``reason``): e.g. upsampled
    warnings: list[ItemResult] = field(default_factory=list)
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
    quality: int | None = None,
    preset: str = DEFAULT_PRESET,
    pix_fmt: str = DEFAULT_PIX_FMT,
    shard_size: int | None = None,
    copy_files: Sequence[str] = (),
    links: bool = True,
    progress: str | bool = "auto",
) -> BuildSummary:
    """Build (or resume) a corrupted dataset. The Python API behind make-c / make-p.

    Args:
        kind: ``"c"`` (corruptions x severities) or ``"p"`` (perturbation sequences x difficulties).
        src: image folder or CIFAR python batch file (see :func:`~corruptbench.pipeline.open_source`);
            for ``fmt="tree"`` any dataset folder (:func:`~corruptbench.pipeline.open_tree`).
        out: output folder (created; must be empty or a previous build with the same parameters).
        profile: imagenet | inception | tiny | cifar.
        fmt: ``jpeg`` / ``npy`` / ``tree`` / ``webdataset`` for c, ``mp4`` / ``npy`` /
            ``webdataset`` for p. ``tree``: every image of SRC at its own size and in its own
            format (:mod:`corruptbench.builders.tree`; also :func:`build_tree`).
        names: corruptions (or perturbations), in output order.
        levels: severities 1..5 (c) or difficulties 1..3 (p; levels above 1 only apply to the
            noise perturbations).
        seed: base seed of :func:`~corruptbench.pipeline.item_seed`.
        workers: local worker processes (1 = in this process), or CPUs for a local Ray.
        ray: None (local), ``"auto"`` (start or join Ray via ``ray.init()``) or a Ray address.
        ray_init: extra ``ray.init`` keyword arguments.
        limit: use only ``limit`` source items, chosen by ``seed`` and spread evenly over the
            classes (:func:`~corruptbench.pipeline.spread_subset`; kept in sorted order).
        quality: JPEG quality 1..100 (c, jpeg: default 85; tree: default each source's own,
            else 95).
        preset, pix_fmt: x264 settings (p, mp4).
        shard_size: items per shard (default 1 for files; for npy about 64 MB of output, <= 100;
            for webdataset the samples per tar shard, default ``ceil(N / 64)`` within [100, 1000]
            for make-c and [10, 100] for make-p).
        copy_files: (tree) glob patterns of files copied once into OUT, not corrupted.
        links: (tree) link the copied files into every ``<corruption>/<severity>/`` folder.
        progress: ``"auto"`` (a rich bar on a terminal, plain lines otherwise), ``"bar"``,
            ``"lines"`` or ``"off"`` (:func:`corruptbench.progress.progress`); True = auto,
            False = off.
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
    highest = 5 if kind == "c" else 3
    if not levels or any(isinstance(v, bool) or not 1 <= int(v) <= highest for v in levels):
        raise BuildError(Arg(bk.levels_key), f" must be in 1..{highest}, got {list(levels)}")
    if limit is not None and limit < 1:
        raise BuildError(Arg("limit"), f" must be >= 1, got {limit}")
    if quality is not None:
        quality = check_quality(quality)
    if copy_files and fmt != "tree":
        raise BuildError(Arg("copy_files"), " applies to the tree layout only")
    shown = Path(out)
    # absolute paths travel to the workers: a Ray worker's working directory is not the driver's
    out = Path(os.path.abspath(out))
    writer = bk.writers[fmt](
        str(out),
        quality=quality,
        preset=preset,
        pix_fmt=pix_fmt,
        copy_files=copy_files,
        links=links,
        profile=profile,
    )
    source = writer.open_source(os.path.abspath(src))
    items = spread_subset(source.items, limit, seed)
    writer = writer.for_source(source, len(items), shard_size)
    src_res, out_res = Path(src).resolve(), out.resolve()
    if src_res == out_res or (source.kind != "cifar-batch" and src_res in out_res.parents):
        raise BuildError(f"OUT ({shown}) must not be the source folder or inside it")

    cells = bk.cells(names, levels)
    size = shard_size or writer.default_shard_size(profile, len(cells))
    spec = BuildSpec(writer.item_step(kind, profile, int(seed)), writer, cells, size)

    # files carried over (tree) must not shadow the build's own names
    reserved = {n for n, _ in cells} | {MANIFEST, SKIPPED, SOURCES, WORK_DIR}
    for ex in source.extra:
        first = ex.rel.split("/")[0]
        if first in reserved:
            raise BuildError(
                f"the copied file {ex.rel} would land in OUT/{first}, which the build itself writes"
            )

    # output-name collisions (a.png and a.jpg both -> a.jpg; a copied file and an image)
    collisions: list[ItemResult] = []
    seen: dict[str, str] = {ex.rel.lower(): f"the copied file {ex.rel}" for ex in source.extra}
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
        # how --limit picks (absent without a limit, so those manifests are unchanged); an OUT
        # built with the first N items of older versions is then refused, not mixed
        **({"limit_subset": "seeded, spread over the classes"} if limit is not None else {}),
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
    summary = BuildSummary(shown, images=len(items), ignored=len(source.ignored))
    known_skips: dict[str, ItemResult] = {}
    known_warnings: dict[str, ItemResult] = {}
    if complete:
        for row in read_skipped(out):
            (known_warnings if row.status == "warning" else known_skips)[row.rel] = row
        shutil.rmtree(out / WORK_DIR, ignore_errors=True)

    plan = writer.plan(spec, items, set(known_skips), complete)
    summary.already_done = plan.already_done
    if plan.finished:
        summary.skipped = list(known_skips.values())
        summary.warnings = list(known_warnings.values())
        summary.nothing_to_do = True
        summary.elapsed = time.perf_counter() - t0
        return summary
    n_todo = sum(len(its) for _, its in plan.todo)
    forget_dirs()
    sweep_temps(out)
    write_json(out / MANIFEST, {**manifest, "status": "running"})

    results: list[ItemResult] = []
    for sid, its in plan.done:
        results.extend(run_shard(spec, sid, its))  # reads the shard's status only

    if n_todo:
        with make_progress(n_todo, f"make-{kind} {profile}", unit="images", mode=progress) as bar:
            gen = (
                iter_ray(spec, plan.todo, ray, workers, ray_init)
                if ray
                else iter_local(spec, plan.todo, workers)
            )
            for res in gen:
                results.extend(res)
                summary.cpu_seconds += sum(r.cpu for r in res)
                bar.advance(len(res))
    summary.processed = n_todo

    summary.written = writer.finish(spec, plan, source, results)
    # a shard killed between open and rename (a dead Ray node, an orphaned worker) leaves a hidden
    # temporary file; the start-of-run sweep only sees those of earlier runs
    sweep_temps(out)
    for r in results:
        if r.status == "skipped":
            summary.skipped.append(r)
        elif r.status == "failed":
            summary.failed.append(r)
        if r.warning:
            known_warnings[r.rel] = ItemResult(r.rel, "warning", reason=r.warning, source=r.source)
    summary.warnings = list(known_warnings.values())
    summary.skipped.extend(collisions)
    summary.skipped.extend(known_skips.values())
    write_skipped(out, summary.skipped + summary.failed + summary.warnings)
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


def build_tree(
    src: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    corruptions: str | Sequence[str] = "all",
    severities: Sequence[int] = (1, 2, 3, 4, 5),
    profile: str = "imagenet",
    quality: int | None = None,
    copy_files: Sequence[str] = (),
    links: bool = True,
    seed: int = 0,
    workers: int = 1,
    ray: str | None = None,
    limit: int | None = None,
    progress: bool = False,
) -> BuildSummary:
    """Corrupt every image of a dataset folder at its own size: ``make-c --layout tree``.

    ``OUT/<corruption>/<severity>/<relative path>`` mirrors ``src`` (COCO-C, Pascal-C and
    Cityscapes-C style); see :mod:`corruptbench.builders.tree` for formats, gray and alpha images.

    Args:
        src: the dataset root (images at any depth).
        out: output folder (new, empty, or an earlier run with the same parameters: resumed).
        corruptions: a subset name (``all``, ``benchmark``: the 15 of COCO-C, a family) or names.
        severities: severities 1..5.
        profile: the parameter tables (default ``imagenet``, the COCO-C convention), used at
            every image size.
        quality: JPEG quality of the JPEG outputs; None (default): each source's own quality
            when its tables tell it, else 95.
        copy_files: glob patterns of files (annotations, label masks) copied once to
            ``OUT/<relative path>``, e.g. ``["annotations"]``; never corrupted.
        links: give every ``OUT/<corruption>/<severity>/`` relative links to the copied files,
            so each is a complete dataset root.
        seed, workers, ray, limit, progress: as :func:`build`.

    Returns:
        The run's :class:`BuildSummary` (``exit_code`` 1 when an item failed).
    """
    from ..api import SUBSET_ALIASES, SUBSETS, get_corruption_names
    from ..registry import get_corruption

    if isinstance(corruptions, str) and corruptions in (*SUBSETS, *SUBSET_ALIASES):
        names = get_corruption_names(corruptions)
    else:
        names = [
            get_corruption(n).name
            for n in ([corruptions] if isinstance(corruptions, str) else corruptions)
        ]
    return build(
        "c",
        src,
        out,
        profile=profile,
        fmt="tree",
        names=list(dict.fromkeys(names)),
        levels=[int(s) for s in severities],
        seed=seed,
        workers=workers,
        ray=ray,
        limit=limit,
        quality=quality,
        copy_files=copy_files,
        links=links,
        progress=progress,
    )


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
    if s.warnings:
        lines.append(
            f"warning: {len(s.warnings)} input(s) smaller than the profile's size were upsampled "
            "(kept: the reference's resize enlarges them too)"
        )
        for r in s.warnings[:5]:
            lines.append(f"  {r.rel}: {r.reason}")
    if s.skipped or s.failed or s.warnings:
        lines.append(f"see {s.out / SKIPPED} for the reasons")
        for r in (s.skipped + s.failed)[:5]:
            lines.append(f"  {r.status}: {r.rel}: {r.reason}")
    return "\n".join(lines)

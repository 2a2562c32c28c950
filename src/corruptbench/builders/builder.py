"""The driver of a build: check the parameters, plan the shards, run them, finish, summarise."""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..datasets.imagenet_c import LEVEL_NAMES, level_dirname
from ..errors import Arg
from ..grid import SEVERITIES, Grid, GridError, default_subset, select, suite_of
from ..pipeline import ITEM_SEED_FORMULA, Source, SourceItem, spread_subset
from ..progress import progress as make_progress
from ..registry import corruption_suites
from ..safe_text import printable
from ..tables.cbar import table_key
from ..validation import check_quality
from ..version import __version__
from .engine import iter_local, iter_ray, run_shard
from .formats import FORMATS, OutputFormat
from .lock import OutLock
from .outputs import (
    MANIFEST,
    SKIPPED,
    SOURCES,
    WORK_DIR,
    check_manifest,
    clear_work,
    forget_dirs,
    read_skipped,
    sweep_temps,
    write_json,
    write_skipped,
)
from .spec import BuildError, BuildSpec, ItemResult, ShardPlan, Writer

__all__ = ["BuildSummary", "build", "build_tree", "format_summary"]


@dataclass
class BuildSummary:
    """What a build did. Every source image is counted once, in one of ``made``,
    ``already_done``, ``skipped`` or ``failed``, so those add up to ``images``."""

    out: Path
    #: source images of this build (with ``limit``: those chosen), counting the ones skipped
    #: before any work (output name collisions, links that lead nowhere)
    images: int = 0
    already_done: int = 0  #: images complete before this run
    made: int = 0  #: images whose outputs this run completed
    processed: int = 0  #: images handed to the workers in this run (made, skipped or failed)
    written: int = 0  #: output items (files, or array entries for npy) written in this run
    skipped: list[ItemResult] = field(default_factory=list)
    failed: list[ItemResult] = field(default_factory=list)
    #: items made with a remark (status "warning", the remark in ``reason``): e.g. upsampled
    warnings: list[ItemResult] = field(default_factory=list)
    ignored: int = 0  #: non-image files in the source folder (not image extensions)
    elapsed: float = 0.0
    cpu_seconds: float = 0.0  #: CPU time spent in workers on this run's shards
    nothing_to_do: bool = False
    #: outputs of an earlier run that differed from what it wrote, made again ("<name>: <why>")
    remade: list[str] = field(default_factory=list)
    #: remarks on the run itself (e.g. the lock on OUT cannot keep out other machines)
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """The command's exit status: 1 when an item failed (make-c / make-p)."""
        return 1 if self.failed else 0


def build(
    kind: str,
    src: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    profile: str,
    fmt: str,
    names: str | Sequence[str] | None = None,
    levels: Sequence[int],
    suite: str = "imagenet_c",
    seed: int = 0,
    workers: int = 1,
    ray: str | None = None,
    ray_init: dict[str, Any] | None = None,
    limit: int | None = None,
    quality: int | None = None,
    preset: str | None = None,
    pix_fmt: str | None = None,
    shard_size: int | None = None,
    copy_files: Sequence[str] | None = None,
    links: bool | None = None,
    level_names: str | None = None,
    progress: str | bool = "auto",
) -> BuildSummary:
    """Build (or resume) a corrupted dataset. The Python API behind make-c / make-p.

    Args:
        kind: ``"c"`` (corruptions x severities) or ``"p"`` (perturbation sequences x difficulties).
        src: image folder or CIFAR python batch file (see :func:`~corruptbench.pipeline.open_source`);
            for ``fmt="tree"`` any dataset folder (:func:`~corruptbench.pipeline.open_tree`).
        out: output folder (created; must be empty or a previous build with the same parameters).
        profile: imagenet | inception | tiny | cifar.
        fmt: a format of :data:`FORMATS`: ``jpeg`` / ``npy`` / ``tree`` / ``webdataset`` for c,
            ``mp4`` / ``npy`` / ``webdataset`` for p. ``tree``: every image of SRC at its own size
            and in its own format (:mod:`corruptbench.builders.tree`; also :func:`build_tree`).
        names: corruptions (or perturbations) and subsets of ``suite``, in output order
            (:func:`corruptbench.grid.resolve_names`); None: the suite's default for the profile
            (:func:`corruptbench.grid.default_subset`: ImageNet-C's 19; for ``cbar``
            CIFAR-10-C-bar's ten with the ``cifar`` profile, else ImageNet-C-bar's ten); make-p:
            the 14 perturbations.
        levels: severities 1..5 (c) or difficulties 1..3 (p; levels above 1 only apply to the
            noise perturbations: :attr:`corruptbench.grid.Grid.cells`).
        suite: the corruption suite whose subsets and default ``names`` resolve: ``imagenet_c``
            or ``cbar`` (ImageNet-C-bar / CIFAR-10-C-bar: the corruptions of Mintun et al. 2021,
            their levels by the profile: :mod:`corruptbench.tables.cbar`); recorded in the
            manifest when not ``imagenet_c``.
        seed: base seed of :func:`~corruptbench.pipeline.item_seed`.
        workers: local worker processes (1 = in this process), or CPUs for a local Ray.
        ray: None (local), ``"auto"`` (start or join Ray via ``ray.init()``) or a Ray address.
        ray_init: extra ``ray.init`` keyword arguments.
        limit: use only ``limit`` source items, chosen by ``seed`` and spread evenly over the
            classes (:func:`~corruptbench.pipeline.spread_subset`; kept in sorted order).
        quality: (jpeg, tree, webdataset of c) JPEG quality 1..100; default
            :data:`~corruptbench.validation.DATASET_QUALITY` (85), for tree each source's own,
            else 95.
        preset, pix_fmt: (mp4, webdataset of p) x264 settings.
        shard_size: items per shard (default 1 for files; for npy about 64 MB of output, <= 100;
            for webdataset the samples per tar shard, default ``ceil(N / 64)`` within [100, 1000]
            for make-c and [10, 100] for make-p).
        copy_files: (tree) glob patterns of files copied once into OUT, not corrupted.
        links: (tree) link the copied files into every ``<corruption>/<severity>/`` folder
            (default True).
        level_names: (jpeg) how the level folders are named
            (:data:`~corruptbench.datasets.imagenet_c.LEVEL_NAMES`): ``severity`` (default:
            ``1``..``5``, as ImageNet-C and the released ImageNet-C-bar) or ``value`` (corruptions
            of suite ``cbar`` only: the level, as make_imagenet_c_bar.py names them, ``2.35``).
        progress: ``"auto"`` (a rich bar on a terminal, plain lines otherwise), ``"bar"``,
            ``"lines"`` or ``"off"`` (:func:`corruptbench.progress.progress`); True = auto,
            False = off.

    Raises:
        BuildError: a bad argument (every one is checked before any work), e.g. an option the
            format does not take.
    """
    t0 = time.perf_counter()
    options = {
        "quality": None if quality is None else check_quality(quality),
        "preset": preset,
        "pix_fmt": pix_fmt,
        "copy_files": copy_files or None,
        "links": links,
        "level_names": level_names,
    }
    if names is None and kind == "c" and suite in corruption_suites():
        names = default_subset(suite, profile)
    grid, output = _check(kind, fmt, names, levels, limit, options, suite)
    shown = Path(out)
    # absolute paths travel to the workers: a Ray worker's working directory is not the driver's
    out = Path(os.path.abspath(out))
    given = {k: v for k, v in options.items() if v is not None}
    writer = output.make(str(out), profile, given)
    source = writer.open_source(os.path.abspath(src))
    items = spread_subset(source.items, limit, seed)
    writer = writer.for_source(source, len(items), shard_size)
    _check_places(Path(src), out, shown, source, grid)
    spec = BuildSpec(
        writer.item_step(kind, profile, int(seed)),
        writer,
        grid.cells,
        shard_size or writer.default_shard_size(profile, len(grid.cells)),
    )
    items, skips = _unique_outputs(items, writer, source)
    skips += [
        ItemResult(b.rel, "skipped", reason=b.reason, source=str(b.path)) for b in source.broken
    ]
    manifest = _manifest(grid, profile, fmt, seed, limit, source, writer, len(items))
    summary = BuildSummary(shown, images=len(items) + len(skips), ignored=len(source.ignored))
    _make_out(out, shown)
    with OutLock(out, shown, f"make-{kind}") as lock:
        summary.notes += [lock.note] if lock.note else []
        _run(
            spec, writer, source, items, skips, manifest, summary, ray, workers, ray_init, progress
        )
    summary.elapsed = time.perf_counter() - t0
    return summary


def _make_out(out: Path, shown: Path) -> None:
    """Create OUT (and its parents); a clear error when it is a file."""
    if out.exists() and not out.is_dir():
        raise BuildError(
            f"OUT ({shown}) is an existing file; give a folder (new, empty, or an earlier build "
            "to resume)"
        )
    out.mkdir(parents=True, exist_ok=True)


def _run(
    spec: BuildSpec,
    writer: Writer,
    source: Source,
    items: list[SourceItem],
    skips: list[ItemResult],
    manifest: dict[str, Any],
    summary: BuildSummary,
    ray: str | None,
    workers: int,
    ray_init: dict[str, Any] | None,
    progress: str | bool,
) -> None:
    """The build under the lock on OUT: plan, run, finish, bookkeeping (``summary`` filled in);
    on the way out of a stopped run (interrupt, error) its temporary files go and what is done
    is recorded, so that the next run resumes."""
    out = Path(writer.out)
    old = check_manifest(out, manifest["params"])
    # the rows of every earlier run, of this build's items (a link removed since is gone)
    names = {it.rel for it in items} | {r.rel for r in skips}
    earlier = [r for r in read_skipped(out) if r.rel in names] if old else []
    complete = old is not None and old.get("status") == "complete"
    if complete:
        clear_work(out)  # a complete build has no work in progress
    known = {r.rel for r in earlier if r.status != "warning"} if complete else set()
    plan = writer.plan(spec, items, known, complete)
    summary.remade = list(plan.remade)
    if plan.finished:
        summary.nothing_to_do = True
        _tally(summary, [], skips, earlier)
        return
    forget_dirs()
    sweep_temps(out, own=True)  # under the lock: no write of this process is in progress
    write_json(out / MANIFEST, {**manifest, "status": "running"})
    results: list[ItemResult] = []
    try:
        _run_plan(spec, plan, summary, ray, workers, ray_init, progress, results)
        summary.written = writer.finish(spec, plan, source, results)
    except BaseException as exc:
        _tally(summary, results, skips, earlier)
        failure = _stopped(out, summary, manifest, exc)
        if failure is None:
            raise
        raise failure from exc
    # a shard killed between open and rename (a dead Ray node, an orphaned worker) leaves a hidden
    # temporary file; the start-of-run sweep only sees those of earlier runs
    sweep_temps(out, own=True)
    _tally(summary, results, skips, earlier)
    _finish(out, manifest, summary, writer, len(spec.cells))


def _finish(
    out: Path, manifest: dict[str, Any], summary: BuildSummary, writer: Writer, per_image: int
) -> None:
    """``skipped.csv``, the manifest's final status and totals, and the writer's clean-up."""
    write_skipped(out, summary.skipped + summary.failed + summary.warnings)
    totals = {
        "images": summary.images,
        "skipped": len(summary.skipped),
        "failed": len(summary.failed),
        "outputs_per_image": per_image,
    }
    status = "complete" if not summary.failed else "incomplete"
    write_json(out / MANIFEST, {**manifest, "status": status, "totals": totals})
    if not summary.failed:
        writer.cleanup()


#: errors of a full disk or quota: the run stops with one line, after removing its temporary files
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _stopped(
    out: Path, summary: BuildSummary, manifest: dict[str, Any], exc: BaseException
) -> BuildError | None:
    """Clean up after a stopped run: remove its temporary files (a full disk must not stay full),
    keep ``skipped.csv``'s rows and mark the manifest ``interrupted`` or ``failed`` (best effort:
    the disk may be full). Returns the one-line error to raise instead of ``exc``, or None."""
    removed = sweep_temps(out, own=True)
    with contextlib.suppress(OSError):
        write_skipped(out, summary.skipped + summary.failed + summary.warnings)
    status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
    with contextlib.suppress(OSError):
        write_json(out / MANIFEST, {**manifest, "status": status})
    if isinstance(exc, OSError) and exc.errno in _NO_SPACE:
        where = f" writing {exc.filename}" if exc.filename else ""
        return BuildError(
            f"{exc.strerror or 'no space left'}{where}: the build of {summary.out} stopped; its "
            f"{removed} temporary file(s) were removed and the finished outputs kept. Free some "
            "space (or raise the limit), then run the same command again to resume"
        )
    return None


def _check(
    kind: str,
    fmt: str,
    names: str | Sequence[str] | None,
    levels: Sequence[int],
    limit: int | None,
    options: dict[str, Any],
    suite: str = "imagenet_c",
) -> tuple[Grid, OutputFormat]:
    """The grid and the output format, every argument checked (BuildError naming it)."""
    if kind not in FORMATS:
        raise BuildError(Arg("kind"), f" must be 'c' or 'p', got {kind!r}")
    if fmt not in FORMATS[kind]:
        raise BuildError(
            f"format must be one of {', '.join(FORMATS[kind])} for make-{kind}, got {fmt!r}"
        )
    output = FORMATS[kind][fmt]
    for key, value in options.items():
        if value is not None and key not in output.options:
            takes = [f for f, o in FORMATS[kind].items() if key in o.options]
            where = "the tree layout" if takes == ["tree"] else f"--format {', '.join(takes)}"
            raise BuildError(Arg(key), f" applies to {where} only")
    if limit is not None and limit < 1:
        raise BuildError(Arg("limit"), f" must be >= 1, got {limit}")
    try:
        grid = select(kind, names, list(levels), suite=suite)
    except GridError as exc:
        raise BuildError(*exc.parts) from None
    _check_level_names(grid, options.get("level_names"))
    return grid, output


def _check_level_names(grid: Grid, level_names: str | None) -> None:
    """Level folders named by value exist for corruptions with level values only (suite
    ``cbar``): any other name is refused before any work."""
    if level_names in (None, "severity"):
        return
    if level_names not in LEVEL_NAMES:
        raise BuildError(
            Arg("level_names"), f" must be one of {', '.join(LEVEL_NAMES)}, got {level_names!r}"
        )
    for name in grid.names:
        try:
            level_dirname(name, 1, level_names)
        except ValueError as exc:
            raise BuildError(Arg("level_names"), f" {level_names!r}: {exc}") from None


def _check_places(src: Path, out: Path, shown: Path, source: Source, grid: Grid) -> None:
    """OUT is not the source (or inside it), and no file carried over (tree) lands where the
    build writes its own."""
    src_res, out_res = src.resolve(), out.resolve()
    if src_res == out_res or (source.kind != "cifar-batch" and src_res in out_res.parents):
        raise BuildError(f"OUT ({shown}) must not be the source folder or inside it")
    reserved = {n for n, _ in grid.cells} | {MANIFEST, SKIPPED, SOURCES, WORK_DIR}
    for ex in source.copied:
        first = ex.rel.split("/")[0]
        if first in reserved:
            raise BuildError(
                f"the copied file {ex.rel} would land in OUT/{first}, which the build itself writes"
            )


def _unique_outputs(
    items: Sequence[SourceItem], writer: Writer, source: Source
) -> tuple[list[SourceItem], list[ItemResult]]:
    """The items whose output names are unique, and a skip for each one that collides (a.png and
    a.jpg both -> a.jpg; a copied file and an image)."""
    collisions: list[ItemResult] = []
    seen: dict[str, str] = {ex.rel.lower(): f"the copied file {ex.rel}" for ex in source.copied}
    unique = []
    for it in items:
        key = writer.output_key(it.rel)
        if key is None:
            unique.append(it)
        elif key in seen:
            reason = f"output name collides with {seen[key]}"
            collisions.append(ItemResult(it.rel, "skipped", reason=reason, source=it.path or ""))
        else:
            seen[key] = it.rel
            unique.append(it)
    return unique, collisions


def _manifest(
    grid: Grid,
    profile: str,
    fmt: str,
    seed: int,
    limit: int | None,
    source: Source,
    writer: Writer,
    n_items: int,
) -> dict[str, Any]:
    """``OUT/manifest.json`` without its status: the parameters a resume must match, the source,
    the layout and how the per-item seeds are made."""
    gk = grid.spec
    params: dict[str, Any] = {
        "command": f"make-{grid.kind}",
        "profile": profile,
        # the suite whose subsets the names were chosen from; absent for ImageNet-C, so the
        # manifests of ImageNet-C builds (and their resumes) are unchanged
        **({"suite": grid.suite} if grid.suite != "imagenet_c" else {}),
        "format": fmt,
        gk.names_arg: list(grid.names),
        gk.levels_arg: list(grid.levels),
        "seed": int(seed),
        "limit": limit,
        # how --limit picks (absent without a limit, so those manifests are unchanged); an OUT
        # built with the first N items of older versions is then refused, not mixed
        **({"limit_subset": "seeded, spread over the classes"} if limit is not None else {}),
        "source_fingerprint": source.fingerprint,
        "corruptbench_version": __version__,
        **writer.manifest_params(),
    }
    return {
        "tool": "corruptbench",
        "params": params,
        "source": {"kind": source.kind, "path": str(source.root.resolve()), "items": n_items},
        "layout": writer.layout(),
        "item_seed": ITEM_SEED_FORMULA,
    }


def _progress_label(spec: BuildSpec) -> str:
    """What the progress lines say is built: ``make-c imagenet`` (ImageNet-C at a profile),
    ``make-c imagenet_c_bar`` (C-bar, named by its levels table), both joined by ``+``."""
    if spec.kind != "c":
        return f"make-{spec.kind} {spec.profile}"
    suites = dict.fromkeys(suite_of(name) for name, _ in spec.cells)
    what = [spec.profile if s == "imagenet_c" else table_key(spec.profile) for s in suites]
    return f"make-c {' + '.join(what)}"


def _run_plan(
    spec: BuildSpec,
    plan: ShardPlan,
    summary: BuildSummary,
    ray: str | None,
    workers: int,
    ray_init: dict[str, Any] | None,
    progress: str | bool,
    results: list[ItemResult],
) -> None:
    """Run the shards still to do (local processes or Ray) and read the status of the done ones,
    into ``results`` (filled as shards finish: a stopped run keeps what it did)."""
    for sid, its in plan.done:
        results.extend(run_shard(spec, sid, its))  # reads the shard's status only
    n_todo = sum(len(its) for _, its in plan.todo)
    summary.processed = n_todo
    if not n_todo:
        return
    with make_progress(n_todo, _progress_label(spec), unit="images", mode=progress) as bar:
        gen: Generator[list[ItemResult], None, None] = (
            iter_ray(spec, plan.todo, ray, workers, ray_init)
            if ray
            else iter_local(spec, plan.todo, workers)
        )
        # closed at once when the loop stops (an interrupt here): the workers are stopped now,
        # before the caller sweeps their temporary files, not when the generator is collected
        with contextlib.closing(gen):
            for res in gen:
                results.extend(res)
                summary.cpu_seconds += sum(r.cpu for r in res)
                bar.advance(len(res))


def _merge_rows(
    earlier: Sequence[ItemResult], results: Sequence[ItemResult], skips: Sequence[ItemResult]
) -> list[ItemResult]:
    """``skipped.csv``'s rows after this run: the earlier runs' rows, where this run said
    nothing new about the item, then this run's skips, failures and warnings (one problem row
    and one warning row per item at most)."""
    rows: dict[tuple[str, bool], ItemResult] = {(r.rel, r.status == "warning"): r for r in earlier}
    for r in [*skips, *results]:
        if r.status in ("written", "skipped", "failed"):  # this run decided the item
            rows.pop((r.rel, False), None)
            rows.pop((r.rel, True), None)
            if r.status != "written":
                rows[r.rel, False] = ItemResult(r.rel, r.status, 0, r.reason, r.source)
        if r.warning:
            rows[r.rel, True] = ItemResult(r.rel, "warning", reason=r.warning, source=r.source)
    return list(rows.values())


def _tally(
    summary: BuildSummary,
    results: Sequence[ItemResult],
    skips: Sequence[ItemResult],
    earlier: Sequence[ItemResult],
) -> None:
    """The summary's rows and counts: skipped / failed / warnings from every run
    (:func:`_merge_rows`), ``made`` in this run; every other image of the build is one the plan
    found complete (or whose shard was), i.e. already done."""
    rows = _merge_rows(earlier, results, skips)
    summary.skipped = [r for r in rows if r.status == "skipped"]
    summary.failed = [r for r in rows if r.status == "failed"]
    summary.warnings = [r for r in rows if r.status == "warning"]
    summary.made = sum(1 for r in results if r.status == "written")
    summary.already_done = (
        summary.images - summary.made - len(summary.skipped) - len(summary.failed)
    )


def build_tree(
    src: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    corruptions: str | Sequence[str] | None = None,
    severities: Sequence[int] = SEVERITIES,
    profile: str = "imagenet",
    suite: str = "imagenet_c",
    quality: int | None = None,
    copy_files: Sequence[str] | None = None,
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
        corruptions: a subset name of ``suite`` (``all``, ``benchmark``: the 15 of COCO-C, a
            family) or names; None: the suite's default (:func:`corruptbench.grid.default_subset`:
            ImageNet-C's 19, ImageNet-C-bar's ten).
        severities: severities 1..5.
        profile: the parameter tables (default ``imagenet``, the COCO-C convention), used at
            every image size.
        quality: JPEG quality of the JPEG outputs; None (default): each source's own quality
            when its tables tell it, else 95.
        copy_files: glob patterns of files (annotations, label masks) copied once to
            ``OUT/<relative path>``, e.g. ``["annotations"]``; never corrupted.
        links: give every ``OUT/<corruption>/<severity>/`` relative links to the copied files,
            so each is a complete dataset root.
        suite: ``imagenet_c`` or ``cbar``, as :func:`build`.
        seed, workers, ray, limit, progress: as :func:`build`.

    Returns:
        The run's :class:`BuildSummary` (``exit_code`` 1 when an item failed).
    """
    return build(
        "c",
        src,
        out,
        profile=profile,
        fmt="tree",
        names=corruptions,
        suite=suite,
        levels=list(severities),
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
    """Human-readable end-of-run summary: the counts (``made + already done + skipped + failed
    = images``), then the inputs not made, then those made with a remark, then notes. Names
    and reasons are shown with control characters escaped (:func:`~corruptbench.safe_text.printable`)."""
    lines = []
    if s.nothing_to_do:
        lines.append(f"nothing to do: {printable(s.out)} is complete ({s.images} images)")
    else:
        rate = s.processed / s.elapsed if s.elapsed > 0 else 0.0
        lines.append(
            f"{s.images} images: {s.made} made in this run, {s.already_done} already done, "
            f"{len(s.skipped)} skipped, {len(s.failed)} failed; {s.written} outputs written; "
            f"{s.elapsed:.1f} s ({rate:.2f} img/s)"
        )
    if s.remade:
        lines.append(
            f"remade {len(s.remade)} output(s) of an earlier run that differed from what it wrote:"
        )
        lines.extend(f"  {r}" for r in s.remade[:5])
        if len(s.remade) > 5:
            lines.append(f"  ... ({len(s.remade) - 5} more)")
    if s.ignored:
        lines.append(
            f"{s.ignored} non-image files in the source were ignored (extension not an image type)"
        )
    csv_path = printable(s.out / SKIPPED)
    bad = s.skipped + s.failed
    if bad:
        lines.append(f"{len(bad)} input(s) not made (all listed in {csv_path}):")
        lines.extend(f"  {r.status}: {printable(r.rel)}: {printable(r.reason)}" for r in bad[:5])
    if s.warnings:
        lines.append(
            f"warning: {len(s.warnings)} input(s) made with a remark (all listed in {csv_path}):"
        )
        lines.extend(f"  {printable(r.rel)}: {printable(r.reason)}" for r in s.warnings[:5])
    lines.extend(f"note: {printable(n)}" for n in s.notes)
    return "\n".join(lines)

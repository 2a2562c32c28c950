"""eval-c: top-1 error per corruption and severity, CE, mCE and relative mCE of one model."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS
from ..errors import Arg
from ..metrics import summarize_c
from ..models import IMAGENET_MEAN, IMAGENET_STD, LoadedModel
from ..models.adapt import ModelLike, evaluation_mode, resolve_model
from ..progress import progress as make_progress
from ..results import CResults, DatasetInfo, Results, library_versions, now
from ..validation import check_severity
from .common import (
    CLEAN,
    SEVERITIES,
    Cell,
    EvalError,
    RunOptions,
    cell_key,
    check_names,
)
from .device import DeviceCorruptor, require_torch_backend
from .layouts import (
    CleanImages,
    DataArg,
    Layout,
    OnTheFly,
    OnTheFlyC,
    Selection,
    open_c_layout,
)
from .loader import LoadItem, plan_resources, predict_batches
from .resume import load_previous

__all__ = ["evaluate_c"]

Tally = dict[Cell, list[int]]  #: cell -> [correct, counted, skipped]


def evaluate_c(
    model: ModelLike,
    data: DataArg,
    *,
    clean: str | os.PathLike[str] | None = None,
    corruptions: Sequence[str] | None = None,
    severities: Sequence[int] | None = None,
    mean: Sequence[float] = IMAGENET_MEAN,
    std: Sequence[float] = IMAGENET_STD,
    input_size: int = 224,
    device: str | None = None,
    batch_size: int = 64,
    limit: int | None = None,
    seed: int = 0,
    profile: str | None = None,
    baseline: str = "auto",
    corrupt_on: str = "auto",
    name: str | None = None,
    progress: bool | str = True,
    run: RunOptions = RunOptions(),  # noqa: B008 - frozen
) -> Results:
    """Evaluate ``model`` on ImageNet-C style data: top-1 error per corruption and severity, CE,
    mCE and relative mCE (``corruptbench evaluate_c`` is this function; so is ``eval-c``).

    Args:
        model: A ``torch.nn.Module`` or any callable from a normalised float batch
            ``(N, 3, input_size, input_size)`` to logits ``(N, classes)``; or a model source string
            (``"efficientnet_lite0"``, ``"timm:resnet50"``, ``"python:file.py:make"``, see
            :mod:`corruptbench.models`) or a :class:`~corruptbench.models.LoadedModel`, which bring
            their own preprocessing. A module runs in ``eval()`` mode under
            ``torch.inference_mode()``; its training flags and device are restored afterwards.
        data: An ImageNet-C folder, a CIFAR-10/100-C folder or a WebDataset shard folder of
            make-c / ``corruptbench convert`` (``shards.json``; layout detected), or
            :class:`~corruptbench.evaluation.layouts.OnTheFly` (a clean image folder, CIFAR batch or
            in-memory images corrupted in the loader exactly as make-c does; the clean error is
            then computed from it too).
        clean: Clean images for the clean error of stored data (ImageNet folder:
            ``Resize(256)+CenterCrop(224)``; CIFAR: a batch file or a folder of 32 x 32 class
            sub-folders).
        corruptions: Names or subsets (``benchmark``, ``extra``, ``all``, a family); default all 19.
        severities: Subset of 1..5 (default all five).
        mean, std: Per-channel normalisation of a module / callable's input (after ``/255``).
        input_size: Its input size: images that are not ``input_size`` square are resized
            (bilinear); ImageNet-C images are 224 already.
        device: Where the model runs (default: the device of the module's parameters, else
            ``"cpu"``); a module elsewhere is moved there for the run and back afterwards.
        batch_size: Images per model call.
        limit: Use at most this many images per cell (a seeded subset, the same images per cell).
        seed: Base seed of on-the-fly corruption (as ``make-c --seed``) and of the ``limit`` subset.
        profile: Parameter profile for on-the-fly/clean preparation (default: detected).
        baseline: ``auto`` (AlexNet for ImageNet, uniform for CIFAR), ``alexnet``, ``uniform`` or an
            eval-c results file of the baseline model.
        corrupt_on: On-the-fly only. ``workers``: CPU data-loader workers, the exact make-c
            pixels; ``device``: the model's device with :func:`corruptbench.torch.corrupt_batch`
            (fast on a GPU; seeded per batch, not make-c's bytes); ``auto``: device on CUDA.
        name: The model's id in the results and reports (default: a module's class name, a
            source's own id).
        progress: The progress display (:func:`corruptbench.progress.progress`): ``True`` /
            ``"auto"`` is a bar in a notebook's output or on a terminal, plain lines every ~10 s
            otherwise (a log file); ``False`` / ``"off"`` nothing; or ``"bar"``, ``"lines"``.
        run: Loader workers, threads, results file (resume), per-cell log lines. The workers are
            new processes that import the caller's script: in a script, call this under
            ``if __name__ == "__main__":``.

    Returns:
        The :class:`~corruptbench.results.Results` (also written to ``run.out`` when given).

    Examples:
        >>> import corruptbench
        >>> res = corruptbench.evaluate_c(net, "ImageNet-C/", clean="val/")  # doctest: +SKIP
        >>> res.mce, res.relative_mce  # doctest: +SKIP
        >>> res = corruptbench.evaluate_c(  # doctest: +SKIP
        ...     net, corruptbench.OnTheFly(x_test, labels=y_test), corruptions=["fog"], input_size=32
        ... )
    """
    loaded = resolve_model(
        model, mean=mean, std=std, input_size=input_size, device=device, name=name
    )
    with evaluation_mode(loaded, device):
        loaded.require_num_classes()
        return _evaluate_c(
            loaded,
            data,
            clean=clean,
            corruptions=corruptions,
            severities=SEVERITIES if severities is None else severities,
            batch_size=batch_size,
            limit=limit,
            seed=seed,
            profile=profile,
            baseline=baseline,
            corrupt_on=corrupt_on,
            progress=progress,
            run=run,
        )


def _evaluate_c(
    model: LoadedModel,
    data: DataArg,
    *,
    clean: str | os.PathLike[str] | None,
    corruptions: Sequence[str] | None,
    severities: Sequence[int],
    batch_size: int,
    limit: int | None,
    seed: int,
    profile: str | None,
    baseline: str,
    corrupt_on: str,
    progress: bool | str,
    run: RunOptions,
) -> Results:
    t0 = time.perf_counter()
    log = run.log or (lambda _m: None)
    names = check_names(corruptions, ALL_CORRUPTIONS, "corruption")
    try:
        sevs = sorted({check_severity(s) for s in severities})
    except (TypeError, ValueError):
        sevs = []
    if not sevs:
        raise EvalError(f"severities must be in 1..5, got {list(severities)}")
    if limit is not None and limit < 1:
        raise EvalError(Arg("limit"), f" must be positive, got {limit}")
    nc = model.num_classes
    if corrupt_on not in ("auto", "workers", "device"):
        raise EvalError(f"corrupt_on must be auto, workers or device, got {corrupt_on!r}")
    on_the_fly = isinstance(data, OnTheFly)
    on_device = on_the_fly and (
        corrupt_on == "device" or (corrupt_on == "auto" and model.device.startswith("cuda"))
    )
    if on_device:
        require_torch_backend()
        if model.preprocessing.enhance != "none":
            raise EvalError(
                Arg("enhance"),
                " clahe runs on the CPU: use ",
                Arg("corrupt_on"),
                " workers with it",
            )
    layout = open_c_layout(data, Selection(names, sevs, limit, seed), nc, profile)
    if on_device:
        assert isinstance(layout, OnTheFlyC)
        layout.on_device()
    clean_set = None
    if clean is not None:
        if on_the_fly:
            raise EvalError(
                Arg("clean"),
                " is implied by ",
                Arg("on_the_fly", python="OnTheFly data"),
                " (its clean error is computed from SRC)",
            )
        clean_set = CleanImages.open(clean, layout, nc, limit, seed)
        layout.fingerprints["clean"] = clean_set.fingerprint
    want: list[Cell] = list(layout.cells) + ([CLEAN] if on_the_fly or clean_set is not None else [])

    out_p = Path(run.out) if run.out is not None else None
    prev = load_previous(out_p, "c", model, run.overwrite)
    tally: Tally = {}
    prev_time = 0.0
    if prev is not None:
        tally = _resumed(prev, want, layout.fingerprints, limit, seed)
        prev_time = float(prev.get("time_s") or 0.0)
        if tally:
            log(
                f"resuming {out_p}: {len(tally)} finished cells kept (not recomputed), {len(want) - len(tally)} to do"
            )
    cells: list[Cell] = []
    items: list[LoadItem] = []
    for cell in (c for c in want if c not in tally):
        cid = len(cells)
        cells.append(cell)
        if cell == CLEAN and clean_set is not None:
            of_cell = clean_set.cell_items()
        else:
            of_cell = layout.items(cell)
        items.extend(LoadItem(reader, cid, label, payload) for reader, label, payload in of_cell)

    extra_notes: list[str] = []
    skipped: dict[Cell, int] = {}
    run_info = {
        "limit": limit,
        "seed": seed,
        "batch_size": batch_size,
        "cell_fingerprints": dict(layout.fingerprints),
        "resumed_cells": len(tally),
        "finished": False,
    }

    def results(finished: bool) -> Results:
        notes = list(extra_notes)
        if skipped:
            notes.append(
                "unreadable inputs skipped (not counted): "
                + ", ".join(f"{cell_key(c)} {n}" for c, n in skipped.items())
            )
        run_info["finished"] = finished
        elapsed = prev_time + time.perf_counter() - t0
        return _c_results(model, layout, names, tally, baseline, elapsed, notes, run_info)

    if out_p is not None and prev is None:
        results(False).to_json(out_p)  # fail early on an unwritable out
    remaining = [0] * len(cells)
    for it in items:
        remaining[it.cell] += 1
    started = [time.perf_counter()] * len(cells)
    nw, nthreads = plan_resources(
        model.device, heavy=layout.heavy, workers=run.workers, threads=run.threads
    )
    log(
        f"eval-c: {model.id} on {layout.root} ({layout.name}, profile {layout.profile}): "
        f"{len(cells)} cells, {len(items)} images, {nw} workers, "
        f"{nthreads or 'default'} model threads"
    )
    if layout.missing:
        log(f"  {len(layout.missing)} requested cells absent from the data (reported as missing)")
    for cell in cells:
        tally.setdefault(cell, [0, 0, 0])

    def finish(cid: int) -> None:
        cell = cells[cid]
        t = tally[cell]
        err = 1.0 - t[0] / t[1] if t[1] else float("nan")
        log(
            f"  {cell_key(cell):<24} error {err:.4f}  ({t[1]} images, {time.perf_counter() - started[cid]:.1f} s)"
        )
        if cid + 1 < len(cells):
            started[cid + 1] = time.perf_counter()
        if out_p is not None:
            results(False).to_json(out_p)

    if not items:
        log("  nothing to evaluate: every requested cell is already in the results file")
    batches = (
        predict_batches(
            model,
            items,
            batch_size=batch_size,
            workers=nw,
            threads=nthreads,
            on_device=DeviceCorruptor(cells, layout.profile, seed) if on_device else None,
        )
        if items
        else []
    )

    def count(logits: Any, y: Any, c: Any, bad: list[tuple[int, str]]) -> None:
        done_cells: set[int] = set()
        for cid, reason in bad:
            cell = cells[cid]
            skipped[cell] = skipped.get(cell, 0) + 1
            tally[cell][2] += 1
            remaining[cid] -= 1
            if skipped[cell] <= 3:
                log(f"  skipped an unreadable input in {cell_key(cell)}: {reason}")
            if remaining[cid] == 0:
                done_cells.add(cid)
        if logits is not None:
            nc_out = logits.shape[1]
            if int(y.max()) >= nc_out:
                raise EvalError(f"label {int(y.max())} but the model outputs {nc_out} logits")
            correct = (logits.argmax(1) == y).numpy()
            for cid in np.unique(c.numpy()):
                m = c.numpy() == cid
                cell = cells[int(cid)]
                tally[cell][0] += int(correct[m].sum())
                tally[cell][1] += int(m.sum())
                remaining[int(cid)] -= int(m.sum())
                if remaining[int(cid)] == 0:
                    done_cells.add(int(cid))
        for cid in sorted(done_cells):
            finish(cid)

    mode = progress if items else "off"
    with make_progress(len(items), f"eval-c {model.id}", unit="images", mode=mode) as bar:
        for logits, y, c, bad in batches:
            count(logits, y, c, bad)
            this = bad[0][0] if bad else int(c[0])  # a batch never spans two cells
            n_done = len(bad) + (0 if logits is None else len(c))
            bar.advance(n_done, label=f"eval-c {cell_key(cells[this])}")
    tally = {k: v for k, v in tally.items() if v[1] > 0}
    res = results(True)
    if out_p is not None:
        res.to_json(out_p)
    return res


def _resumed(
    prev: dict[str, Any],
    want: list[Cell],
    fingerprints: dict[str, str],
    limit: int | None,
    seed: int,
) -> Tally:
    """The finished cells of a previous results file whose data fingerprint, limit and seed match."""
    tally: Tally = {}
    old_fp = prev.get("run", {}).get("cell_fingerprints", {})
    same_run = prev.get("run", {}).get("limit") == limit and prev.get("run", {}).get("seed") == seed
    for cell in want:
        key = cell_key(cell)
        if not same_run or old_fp.get(key) != fingerprints.get(key):
            continue
        if cell == CLEAN:
            e, n = prev.get("clean_error"), prev.get("clean_count")
        else:
            e = (prev.get("errors", {}).get(cell[0]) or [None] * 5)[cell[1] - 1]
            n = (prev.get("counts", {}).get(cell[0]) or [None] * 5)[cell[1] - 1]
        if e is not None and n:
            tally[cell] = [int(round((1.0 - e) * n)), int(n), 0]
    return tally


def _baseline_arg(baseline: str, auto: str) -> tuple[Any, float | None, str]:
    """``baseline`` -> (summarize_c baseline, baseline clean error, name for the results file);
    ``auto``: the layout's default baseline."""
    b = (baseline or "auto").strip()
    if b.lower() == "auto":
        b = auto
    if b.lower() in ("alexnet", "uniform"):
        return b.lower(), None, b.lower()
    p = Path(b)
    if not p.is_file():
        raise EvalError(
            Arg("baseline"),
            f" must be alexnet, uniform or a results JSON file; {b!r} is none of these",
        )
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        errs = data["errors"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise EvalError(
            Arg("baseline"), f" {p}: not an eval-c results file with 'errors' ({exc})"
        ) from None
    complete = {
        k: v
        for k, v in errs.items()
        if isinstance(v, list) and len(v) == 5 and all(x is not None for x in v)
    }
    if not complete:
        raise EvalError(Arg("baseline"), f" {p}: no corruption with all 5 severities")
    return complete, data.get("clean_error"), str(p)


def _c_results(
    model: LoadedModel,
    layout: Layout,
    corruptions: list[str],
    tally: Tally,
    baseline: str,
    elapsed: float,
    extra_notes: list[str],
    run: dict[str, Any],
) -> Results:
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
    clean = tally.get(CLEAN)
    clean_error = 1.0 - clean[0] / clean[1] if clean and clean[1] else None
    base, base_clean, base_name = _baseline_arg(baseline, layout.default_baseline)
    summary = summarize_c(
        errors, clean_error=clean_error, baseline=base, baseline_clean_error=base_clean
    )
    notes = list(layout.notes) + list(extra_notes)
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
    return Results(
        kind="c",
        model=model.info(),
        dataset=DatasetInfo(
            path=str(layout.root),
            layout=layout.name,
            profile=layout.profile,
            fingerprint=layout.fingerprint(),
            num_images=layout.images_per_cell,
            notes=notes,
        ),
        c=CResults(
            errors=errors,
            clean_error=clean_error,
            ce={c: summary.ce.get(c) for c in corruptions},
            relative_ce={c: summary.relative_ce.get(c) for c in corruptions},
            mce=summary.mce,
            relative_mce=summary.relative_mce,
            mean_error=summary.mean_error,
            extra_mean_error=summary.extra_mean_error,
            baseline=base_name,
            partial=bool(summary.partial),
            missing=list(summary.missing),
            counts=counts,
            clean_count=clean[1] if clean and clean[1] else None,
        ),
        versions=library_versions(),
        time_s=round(elapsed, 3),
        created=now(),
        run=run,
    )

"""eval-p: flip probability, top-5 distance and Zipf distance per perturbation of one model, and the
calibration of its softmax on the sequences' clean frames (:mod:`.calibration`)."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import Arg, ArgumentError
from ..grid import GridError, check_levels, resolve_names
from ..metrics import (
    flip_probability,
    is_noise_perturbation,
    summarize_p,
    top5_distance,
    zipf_distance,
)
from ..models import IMAGENET_MEAN, IMAGENET_STD, LoadedModel
from ..models.adapt import ModelLike, evaluation_mode, resolve_model
from ..perturbations import ALL_PERTURBATIONS
from ..progress import progress as make_progress
from ..results import (
    Baseline,
    CalibrationResults,
    DatasetInfo,
    PResults,
    Results,
    library_versions,
    now,
    resolve_baseline,
)
from .calibration import (
    DEFAULT_BINS,
    CellCalibration,
    check_ece_bins,
    clean_frame_labels,
    frame_key,
    require_finite,
)
from .common import EvalError, RunOptions, check_verify_shards
from .layouts import DataArg, Layout, OnTheFly, Selection, open_p_layout
from .loader import LoadItem, plan_resources, predict_batches
from .outputs import ClassMap, adapt_outputs
from .resume import load_previous

__all__ = ["evaluate_p"]

Sums = dict[str, list[float]]  #: perturbation -> [FP * n, T5D * n, Zipf * n, n]


def evaluate_p(
    model: ModelLike,
    data: DataArg,
    *,
    perturbations: Sequence[str] | None = None,
    difficulty: int = 1,
    mean: Sequence[float] = IMAGENET_MEAN,
    std: Sequence[float] = IMAGENET_STD,
    input_size: int = 224,
    device: str | None = None,
    batch_size: int = 64,
    limit: int | None = None,
    seed: int = 0,
    profile: str | None = None,
    baseline: str | os.PathLike[str] | None = None,
    name: str | None = None,
    ece_bins: int = DEFAULT_BINS,
    progress: bool | str = True,
    run: RunOptions = RunOptions(),  # noqa: B008 - frozen
    verify_shards: str = "hash",
    outputs: str = "logits",
    class_map: ClassMap | None = None,
) -> Results:
    """Evaluate ``model`` on ImageNet-P style sequences: flip probability (FP), top-5 distance
    (T5D) and Zipf distance per perturbation; mFR / mT5D with a baseline (``eval-p`` calls this).
    Where the sequences have classes, the calibration of the clean frames too: frame 0 of the
    perturbations that start with the clean image
    (:data:`~corruptbench.perturbations.CLEAN_FIRST_FRAME`), in ``Results.calibration``.

    Args:
        model: As in :func:`~corruptbench.evaluation.evaluate_c`: a ``torch.nn.Module``, a callable
            from a normalised float batch to logits, a model source string or a
            :class:`~corruptbench.models.LoadedModel` (eval mode, inference mode, device and
            training flags restored afterwards).
        data: An ImageNet-P folder (``<p>[_<d>]/<wnid>/*.mp4``) or a CIFAR-10-P folder
            (``<p>.npy`` / ``<p>_<d>.npy``), a WebDataset shard folder of make-p
            (``shards.json``), or :class:`~corruptbench.evaluation.layouts.OnTheFly`
            (clean images turned into sequences with :func:`corruptbench.perturb` in the workers,
            make-p's seeding; no labels needed).
        perturbations: Names or groups (``test``, ``validation``, ``all``); default all 14.
        difficulty: 1, 2 or 3. The noise perturbations read their ``_<d>`` dataset; the others
            use it as the frame stride (hendrycks/robustness ImageNet-P/test.py:257-273).
        mean, std, input_size: Preprocessing of a module / callable (see ``evaluate_c``).
        device: Where the model runs (default: the module's device, else ``"cpu"``).
        batch_size: Frames per model call: ``max(1, batch_size // T)`` sequences.
        limit: At most this many sequences per perturbation (a seeded subset).
        seed: Base seed of on-the-fly sequences (as ``make-p --seed``) and of ``limit``.
        profile: Parameter profile (default: ``imagenet``, ``cifar`` for CIFAR data).
        baseline: An eval-p results file or CSV of the baseline model, for mFR / mT5D (see
            :func:`corruptbench.metrics.load_p_baseline`).
        name: The model's id in the results and reports (default: a module's class name, a
            source's own id).
        ece_bins: Bins of the clean frames' expected calibration error (default 15).
        outputs: ``"logits"`` (default) or ``"probabilities"`` (the model returns a softmax:
            its logarithm is used). A model whose outputs look like probabilities (every row
            non-negative, summing to 1) is refused as logits: its calibration would be wrong.
        class_map: The model output that stands for each of the data's classes (a list of ints
            or a file of them; ImageNet-R's ``indices_in_1k``): only those outputs are scored.
            Without one, data whose classes are not the model's (10 CIFAR classes on a
            1000-class model) is refused (:mod:`corruptbench.evaluation.outputs`).
        progress: The progress display (:func:`corruptbench.progress.progress`): ``True`` /
            ``"auto"`` is a bar in a notebook's output or on a terminal, plain lines every ~10 s
            otherwise (a log file); ``False`` / ``"off"`` nothing; or ``"bar"``, ``"lines"``.
        run: Loader workers, threads, results file (resumed per perturbation), log lines (the
            workers import the caller's script: guard it with ``if __name__ == "__main__":``).
        verify_shards: WebDataset shards only: ``"hash"`` (default: size, sample count and
            SHA-256 of every shard against ``shards.json``) or ``"count"`` (sizes and counts, for
            storage you trust; ``eval-p --trust-shards``); see ``evaluate_c``.

    Returns:
        The :class:`~corruptbench.results.Results` (also written to ``run.out`` when given).

    Raises:
        EvalError: a bad argument or data (before any work); NaN or infinite logits (naming the
            perturbation and batch; the results file keeps the finished perturbations).

    Examples:
        >>> import corruptbench
        >>> res = corruptbench.evaluate_p(net, "ImageNet-P/", baseline="alexnet-p.json")  # doctest: +SKIP
        >>> res.mfr, res.mt5d  # doctest: +SKIP
    """
    check_ece_bins(ece_bins)
    loaded = resolve_model(
        model, mean=mean, std=std, input_size=input_size, device=device, name=name
    )
    with evaluation_mode(loaded, device):
        loaded = adapt_outputs(loaded, outputs, class_map)  # checked before any data is read
        return _evaluate_p(
            loaded,
            data,
            ece_bins=ece_bins,
            perturbations=perturbations,
            difficulty=difficulty,
            batch_size=batch_size,
            limit=limit,
            seed=seed,
            profile=profile,
            baseline=baseline,
            verify_shards=verify_shards,
            progress=progress,
            run=run,
        )


def _plan_p(
    model: LoadedModel,
    data: DataArg,
    *,
    perturbations: Sequence[str] | None,
    difficulty: int,
    limit: int | None,
    seed: int,
    profile: str | None,
    baseline: str | os.PathLike[str] | None,
    verify_shards: str = "hash",
) -> tuple[Layout, Baseline | None, list[str]]:
    """Check every argument, open the data and resolve the baseline (before any work): the
    layout, the baseline and the notes about the data."""
    try:
        names = resolve_names("p", perturbations)
    except GridError as exc:
        raise EvalError(*exc.parts) from None
    try:
        check_levels("p", [difficulty])
    except GridError:
        raise EvalError(Arg("difficulty"), f" must be 1, 2 or 3, got {difficulty!r}") from None
    try:
        base = None if baseline is None else resolve_baseline(baseline, need="p")
    except ArgumentError as exc:
        raise EvalError(*exc.parts) from None
    notes: list[str] = []
    if isinstance(data, OnTheFly) and model.device.startswith("cuda"):
        notes.append("sequences generated by CPU workers")
    # in the reference order (that of results files and reports); every perturbation at the one
    # difficulty: the noise ones read their _<d> dataset, the others use it as the frame stride
    ordered = [p for p in ALL_PERTURBATIONS if p in names]
    sel = Selection(
        ordered, [difficulty], limit, seed, verify_shards=check_verify_shards(verify_shards)
    )
    layout = open_p_layout(data, sel, profile, notes)
    return layout, base, notes


def _frames_hint(name: str, profile: str) -> int:
    """Frames per sequence of ``name`` (to size batches); 41, the longest, if unknown."""
    from ..perturbations import frame_count

    try:
        return frame_count(name, profile)
    except Exception:  # noqa: BLE001 - unknown profile: assume the longest sequences
        return 41


def _evaluate_p(
    model: LoadedModel,
    data: DataArg,
    *,
    difficulty: int,
    batch_size: int,
    limit: int | None,
    seed: int,
    ece_bins: int,
    progress: bool | str,
    run: RunOptions,
    **choices: Any,
) -> Results:
    t0 = time.perf_counter()
    log = run.log or (lambda _m: None)
    layout, base, notes = _plan_p(
        model, data, difficulty=difficulty, limit=limit, seed=seed, **choices
    )
    missing = [p for p, _ in layout.missing]
    top_notes = [f"missing perturbations: {', '.join(missing)}"] if missing else []
    labels, calibration_notes = clean_frame_labels(layout, model.num_classes)
    layout.notes.extend(calibration_notes)
    calib = CellCalibration(ece_bins)
    out_p = Path(run.out) if run.out is not None else None
    prev = load_previous(out_p, "p", model, run.overwrite)
    sums = (
        _resumed(prev, layout, limit, seed, difficulty, calib, set(labels))
        if prev is not None
        else {}
    )
    prev_time = (prev.time_s or 0.0) if prev is not None else 0.0
    if sums:
        log(f"resuming {out_p}: {len(sums)} finished perturbations kept (not recomputed)")
    todo = [cell for cell in layout.cells if cell[0] not in sums]
    run_info = {
        "limit": limit,
        "seed": seed,
        "batch_size": batch_size,
        "cell_fingerprints": layout.fingerprints,
        "resumed_cells": len(sums),
        "finished": False,
    }
    skipped: dict[str, int] = {}

    def results(finished: bool) -> Results:
        run_info["finished"] = finished
        extra = list(layout.notes)
        if skipped:
            extra.append(
                "unreadable sequences skipped: " + ", ".join(f"{k} {v}" for k, v in skipped.items())
            )
        elapsed = prev_time + time.perf_counter() - t0
        part = calib.part([frame_key(p) for p in ALL_PERTURBATIONS if p in sums])
        return _p_results(
            model, layout, difficulty, sums, base, elapsed, extra, run_info, top_notes, part
        )

    nw, nthreads = plan_resources(
        model.device,
        corrupts_in_loader=layout.corrupts_in_loader,
        workers=run.workers,
        threads=run.threads,
    )
    log(
        f"eval-p: {model.id} on {layout.root} ({layout.name}, difficulty {difficulty}): {len(todo)} perturbations, {nw} workers"
    )
    work = [
        (
            cell,
            [
                LoadItem(reader, 0, label, payload)
                for (reader, _, payload), label in zip(
                    layout.items(cell), labels.get(cell.name) or [0] * len(layout.items(cell))
                )
            ],
        )
        for cell in todo
    ]
    total = sum(len(items) for _, items in work)
    mode = progress if total else "off"
    with make_progress(total, f"eval-p {model.id}", unit="sequences", mode=mode) as bar:
        for (p, _), items in work:
            t_cell = time.perf_counter()
            per_batch = max(1, batch_size // _frames_hint(p, layout.profile))
            batches = predict_batches(
                model, items, batch_size=per_batch, workers=nw, threads=nthreads
            )
            try:
                acc = _sequence_sums(
                    p, difficulty, batches, bar, skipped, calib if p in labels else None
                )
            except EvalError as exc:
                n = len(sums)
                kept = f"; {out_p} keeps the {n} finished perturbation{'s' * (n != 1)}"
                raise EvalError(f"{exc}{kept if out_p else ''}") from None
            if acc[3] == 0:
                top_notes.append(f"{p}: no readable sequence")
                continue
            sums[p] = acc
            log(
                f"  {p:<16} FP {acc[0] / acc[3]:.4f}  T5D {acc[1] / acc[3]:.3f}  ({acc[3]} sequences, {time.perf_counter() - t_cell:.1f} s)"
            )
            if out_p is not None:
                results(False).to_json(out_p)
    if not sums:
        raise EvalError("no sequence could be evaluated")
    res = results(True)
    if out_p is not None:
        res.to_json(out_p)
    return res


def _sequence_sums(
    p: str,
    difficulty: int,
    batches: Any,
    bar: Any,
    skipped: dict[str, int],
    calib: CellCalibration | None = None,
) -> list[float]:
    """``[FP * n, T5D * n, Zipf * n, n]`` of one perturbation's sequences (unreadable ones are
    counted in ``skipped``); with ``calib``, frame 0 of each sequence (the clean image) is added
    to the calibration statistics of ``"<p>/0"``.

    Raises:
        EvalError: NaN or infinite logits, naming the perturbation and the batch.
    """
    noise = is_noise_perturbation(p)
    acc = [0.0, 0.0, 0.0, 0]
    for k, (logits, y, _c, bad) in enumerate(batches, 1):
        bar.advance(len(bad) + (0 if logits is None else int(logits.shape[0])), label=f"eval-p {p}")
        if bad:
            skipped[p] = skipped.get(p, 0) + len(bad)
        if logits is None:
            continue
        require_finite(logits, f"perturbation {p}, batch {k}")
        if calib is not None:
            calib.update(frame_key(p), logits[:, 0], y)
        arr = logits.numpy()
        n = arr.shape[0]
        acc[0] += flip_probability(arr.argmax(-1), noise=noise, difficulty=difficulty) * n
        acc[1] += top5_distance(arr, noise=noise, difficulty=difficulty) * n
        acc[2] += zipf_distance(arr, noise=noise, difficulty=difficulty) * n
        acc[3] += n
    return acc


def _resumed(
    prev: Results,
    layout: Layout,
    limit: int | None,
    seed: int,
    difficulty: int,
    calib: CellCalibration,
    calibrated: set[str],
) -> Sums:
    """The finished perturbations of a previous results file whose fingerprint, limit, seed and
    difficulty match, and which hold the calibration statistics of their clean frames when
    ``calibrated`` lists them (restored into ``calib``)."""
    sums: Sums = {}
    prun = prev.run or {}
    p = prev.p
    if p is None or prun.get("limit") != limit or prun.get("seed") != seed:
        return sums
    if p.difficulty != difficulty:
        return sums
    fingerprints = prun.get("cell_fingerprints", {})
    for name, _ in layout.cells:
        if fingerprints.get(name) == layout.fingerprints[name] and name in p.flip_probability:
            n = int(p.num_sequences[name])
            if name in calibrated and not calib.restore(prev.calibration, frame_key(name), n):
                continue
            sums[name] = [
                p.flip_probability[name] * n,
                p.top5_distance[name] * n,
                p.zipf_distance[name] * n,
                n,
            ]
    return sums


def _p_results(
    model: LoadedModel,
    layout: Layout,
    difficulty: int,
    sums: Sums,
    baseline: Baseline | None,
    elapsed: float,
    notes: list[str],
    run: dict[str, Any],
    top_notes: list[str],
    calibration: CalibrationResults | None = None,
) -> Results:
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
        s = baseline.summarize_p(fp, t5d) if baseline is not None else summarize_p(fp, t5d)
        if baseline is not None:
            fr, t5r = dict(s.fr), dict(s.t5d_ratio)
            mfr, mt5d = s.mfr, s.mt5d
        if s.notes:
            all_notes.append(s.notes)
    return Results(
        kind="p",
        model=model.info(),
        dataset=DatasetInfo(
            path=str(layout.root),
            layout=layout.name,
            profile=layout.profile,
            fingerprint=layout.fingerprint(),
            content_fingerprint=layout.content_fingerprint(),
            num_images=layout.images_per_cell,
            notes=list(notes),
        ),
        p=PResults(
            flip_probability=fp,
            top5_distance=t5d,
            zipf_distance=zipf,
            num_sequences=nseq,
            difficulty=difficulty,
            baseline=None if baseline is None else baseline.name,
            flip_rate=fr,
            t5d_ratio=t5r,
            mfr=mfr,
            mt5d=mt5d,
            notes=all_notes,
        ),
        calibration=calibration,
        versions=library_versions(),
        time_s=round(elapsed, 3),
        created=now(),
        run=run,
    )

"""eval-p: flip probability, top-5 distance and Zipf distance per perturbation of one model, and the
calibration of its softmax on the sequences' clean frames (:mod:`.calibration`)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import Arg, ArgumentError
from ..grid import Cell, GridError, check_levels, resolve_names
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
from .resume import RunState

__all__ = ["evaluate_p"]


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


@dataclass
class _Sums:
    """Flip probability, top-5 distance and Zipf distance summed over one perturbation's
    sequences (each metric times the sequences of its batch), and the number of sequences."""

    fp: float = 0.0
    t5d: float = 0.0
    zipf: float = 0.0
    n: int = 0

    def add(self, logits: np.ndarray, noise: bool, difficulty: int) -> None:
        """Add one batch of ``(sequences, frames, classes)`` logits."""
        k = logits.shape[0]
        self.fp += flip_probability(logits.argmax(-1), noise=noise, difficulty=difficulty) * k
        self.t5d += top5_distance(logits, noise=noise, difficulty=difficulty) * k
        self.zipf += zipf_distance(logits, noise=noise, difficulty=difficulty) * k
        self.n += k

    @classmethod
    def stored(cls, p: PResults, name: str) -> _Sums:
        """The sums a results file's means and sequence count give back."""
        n = int(p.num_sequences[name])
        return cls(
            p.flip_probability[name] * n, p.top5_distance[name] * n, p.zipf_distance[name] * n, n
        )


Sums = dict[str, _Sums]  #: perturbation -> its sums


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
    layout, base, _notes = _plan_p(
        model, data, difficulty=difficulty, limit=limit, seed=seed, **choices
    )
    missing = [p for p, _ in layout.missing]
    top_notes = [f"missing perturbations: {', '.join(missing)}"] if missing else []
    labels, calibration_notes = clean_frame_labels(layout, model.num_classes)
    layout.notes.extend(calibration_notes)
    calib = CellCalibration(ece_bins)
    state = RunState.start(
        "p",
        model,
        run,
        limit=limit,
        seed=seed,
        batch_size=batch_size,
        cell_fingerprints=layout.fingerprints,
    )
    sums = _resumed(state, layout, limit, seed, difficulty, calib, set(labels))
    state.info["resumed_cells"] = len(sums)
    if sums:
        state.log(f"resuming {state.out}: {len(sums)} finished perturbations kept (not recomputed)")
    skipped: dict[str, int] = {}

    def results(finished: bool) -> Results:
        extra = list(layout.notes)
        if skipped:
            extra.append(
                "unreadable sequences skipped: " + ", ".join(f"{k} {v}" for k, v in skipped.items())
            )
        part = calib.part([frame_key(p) for p in ALL_PERTURBATIONS if p in sums])
        return _p_results(
            model, layout, difficulty, sums, base, state.elapsed(), extra,
            state.run_entry(finished), top_notes, part,
        )  # fmt: skip

    work = _work(layout, [cell for cell in layout.cells if cell.name not in sums], labels)
    args = (model, layout, work, run, batch_size, difficulty, progress, calib, labels, skipped)
    try:
        for p, acc in _perturbations(*args):
            if acc.n == 0:
                top_notes.append(f"{p}: no readable sequence")
                continue
            sums[p] = acc
            state.save(results(False))
    except EvalError as exc:  # a bad batch: say what the results file keeps
        raise EvalError(*exc.parts, state.kept(len(sums), "perturbation")) from None
    if not sums:
        raise EvalError("no sequence could be evaluated")
    return state.save(results(True))


def _perturbations(
    model: LoadedModel,
    layout: Layout,
    work: list[tuple[Cell, list[LoadItem]]],
    run: RunOptions,
    batch_size: int,
    difficulty: int,
    progress: bool | str,
    calib: CellCalibration,
    labels: dict[str, list[int]],
    skipped: dict[str, int],
) -> Iterator[tuple[str, _Sums]]:
    """Run the model over each perturbation's sequences in turn; yield its sums (the caller
    saves the results between perturbations). A bad batch ends the run with an
    :class:`EvalError` (the caller says what the results file keeps)."""
    log = run.log or (lambda _m: None)
    nw, nthreads = plan_resources(
        model.device,
        corrupts_in_loader=layout.corrupts_in_loader,
        workers=run.workers,
        threads=run.threads,
    )
    log(
        f"eval-p: {model.id} on {layout.root} ({layout.name}, difficulty {difficulty}): "
        f"{len(work)} perturbations, {nw} workers"
    )
    total = sum(len(items) for _, items in work)
    mode = progress if total else "off"
    with make_progress(total, f"eval-p {model.id}", unit="sequences", mode=mode) as bar:
        for (p, _), items in work:
            t_cell = time.perf_counter()
            per_batch = max(1, batch_size // _frames_hint(p, layout.profile))
            batches = predict_batches(
                model, items, batch_size=per_batch, workers=nw, threads=nthreads
            )
            acc = _sequence_sums(
                p, difficulty, batches, bar, skipped, calib if p in labels else None
            )
            if acc.n:
                log(
                    f"  {p:<16} FP {acc.fp / acc.n:.4f}  T5D {acc.t5d / acc.n:.3f}  ({acc.n} "
                    f"sequences, {time.perf_counter() - t_cell:.1f} s)"
                )
            yield p, acc


def _work(
    layout: Layout, todo: Sequence[Cell], labels: dict[str, list[int]]
) -> list[tuple[Cell, list[LoadItem]]]:
    """The sequences of each perturbation to evaluate, labelled where their clean frame is
    calibrated (else 0: flip rates need no label)."""
    work = []
    for cell in todo:
        items = list(layout.items(cell))
        cell_labels = labels.get(cell.name) or [0] * len(items)
        work.append(
            (
                cell,
                [
                    LoadItem(reader, 0, label, payload)
                    for (reader, _, payload), label in zip(items, cell_labels)
                ],
            )
        )
    return work


def _sequence_sums(
    p: str,
    difficulty: int,
    batches: Any,
    bar: Any,
    skipped: dict[str, int],
    calib: CellCalibration | None = None,
) -> _Sums:
    """The sums of one perturbation's sequences (unreadable ones are counted in ``skipped``);
    with ``calib``, frame 0 of each sequence (the clean image) is added to the calibration
    statistics of ``"<p>/0"``.

    Raises:
        EvalError: NaN or infinite logits, naming the perturbation and the batch.
    """
    noise = is_noise_perturbation(p)
    acc = _Sums()
    for k, (logits, y, _c, bad) in enumerate(batches, 1):
        bar.advance(len(bad) + (0 if logits is None else int(logits.shape[0])), label=f"eval-p {p}")
        if bad:
            skipped[p] = skipped.get(p, 0) + len(bad)
        if logits is None:
            continue
        require_finite(logits, f"perturbation {p}, batch {k}")
        if calib is not None:
            calib.update(frame_key(p), logits[:, 0], y)
        acc.add(logits.numpy(), noise, difficulty)
    return acc


def _resumed(
    state: RunState,
    layout: Layout,
    limit: int | None,
    seed: int,
    difficulty: int,
    calib: CellCalibration,
    calibrated: set[str],
) -> Sums:
    """The finished perturbations of the resumed results file whose fingerprint, limit, seed and
    difficulty match, and which hold the calibration statistics of their clean frames when
    ``calibrated`` lists them (restored into ``calib``)."""
    fingerprints = state.matching(limit, seed)
    prev = state.previous
    if fingerprints is None or prev is None or prev.p is None or prev.p.difficulty != difficulty:
        return {}
    sums: Sums = {}
    for name, _ in layout.cells:
        if fingerprints.get(name) != layout.fingerprints[name]:
            continue
        if name not in prev.p.flip_probability:
            continue
        n = int(prev.p.num_sequences[name])
        if name in calibrated and not calib.restore(prev.calibration, frame_key(name), n):
            continue
        sums[name] = _Sums.stored(prev.p, name)
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
    done = {k: v for k, v in sums.items() if v.n > 0}
    order = [p for p in ALL_PERTURBATIONS if p in done]
    fp = {p: done[p].fp / done[p].n for p in order}
    t5d = {p: done[p].t5d / done[p].n for p in order}
    zipf = {p: done[p].zipf / done[p].n for p in order}
    nseq = {p: done[p].n for p in order}
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
        dataset=layout.dataset_info(notes),
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

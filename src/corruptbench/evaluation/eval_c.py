"""eval-c: top-1 error per corruption and severity, CE, mCE and relative mCE of one model, and the
calibration of its softmax per cell (NLL, Brier, ECE, top-5 error: :mod:`.calibration`); for the
corruptions of ImageNet-C-bar / CIFAR-10-C-bar (suite ``cbar``) the metric of test_c_bar.py
(:class:`~corruptbench.results.CBarResults`)."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import Arg, ArgumentError
from ..grid import (
    CLEAN,
    SEVERITIES,
    Cell,
    Grid,
    cell_key,
    reference_order,
    suite_of,
)
from ..models import IMAGENET_MEAN, IMAGENET_STD, LoadedModel
from ..models.adapt import ModelLike, evaluation_mode, resolve_model
from ..progress import progress as make_progress
from ..protocols import DEFAULT_PROTOCOL, EvalProtocol
from ..results import (
    Baseline,
    CBarResults,
    CResults,
    Results,
    resolve_baseline,
)
from .c_protocol import (
    check_protocol_model,
    check_protocol_profile,
    checked_suite,
    protocol_grid,
    protocol_images,
)
from .c_results import Tally, c_results
from .calibration import DEFAULT_BINS, CellCalibration, check_ece_bins
from .checks import baseline_notes
from .common import CORRUPT_ON, EvalError, RunOptions, check_verify_shards
from .device import DeviceCorruptor, require_torch_backend
from .layouts import (
    CleanImages,
    DataArg,
    Layout,
    OnTheFly,
    OnTheFlyC,
    Selection,
    detect_c,
    open_c_layout,
)
from .loader import LoadItem, plan_resources, predict_batches
from .outputs import ClassMap, adapt_outputs
from .resume import RunState

__all__ = ["evaluate_c"]


def evaluate_c(
    model: ModelLike,
    data: DataArg,
    *,
    clean: str | os.PathLike[str] | None = None,
    corruptions: Sequence[str] | None = None,
    severities: Sequence[int] | None = None,
    suite: str | None = None,
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
    protocol: str = DEFAULT_PROTOCOL,
    name: str | None = None,
    ece_bins: int = DEFAULT_BINS,
    progress: bool | str = True,
    run: RunOptions = RunOptions(),  # noqa: B008 - frozen
    verify_shards: str = "hash",
    outputs: str = "logits",
    class_map: ClassMap | None = None,
) -> Results:
    """Evaluate ``model`` on ImageNet-C style data: top-1 error per corruption and severity, CE,
    mCE and relative mCE, and the calibration of its softmax in every cell (NLL, Brier score,
    ECE, top-5 error, mean confidence: ``Results.calibration``) (``corruptbench evaluate_c`` is
    this function; so is ``eval-c``).

    Args:
        model: A ``torch.nn.Module`` or any callable from a normalised float batch
            ``(N, 3, input_size, input_size)`` to logits ``(N, classes)``; or a model source string
            (``"efficientnet_lite0"``, ``"timm:resnet50"``, ``"python:file.py:make"``, see
            :mod:`corruptbench.models`) or a :class:`~corruptbench.models.LoadedModel`, which bring
            their own preprocessing. A module runs in ``eval()`` mode under
            ``torch.inference_mode()``; its training flags and device are restored afterwards.
        data: An ImageNet-C, CIFAR-10/100-C or WebDataset shard folder (layout detected), or
            :class:`~corruptbench.evaluation.layouts.OnTheFly` (clean images corrupted in the
            loader exactly as make-c does; the clean error comes from them too).
        clean: Clean images for the clean error of stored data (ImageNet folder:
            ``Resize(256)+CenterCrop(224)``; CIFAR: a batch file or a folder of 32 x 32 class
            sub-folders).
        corruptions: Names or subsets of ``suite`` (``benchmark``, ``extra``, ``all``, a family,
            ``imagenet_c_bar``, ``cifar10_c_bar``); default the protocol's, for ``cbar`` the data
            profile's benchmark (:func:`corruptbench.grid.default_subset`).
        severities: Subset of 1..5 (default all five).
        suite: ``imagenet_c`` or ``cbar`` (ImageNet-C-bar / CIFAR-10-C-bar, Mintun et al. 2021);
            default the data's (:func:`~corruptbench.evaluation.layouts.detect_c`). It decides the
            default corruptions and subsets; each corruption's results go to its suite's part
            (``Results.c``: CE, mCE; ``Results.cbar``: test_c_bar.py's errors and means). C-bar
            level folders may be ``1``..``5`` or the levels (``2.35``).
        mean, std: Per-channel normalisation of a module / callable's input (after ``/255``).
        input_size: Its input size (other sizes are resized, bilinear).
        device: Where the model runs (default: its parameters' device, else ``"cpu"``; moved back after).
        batch_size: Images per model call.
        limit: At most this many images per cell (a seeded subset, the same in every cell).
        seed: Base seed of on-the-fly corruption (as ``make-c --seed``) and of the ``limit`` subset.
        profile: Parameter profile for on-the-fly/clean preparation (default: detected).
        baseline: ``auto`` (AlexNet for ImageNet, else uniform), ``alexnet``, ``uniform``, a file.
        corrupt_on: On-the-fly only. ``workers``: CPU loader workers, make-c's exact pixels;
            ``device``: :func:`corruptbench.torch.corrupt_batch` on the model's device (seeded per
            batch, not make-c's bytes); ``auto``: device on CUDA.
        protocol: ``full`` (the paper's: every image, 19 corruptions, mCE) or ``robustbench``
            (its leaderboard's 5,000 listed images in every cell and the clean folder, the 15
            benchmark corruptions, 224 px, no crop, no ``limit``; adds ``clean_acc``, ``corruptions_acc``):
            :mod:`corruptbench.protocols`. The results' ``dataset.protocol`` names it.
        name: The model's id in the results (default: a module's class name, a source's id).
        ece_bins: Equal-width confidence bins of the ECE (default 15, as google/robustness_metrics;
            Ovadia et al. 2019's 30 is stored too: ``res.calibration.stats["fog/3"].ece(bins=30)``).
        outputs: ``"logits"`` (default) or ``"probabilities"`` (the model returns a softmax:
            its logarithm is used). A model whose outputs look like probabilities (every row
            non-negative, summing to 1) is refused as logits: its calibration would be wrong.
        class_map: The model output that stands for each of the data's classes (a list of ints
            or a file of them; ImageNet-R's ``indices_in_1k``): only those outputs are scored.
            Without one, data whose classes are not the model's (10 CIFAR classes on a
            1000-class model) is refused (:mod:`corruptbench.evaluation.outputs`).
        progress: :func:`corruptbench.progress.progress`: ``True`` / ``"auto"`` (a bar in a
            notebook or terminal, else lines every ~10 s), ``False`` / ``"off"``, ``"bar"``, ``"lines"``.
        run: Loader workers, threads, results file (resume), per-cell log lines. The workers are
            new processes that import the caller's script: in a script, call this under
            ``if __name__ == "__main__":``.
        verify_shards: WebDataset shards: ``"hash"`` (default) checks each requested shard's size,
            sample count and SHA-256 against ``shards.json`` (cost: ``benchmarks/shard_verify.py``)
            and refuses one that differs; ``"count"`` sizes and counts only (``--trust-shards``).

    Returns:
        The :class:`~corruptbench.results.Results` (also written to ``run.out`` when given).

    Raises:
        EvalError: a bad argument or data (before any work: also an unfinished make-c build and
            cells that hold different images, :mod:`.layouts.same_images`); a batch whose logits
            are NaN or infinite (naming its cell and batch; the results file keeps the finished
            cells).

    Examples:
        >>> import corruptbench
        >>> res = corruptbench.evaluate_c(net, "ImageNet-C/", clean="val/")  # doctest: +SKIP
        >>> res.mce, res.relative_mce  # doctest: +SKIP
        >>> res = corruptbench.evaluate_c(  # doctest: +SKIP
        ...     net, corruptbench.OnTheFly(x_test, labels=y_test), corruptions=["fog"], input_size=32
        ... )
    """
    check_ece_bins(ece_bins)
    loaded = resolve_model(
        model, mean=mean, std=std, input_size=input_size, device=device, name=name
    )
    with evaluation_mode(loaded, device):
        loaded = adapt_outputs(loaded, outputs, class_map)  # checked before any data is read
        return _evaluate_c(
            loaded,
            data,
            ece_bins=ece_bins,
            clean=clean,
            corruptions=corruptions,
            severities=severities,
            suite=suite,
            batch_size=batch_size,
            limit=limit,
            seed=seed,
            profile=profile,
            baseline=baseline,
            corrupt_on=corrupt_on,
            protocol=protocol,
            verify_shards=verify_shards,
            progress=progress,
            run=run,
        )


@dataclass
class _CPlan:
    """Everything eval-c decided before any work: the grid, the data, the clean images, the
    baseline (every argument is checked here, so a bad one fails before the first image)."""

    grid: Grid
    layout: Layout
    clean_set: CleanImages | None
    baseline: Baseline
    on_device: bool
    limit: int | None
    seed: int
    protocol: EvalProtocol

    @property
    def want(self) -> list[Cell]:
        """The cells to report: those present in the data, then the clean cell if measured."""
        has_clean = isinstance(self.layout, OnTheFlyC) or self.clean_set is not None
        return list(self.layout.cells) + ([CLEAN] if has_clean else [])

    def cell_items(self, cell: Cell) -> list[Any]:
        """``(reader, label, payload)`` of one cell's images."""
        if cell == CLEAN and self.clean_set is not None:
            return list(self.clean_set.cell_items())
        return list(self.layout.items(cell))


def _plan_c(
    model: LoadedModel,
    data: DataArg,
    *,
    clean: str | os.PathLike[str] | None,
    corruptions: Sequence[str] | None,
    severities: Sequence[int] | None,
    limit: int | None,
    seed: int,
    profile: str | None,
    baseline: str,
    corrupt_on: str,
    protocol: str,
    verify_shards: str = "hash",
    suite: str | None = None,
) -> _CPlan:
    if isinstance(data, OnTheFly):
        data = OnTheFly(data.open())  # opened once: the profile is read from it before the plan
    found = detect_c(data)
    suite = found.suite if suite is None else checked_suite(suite)
    proto, grid = protocol_grid(protocol, corruptions, severities, suite, profile or found.profile)
    check_protocol_model(proto, model)
    if limit is not None and limit < 1:
        raise EvalError(Arg("limit"), f" must be positive, got {limit}")
    if limit is not None and proto.fixed:
        raise EvalError(
            Arg("limit"),
            f" draws a subset, but protocol {proto.name} evaluates a fixed set of images: drop ",
            Arg("limit"),
            " or use ",
            Arg("protocol", "full", python='protocol="full"'),
        )
    if corrupt_on not in CORRUPT_ON:
        raise EvalError(Arg("corrupt_on"), f" must be {', '.join(CORRUPT_ON)}, got {corrupt_on!r}")
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
    if clean is not None and on_the_fly:
        raise EvalError(
            Arg("clean"),
            " is implied by ",
            Arg("on_the_fly", python="OnTheFly data"),
            " (its clean error is computed from SRC)",
        )
    # the names in the reference order: the order results files and reports use
    names = list(reference_order(grid.names))
    images = protocol_images(proto)
    sel = Selection(
        names,
        list(grid.levels),
        limit,
        seed,
        images,
        verify_shards=check_verify_shards(verify_shards),
    )
    layout = open_c_layout(found, sel, model.num_classes, profile)
    check_protocol_profile(proto, layout)
    try:
        base = resolve_baseline(baseline, auto=layout.default_baseline, need="c")
    except ArgumentError as exc:
        raise EvalError(*exc.parts) from None
    if on_device:
        assert isinstance(layout, OnTheFlyC)
        layout.on_device()
    clean_set = None
    if clean is not None:
        clean_set = CleanImages.open(clean, layout, model.num_classes, limit, seed, images)
        layout.fingerprints["clean"] = clean_set.fingerprint
    layout.notes.extend(baseline_notes(base, layout, proto.name))
    if proto.name != DEFAULT_PROTOCOL:  # the default is named in dataset.protocol only
        layout.notes.insert(0, f"protocol {proto.name}: {proto.title}")
    return _CPlan(grid, layout, clean_set, base, on_device, limit, seed, proto)


class _CRun:
    """The state of one eval-c run: the tally and calibration statistics of every cell, what was
    resumed, the cells still to do and their images, and the results written after each finished
    cell."""

    def __init__(
        self,
        plan: _CPlan,
        model: LoadedModel,
        run: RunOptions,
        batch_size: int,
        ece_bins: int = DEFAULT_BINS,
    ):
        self.plan, self.model, self.run = plan, model, run
        fingerprints = dict(plan.layout.fingerprints)
        info = dict(limit=plan.limit, seed=plan.seed, batch_size=batch_size)
        self.state = RunState.start("c", model, run, **info, cell_fingerprints=fingerprints)
        self.log, self.out, prev = self.state.log, self.state.out, self.state.previous
        self.calibration = CellCalibration(ece_bins)
        self.tally: Tally = _resumed(self.state, plan, self.calibration)
        if self.calibration.not_restored:
            self.log(
                f"  {len(self.calibration.not_restored)} finished cells of {self.out} have no "
                "calibration statistics for this run (written before calibration existed, or for "
                "other ECE bins): evaluated again"
            )
        self.resumed = prev is not None
        self.skipped: dict[Cell, int] = {}
        self.state.info["resumed_cells"] = len(self.tally)
        self.cells = [c for c in plan.want if c not in self.tally]
        self.items = [
            LoadItem(reader, cid, label, payload)
            for cid, cell in enumerate(self.cells)
            for reader, label, payload in plan.cell_items(cell)
        ]
        self.remaining = [0] * len(self.cells)
        for it in self.items:
            self.remaining[it.cell] += 1
        self.started = [time.perf_counter()] * len(self.cells)
        for cell in self.cells:
            self.tally.setdefault(cell, [0, 0, 0])

    def results(self, finished: bool) -> Results:
        """The results so far (``finished``: the run is complete)."""
        notes: list[str] = []
        if self.skipped:
            notes.append(
                "unreadable inputs skipped (not counted): "
                + ", ".join(f"{cell_key(c)} {n}" for c, n in self.skipped.items())
            )
        run_info, elapsed = self.state.run_entry(finished), self.state.elapsed()
        tally = {k: v for k, v in self.tally.items() if v[1] > 0}
        calibration = self.calibration.part([cell_key(c) for c in tally])
        plan = self.plan
        return c_results(
            self.model,
            plan.layout,
            plan.grid.names,
            plan.baseline,
            plan.protocol.name,
            tally,
            elapsed,
            notes,
            run_info,
            calibration,
        )

    def save(self, finished: bool = False) -> Results:
        return self.state.save(self.results(finished))

    def skip(self, cid: int, reason: str) -> bool:
        """Count one unreadable input of cell ``cid``; True when that finishes the cell."""
        cell = self.cells[cid]
        self.skipped[cell] = self.skipped.get(cell, 0) + 1
        self.tally[cell][2] += 1
        if self.skipped[cell] <= 3:
            self.log(f"  skipped an unreadable input in {cell_key(cell)}: {reason}")
        self.remaining[cid] -= 1
        return self.remaining[cid] == 0

    def count(self, logits: Any, y: Any, c: Any) -> set[int]:
        """Count one batch of predictions; the ids of the cells it finishes.

        Raises:
            EvalError: NaN or infinite logits (the cell and batch named; nothing counted).
        """
        nc_out = logits.shape[1]
        if int(y.max()) >= nc_out:
            raise EvalError(f"label {int(y.max())} but the model outputs {nc_out} logits")
        cids = c.numpy()
        for cid in np.unique(cids):  # first: a batch of NaN logits must not reach the tally
            m = cids == cid
            self.calibrate(int(cid), logits[m], y[m])
        correct = (logits.argmax(1) == y).numpy()
        done: set[int] = set()
        for cid in np.unique(cids):
            m = cids == cid
            cell = self.cells[int(cid)]
            self.tally[cell][0] += int(correct[m].sum())
            self.tally[cell][1] += int(m.sum())
            self.remaining[int(cid)] -= int(m.sum())
            if self.remaining[int(cid)] == 0:
                done.add(int(cid))
        return done

    def calibrate(self, cid: int, logits: Any, y: Any) -> None:
        """Add a batch of cell ``cid`` to its calibration statistics; a bad batch ends the run
        with one line saying where it is and what the results file keeps."""
        try:
            self.calibration.update(cell_key(self.cells[cid]), logits, y)
        except EvalError as exc:
            kept = len(self.tally) - sum(1 for r in self.remaining if r > 0)
            raise EvalError(f"cell {exc}{self.state.kept(kept)}") from None

    def finish_cell(self, cid: int) -> None:
        """Log a finished cell and rewrite the results file."""
        t = self.tally[self.cells[cid]]
        err = 1.0 - t[0] / t[1] if t[1] else float("nan")
        took = time.perf_counter() - self.started[cid]
        self.log(
            f"  {cell_key(self.cells[cid]):<24} error {err:.4f}  ({t[1]} images, {took:.1f} s)"
        )
        if cid + 1 < len(self.cells):
            self.started[cid + 1] = time.perf_counter()
        self.save()


def _evaluate_c(
    model: LoadedModel,
    data: DataArg,
    *,
    batch_size: int,
    ece_bins: int,
    progress: bool | str,
    run: RunOptions,
    **choices: Any,
) -> Results:
    plan = _plan_c(model, data, **choices)
    state = _CRun(plan, model, run, batch_size, ece_bins)
    if state.tally and state.resumed:
        state.log(
            f"resuming {state.out}: {len(state.tally) - len(state.cells)} finished cells kept "
            f"(not recomputed), {len(state.cells)} to do"
        )
    if state.out is not None and not state.resumed:
        state.save()  # fail early on an unwritable out
    layout = plan.layout
    nw, nthreads = plan_resources(
        model.device,
        corrupts_in_loader=layout.corrupts_in_loader,
        workers=run.workers,
        threads=run.threads,
    )
    state.log(
        f"eval-c: {model.id} on {layout.root} ({layout.name}, profile {layout.profile}): "
        f"{len(state.cells)} cells, {len(state.items)} images, {nw} workers, "
        f"{nthreads or 'default'} model threads"
    )
    if layout.missing:
        state.log(
            f"  {len(layout.missing)} requested cells absent from the data (reported as missing)"
        )
    if not state.items:
        state.log("  nothing to evaluate: every requested cell is already in the results file")
        return state.save(finished=True)
    on_device = DeviceCorruptor(state.cells, layout.profile, plan.seed) if plan.on_device else None
    batches = predict_batches(
        model,
        state.items,
        batch_size=batch_size,
        workers=nw,
        threads=nthreads,
        on_device=on_device,
    )
    with make_progress(len(state.items), f"eval-c {model.id}", unit="images", mode=progress) as bar:
        for logits, y, c, bad in batches:
            done = {cid for cid, reason in bad if state.skip(cid, reason)}
            if logits is not None:
                done |= state.count(logits, y, c)
            for cid in sorted(done):
                state.finish_cell(cid)
            this = bad[0][0] if bad else int(c[0])  # a batch never spans two cells
            n_done = len(bad) + (0 if logits is None else len(c))
            bar.advance(n_done, label=f"eval-c {cell_key(state.cells[this])}")
    return state.save(finished=True)


def _resumed(state: RunState, plan: _CPlan, calibration: CellCalibration) -> Tally:
    """The finished cells of the resumed results file whose data fingerprint, limit and seed
    match and whose calibration statistics it holds (restored into ``calibration``)."""
    tally: Tally = {}
    prev, old_fp = state.previous, state.matching(plan.limit, plan.seed)
    if prev is None or old_fp is None or (prev.c is None and prev.cbar is None):
        return tally
    for cell in plan.want:
        key = cell_key(cell)
        if old_fp.get(key) != plan.layout.fingerprints.get(key):
            continue
        e, n = _previous_cell(prev, cell)
        if e is not None and n and calibration.restore(prev.calibration, key, int(n)):
            tally[cell] = [int(round((1.0 - e) * n)), int(n), 0]
    return tally


def _previous_cell(prev: Results, cell: Cell) -> tuple[float | None, int | None]:
    """The error and image count a results file holds for ``cell``: a C-bar corruption's in its
    C-bar part, the others' (and the clean cell's, when it has one) in the ImageNet-C part."""
    part: CResults | CBarResults | None
    if cell == CLEAN:
        part = prev.c if prev.c is not None else prev.cbar
        return (part.clean_error, part.clean_count) if part is not None else (None, None)
    part = prev.cbar if suite_of(cell.name) == "cbar" else prev.c
    if part is None:
        return None, None
    pos = SEVERITIES.index(cell[1])
    e = (part.errors.get(cell[0]) or [None] * len(SEVERITIES))[pos]
    n = (part.counts.get(cell[0]) or [None] * len(SEVERITIES))[pos]
    return e, n

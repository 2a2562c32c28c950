"""``evaluate_grid``: any task's higher-is-better score over every cell of a built dataset, summarised
as P, mPC and rPC (Michaelis et al. 2019; :func:`~corruptbench.metrics.summarize_scores`).

The user's ``score`` function is called once for the clean data and once per (corruption,
severity) cell, with the cell's folder or shards (:mod:`~corruptbench.evaluation.grid_data`), and
returns one number: box AP with pycocotools, mIoU, accuracy, anything where higher is better.
After each cell the results file is rewritten atomically (:func:`corruptbench.fileio.write_text`);
an interrupted run re-run with the same ``out`` skips the finished cells.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import Arg
from ..grid import CLEAN, SEVERITIES, Cell, GridError, cell_key, resolve_names
from ..metrics import check_clean_score, check_score, summarize_scores
from ..progress import progress as make_progress
from ..progress import resolve_mode
from ..results import DatasetInfo, Results, library_versions, make_score_part, now
from .common import EvalError, stderr_log
from .grid_data import GridData, Target, open_grid_data

__all__ = ["evaluate_grid"]

ScoreFn = Callable[[Any], Any]
Scores = dict[Cell, float]  #: finished cells (CLEAN for the clean score)


def _select(data: GridData, corruptions: Sequence[str] | None, partial: bool) -> list[Cell]:
    """The cells to score: every severity of the chosen corruptions (default: all in the data),
    checked before the first call (a hole, a benchmark corruption missing without ``partial``)."""
    present = list(dict.fromkeys(c for c, _ in data.targets))
    try:
        names = present if corruptions is None else list(resolve_names("c", corruptions))
    except GridError as exc:
        raise EvalError(*exc.parts) from None
    absent = [n for n in names if n not in present]
    if absent:
        raise EvalError(f"{data.root} has no cells of {', '.join(absent)}")
    cells = [Cell(n, s) for n in names for s in SEVERITIES]
    holes = [cell_key(c) for c in cells if c not in data.targets]
    if holes:
        raise EvalError(
            f"{data.root}: missing cell{'s' if len(holes) > 1 else ''}: {', '.join(holes)}"
        )
    # summarize_scores's own message, before any cell is scored
    summarize_scores({n: [1.0] * len(SEVERITIES) for n in names}, 1.0, partial=partial)
    return cells


def _resumed(out: Path | None, overwrite: bool, name: str, metric: str, fingerprint: str) -> Scores:
    """The finished cells of a previous run of the same model, metric and data at ``out``."""
    if out is None or overwrite or not out.exists():
        return {}
    try:
        prev = Results.from_json(out)
    except ValueError as exc:
        raise EvalError(
            f"{exc}; pass ", Arg("overwrite"), " to replace it or choose another ", Arg("out")
        ) from None
    run = prev.run or {}
    same = (
        prev.kind == "score"
        and prev.score is not None
        and prev.model_id == name
        and prev.score.metric == metric
        and run.get("data_fingerprint") == fingerprint
    )
    if not same:
        raise EvalError(
            f"{out} holds other results (kind {prev.kind!r}, model {prev.model_id!r}, "
            "metric or data): refusing to mix them - pass ",
            Arg("overwrite"),
            " to replace the file or choose another ",
            Arg("out"),
        )
    assert prev.score is not None
    done: Scores = {} if prev.score.clean is None else {CLEAN: prev.score.clean}
    for corruption, values in prev.score.scores.items():
        done.update({Cell(corruption, s): v for s, v in zip(SEVERITIES, values) if v is not None})
    return done


def _call(score: ScoreFn, target: Path | Target, cell: Cell) -> float:
    """One call of the user's function, its result checked."""
    value = score(target)
    try:
        return check_score(value, f"score() of {cell_key(cell)}")
    except ValueError as exc:
        raise EvalError(f"{exc}; nothing was recorded for this cell") from None


def _results(
    done: Scores,
    cells: Sequence[Cell],
    *,
    name: str,
    metric: str,
    partial: bool,
    data: GridData,
    run: dict[str, Any],
    seconds: float,
) -> Results:
    grid: dict[str, list[float | None]] = {}
    for corruption, sev in cells:
        grid.setdefault(corruption, [None] * len(SEVERITIES))[sev - 1] = done.get(
            Cell(corruption, sev)
        )
    return Results(
        kind="score",
        model={"id": name, "source": "evaluate_grid"},
        dataset=DatasetInfo(path=str(data.root), layout=data.layout, fingerprint=data.fingerprint),
        score=make_score_part(grid, done.get(CLEAN), metric=metric, partial=partial),
        versions=library_versions(),
        time_s=seconds,
        created=now(),
        run=run,
    )


def _logger(log: Callable[[str], None] | None | str, progress: bool | str) -> Callable[[str], None]:
    """The per-cell line writer: ``log``, or for ``"auto"`` stderr unless progress is off."""
    if log == "auto":
        return (lambda _m: None) if resolve_mode(progress) == "off" else stderr_log
    if log is not None and not callable(log):
        raise TypeError(f"log must be a callable, None or 'auto', got {log!r}")
    return log or (lambda _m: None)


def _default_name(score: ScoreFn) -> str:
    fn_name = getattr(score, "__name__", "")
    return fn_name if fn_name and fn_name.isidentifier() else "model"


def evaluate_grid(
    score: ScoreFn,
    data: str | os.PathLike[str],
    *,
    clean: str | os.PathLike[str] | float,
    corruptions: Sequence[str] | None = None,
    partial: bool = False,
    name: str | None = None,
    metric: str = "score",
    out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    progress: bool | str = True,
    log: Callable[[str], None] | None | str = "auto",
) -> Results:
    """Score every cell of a built dataset with ``score`` and summarise as P, mPC, rPC.

    Args:
        score: Called as ``score(target)`` once per cell; returns a higher-is-better number
            (a float, a NumPy scalar, a 0-d tensor). ``target`` is a ``pathlib.Path``: the
            clean data and, for folder datasets (``make-c --layout tree``, the ImageNet layout,
            a downloaded COCO-C / ImageNet-C), the cell's folder ``data/<corruption>/<severity>``;
            for WebDataset shards, the tuple of the cell's shard paths in order.
        data: The built dataset (see :mod:`~corruptbench.evaluation.grid_data`).
        clean: The clean data, given to ``score`` like a cell (the source folder of make-c), or
            the clean score itself when it is already known (a number).
        corruptions: Names or subsets (``benchmark``, a family, ...) of the corruptions to score;
            default: every corruption in ``data``. Each gets all five severities.
        partial: Allow benchmark corruptions to be absent (mPC over those given, flagged).
        name: The model's id in the results (default: the function's name).
        metric: What the score is, for display (``"box AP"``).
        out: Results JSON, rewritten after each cell; an existing file of the same model,
            metric and data is resumed (its finished cells are not scored again).
        overwrite: Replace an ``out`` that holds other results instead of failing.
        progress: The progress display over cells (:func:`corruptbench.progress.progress`);
            ``False`` / ``"off"``: no display and, with the default ``log``, no lines at all.
        log: Called with one line per scored cell and one for the cells resumed from ``out``;
            ``"auto"`` (default): stderr unless ``progress`` is off; ``None``: silent.

    Returns:
        The ``kind="score"`` :class:`~corruptbench.results.Results` (``.mpc``, ``.rpc``,
        ``.clean_score``, ``.score``), also written to ``out``.

    Raises:
        EvalError: before any cell is scored: ``data`` is not a finished build, a cell is
            missing, benchmark corruptions are missing (without ``partial``), ``out`` holds other
            results; during the run: ``score`` returned NaN / infinity / no number for a cell,
            the clean score is 0 or negative (rPC undefined), -1 (COCOeval's "undefined"). The
            file keeps the cells finished before the error. ``data`` of another suite than
            ImageNet-C's (ImageNet-C-bar) is refused by name: P, mPC and rPC are defined over
            ImageNet-C's grid.

    Examples:
        >>> import corruptbench
        >>> def box_ap(root):  # doctest: +SKIP
        ...     return coco_box_ap(model, root / "val2017", root / "annotations/instances_val2017.json")
        >>> res = corruptbench.evaluate_grid(  # doctest: +SKIP
        ...     box_ap, "coco-c/", clean="coco/", metric="box AP", out="frcnn.json"
        ... )
        >>> res.clean_score, res.mpc, res.rpc  # doctest: +SKIP
    """
    t0 = time.perf_counter()
    say = _logger(log, progress)
    grid_data = open_grid_data(data)
    cells = _select(grid_data, corruptions, partial)
    name = name or _default_name(score)
    out_p = Path(out) if out is not None else None
    done = _resumed(out_p, overwrite, name, metric, grid_data.fingerprint)
    done = {c: v for c, v in done.items() if c == CLEAN or c in cells}
    if done:  # only cells read back from out (a clean score given as a number is not one)
        say(f"  {len(done)} of {len(cells) + 1} cells already scored in {out_p}")
    if isinstance(clean, (str, os.PathLike)):
        clean_target = Path(clean)
        if not clean_target.exists():
            raise EvalError(Arg("clean"), f" {os.fspath(clean)!r} does not exist")
        clean_record: Any = str(clean_target)
    else:
        done[CLEAN] = check_clean_score(clean)
        clean_record = done[CLEAN]
    seconds: dict[str, float] = {}
    run = {"data_fingerprint": grid_data.fingerprint, "clean": clean_record, "seconds": seconds}
    todo = [c for c in [CLEAN, *cells] if c not in done]

    def save() -> Results:
        res = _results(
            done,
            cells,
            name=name,
            metric=metric,
            partial=partial,
            data=grid_data,
            run=run,
            seconds=time.perf_counter() - t0,
        )
        if out_p is not None:
            res.to_json(out_p)
        return res

    with make_progress(len(todo), f"grid {name}", unit="cells", mode=progress) as bar:
        for cell in todo:
            started = time.perf_counter()
            target = clean_target if cell == CLEAN else grid_data.targets[cell]
            value = _call(score, target, cell)
            if cell == CLEAN:
                try:  # rPC needs P > 0: stop before the long part
                    check_clean_score(value)
                except ValueError as exc:
                    raise EvalError(f"score() of clean returned {value!r}: {exc}") from None
            done[cell] = value
            seconds[cell_key(cell)] = round(time.perf_counter() - started, 3)
            say(f"  {cell_key(cell):<24} {metric} {value:.4g}  ({seconds[cell_key(cell)]:.1f} s)")
            save()
            bar.advance(1, label=f"grid {cell_key(cell)}")
    return save()

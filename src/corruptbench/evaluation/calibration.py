"""Calibration statistics of an evaluation: per cell, batch by batch, kept across a resume.

eval-c feeds every batch's logits and labels to :class:`CellCalibration` (always: a batch with
NaN or infinite logits stops the run with the cell and the batch named, instead of an error rate
computed from ``argmax`` of NaNs); eval-p feeds frame 0 of the sequences whose first frame is the
clean image (:data:`~corruptbench.perturbations.CLEAN_FIRST_FRAME`), labelled by their class
(:func:`clean_frame_labels`). The statistics of a cell merge exactly
(:class:`~corruptbench.metrics.calibration.CalibrationStats`), so the cells a resumed run keeps
from its results file (:meth:`CellCalibration.restore`) and the ones it computes give the numbers
of one pass; :mod:`corruptbench.results.calibration` says what the file stores.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import Arg
from ..grid import Cell
from ..metrics.calibration import DEFAULT_BINS, CalibrationStats, stored_bins
from ..perturbations import CLEAN_FIRST_FRAME
from ..results import CalibrationResults, make_calibration_part
from .common import EvalError, label_mapper
from .layouts import Layout

__all__ = [
    "DEFAULT_BINS",
    "CellCalibration",
    "check_ece_bins",
    "require_finite",
    "clean_frame_labels",
]


def check_ece_bins(ece_bins: Any) -> int:
    """The bins to keep for an ECE of ``ece_bins`` bins
    (:func:`~corruptbench.metrics.calibration.stored_bins`), or :class:`EvalError` naming
    ``ece_bins``."""
    try:
        return stored_bins(ece_bins)
    except ValueError:
        raise EvalError(Arg("ece_bins"), f" must be a positive integer, got {ece_bins!r}") from None


def require_finite(logits: Any, where: str) -> None:
    """:class:`EvalError` ``"<where>: the logits hold ... non-finite value(s) ..."`` unless every
    logit is finite (eval-p's frames that are not measured for calibration)."""
    arr = np.asarray(logits.numpy() if hasattr(logits, "numpy") else logits)
    if not np.isfinite(arr).all():
        bad = ~np.isfinite(arr)
        rows = bad.reshape(arr.shape[0], -1).any(axis=1)
        first = arr[bad].ravel()[0]
        raise EvalError(
            f"{where}: the logits hold {int(bad.sum())} non-finite value(s) in "
            f"{int(rows.sum())} of {arr.shape[0]} rows (first: {first}): no number can be "
            "computed from them"
        )


class CellCalibration:
    """The calibration statistics of an evaluation's cells (keys ``"clean"``, ``"fog/3"``; eval-p:
    ``"gaussian_noise/0"``).

    Args:
        ece_bins: The ECE's bins in the summaries (checked by :func:`check_ece_bins`); the
            statistics keep :func:`~corruptbench.metrics.calibration.stored_bins` of them.
    """

    def __init__(self, ece_bins: int = DEFAULT_BINS) -> None:
        self.ece_bins = ece_bins
        self.bins = check_ece_bins(ece_bins)
        self.stats: dict[str, CalibrationStats] = {}
        self.batches: dict[str, int] = {}  #: batches seen per cell (names a bad one)
        self.not_restored: list[str] = []  #: finished cells of the previous file without stats

    def update(self, key: str, logits: Any, labels: Any) -> None:
        """Add one batch of cell ``key``.

        Raises:
            EvalError: ``"<key>, batch <k>: the logits hold ... non-finite value(s) ..."`` (or
                labels outside the model's classes); nothing of the batch is added.
        """
        k = self.batches.get(key, 0) + 1
        self.batches[key] = k
        stats = self.stats.setdefault(key, CalibrationStats(self.bins))
        try:
            stats.update(logits, labels, where=f"{key}, batch {k}")
        except ValueError as exc:
            raise EvalError(str(exc)) from None

    def restore(self, previous: CalibrationResults | None, key: str, n: int) -> bool:
        """Keep cell ``key`` of a previous results file: True when it has statistics of ``n``
        samples in this run's bins (else the cell is evaluated again, and listed in
        :attr:`not_restored`)."""
        old = previous.stats.get(key) if previous is not None else None
        if old is None or old.bins != self.bins or old.n != n:
            self.not_restored.append(key)
            return False
        self.stats[key] = old.copy()
        return True

    def part(self, keys: list[str]) -> CalibrationResults | None:
        """The results' calibration part of the cells ``keys`` (``None`` when none has samples)."""
        stats = {k: self.stats[k] for k in keys if k in self.stats and self.stats[k].n}
        return make_calibration_part(stats, self.ece_bins) if stats else None


def frame_key(name: str) -> str:
    """The calibration key of a perturbation's clean frames: ``"gaussian_noise/0"``."""
    return Cell(name, 0).key


def clean_frame_labels(
    layout: Layout, num_classes: int | None
) -> tuple[dict[str, list[int]], list[str]]:
    """eval-p: the label of each sequence of the perturbations whose frame 0 is the clean image
    (perturbation -> labels in the layout's item order), and the notes saying what calibration
    is measured on, or why it is not (no such perturbation, sequences without classes, classes
    the model cannot output). Class folders get the labels eval-c gives them
    (:func:`~corruptbench.evaluation.common.label_mapper`); integer classes (a CIFAR batch's) are
    used as they are."""
    cells = [cell for cell in layout.cells if cell.name in CLEAN_FIRST_FRAME]
    if not cells:
        return {}, [
            "calibration: not measured (frame 0 is the clean image only in "
            + ", ".join(CLEAN_FIRST_FRAME)
            + ", none of which was evaluated)"
        ]
    classes = {cell.name: layout.classes(cell) for cell in cells}
    flat = [x for v in classes.values() for x in v]
    if not flat or any(x is None for x in flat):
        return {}, ["calibration: not measured (the sequences have no class labels)"]
    notes: list[str] = []
    if all(isinstance(x, (int, np.integer)) for x in flat):
        top = max(int(x) for x in flat)  # type: ignore[arg-type]
        if num_classes is not None and top >= num_classes:
            return {}, [
                f"calibration: not measured (class {top}, but the model outputs {num_classes} logits)"
            ]
        labels = {p: [int(x) for x in v] for p, v in classes.items()}  # type: ignore[arg-type]
    else:
        try:
            mapper = label_mapper([str(x) for x in flat], num_classes, notes)
        except EvalError as exc:
            return {}, [f"calibration: not measured ({exc})"]
        labels = {p: [mapper(str(x)) for x in v] for p, v in classes.items()}
    notes.append(
        "calibration: frame 0 of the "
        + ", ".join(classes)
        + " sequences, which is the clean image"
        + (" (as stored: after the MP4 encoding)" if _video(layout) else "")
    )
    return labels, notes


def _video(layout: Layout) -> bool:
    """Whether the layout's frames were encoded as MP4 video (ImageNet-P folders, MP4 shards)."""
    return layout.name == "imagenet-p" or getattr(layout, "media", "") == "mp4"

"""ImageNet-C and ImageNet-P metrics: CE / mCE / relative mCE, flip probability, top-5 distance.

All rates are **fractions** (an mCE of 76.7 % is ``0.767``); multiply by 100 only for display.

ImageNet-C (Hendrycks & Dietterich, ICLR 2019, arXiv:1903.12261), with ``E[f, s, c]`` the top-1
error of model ``f`` on corruption ``c`` at severity ``s`` and ``A`` the baseline model::

    CE[f, c]          = sum_s E[f, s, c] / sum_s E[A, s, c]
    relative CE[f, c] = sum_s (E[f, s, c] - E[f, clean]) / sum_s (E[A, s, c] - E[A, clean])
    mCE               = mean of CE[f, c] over the 15 benchmark corruptions

ImageNet-P (same paper): flip probability (FP), top-5 distance (T5D) and the Zipf distance are
computed from per-frame predictions / rankings exactly as hendrycks/robustness
``ImageNet-P/test.py:227-273`` does;
``mFR`` and ``mT5D`` are means over the 10 test perturbations of FP and T5D divided by a baseline's.

Beyond top-1: :mod:`~corruptbench.metrics.calibration` (NLL, Brier score, ECE, top-5 error of a
classifier's softmax, per cell, mergeable exactly) and :mod:`~corruptbench.metrics.task` (P, mPC
and rPC of any higher-is-better score: detection AP, segmentation mIoU, ...).

Examples:
    >>> from corruptbench.tables.alexnet import ALEXNET_C_ERRORS, ALEXNET_CLEAN_ERROR
    >>> s = summarize_c(dict(ALEXNET_C_ERRORS), clean_error=ALEXNET_CLEAN_ERROR)
    >>> s.mce, s.relative_mce, s.partial
    (1.0, 1.0, False)
    >>> flip_probability([[3, 3, 5, 5]], noise=False)  # one flip in three comparisons
    0.3333333333333333
"""

from __future__ import annotations

from .calibration import CalibrationStats
from .corruption import CMeans, CSummary, c_means, summarize_c
from .p_summary import PSummary, load_p_baseline, summarize_p
from .perturbation import (
    flip_probability,
    is_noise_perturbation,
    ranks_from_logits,
    top5_distance,
    zipf_distance,
)
from .task import (
    SCALES,
    ScoreSummary,
    check_clean_score,
    check_scale,
    check_score,
    grid_from_cells,
    summarize_scores,
)

__all__ = [
    "CalibrationStats",
    "CSummary",
    "CMeans",
    "c_means",
    "PSummary",
    "SCALES",
    "ScoreSummary",
    "check_clean_score",
    "check_scale",
    "check_score",
    "flip_probability",
    "grid_from_cells",
    "is_noise_perturbation",
    "load_p_baseline",
    "ranks_from_logits",
    "summarize_c",
    "summarize_p",
    "summarize_scores",
    "top5_distance",
    "zipf_distance",
]

"""Robustness of any task's score under corruption: P, mPC and rPC (Michaelis et al. 2019).

Michaelis et al. (2019), "Benchmarking Robustness in Object Detection: Autonomous Driving when
Winter is Coming" (COCO-C, Pascal-C, Cityscapes-C), define for a higher-is-better score ``S``
(box AP, mask AP, mIoU, accuracy, ...) of a model::

    P   = S[clean]                                         performance on clean data
    mPC = 1 / (15 * 5) * sum_c sum_{s=1..5} S[c, s]        mean performance under corruption
    rPC = mPC / P                                          relative performance under corruption

over the 15 ImageNet-C benchmark corruptions ``c`` (``P = results[0, 0]``, ``mPC =
mean(results[:15, 1:])``, ``rPC = mPC / P`` in bethgelab/robust-detection-benchmark,
``data-analysis/corruption_eval.py``, which mmdetection ships as
``tools/analysis_tools/robustness_eval.py``). The four extra corruptions may be given too: they
get their own means and never enter mPC.

A score grid is a mapping corruption -> 5 scores (severities 1..5) plus the clean score (severity
0). Everything here checks its input and raises ``ValueError`` with one line naming the cell:
a NaN or infinite score, a missing cell, a severity outside 0..5, a cell given twice, a clean
score that is 0 or negative (rPC undefined).

**-1 is "undefined", never a score.** pycocotools' ``COCOeval.summarize`` writes -1 for a metric
with no ground truth in its category / area range (``cocoeval.py``, ``_summarize``:
``mean_s = -1`` when no precision entry is > -1), and detectron2 turns it into NaN
(``detectron2/evaluation/coco_evaluation.py``, ``_derive_coco_results``). Annotations are the same
in every cell of a corrupted copy, so such a metric is undefined for the dataset: a -1 anywhere is
refused like NaN (:func:`check_score`), never averaged into mPC.

**One scale per table** (:func:`check_scale`): scores are fractions (0..1, pycocotools'
``stats``) or percentages (0..100, mmdetection's and detectron2's logs); a table written on one
scale and read as the other gives rPC of 0.8 % or 7520 %.

Examples:
    >>> from corruptbench.corruptions import BENCHMARK_CORRUPTIONS
    >>> grid = {c: [0.30, 0.25, 0.20, 0.15, 0.10] for c in BENCHMARK_CORRUPTIONS}
    >>> s = summarize_scores(grid, clean=0.40)
    >>> round(s.mpc, 6), round(s.rpc, 6), [round(v, 6) for v in s.severity_means]
    (0.2, 0.5, [0.3, 0.25, 0.2, 0.15, 0.1])
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS
from ..errors import Arg, ArgumentError
from ..grid import cell_key, resolve_name, suite_of
from ..registry import canonical_name
from .corruption import NUM_SEVERITIES

__all__ = [
    "CLEAN_SEVERITY",
    "SCALES",
    "ScoreSummary",
    "check_clean_score",
    "check_scale",
    "check_score",
    "cell_name",
    "grid_from_cells",
    "summarize_scores",
]

#: the severity that means "clean" in a score table (as in mmdetection's robustness results)
CLEAN_SEVERITY = 0

#: the score scales of a table: fractions 0..1 or percentages 0..100 (:func:`check_scale`)
SCALES = {"fraction": 1.0, "percent": 100.0}

#: COCOeval's "undefined" (see the module docstring)
UNDEFINED = -1.0

# a plain ASCII decimal number as tables write it: no "1_0", no other scripts' digits, no hex
_PLAIN = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_SPECIAL = re.compile(r"[+-]?(?:nan|inf|infinity)", re.ASCII | re.IGNORECASE)


def cell_name(corruption: str, severity: int) -> str:
    """``"fog/3"``; ``"clean"`` for severity 0 (:func:`corruptbench.grid.cell_key`)."""
    return cell_key((corruption, severity))


def check_score(value: object, where: str) -> float:
    """A finite real number (a NumPy scalar or a 0-d array / tensor too), as a float; not -1.

    Raises:
        ValueError: ``"<where> is NaN"``, infinite, not a number, -1 (COCOeval's "undefined",
            see the module docstring).
    """
    if isinstance(value, (str, bytes)):
        raise ValueError(
            f"{where} must be a number, got {value!r} (a plain decimal number: ASCII digits, "
            "'.', an exponent)"
        )
    if isinstance(value, (bool, np.bool_)) or value is None:
        raise ValueError(f"{where} must be a number, got {value!r}")
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{where} must be a number, got {value!r}") from None
    if math.isnan(v):
        raise ValueError(f"{where} is NaN")
    if math.isinf(v):
        raise ValueError(f"{where} is infinite ({v})")
    if v == UNDEFINED:
        raise ValueError(
            f"{where} is -1, COCOeval's mark for an undefined metric (no ground truth in its "
            "category / area range), not a score: refused like NaN, never averaged into mPC"
        )
    return v


def _severity(value: object, where: str) -> int:
    """An integer severity in 0..5 (``"3"``, ``3`` and ``3.0`` are 3; text must be plain ASCII)."""
    text = str(value).strip()
    try:
        plain = isinstance(value, (int, float)) or _PLAIN.fullmatch(text) is not None
        number = math.nan if isinstance(value, bool) or not plain else float(text)
    except ValueError:
        number = math.nan
    if not number.is_integer():
        raise ValueError(f"{where}: severity {value!r} is not an integer (0 = clean, 1..5)")
    sev = int(number)
    if not CLEAN_SEVERITY <= sev <= NUM_SEVERITIES:
        raise ValueError(f"{where}: severity {sev} is outside 0..5 (0 = clean)")
    return sev


def _number(value: object) -> object:
    """A table's text as a float when it is a plain ASCII decimal number (``"0.25"``, ``"1e-3"``)
    or NaN / infinity (refused by name later), else as it is (``"1_0"``, ``"١٢"``, ``"27%"``:
    Python's ``float`` would read the first two)."""
    if isinstance(value, str):
        text = value.strip()
        if _PLAIN.fullmatch(text) or _SPECIAL.fullmatch(text):
            return float(text)
    return value


def _imagenet_c_name(raw: str, where: str) -> str:
    """The ImageNet-C corruption ``raw`` names; one of another suite (ImageNet-C-bar's) is refused
    by name: P, mPC and rPC (Michaelis et al. 2019) are defined over ImageNet-C's grid."""
    try:
        return resolve_name("c", raw, suite="imagenet_c")
    except (TypeError, ValueError) as exc:
        try:
            other = resolve_name("c", raw)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: {exc}") from None
        raise ValueError(
            f"{where}: {other!r} is a corruption of the {suite_of(other)!r} suite; task scores "
            "(P, mPC, rPC) cover ImageNet-C's 19 corruptions (suite 'imagenet_c') only"
        ) from None


def grid_from_cells(
    cells: Iterable[tuple[object, object, object, str]],
) -> tuple[float | None, dict[str, list[float | None]]]:
    """Collect ``(corruption, severity, score, where)`` rows into a clean score and a grid.

    ``where`` names the row in messages (``"grid.csv, line 7"``); severities and scores may be
    numbers or their text (``"3"``, ``"0.412"``). Severity 0 is the clean score;
    its corruption may be ``clean``, empty or any corruption name, and several severity-0 rows are
    allowed when they hold the same score (mmdetection repeats the clean result for every
    corruption). Cells not given stay ``None`` (:func:`summarize_scores` names them).

    Raises:
        ValueError: an unknown corruption, a severity outside 0..5, a NaN / infinite score, a cell
            given twice, severity-0 rows with different scores.
    """
    clean: float | None = None
    clean_where = ""
    seen: dict[tuple[str, int], str] = {}
    grid: dict[str, list[float | None]] = {}
    for raw_name, raw_sev, raw_score, where in cells:
        sev = _severity(raw_sev, where)
        text = canonical_name(str(raw_name)) if raw_name is not None else ""
        if sev == CLEAN_SEVERITY and text in ("", "clean"):
            name = "clean"
        else:
            name = _imagenet_c_name(text or str(raw_name), where)
        key = (name, sev)
        score = check_score(_number(raw_score), f"{where}: the score of {cell_name(name, sev)}")
        if key in seen:
            raise ValueError(
                f"{where}: {cell_name(name, sev)} is given twice (first at {seen[key]})"
            )
        seen[key] = where
        if sev == CLEAN_SEVERITY:
            if clean is not None and score != clean:
                raise ValueError(
                    f"{where}: clean score {score!r} differs from {clean!r} at {clean_where} "
                    "(severity 0 is the clean score, one number)"
                )
            clean, clean_where = score, clean_where or where
            continue
        grid.setdefault(name, [None] * NUM_SEVERITIES)[sev - 1] = score
    return clean, {n: grid[n] for n in ALL_CORRUPTIONS if n in grid}


@dataclass(frozen=True)
class ScoreSummary:
    """P, mPC and rPC of one model's score grid (:func:`summarize_scores`).

    Attributes:
        scores: Corruption -> the 5 scores of severities 1..5 (reference order).
        clean: P, the clean score.
        mpc: mPC, the mean score over ``mpc_corruptions`` x 5 severities.
        rpc: rPC = mPC / P.
        corruption_means: Corruption -> mean score over its 5 severities (every corruption given,
            the extra ones included).
        relative: Corruption -> its mean score / P (the rPC of that corruption alone).
        severity_means: Per severity 1..5, the mean score over ``mpc_corruptions``.
        mpc_corruptions: The benchmark corruptions mPC averages (all 15 unless ``partial``).
        missing: Benchmark corruptions without scores (only when ``partial``).
        partial: mPC covers fewer than the 15 benchmark corruptions.
    """

    scores: dict[str, tuple[float, ...]]
    clean: float
    mpc: float
    rpc: float
    corruption_means: dict[str, float]
    relative: dict[str, float]
    severity_means: tuple[float, ...]
    mpc_corruptions: tuple[str, ...]
    missing: tuple[str, ...] = field(default_factory=tuple)
    partial: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready plain values."""
        return {
            "clean": self.clean,
            "mpc": self.mpc,
            "rpc": self.rpc,
            "corruption_means": dict(self.corruption_means),
            "relative": dict(self.relative),
            "severity_means": list(self.severity_means),
            "mpc_corruptions": list(self.mpc_corruptions),
            "missing": list(self.missing),
            "partial": self.partial,
            "scores": {k: list(v) for k, v in self.scores.items()},
        }


def _check_grid(scores: object) -> dict[str, tuple[float, ...]]:
    """``{corruption: 5 finite scores}``, keys canonical, reference order; holes are errors."""
    if not isinstance(scores, Mapping):
        raise TypeError(
            f"scores must be a mapping corruption -> 5 scores, got {type(scores).__name__}"
        )
    out: dict[str, tuple[float, ...]] = {}
    for raw, values in scores.items():
        name = _imagenet_c_name(raw, "scores") if isinstance(raw, str) else resolve_name("c", raw)
        if name in out:
            raise ValueError(f"scores name corruption {name!r} twice (as {raw!r})")
        if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
            raise TypeError(f"scores[{raw!r}] must be a sequence of 5 scores (severities 1..5)")
        if len(values) != NUM_SEVERITIES:
            raise ValueError(
                f"scores[{raw!r}] has {len(values)} values; expected 5 (severities 1..5)"
            )
        holes = [s for s, v in enumerate(values, 1) if v is None]
        if holes:
            cells = ", ".join(cell_name(name, s) for s in holes)
            raise ValueError(f"missing cell{'s' if len(holes) > 1 else ''}: {cells}")
        out[name] = tuple(
            check_score(v, f"the score of {cell_name(name, s)}") for s, v in enumerate(values, 1)
        )
    return {n: out[n] for n in ALL_CORRUPTIONS if n in out}


def check_clean_score(clean: object) -> float:
    """P: a finite clean score above 0 (rPC = mPC / P needs it).

    Raises:
        ValueError: none, NaN / infinite, 0 (rPC undefined), negative.
    """
    if clean is None:
        raise ValueError("no clean score (severity 0): P, and so rPC = mPC / P, needs it")
    p = check_score(clean, "the clean score")
    if p == 0.0:
        raise ValueError("the clean score is 0, so rPC = mPC / P is undefined")
    if p < 0.0:
        raise ValueError(
            f"the clean score {p!r} is negative; P, mPC and rPC need a higher-is-better score >= 0"
        )
    return p


def _scale_rows(
    clean: float | None, scores: Mapping[str, Sequence[float | None]]
) -> list[tuple[str, list[tuple[str, float]]]]:
    """``(row name, [(cell name, score), ...])``: the clean score, then each corruption's cells."""
    rows = [("the clean score", [("clean", clean)] if clean is not None else [])]
    for name, values in scores.items():
        given = [(cell_name(name, s), v) for s, v in enumerate(values, 1) if v is not None]
        rows.append((f"every score of {name}", given))
    return [(label, [(c, float(v)) for c, v in cells]) for label, cells in rows if cells]


def check_scale(
    clean: float | None,
    scores: Mapping[str, Sequence[float | None]],
    scale: str | None = None,
) -> str:
    """The one scale of a score table: ``"fraction"`` (0..1) or ``"percent"`` (0..100).

    Given, every score must lie in its range. Detected (``scale=None``): fractions when no
    score is above 1, else percentages, and then a row of the table - the clean score, or the
    five scores of one corruption - lying wholly in 0..1 is taken for fractions among
    percentages and refused (pass ``scale="percent"`` when it really is a percentage: a model
    that falls below 1 % at every severity).

    Raises:
        ArgumentError: an unknown ``scale``, a negative score, a score above 100 (or above 1 on
            the fraction scale), fractions mixed with percentages; one line naming the cell.
    """
    if scale is not None and scale not in SCALES:
        raise ArgumentError(
            Arg("scale"), f" must be one of {', '.join(SCALES)} or None, got {scale!r}"
        )
    rows = _scale_rows(clean, scores)
    cells = [cell for _label, row in rows for cell in row]
    if not cells:
        return scale or "fraction"
    low_cell, low = min(cells, key=lambda cv: cv[1])
    high_cell, high = max(cells, key=lambda cv: cv[1])
    if low < 0.0:
        raise ArgumentError(
            f"the score of {low_cell} is negative ({low!r}); P, mPC and rPC take scores on one "
            "scale: fractions 0..1 or percentages 0..100"
        )
    detected = scale or ("fraction" if high <= 1.0 else "percent")
    top = SCALES[detected]
    if high > top:
        name = "fraction scale 0..1" if detected == "fraction" else "percentage scale 0..100"
        parts: list[str | Arg] = [
            f"the score of {high_cell} is {high!r}, above {top:g}: outside the {name}"
        ]
        if scale is not None:
            parts += [" (", Arg("scale"), f" {scale})"]
        raise ArgumentError(*parts)
    if scale is None and detected == "percent":
        for label, row in rows:
            if all(v <= 1.0 for _c, v in row):
                raise ArgumentError(
                    f"{label} lies in 0..1 ({row[0][0]} = {row[0][1]!r}) while {high_cell} is "
                    f"{high!r}: fractions mixed with percentages? One scale per table: write "
                    "them all as fractions or all as percentages (or pass ",
                    Arg("scale", "percent", "scale='percent'"),
                    " if these are percentages)",
                )
    return detected


def summarize_scores(
    scores: Mapping[str, Sequence[float | None]],
    clean: float | None,
    *,
    partial: bool = False,
) -> ScoreSummary:
    """P, mPC, rPC and the per-corruption and per-severity means of a score grid.

    Args:
        scores: Corruption name -> 5 scores (severities 1..5), higher is better; names are
            case/space/hyphen-insensitive. The 15 benchmark corruptions are needed, the 4 extra
            ones are optional (reported, never in mPC).
        clean: P, the clean score (> 0).
        partial: Allow benchmark corruptions to be absent: mPC is then the mean over those given
            (``partial=True`` in the summary, the others in ``missing``).

    Raises:
        ValueError: one line naming the problem: a NaN / infinite score, a missing cell, missing
            benchmark corruptions (without ``partial``), a clean score of 0 or below.
    """
    grid = _check_grid(scores)
    p = check_clean_score(clean)
    present = tuple(n for n in BENCHMARK_CORRUPTIONS if n in grid)
    missing = tuple(n for n in BENCHMARK_CORRUPTIONS if n not in grid)
    if missing and not partial:
        raise ArgumentError(
            f"missing cells: no scores for {len(missing)} of the 15 benchmark corruptions "
            f"({', '.join(missing)}); mPC is the mean over all 15 x 5 (pass ",
            Arg("partial"),
            " for the mean over those given)",
        )
    if not present:
        raise ValueError(
            "no benchmark corruption has scores: mPC needs at least one of the 15 "
            f"({', '.join(BENCHMARK_CORRUPTIONS[:3])}, ...)"
        )
    means = {n: math.fsum(v) / NUM_SEVERITIES for n, v in grid.items()}
    mpc = math.fsum(s for n in present for s in grid[n]) / (len(present) * NUM_SEVERITIES)
    per_severity = tuple(
        math.fsum(grid[n][k] for n in present) / len(present) for k in range(NUM_SEVERITIES)
    )
    return ScoreSummary(
        scores=grid,
        clean=p,
        mpc=mpc,
        rpc=mpc / p,
        corruption_means=means,
        relative={n: m / p for n, m in means.items()},
        severity_means=per_severity,
        mpc_corruptions=present,
        missing=missing,
        partial=bool(missing),
    )

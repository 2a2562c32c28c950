"""Calibration of a classifier's softmax outputs under corruption: NLL, Brier score, ECE, top-k.

:class:`CalibrationStats` accumulates, batch by batch, the statistics of one cell (a corruption at
one severity, or the clean images) from logits and integer labels; two of them merge **exactly**
(:meth:`~CalibrationStats.merge`), so shards, data-loader workers, Ray tasks and a resumed run give
the very numbers of one pass, in any order of merging.

Definitions (``p = softmax(logits)`` in float64, ``y`` the label, ``K`` classes, ``n`` samples):

* **NLL** = mean of ``-log p_y``, from a log-softmax (``logsumexp`` after subtracting the row's
  maximum, so no logit overflows).
* **Brier score** = mean of ``sum_k (p_k - [k = y])^2``: the multi-class score of Brier (1950),
  "Verification of forecasts expressed in terms of probability", Monthly Weather Review 78(1), as
  Ovadia et al. (2019), "Can you trust your model's uncertainty?", report it (between 0 and 2;
  some libraries divide it by ``K``, we do not).
* **Top-k correct**: the label's rank is below ``k``, where the rank of class ``y`` is the number
  of classes with a larger logit plus the number with an equal logit and a smaller index, i.e. the
  position of ``y`` in ``numpy.argsort(-logits, kind="stable")``. Top-1 is therefore ``argmax ==
  y`` with ties going to the lowest index, as ``numpy.argmax`` and ``torch.argmax`` (which eval-c
  uses) return the first maximum; ``torch.topk`` documents no order among ties. With fewer than
  five classes every label is in the top five.
* **Confidence** = ``max_k p_k``; **mean confidence** its mean.
* **ECE** (Naeini et al. 2015, "Obtaining well calibrated probabilities using Bayesian binning",
  AAAI; Guo et al. 2017, "On calibration of modern neural networks", ICML) =
  ``sum_b (n_b / n) |acc_b - conf_b|`` over ``B`` equal-width bins of the confidence, with
  ``acc_b`` the top-1 accuracy and ``conf_b`` the mean confidence of the ``n_b`` samples of bin
  ``b``; an empty bin contributes 0. ``B = 15`` by default (google/robustness_metrics' ECE, which
  uncertainty-baselines logs); Ovadia et al. use 30.
* **Bins**: ``b = min(floor(c * B), B - 1)`` with ``c * B`` in float64, i.e. bin ``b`` holds
  ``b/B <= c < (b+1)/B`` and the last bin also ``c = 1``; a confidence of 0 falls in the first.
  This is ``tf.histogram_fixed_width_bins(c, [0, 1], B)``, the binning of robustness_metrics'
  ECE (``robustness_metrics/metrics/uncertainty.py``); Guo et al.'s code closes the bins on the
  right instead, which differs only for a confidence exactly on an edge. Because
  ``fl(c * 2B) = 2 fl(c * B)``, statistics kept with ``B`` bins give the exact ECE for ``B / 2``,
  ``B / 4``, ... bins too (:meth:`~CalibrationStats.ece` ``bins=``): keep 30 and read 15 and 30.

What is stored (:meth:`~CalibrationStats.to_dict`, a JSON object; every value an integer)::

    {"format": "corruptbench.calibration/1", "bins": B, "scale_bits": 52,
     "n": n, "top1_correct": ..., "top5_correct": ...,
     "nll_sum": ..., "brier_sum": ...,            # fixed-point sums, units of 2**-52
     "bin_count": [B ints], "bin_correct": [B ints],
     "bin_confidence_sum": [B ints]}              # fixed-point, units of 2**-52

Exact merging. Each sample's NLL, Brier score and confidence is computed in float64 and rounded to
the nearest multiple of ``2**-52`` (exact for values of at least 1, an absolute error of at most
``2**-53`` below); the sums of those multiples are kept as Python integers, which add exactly, so a
sum does not depend on how the samples were split or in which order the parts were added. The
derived numbers divide those integers once (Python's correctly rounded integer division). JSON
holds the integers as they are; some sums exceed ``2**53``, so read the file with a parser that
keeps large integers (Python's ``json`` does; JavaScript's ``JSON.parse`` does not). Identical
logits give identical statistics; numpy's vectorised ``exp`` / ``log`` may differ in the last bit
between CPU types, as a model's logits themselves do.

Examples:
    >>> import numpy as np
    >>> stats = CalibrationStats(bins=15)
    >>> stats.update(np.array([[2.0, 0.0, 0.0], [0.0, 3.0, 0.0]]), np.array([0, 2]))  # doctest: +ELLIPSIS
    CalibrationStats(bins=15, n=2, ...)
    >>> stats.top1_error, round(stats.nll, 4), round(stats.ece(), 4)
    (0.5, 1.6672, 0.5612)
    >>> again = CalibrationStats.from_dict(stats.to_dict())
    >>> again == stats
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = [
    "CalibrationStats",
    "CALIBRATION_FORMAT",
    "DEFAULT_BINS",
    "SCALE_BITS",
    "MIN_STORED_BINS",
    "confidence_bins",
    "stored_bins",
]

CALIBRATION_FORMAT = "corruptbench.calibration/1"
DEFAULT_BINS = 15
#: per-sample values are summed as integer multiples of 2**-SCALE_BITS
SCALE_BITS = 52
#: results files keep at least this many bins: 30, Ovadia et al.'s ECE, next to the default 15
MIN_STORED_BINS = 30
_TOP_K = 5
_INT_KEYS = ("n", "top1_correct", "top5_correct", "nll_sum", "brier_sum")
_BIN_KEYS = ("bin_count", "bin_correct", "bin_confidence_sum")


def confidence_bins(confidence: np.ndarray, bins: int) -> np.ndarray:
    """The bin of each confidence: ``min(floor(c * bins), bins - 1)`` (``c * bins`` in float64),
    so bin ``b`` holds ``b / bins <= c < (b + 1) / bins``, 1 falls in the last bin, 0 in the first
    (``tf.histogram_fixed_width_bins(c, [0, 1], bins)``).

    Examples:
        >>> confidence_bins(np.array([0.0, 0.5, 0.9999, 1.0]), 15).tolist()
        [0, 7, 14, 14]
    """
    c = np.asarray(confidence, dtype=np.float64)
    return np.clip(np.floor(c * bins), 0, bins - 1).astype(np.int64)


def stored_bins(ece_bins: int) -> int:
    """How many bins to keep so that the ECE of ``ece_bins`` bins is read exactly
    (:meth:`CalibrationStats.ece`): ``ece_bins * 2**k`` for the smallest ``k`` that gives at least
    :data:`MIN_STORED_BINS`, so the default 15 keeps 30 and gives Ovadia et al.'s 30 too.

    Raises:
        ValueError: ``ece_bins`` is not a positive integer.

    Examples:
        >>> stored_bins(15), stored_bins(30), stored_bins(10), stored_bins(100)
        (30, 30, 40, 100)
    """
    if isinstance(ece_bins, bool) or not isinstance(ece_bins, (int, np.integer)) or ece_bins < 1:
        raise ValueError(f"the number of ECE bins must be a positive integer, got {ece_bins!r}")
    bins = int(ece_bins)
    while bins < MIN_STORED_BINS:
        bins *= 2
    return bins


def _fixed(values: np.ndarray) -> np.ndarray:
    """``values`` rounded to the nearest multiple of ``2**-SCALE_BITS``, in those units (float64
    holding whole numbers; exact, since scaling by a power of two is)."""
    return np.rint(np.ldexp(values, SCALE_BITS))


def _exact_sum(units: np.ndarray) -> int:
    """The exact sum of whole numbers held in float64 (from :func:`_fixed`), as a Python int.

    Values below ``2**62`` are split into 31-bit halves summed in int64 (no overflow for fewer
    than ``2**31`` values); larger ones (an NLL above 1024) are added one by one.
    """
    big = np.abs(units) >= 2.0**62
    total = sum(int(v) for v in units[big].tolist())
    small = units[~big].astype(np.int64)
    high = small >> 31  # floor division: high * 2**31 + low == value, 0 <= low < 2**31
    low = small & ((1 << 31) - 1)
    return total + (int(high.sum()) << 31) + int(low.sum())


def _as_array(x: Any) -> np.ndarray:
    """An array of ``x``; a tensor is detached and moved to the CPU first (no torch import)."""
    if hasattr(x, "detach") and hasattr(x, "cpu"):
        x = x.detach().cpu()
    return np.asarray(x)


def _check_batch(logits: Any, labels: Any, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Validated float64 ``(N, K)`` logits (a new C-contiguous copy) and int64 ``(N,)`` labels in
    ``0..K-1``."""
    x = _as_array(logits)
    y = _as_array(labels)
    if x.ndim != 2 or x.shape[1] < 1:
        raise ValueError(f"{where}: logits must be (samples, classes), got shape {x.shape}")
    if not (np.issubdtype(x.dtype, np.floating) or np.issubdtype(x.dtype, np.integer)):
        raise ValueError(f"{where}: logits must be numbers, got dtype {x.dtype}")
    if y.ndim != 1 or y.shape[0] != x.shape[0]:
        raise ValueError(
            f"{where}: labels must be one integer per row of the logits ({x.shape[0]}), "
            f"got shape {y.shape}"
        )
    if y.size and not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"{where}: labels must be integers, got dtype {y.dtype}")
    x = np.array(x, dtype=np.float64, order="C", copy=True)  # ours to overwrite
    if not np.isfinite(x).all():
        bad = ~np.isfinite(x)
        rows = np.flatnonzero(bad.any(axis=1))
        first = x[rows[0]][bad[rows[0]]][0]
        raise ValueError(
            f"{where}: the logits hold {int(bad.sum())} non-finite value(s) in {rows.size} of "
            f"{x.shape[0]} rows (first: row {int(rows[0])}, {first}): no error rate, NLL or ECE "
            "can be computed from them"
        )
    y = y.astype(np.int64)
    out = (y < 0) | (y >= x.shape[1])
    if out.any():
        raise ValueError(
            f"{where}: label {int(y[out][0])} is outside 0..{x.shape[1] - 1} (the logits have "
            f"{x.shape[1]} classes)"
        )
    return x, y


def _ranks(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The rank of each label: classes with a larger logit, plus those with an equal logit and a
    smaller index (its position in a stable descending sort)."""
    rows = np.arange(x.shape[0])
    xy = x[rows, y][:, None]
    rank = np.count_nonzero(x > xy, axis=1)
    equal = x == xy
    tied = np.flatnonzero(np.count_nonzero(equal, axis=1) > 1)  # rows with ties: rare
    if tied.size:
        before = np.arange(x.shape[1])[None, :] < y[tied, None]
        rank[tied] += np.count_nonzero(equal[tied] & before, axis=1)
    return rank


def _per_sample(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, ...]:
    """NLL, Brier score and confidence of each row (float64), and its rank. ``x`` (a float64
    copy the caller owns) is overwritten: one buffer instead of five (large temporaries cost
    more in page faults than in arithmetic)."""
    rows = np.arange(x.shape[0])
    rank = _ranks(x, y)
    x -= x.max(axis=1, keepdims=True)  # z: every row's maximum is 0
    z_y = x[rows, y]
    np.exp(x, out=x)  # e = exp(z)
    s = x.sum(axis=1)
    nll = np.log(s) - z_y
    x /= s[:, None]  # p = softmax
    confidence = x.max(axis=1)
    x[rows, y] -= 1.0
    np.square(x, out=x)
    brier = x.sum(axis=1)
    return nll, brier, confidence, rank


class CalibrationStats:
    """Mergeable calibration statistics of one cell (see the module docstring for the
    definitions and what is stored).

    Args:
        bins: Equal-width confidence bins over [0, 1] of the ECE (default 15; 30 gives Ovadia
            et al.'s ECE and, exactly, the 15-bin one).

    Examples:
        >>> import numpy as np
        >>> a, b = CalibrationStats(), CalibrationStats()
        >>> _ = a.update(np.array([[1.0, 0.0]]), np.array([0]))
        >>> _ = b.update(np.array([[0.0, 2.0]]), np.array([0]))
        >>> (a + b).n, (a + b) == (b + a)
        (2, True)
    """

    __slots__ = (
        "bins",
        "n",
        "top1_correct",
        "top5_correct",
        "nll_sum",
        "brier_sum",
        "bin_count",
        "bin_correct",
        "bin_confidence_sum",
    )

    def __init__(self, bins: int = DEFAULT_BINS) -> None:
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
            raise ValueError(f"bins must be a positive integer, got {bins!r}")
        self.bins = int(bins)
        self.n = 0
        self.top1_correct = 0
        self.top5_correct = 0
        self.nll_sum = 0
        self.brier_sum = 0
        self.bin_count = [0] * self.bins
        self.bin_correct = [0] * self.bins
        self.bin_confidence_sum = [0] * self.bins

    # ---- accumulating ----------------------------------------------------------------------
    def update(self, logits: Any, labels: Any, *, where: str | None = None) -> CalibrationStats:
        """Add a batch: ``logits`` ``(N, K)`` (any float dtype, NumPy or a tensor) and integer
        ``labels`` ``(N,)`` in ``0..K-1``. Returns ``self``.

        Args:
            logits: The model's outputs before the softmax.
            labels: The true classes.
            where: Names the batch in error messages (``"fog/3, batch 12"``); default: the
                samples it would have been (``"the batch of samples 768..1023"``).

        Raises:
            ValueError: NaN or infinite logits, labels outside the classes, wrong shapes; nothing
                of the batch is added.
        """
        n_rows = int(np.shape(logits)[0]) if np.ndim(logits) >= 1 else 0
        label = where or f"the batch of samples {self.n}..{self.n + n_rows - 1}"
        x, y = _check_batch(logits, labels, label)
        if x.shape[0] == 0:
            return self
        nll, brier, confidence, rank = _per_sample(x, y)
        correct = rank == 0
        b = confidence_bins(confidence, self.bins)
        conf_units = _fixed(confidence)
        self.n += int(x.shape[0])
        self.top1_correct += int(np.count_nonzero(correct))
        self.top5_correct += int(np.count_nonzero(rank < _TOP_K))
        self.nll_sum += _exact_sum(_fixed(nll))
        self.brier_sum += _exact_sum(_fixed(brier))
        for k in np.unique(b).tolist():
            m = b == k
            self.bin_count[k] += int(np.count_nonzero(m))
            self.bin_correct[k] += int(np.count_nonzero(correct & m))
            self.bin_confidence_sum[k] += _exact_sum(conf_units[m])
        return self

    def merge(self, other: CalibrationStats) -> CalibrationStats:
        """Add ``other``'s statistics to these (exact: integer sums). Returns ``self``.

        Raises:
            ValueError: ``other`` has another number of bins.
        """
        if not isinstance(other, CalibrationStats):
            raise TypeError(f"can only merge CalibrationStats, got {type(other).__name__}")
        if other.bins != self.bins:
            raise ValueError(
                f"cannot merge calibration statistics with {other.bins} bins into ones with "
                f"{self.bins} bins"
            )
        for key in _INT_KEYS:
            setattr(self, key, getattr(self, key) + getattr(other, key))
        for key in _BIN_KEYS:
            mine, theirs = getattr(self, key), getattr(other, key)
            setattr(self, key, [a + b for a, b in zip(mine, theirs)])
        return self

    def copy(self) -> CalibrationStats:
        return CalibrationStats(self.bins).merge(self)

    def __add__(self, other: CalibrationStats) -> CalibrationStats:
        return self.copy().merge(other)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CalibrationStats):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{k}={v:.4f}"
            for k, v in (("top1_error", self.top1_error), ("nll", self.nll), ("ece", self.ece()))
            if v is not None
        )
        return f"CalibrationStats(bins={self.bins}, n={self.n}" + (f", {shown})" if shown else ")")

    # ---- derived numbers (None without samples) ----------------------------------------------
    def _mean(self, total: int) -> float | None:
        return total / (self.n << SCALE_BITS) if self.n else None

    @property
    def nll(self) -> float | None:
        """Mean negative log-likelihood of the true class (nats)."""
        return self._mean(self.nll_sum)

    @property
    def brier(self) -> float | None:
        """Mean multi-class Brier score ``sum_k (p_k - y_k)^2`` (0 to 2)."""
        return self._mean(self.brier_sum)

    @property
    def mean_confidence(self) -> float | None:
        """Mean of the largest softmax probability."""
        return self._mean(sum(self.bin_confidence_sum))

    @property
    def top1_error(self) -> float | None:
        return 1.0 - self.top1_correct / self.n if self.n else None

    @property
    def top5_error(self) -> float | None:
        return 1.0 - self.top5_correct / self.n if self.n else None

    def _regrouped(self, bins: int | None) -> tuple[list[int], list[int], list[int]]:
        """Counts, correct counts and confidence sums for ``bins`` bins (``self.bins`` divided by
        a power of two: adjacent bins added up)."""
        if bins is None or bins == self.bins:
            return self.bin_count, self.bin_correct, self.bin_confidence_sum
        ratio = self.bins // bins if isinstance(bins, int) and bins >= 1 else 0
        if ratio < 2 or ratio * bins != self.bins or ratio & (ratio - 1):
            raise ValueError(
                f"these statistics have {self.bins} bins: the ECE can be read for {self.bins} "
                f"bins or for that number divided by a power of two, not for {bins!r}"
            )
        shift = ratio.bit_length() - 1
        out: tuple[list[int], ...] = ([0] * bins, [0] * bins, [0] * bins)
        for k in range(self.bins):
            for acc, src in zip(out, (self.bin_count, self.bin_correct, self.bin_confidence_sum)):
                acc[k >> shift] += src[k]
        return out  # type: ignore[return-value]

    def ece(self, bins: int | None = None) -> float | None:
        """Expected calibration error ``sum_b (n_b / n) |acc_b - conf_b|``.

        Args:
            bins: ``None``: the stored bins; else the stored number divided by a power of two
                (exact, since the binning of ``B`` bins refines that of ``B / 2``).
        """
        counts, correct, confidence = self._regrouped(bins)
        if not self.n:
            return None
        gap = sum(abs((c << SCALE_BITS) - s) for c, s in zip(correct, confidence))
        return gap / (self.n << SCALE_BITS)

    def reliability(self, bins: int | None = None) -> list[dict[str, Any]]:
        """The reliability diagram: per bin its edges, count, accuracy and mean confidence
        (``None`` for an empty bin)."""
        counts, correct, confidence = self._regrouped(bins)
        k = len(counts)
        return [
            {
                "lower": b / k,
                "upper": (b + 1) / k,
                "count": counts[b],
                "accuracy": correct[b] / counts[b] if counts[b] else None,
                "confidence": confidence[b] / (counts[b] << SCALE_BITS) if counts[b] else None,
            }
            for b in range(k)
        ]

    def summary(self, bins: int | None = None) -> dict[str, Any]:
        """The derived numbers: ``n``, ``nll``, ``brier``, ``ece`` (for ``bins``), ``top1_error``,
        ``top5_error``, ``mean_confidence``."""
        return {
            "n": self.n,
            "nll": self.nll,
            "brier": self.brier,
            "ece": self.ece(bins),
            "top1_error": self.top1_error,
            "top5_error": self.top5_error,
            "mean_confidence": self.mean_confidence,
        }

    # ---- JSON ------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON object (see the module docstring); :meth:`from_dict` reads it back equal."""
        out: dict[str, Any] = {
            "format": CALIBRATION_FORMAT,
            "bins": self.bins,
            "scale_bits": SCALE_BITS,
        }
        out.update({key: getattr(self, key) for key in _INT_KEYS})
        out.update({key: list(getattr(self, key)) for key in _BIN_KEYS})
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str = "calibration statistics") -> CalibrationStats:
        """Read :meth:`to_dict`'s object back, checking it.

        Raises:
            ValueError: ``"<where>: ..."`` naming the key that is missing, of the wrong type or
                inconsistent with the others.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: must be an object, got {type(data).__name__}")
        if data.get("format") != CALIBRATION_FORMAT:
            raise ValueError(
                f"{where}: 'format' must be {CALIBRATION_FORMAT!r}, got {data.get('format')!r}"
            )
        if data.get("scale_bits") != SCALE_BITS:
            raise ValueError(
                f"{where}: 'scale_bits' must be {SCALE_BITS}, got {data.get('scale_bits')!r}"
            )
        bins = _count(data, "bins", where)
        if bins < 1:
            raise ValueError(f"{where}: 'bins' must be at least 1, got {bins}")
        stats = cls(bins)
        for key in _INT_KEYS:
            setattr(stats, key, _count(data, key, where))
        for key in _BIN_KEYS:
            values = data.get(key)
            if not isinstance(values, list) or len(values) != bins:
                raise ValueError(f"{where}: {key!r} must be a list of {bins} integers")
            setattr(stats, key, [_count({key: v}, key, where) for v in values])
        _check_consistent(stats, where)
        return stats


def _count(data: Mapping[str, Any], key: str, where: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{where}: {key!r} must be a non-negative integer, got {value!r}")
    return value


def _check_consistent(s: CalibrationStats, where: str) -> None:
    """The relations every accumulated statistics object satisfies."""
    one = 1 << SCALE_BITS
    problems = [
        (sum(s.bin_count) != s.n, f"'bin_count' sums to {sum(s.bin_count)}, not 'n' = {s.n}"),
        (
            sum(s.bin_correct) != s.top1_correct,
            f"'bin_correct' sums to {sum(s.bin_correct)}, not 'top1_correct' = {s.top1_correct}",
        ),
        (
            not s.top1_correct <= s.top5_correct <= s.n,
            f"'top1_correct' <= 'top5_correct' <= 'n' does not hold "
            f"({s.top1_correct}, {s.top5_correct}, {s.n})",
        ),
        (s.brier_sum > 2 * one * s.n, "'brier_sum' exceeds 2 per sample"),
    ]
    for b in range(s.bins):
        # the bin's edges in units, widened by one unit (a confidence a hair below b / B can
        # land in bin b through the rounding of c * B)
        lo, hi = (b * one) // s.bins - 1, -(-(b + 1) * one // s.bins) + 1
        c = s.bin_count[b]
        problems.append((s.bin_correct[b] > c, f"bin {b} has more correct samples than samples"))
        problems.append(
            (
                not lo * c <= s.bin_confidence_sum[b] <= hi * c,
                f"'bin_confidence_sum'[{b}] is outside the bin's confidence range",
            )
        )
    for bad, text in problems:
        if bad:
            raise ValueError(f"{where}: inconsistent statistics: {text}")

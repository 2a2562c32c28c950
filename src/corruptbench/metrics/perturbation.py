"""ImageNet-P per-sequence metrics: flip probability, top-5 distance, Zipf distance
(Hendrycks & Dietterich, ICLR 2019, arXiv:1903.12261), computed from per-frame predictions /
rankings exactly as ``ImageNet-P/test.py`` of github.com/hendrycks/robustness does
(``ranking_dist`` and ``flip_prob``, lines 227-273 at commit 8190fe3)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from ..grid import resolve_name
from ..perturbations import NOISE_PERTURBATIONS

__all__ = [
    "is_noise_perturbation",
    "flip_probability",
    "ranks_from_logits",
    "top5_distance",
    "zipf_distance",
]

_CHUNK_ELEMENTS = 1 << 22  # sequences are processed in chunks of about this many scores


def is_noise_perturbation(name: str) -> bool:
    """``True`` for perturbations the reference treats as noise ('noise' in the name).

    Noise sequences compare every frame with the clean frame 0; the others compare consecutive
    frames (``ImageNet-P/test.py:234,257``).

    Examples:
        >>> is_noise_perturbation("shot_noise"), is_noise_perturbation("rotate")
        (True, False)
    """
    return resolve_name("p", name) in NOISE_PERTURBATIONS


def _frame_pairs(n_frames: int, noise: bool, difficulty: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (reference frame, compared frame) of every comparison the reference makes.

    Non-noise: for each start offset ``o in 0..step-1`` the sub-sequence ``o, o+step, ...`` is walked
    comparing consecutive members, i.e. every pair ``(j - step, j)`` for ``j = step..T-1``
    (``T - step`` comparisons). Noise: step 1 and every frame ``j >= 1`` against frame 0.
    Each record weighs the same in the per-sequence mean, so the pair set is all that matters.
    """
    if not isinstance(noise, (bool, np.bool_)):
        raise TypeError(f"noise must be True or False, got {noise!r}")
    if isinstance(difficulty, (bool, np.bool_)) or not isinstance(difficulty, (int, np.integer)):
        raise TypeError(f"difficulty must be a positive integer (1, 2 or 3), got {difficulty!r}")
    if difficulty < 1:
        raise ValueError(f"difficulty must be >= 1 (reference uses 1, 2 or 3), got {difficulty}")
    step = 1 if noise else int(difficulty)
    if n_frames <= step:
        raise ValueError(
            f"sequences have {n_frames} frame(s); at least {step + 1} are needed for "
            f"{'noise' if noise else f'difficulty {difficulty}'} comparisons"
        )
    cur = np.arange(step, n_frames)
    ref = np.zeros_like(cur) if noise else cur - step
    return ref, cur


def flip_probability(predictions: ArrayLike, *, noise: bool, difficulty: int = 1) -> float:
    """Flip probability (FP) of top-1 predictions over perturbation sequences.

    For each sequence the records are ``1(pred[j] != pred[ref(j)])`` with (``flip_prob``,
    ImageNet-P/test.py:257-273)

    - non-noise: ``ref(j) = j - d`` for ``j = d..T-1`` where ``d = difficulty`` (consecutive frames of
      every stride-``d`` sub-sequence, all start offsets ``0..d-1``): ``T - d`` records;
    - noise (``noise=True``): ``ref(j) = 0`` for ``j = 1..T-1`` (each noisy frame against the clean
      frame; difficulty is a separate dataset, not a stride): ``T - 1`` records.

    ``FP = mean over sequences of (mean of the sequence's records)``.

    Args:
        predictions: Integer class predictions (argmax of the logits), shape ``(n_sequences, T)``.
        noise: Whether the perturbation is a noise one (see :func:`is_noise_perturbation`).
        difficulty: Frame stride for non-noise perturbations (reference: 1, 2 or 3).

    Returns:
        FP as a fraction in [0, 1].

    Examples:
        >>> flip_probability([[0, 1, 1, 0]], noise=False)  # pairs (0,1) (1,2) (2,3)
        0.6666666666666666
        >>> flip_probability([[0, 1, 1, 0]], noise=True)  # pairs (0,1) (0,2) (0,3)
        0.6666666666666666
        >>> flip_probability([[0, 1, 1, 0]], noise=False, difficulty=2)  # pairs (0,2) (1,3)
        1.0
    """
    preds = np.asarray(predictions)
    if preds.ndim == 3:
        raise ValueError(
            "predictions has 3 dimensions; pass top-1 class indices of shape (n_sequences, T), "
            "e.g. logits.argmax(-1)"
        )
    if preds.ndim != 2 or preds.shape[0] == 0:
        raise ValueError(f"predictions must have shape (n_sequences >= 1, T), got {preds.shape}")
    if not np.issubdtype(preds.dtype, np.integer):
        raise ValueError(
            f"predictions must be integer class indices, got dtype {preds.dtype}; "
            "pass logits.argmax(-1)"
        )
    ref, cur = _frame_pairs(preds.shape[1], noise, difficulty)
    flips = preds[:, cur] != preds[:, ref]
    return float(flips.mean(axis=1).mean())


def _check_scores(scores: ArrayLike, kind: str, min_classes: int) -> np.ndarray:
    if kind not in ("logits", "ranks"):
        raise ValueError(f"kind must be 'logits' or 'ranks', got {kind!r}")
    arr = np.asarray(scores)
    if arr.ndim != 3 or arr.shape[0] == 0:
        raise ValueError(
            f"{kind} must have shape (n_sequences >= 1, T, n_classes), got {arr.shape}"
        )
    if arr.shape[2] < min_classes:
        raise ValueError(f"need at least {min_classes} classes, got {arr.shape[2]}")
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"{kind} must be numeric, got dtype {arr.dtype}")
    if kind == "ranks":
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"ranks must be integers 1..n_classes, got dtype {arr.dtype}")
        if arr.min() < 1 or arr.max() > arr.shape[2]:
            raise ValueError(f"ranks must lie in 1..{arr.shape[2]} (1 = top class)")
    elif np.issubdtype(arr.dtype, np.complexfloating):
        raise ValueError("logits must be real numbers")
    elif np.issubdtype(arr.dtype, np.floating) and np.isnan(arr).any():
        raise ValueError("logits contain NaN")
    return arr


def _order_from_ranks(ranks: np.ndarray) -> np.ndarray:
    """Inverse permutation: ``order[..., k]`` = class with rank ``k + 1`` (checks it is one)."""
    n_classes = ranks.shape[-1]
    order = np.full(ranks.shape, -1, dtype=np.intp)
    classes = np.broadcast_to(np.arange(n_classes, dtype=np.intp), ranks.shape)
    np.put_along_axis(order, ranks.astype(np.intp) - 1, classes, axis=-1)
    back = np.take_along_axis(ranks, np.maximum(order, 0), axis=-1)
    if (order < 0).any() or not np.array_equal(back, np.broadcast_to(classes + 1, ranks.shape)):
        raise ValueError(f"each frame's ranks must be a permutation of 1..{n_classes}")
    return order


def _descending_order(logits: np.ndarray) -> np.ndarray:
    """Classes sorted by decreasing logit, ties by class index (``rankdata(-x, 'ordinal')``)."""
    if np.issubdtype(logits.dtype, np.unsignedinteger):
        logits = logits.astype(np.int64)
    return np.argsort(-logits, axis=-1, kind="stable")


def ranks_from_logits(logits: ArrayLike) -> np.ndarray:
    """Per-frame class ranks, ``scipy.stats.rankdata(-logits, method='ordinal')`` along the last axis.

    ``rank[..., c]`` is the 1-based position of class ``c`` when classes are sorted by decreasing
    logit, ties broken by lower class index first (what ``ImageNet-P/test.py:291`` stores).

    Args:
        logits: Array of shape ``(..., n_classes)``.

    Returns:
        ``int32`` array of the same shape with values ``1..n_classes``.

    Examples:
        >>> ranks_from_logits([0.1, 2.0, 0.1, -1.0]).tolist()
        [2, 1, 3, 4]
    """
    arr = np.asarray(logits)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"logits must have a non-empty last (class) axis, got shape {arr.shape}")
    if np.issubdtype(arr.dtype, np.floating) and np.isnan(arr).any():
        raise ValueError("logits contain NaN")
    order = _descending_order(arr)
    ranks = np.empty(arr.shape, dtype=np.int32)
    values = np.broadcast_to(np.arange(1, arr.shape[-1] + 1, dtype=np.int32), arr.shape)
    np.put_along_axis(ranks, order, values, axis=-1)
    return ranks


def _top5_classes(chunk: np.ndarray, kind: str) -> np.ndarray:
    """The 5 top-ranked classes of every frame, in rank order, shape ``(..., 5)``."""
    if kind == "ranks":
        return _order_from_ranks(chunk)[..., :5]
    if not np.issubdtype(chunk.dtype, np.floating) or np.isneginf(chunk).any():
        # Integer logits cannot hold the -inf mask below and -inf logits would tie with it:
        # take the exact (slower) full-sort path.
        return _descending_order(chunk)[..., :5]
    # Five passes of argmax (first maximum = lowest class index on ties, as 'ordinal' ranking),
    # masking each winner: ~20x faster than a full stable sort over 1000 classes.
    work = chunk.reshape(-1, chunk.shape[-1]).copy()
    rows = np.arange(work.shape[0])
    out = np.empty((work.shape[0], 5), dtype=np.intp)
    for k in range(5):
        best = work.argmax(axis=1)
        out[:, k] = best
        work[rows, best] = -np.inf
    return out.reshape(*chunk.shape[:-1], 5)


def _per_sequence_chunks(arr: np.ndarray) -> Iterable[np.ndarray]:
    per_seq = arr.shape[1] * arr.shape[2]
    size = max(1, _CHUNK_ELEMENTS // max(per_seq, 1))
    for start in range(0, arr.shape[0], size):
        yield arr[start : start + size]


def top5_distance(
    scores: ArrayLike,
    *,
    noise: bool,
    difficulty: int = 1,
    kind: Literal["logits", "ranks"] = "logits",
) -> float:
    """Top-5 distance (T5D) of the per-frame class rankings over perturbation sequences.

    For a reference frame ``x`` and a compared frame ``x'`` let ``sigma(k)`` be the rank in ``x'`` of
    the class ranked ``k``-th in ``x`` (``sigma = tau(x')[tau(x)^-1]``). Then::

        d(x, x') = sum_{k=1..5} |min(sigma(k), 6) - k|

    which equals the reference code (``cum = cumsum([0, 1,1,1,1,1, 0, ...])``,
    ``d = sum_{k<5} |cum[k] - cum[sigma(k) - 1]|``) and the paper's
    ``sum_{i=1..5} sum_{j=min(i, sigma(i))+1}^{max(i, sigma(i))} 1(1 <= j-1 <= 5)``.
    Frames are paired as in :func:`flip_probability`; T5D = mean over sequences of the mean ``d``.
    Ranks come from the logits with ties broken by class index
    (``scipy.stats.rankdata(-logits, method='ordinal')``).

    Args:
        scores: Logits of shape ``(n_sequences, T, n_classes)`` (``kind="logits"``) or the ranks
            themselves, integers ``1..n_classes`` with 1 = top class (``kind="ranks"``).
        noise: Whether the perturbation is a noise one (compare with frame 0).
        difficulty: Frame stride for non-noise perturbations.
        kind: ``"logits"`` or ``"ranks"``.

    Returns:
        T5D in [0, 15].

    Examples:
        >>> import numpy as np
        >>> a = np.arange(10.0)[::-1]          # class 0 on top
        >>> b = a.copy(); b[[0, 1]] = b[[1, 0]]  # swap the top two classes
        >>> top5_distance(np.stack([a, b])[None], noise=False)
        2.0
    """
    arr = _check_scores(scores, kind, min_classes=5)
    ref, cur = _frame_pairs(arr.shape[1], noise, difficulty)
    positions = np.arange(1, 6)
    per_sequence = []
    for chunk in _per_sequence_chunks(arr):
        top5 = _top5_classes(chunk, kind)  # (n, T, 5)
        ref_top, cur_top = top5[:, ref], top5[:, cur]  # (n, P, 5)
        same = ref_top[..., :, None] == cur_top[..., None, :]  # (n, P, 5 ref, 5 cur)
        sigma = np.where(same.any(axis=-1), same.argmax(axis=-1) + 1, 6)  # min(sigma(k), 6)
        dist = np.abs(sigma - positions).sum(axis=-1)
        per_sequence.append(dist.mean(axis=1))
    return float(np.concatenate(per_sequence).mean())


def zipf_distance(
    scores: ArrayLike,
    *,
    noise: bool,
    difficulty: int = 1,
    kind: Literal["logits", "ranks"] = "logits",
) -> float:
    """Zipf distance of the per-frame rankings (printed by the reference, not a headline metric).

    With ``sigma`` as in :func:`top5_distance` and ``C`` classes::

        d(x, x') = sum_{k=1..C} |1/k - 1/sigma(k)| * (1/k)

    averaged per sequence over the same frame pairs as :func:`flip_probability`, then over sequences.

    Args:
        scores: Logits ``(n_sequences, T, n_classes)`` or ranks (``kind="ranks"``).
        noise: Whether the perturbation is a noise one (compare with frame 0).
        difficulty: Frame stride for non-noise perturbations.
        kind: ``"logits"`` or ``"ranks"``.

    Returns:
        The mean Zipf distance (>= 0).

    Examples:
        >>> import numpy as np
        >>> a = np.arange(10.0)[::-1]
        >>> b = a.copy(); b[[0, 1]] = b[[1, 0]]
        >>> zipf_distance(np.stack([a, b])[None], noise=False)
        0.75
    """
    arr = _check_scores(scores, kind, min_classes=1)
    ref, cur = _frame_pairs(arr.shape[1], noise, difficulty)
    recip = 1.0 / np.arange(1, arr.shape[2] + 1, dtype=np.float64)
    per_sequence = []
    for chunk in _per_sequence_chunks(arr):
        if kind == "ranks":
            ranks = chunk.astype(np.intp)
            order = _order_from_ranks(chunk)
        else:
            order = _descending_order(chunk)
            ranks = np.empty(chunk.shape, dtype=np.intp)
            values = np.broadcast_to(np.arange(1, chunk.shape[-1] + 1), chunk.shape)
            np.put_along_axis(ranks, order, values, axis=-1)
        sigma = np.take_along_axis(ranks[:, cur], order[:, ref], axis=-1)  # (n, P, C)
        dist = (np.abs(recip - recip[sigma - 1]) * recip).sum(axis=-1)
        per_sequence.append(dist.mean(axis=1))
    return float(np.concatenate(per_sequence).mean())

"""ImageNet-P per-sequence metrics against literal loops of the reference rules."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import rankdata

from corruptbench.metrics import (
    flip_probability,
    is_noise_perturbation,
    ranks_from_logits,
    top5_distance,
    zipf_distance,
)
from corruptbench.perturbations import (
    NOISE_PERTURBATIONS,
    TEST_PERTURBATIONS,
    VALIDATION_PERTURBATIONS,
)

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
ROBUSTBENCH_CSV = SHARED / "data" / "published" / "robustbench_imagenet_c.csv"


# ------------------------------------------------------------------------------------------------
# literal re-statements of the reference rules (ImageNet-P/test.py:227-273), loops on purpose
# ------------------------------------------------------------------------------------------------
def loop_flip_probability(preds, noise, difficulty):
    step = 1 if noise else difficulty
    total = 0.0
    for seq in preds:
        records = []
        for start in range(step):
            prev = seq[start]
            for pred in seq[start::step][1:]:
                records.append(int(prev != pred))
                if not noise:
                    prev = pred
        total += np.mean(records) / len(preds)
    return total


def code_top5(sigma):
    """Reference code formula: cum = cumsum([0, 1,1,1,1,1, 0...]); sum |cum[:5] - cum[sigma-1][:5]|."""
    n = len(sigma)
    cum = np.cumsum(np.asarray([0] + [1] * 5 + [0] * max(n - 6, 0)))
    return float(np.sum(np.abs(cum[:5] - cum[sigma - 1][:5])))


def paper_top5(sigma):
    """Paper: sum_{i=1..5} sum_{j=min(i,s(i))+1}^{max(i,s(i))} 1(1 <= j-1 <= 5)."""
    d = 0
    for i in range(1, 6):
        s = int(sigma[i - 1])
        for j in range(min(i, s) + 1, max(i, s) + 1):
            d += 1 <= j - 1 <= 5
    return float(d)


def code_zipf(sigma):
    recip = 1.0 / np.arange(1, len(sigma) + 1)
    return float(np.sum(np.abs(recip - recip[sigma - 1]) * recip))


def loop_ranking_distance(logits, noise, difficulty, dist):
    step = 1 if noise else difficulty
    total = 0.0
    for seq in logits:
        ranks = [rankdata(-frame, method="ordinal").astype(int) for frame in seq]
        records = []
        for start in range(step):
            perm1_inv = np.argsort(ranks[start])
            for perm2 in ranks[start::step][1:]:
                records.append(dist(perm2[perm1_inv]))
                if not noise:
                    perm1_inv = np.argsort(perm2)
        total += np.mean(records) / len(logits)
    return total


# flip probability
# ------------------------------------------------------------------------------------------------
def test_flip_probability_hand_examples():
    assert flip_probability([[0, 1, 1, 0]], noise=False) == pytest.approx(2 / 3)
    assert flip_probability([[0, 1, 0, 1]], noise=False) == 1.0
    assert flip_probability([[0, 1, 0, 1]], noise=True) == pytest.approx(2 / 3)  # vs frame 0
    assert flip_probability([[0, 1, 0, 1]], noise=False, difficulty=2) == 0.0  # (0,2) (1,3)
    assert flip_probability([[0, 1, 0, 1]], noise=True, difficulty=3) == pytest.approx(2 / 3)
    # difficulty 3 on 7 frames: start offsets 0,1,2 -> pairs (0,3) (3,6) (1,4) (2,5); only (0,3) flips
    assert flip_probability([[5, 5, 5, 6, 5, 5, 6]], noise=False, difficulty=3) == pytest.approx(
        1 / 4
    )
    assert flip_probability([[5, 5, 5, 6, 5, 5, 6]], noise=False) == pytest.approx(3 / 6)
    # per-sequence mean, then mean over sequences
    assert flip_probability([[0, 0, 0], [0, 1, 2]], noise=False) == pytest.approx(0.5)
    assert flip_probability(np.zeros((3, 31), dtype=np.int64), noise=False) == 0.0


@pytest.mark.parametrize(
    ("noise", "difficulty", "comparisons"),
    [(False, 1, 40), (False, 2, 39), (False, 3, 38), (True, 1, 40), (True, 3, 40)],
)
def test_flip_probability_translate_comparison_counts(noise, difficulty, comparisons):
    seq = np.zeros((1, 41), dtype=np.int64)
    seq[0, -1] = 7  # exactly one comparison (the one ending at the last frame) flips
    assert flip_probability(seq, noise=noise, difficulty=difficulty) == pytest.approx(
        1 / comparisons
    )


@pytest.mark.parametrize("noise", [False, True])
@pytest.mark.parametrize("difficulty", [1, 2, 3])
def test_flip_probability_matches_reference_loops(noise, difficulty):
    rng = np.random.default_rng(difficulty + 10 * noise)
    preds = rng.integers(0, 3, size=(17, 31))
    assert flip_probability(preds, noise=noise, difficulty=difficulty) == pytest.approx(
        loop_flip_probability(preds, noise, difficulty), abs=1e-12
    )


@pytest.mark.parametrize(
    ("preds", "kwargs", "match"),
    [
        (np.zeros((2, 5, 10)), {}, "argmax"),
        (np.zeros((2, 5)), {}, "integer"),
        (np.zeros(5, dtype=int), {}, "shape"),
        (np.zeros((2, 3), dtype=int), {"difficulty": 3}, "at least 4"),
        (np.zeros((2, 3), dtype=int), {"difficulty": 0}, ">= 1"),
    ],
)
def test_flip_probability_validation(preds, kwargs, match):
    with pytest.raises(ValueError, match=match):
        flip_probability(preds, noise=False, **kwargs)
    with pytest.raises(TypeError):
        flip_probability(np.zeros((2, 3), dtype=int), noise="yes")


# ------------------------------------------------------------------------------------------------
# top-5 / Zipf distance
# ------------------------------------------------------------------------------------------------
def _pair(cur_ranks, n_classes=10):
    ref = np.arange(1, n_classes + 1)  # class c has rank c + 1
    return np.stack([ref, np.asarray(cur_ranks)])[None]  # (1 sequence, 2 frames, C)


def test_top5_distance_spec_examples():
    c = 10
    ident = np.arange(1, c + 1)
    swap12 = ident.copy()
    swap12[[0, 1]] = [2, 1]
    swap56 = ident.copy()
    swap56[[4, 5]] = [6, 5]
    top_to_last = np.r_[c, np.arange(1, c)]
    for ranks, expected in [(ident, 0.0), (swap12, 2.0), (swap56, 1.0), (top_to_last, 9.0)]:
        assert top5_distance(_pair(ranks), noise=False, kind="ranks") == expected
        assert code_top5(ranks) == paper_top5(ranks) == expected
        logits = -_pair(ranks).astype(np.float32)  # higher logit = better rank
        assert top5_distance(logits, noise=False) == expected
    assert zipf_distance(_pair(swap12), noise=False, kind="ranks") == pytest.approx(0.75)
    assert zipf_distance(-_pair(swap12).astype(float), noise=False) == pytest.approx(0.75)
    assert zipf_distance(_pair(ident), noise=False, kind="ranks") == 0.0


def test_top5_closed_form_equals_code_and_paper_formula():
    rng = np.random.default_rng(0)
    for n_classes in (8, 1000):
        logits = rng.standard_normal((400, 2, n_classes))
        if n_classes == 8:  # rich in ties and in top-5 overlap
            logits = np.round(logits)
        ours = [top5_distance(pair[None], noise=False) for pair in logits[:100]]
        for pair, d in zip(logits[:100], ours):
            r1, r2 = (rankdata(-f, method="ordinal").astype(int) for f in pair)
            sigma = r2[np.argsort(r1)]
            closed = float(np.sum(np.abs(np.minimum(sigma[:5], 6) - np.arange(1, 6))))
            assert d == closed == code_top5(sigma) == paper_top5(sigma)
        # whole batch at once: mean of the per-pair distances
        batch = top5_distance(logits, noise=False)
        expected = np.mean(
            [
                paper_top5(
                    rankdata(-p[1], method="ordinal").astype(int)[
                        np.argsort(rankdata(-p[0], method="ordinal"))
                    ]
                )
                for p in logits
            ]
        )
        assert batch == pytest.approx(expected, abs=1e-12)


def test_ranks_from_logits_is_ordinal_rankdata():
    rng = np.random.default_rng(1)
    logits = np.round(rng.standard_normal((6, 4, 50)), 1).astype(np.float32)  # many ties
    expected = rankdata(-logits, method="ordinal", axis=-1)
    assert np.array_equal(ranks_from_logits(logits), expected)


@pytest.mark.parametrize("noise", [False, True])
@pytest.mark.parametrize("difficulty", [1, 2, 3])
def test_ranking_distances_match_reference_loops(noise, difficulty):
    rng = np.random.default_rng(100 + difficulty + 10 * noise)
    base = rng.standard_normal((6, 1, 20))
    logits = np.round(base + 0.6 * rng.standard_normal((6, 13, 20)), 1)  # correlated frames, ties
    kw = {"noise": noise, "difficulty": difficulty}
    t5 = loop_ranking_distance(logits, noise, difficulty, code_top5)
    zf = loop_ranking_distance(logits, noise, difficulty, code_zipf)
    assert top5_distance(logits, **kw) == pytest.approx(t5, abs=1e-12)
    assert top5_distance(logits.astype(np.float32), **kw) == pytest.approx(t5, abs=1e-12)
    assert top5_distance(ranks_from_logits(logits), kind="ranks", **kw) == pytest.approx(
        t5, abs=1e-12
    )
    assert top5_distance((logits * 10).astype(np.int64), **kw) == pytest.approx(t5, abs=1e-12)
    assert zipf_distance(logits, **kw) == pytest.approx(zf, abs=1e-12)
    assert zipf_distance(ranks_from_logits(logits), kind="ranks", **kw) == pytest.approx(
        zf, abs=1e-12
    )


def test_top5_with_infinite_logits():
    logits = np.zeros((1, 3, 10))
    logits[:, :, 5:] = -np.inf
    logits[0, 1, 7] = 1.0  # class 7 jumps to the top
    expected = loop_ranking_distance(logits, False, 1, code_top5)
    assert top5_distance(logits, noise=False) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("scores", "kind", "match"),
    [
        (np.zeros((2, 5)), "logits", "shape"),
        (np.zeros((2, 5, 4)), "logits", "at least 5 classes"),
        (np.full((1, 2, 6), np.nan), "logits", "NaN"),
        (np.ones((1, 2, 6), dtype=int), "ranks", "permutation"),
        (np.zeros((1, 2, 6), dtype=int), "ranks", "1..6"),
        (np.ones((1, 2, 6)), "ranks", "integers"),
        (np.ones((1, 2, 6)), "probabilities", "kind"),
    ],
)
def test_top5_validation(scores, kind, match):
    with pytest.raises(ValueError, match=match):
        top5_distance(scores, noise=False, kind=kind)


# ------------------------------------------------------------------------------------------------
# summarize_p / load_p_baseline


def test_is_noise_perturbation():
    assert [
        p for p in TEST_PERTURBATIONS + VALIDATION_PERTURBATIONS if is_noise_perturbation(p)
    ] == list(NOISE_PERTURBATIONS)
    assert math.isclose(
        flip_probability([[1, 2, 1]], noise=is_noise_perturbation("Shot Noise")), 0.5
    )

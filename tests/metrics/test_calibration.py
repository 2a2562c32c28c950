"""Calibration statistics: each formula against a per-sample transcription of its definition, the
edge cases (empty bins, a confidence of exactly 1 or 0, ties, one sample, all right / all wrong),
exact merging in any order and split, JSON round trips and the errors."""

from __future__ import annotations

import doctest
import json
import math
import random

import numpy as np
import pytest

from corruptbench.metrics import calibration
from corruptbench.metrics.calibration import (
    CALIBRATION_FORMAT,
    SCALE_BITS,
    CalibrationStats,
    confidence_bins,
)


# ------------------------------------------------------------------------------------------------
# an independent transcription of the definitions: one sample at a time, math module, lists
# ------------------------------------------------------------------------------------------------
def reference(logits: list[list[float]], labels: list[int], bins: int) -> dict[str, float]:
    """NLL, Brier, ECE, top-1/top-5 error and mean confidence, written from the definitions."""
    nlls, briers, confs, hits1, hits5, which = [], [], [], [], [], []
    for row, y in zip(logits, labels):
        top = max(row)
        weights = [math.exp(v - top) for v in row]
        total = math.fsum(weights)
        probs = [w / total for w in weights]
        nlls.append(math.log(total) - (row[y] - top))  # -log softmax(row)[y]
        briers.append(math.fsum((p - (1.0 if k == y else 0.0)) ** 2 for k, p in enumerate(probs)))
        conf = max(probs)
        confs.append(conf)
        order = sorted(range(len(row)), key=lambda k: (-row[k], k))  # ties: lower index first
        hits1.append(order[0] == y)
        hits5.append(y in order[:5])
        b = int(conf * bins)  # truncation == floor for conf >= 0
        which.append(bins - 1 if b >= bins else b)
    n = len(labels)
    ece = 0.0
    for b in range(bins):
        members = [i for i in range(n) if which[i] == b]
        if not members:
            continue  # an empty bin adds nothing
        acc = sum(hits1[i] for i in members) / len(members)
        mean_conf = math.fsum(confs[i] for i in members) / len(members)
        ece += len(members) / n * abs(acc - mean_conf)
    return {
        "nll": math.fsum(nlls) / n,
        "brier": math.fsum(briers) / n,
        "ece": ece,
        "top1_error": 1 - sum(hits1) / n,
        "top5_error": 1 - sum(hits5) / n,
        "mean_confidence": math.fsum(confs) / n,
    }


def assert_matches(stats: CalibrationStats, logits, labels, bins: int) -> None:
    ref = reference(np.asarray(logits, float).tolist(), list(map(int, labels)), bins)
    got = stats.summary()
    assert got["n"] == len(labels)
    for key, value in ref.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key


def random_batch(rng: np.random.Generator, n: int, k: int, scale: float = 3.0):
    logits = rng.normal(0, scale, size=(n, k)).astype(np.float32)
    labels = rng.integers(0, k, size=n)
    return logits, labels


# ------------------------------------------------------------------------------------------------
# formulas
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bins", [15, 30, 7])
def test_every_number_matches_the_definitions(bins: int) -> None:
    rng = np.random.default_rng(0)
    logits, labels = random_batch(rng, 400, 10)
    stats = CalibrationStats(bins).update(logits, labels)
    assert_matches(stats, logits, labels, bins)


def test_many_classes_and_large_logits_stay_finite() -> None:
    rng = np.random.default_rng(1)
    logits = rng.normal(0, 1, size=(64, 1000)) * 400.0  # exp would overflow without log-softmax
    labels = rng.integers(0, 1000, size=64)
    stats = CalibrationStats().update(logits, labels)
    assert all(math.isfinite(v) for v in stats.summary().values())
    assert_matches(stats, logits, labels, 15)
    assert stats.nll > 100  # wrong and very sure: an NLL above 1024 units works too
    big = CalibrationStats().update(np.array([[0.0, 5000.0]]), np.array([0]))
    assert big.nll == 5000.0 and big.brier == 2.0


def test_a_single_sample() -> None:
    stats = CalibrationStats().update(np.array([[0.5, 2.0, -1.0]]), np.array([1]))
    assert_matches(stats, [[0.5, 2.0, -1.0]], [1], 15)
    p = np.exp([0.5, 2.0, -1.0]) / np.exp([0.5, 2.0, -1.0]).sum()
    assert stats.ece() == pytest.approx(1 - p[1], rel=1e-14)  # one bin, accuracy 1


def test_all_correct_and_all_wrong() -> None:
    logits = np.array([[4.0, 0.0, 0.0], [0.0, 3.0, 1.0], [0.0, 0.0, 9.0]])
    right = CalibrationStats().update(logits, np.array([0, 1, 2]))
    wrong = CalibrationStats().update(logits, np.array([1, 2, 0]))
    assert right.top1_error == 0.0 and wrong.top1_error == 1.0
    assert right.top5_error == wrong.top5_error == 0.0  # 3 classes: every label in the top 5
    assert_matches(right, logits, [0, 1, 2], 15)
    assert_matches(wrong, logits, [1, 2, 0], 15)
    # all wrong: ECE is the mean confidence; all right: 1 - mean confidence
    assert wrong.ece() == pytest.approx(wrong.mean_confidence, rel=1e-15)
    assert right.ece() == pytest.approx(1 - right.mean_confidence, rel=1e-15)


def test_empty_bins_add_nothing() -> None:
    # two samples in two bins out of 15: ECE is their two gaps weighted 1/2 each
    logits = np.array([[3.0, 0.0], [0.2, 0.0]])
    stats = CalibrationStats(15).update(logits, np.array([0, 1]))
    occupied = [b for b, c in enumerate(stats.bin_count) if c]
    assert len(occupied) == 2
    c1, c2 = 1 / (1 + math.exp(-3.0)), 1 / (1 + math.exp(-0.2))
    assert stats.ece() == pytest.approx(0.5 * (1 - c1) + 0.5 * c2, rel=1e-14)
    rel = stats.reliability()
    assert [r["count"] for r in rel] == stats.bin_count
    assert all(r["accuracy"] is None and r["confidence"] is None for r in rel if not r["count"])
    assert_matches(stats, logits, [0, 1], 15)


def test_confidence_exactly_one_falls_in_the_last_bin() -> None:
    logits = np.array([[0.0, -1000.0, -1000.0], [0.0, -1000.0, -1000.0]])
    stats = CalibrationStats(15).update(logits, np.array([0, 1]))
    assert stats.mean_confidence == 1.0
    assert stats.bin_count[-1] == 2 and stats.bin_confidence_sum[-1] == 2 << SCALE_BITS
    assert stats.ece() == 0.5  # one right, one wrong, both at confidence 1
    assert stats.nll == pytest.approx(500.0) and stats.brier == 1.0


def test_bin_edges() -> None:
    for bins in (15, 30, 10):
        edges = np.array([b / bins for b in range(bins)])
        got = confidence_bins(edges, bins)
        want = [min(int(e * bins), bins - 1) for e in edges]
        assert got.tolist() == want
        assert confidence_bins(np.array([0.0, 1.0, np.nextafter(1.0, 0.0)]), bins).tolist() == [
            0,
            bins - 1,
            bins - 1,
        ]
    # the float64 rule of tf.histogram_fixed_width_bins: 0.2 * 15 rounds to exactly 3.0
    assert confidence_bins(np.array([0.2, 0.5, 0.0666]), 15).tolist() == [3, 7, 0]


def test_ties_go_to_the_lowest_index() -> None:
    # argmax of [1, 1, 0] is class 0 (the first maximum), as numpy.argmax and torch.argmax return
    logits = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    stats = CalibrationStats().update(logits, np.array([0, 1]))
    assert stats.top1_correct == 1 and int(np.argmax(logits[0])) == 0
    # top-5 among 7 equal logits: classes 0..4 are in, 5 and 6 are not
    flat = np.zeros((7, 7))
    ties = CalibrationStats().update(flat, np.arange(7))
    assert ties.top5_correct == 5 and ties.top1_correct == 1
    assert ties.top5_correct == sum(y in np.argsort(-flat[0], kind="stable")[:5] for y in range(7))
    # a tie below the label: [2, 5, 5, 5, 5, 5, 1] with label 6 (rank 6) and label 5 (rank 4)
    row = np.array([[2.0, 5, 5, 5, 5, 5, 1]] * 3)
    got = CalibrationStats().update(row, np.array([6, 5, 0]))
    assert got.top5_correct == 1 and got.top1_correct == 0
    assert_matches(got, row, [6, 5, 0], 15)
    assert_matches(ties, flat, list(range(7)), 15)


def test_top1_equals_torch_argmax() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    logits = torch.from_numpy(rng.integers(0, 4, size=(300, 6)).astype(np.float32))  # many ties
    labels = torch.from_numpy(rng.integers(0, 6, size=300))
    stats = CalibrationStats().update(logits, labels)  # tensors are accepted as they are
    assert stats.top1_correct == int((logits.argmax(1) == labels).sum())


def test_float32_float16_and_integer_logits() -> None:
    rng = np.random.default_rng(2)
    logits, labels = random_batch(rng, 50, 8)
    a = CalibrationStats().update(logits, labels)
    b = CalibrationStats().update(logits.astype(np.float64), labels)
    assert a == b  # float32 -> float64 is exact
    half = logits.astype(np.float16)
    assert_matches(CalibrationStats().update(half, labels), half.astype(float), labels, 15)
    ints = rng.integers(-3, 4, size=(20, 5))
    assert_matches(CalibrationStats().update(ints, labels[:20] % 5), ints, labels[:20] % 5, 15)


def test_empty_stats_and_empty_batches() -> None:
    stats = CalibrationStats()
    assert stats.summary() == {
        "n": 0,
        "nll": None,
        "brier": None,
        "ece": None,
        "top1_error": None,
        "top5_error": None,
        "mean_confidence": None,
    }
    stats.update(np.zeros((0, 10)), np.zeros(0, dtype=int))
    assert stats.n == 0 and stats == CalibrationStats()


# ------------------------------------------------------------------------------------------------
# merging: any split, any order, equal to one pass
# ------------------------------------------------------------------------------------------------
def test_merging_in_any_order_and_split_equals_one_pass() -> None:
    rng = np.random.default_rng(3)
    logits, labels = random_batch(rng, 1000, 100, scale=4.0)
    one = CalibrationStats(30).update(logits, labels)
    pyrng = random.Random(0)
    for _ in range(5):
        # shards of random sizes, each fed in random batches, merged in a random order
        cuts = sorted(pyrng.sample(range(1, 1000), 7))
        parts = []
        for lo, hi in zip([0, *cuts], [*cuts, 1000]):
            s = CalibrationStats(30)
            pos = lo
            while pos < hi:
                step = pyrng.randint(1, 97)
                s.update(logits[pos : min(hi, pos + step)], labels[pos : min(hi, pos + step)])
                pos += step
            parts.append(s)
        pyrng.shuffle(parts)
        merged = CalibrationStats(30)
        for p in parts:
            merged.merge(p)
        assert merged == one and merged.to_dict() == one.to_dict()
    # the samples in another order (a resumed run, other workers) give the same statistics
    perm = rng.permutation(1000)
    assert CalibrationStats(30).update(logits[perm], labels[perm]) == one
    # one sample per batch
    single = CalibrationStats(30)
    for i in range(0, 1000, 7):
        single.update(logits[i : i + 1], labels[i : i + 1])
    strided = CalibrationStats(30).update(logits[::7], labels[::7])
    assert single == strided


def test_merge_is_associative_and_commutative() -> None:
    rng = np.random.default_rng(4)
    a, b, c = (CalibrationStats().update(*random_batch(rng, 37, 5)) for _ in range(3))
    assert (a + b) + c == a + (b + c) == (c + a) + b
    assert a + CalibrationStats() == a
    with pytest.raises(ValueError, match="30 bins into ones with 15 bins"):
        CalibrationStats(15).merge(CalibrationStats(30))
    with pytest.raises(TypeError, match="can only merge"):
        CalibrationStats().merge({})  # type: ignore[arg-type]


def test_coarser_ece_from_finer_bins_is_exact() -> None:
    rng = np.random.default_rng(6)
    logits, labels = random_batch(rng, 2000, 3, scale=1.5)
    # plus confidences exactly on the 15-bin and 30-bin edges and at 1
    edge_rows = [[math.log(c / (1 - c)), 0.0] for c in (0.6, 2 / 3, 0.8, 0.9)]
    fine = CalibrationStats(30).update(logits, labels).update(np.array(edge_rows), [0, 1, 0, 1])
    coarse = CalibrationStats(15).update(logits, labels).update(np.array(edge_rows), [0, 1, 0, 1])
    assert fine.ece(bins=15) == coarse.ece()
    assert fine.reliability(bins=15) == coarse.reliability()
    assert CalibrationStats(60).update(logits, labels).ece(15) == (
        CalibrationStats(15).update(logits, labels).ece()
    )
    for bad in (10, 7, 60, 0):
        with pytest.raises(ValueError, match="divided by a power of two"):
            fine.ece(bins=bad)


# ------------------------------------------------------------------------------------------------
# JSON
# ------------------------------------------------------------------------------------------------
def test_json_round_trip_is_lossless() -> None:
    rng = np.random.default_rng(7)
    stats = CalibrationStats(30).update(*random_batch(rng, 500, 1000, scale=6.0))
    text = json.dumps(stats.to_dict())
    back = CalibrationStats.from_dict(json.loads(text))
    assert back == stats and back.summary() == stats.summary()
    assert back.to_dict() == stats.to_dict()
    d = stats.to_dict()
    assert d["format"] == CALIBRATION_FORMAT and d["scale_bits"] == SCALE_BITS
    assert list(d) == [
        "format",
        "bins",
        "scale_bits",
        "n",
        "top1_correct",
        "top5_correct",
        "nll_sum",
        "brier_sum",
        "bin_count",
        "bin_correct",
        "bin_confidence_sum",
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other/1"}, "'format' must be"),
        ({"scale_bits": 40}, "'scale_bits' must be 52"),
        ({"bins": 0}, "'bins' must be at least 1"),
        ({"n": -1}, "'n' must be a non-negative integer"),
        ({"nll_sum": 1.5}, "'nll_sum' must be a non-negative integer"),
        ({"top1_correct": True}, "'top1_correct' must be a non-negative integer"),
        ({"bin_count": [1, 2]}, "'bin_count' must be a list of 15 integers"),
        ({"n": 11}, "'bin_count' sums to 10, not 'n' = 11"),
        ({"top5_correct": 11}, "'top1_correct' <= 'top5_correct' <= 'n'"),
        ({"brier_sum": 21 << SCALE_BITS}, "'brier_sum' exceeds 2 per sample"),
    ],
)
def test_from_dict_names_what_is_wrong(change: dict, message: str) -> None:
    rng = np.random.default_rng(8)
    d = CalibrationStats().update(*random_batch(rng, 10, 4)).to_dict()
    d.update(change)
    with pytest.raises(ValueError, match=message) as info:
        CalibrationStats.from_dict(d, "run.json: calibration['fog/3']")
    assert str(info.value).startswith("run.json: calibration['fog/3']: ")


def test_from_dict_checks_bins_against_their_confidence() -> None:
    stats = CalibrationStats().update(np.array([[3.0, 0.0]]), np.array([0]))
    d = stats.to_dict()
    b = next(i for i, c in enumerate(d["bin_count"]) if c)
    d["bin_confidence_sum"][b] = 1 << SCALE_BITS // 2  # a confidence far below the bin
    with pytest.raises(ValueError, match=rf"'bin_confidence_sum'\[{b}\] is outside"):
        CalibrationStats.from_dict(d)
    with pytest.raises(ValueError, match="must be an object"):
        CalibrationStats.from_dict([1, 2])


# ------------------------------------------------------------------------------------------------
# errors
# ------------------------------------------------------------------------------------------------
def test_non_finite_logits_name_the_batch_and_add_nothing() -> None:
    stats = CalibrationStats().update(np.zeros((4, 3)), np.zeros(4, dtype=int))
    before = stats.to_dict()
    bad = np.zeros((3, 3))
    bad[1, 2] = np.nan
    with pytest.raises(
        ValueError, match=r"the batch of samples 4\.\.6: the logits hold 1 non-finite"
    ):
        stats.update(bad, np.zeros(3, dtype=int))
    bad[2, 0] = np.inf
    with pytest.raises(
        ValueError, match=r"^fog/3, batch 2: .* 2 non-finite value\(s\) in 2 of 3 rows"
    ):
        stats.update(bad, np.zeros(3, dtype=int), where="fog/3, batch 2")
    assert stats.to_dict() == before


@pytest.mark.parametrize(
    ("logits", "labels", "message"),
    [
        (np.zeros(3), np.zeros(3, dtype=int), "must be \\(samples, classes\\)"),
        (np.zeros((3, 0)), np.zeros(3, dtype=int), "must be \\(samples, classes\\)"),
        (np.zeros((3, 2)), np.zeros(2, dtype=int), "one integer per row"),
        (np.zeros((3, 2)), np.zeros(3), "labels must be integers"),
        (np.zeros((3, 2)), np.array([0, 2, 1]), "label 2 is outside 0..1"),
        (np.zeros((3, 2)), np.array([0, -1, 1]), "label -1 is outside 0..1"),
        (np.array([["a", "b"]]), np.array([0]), "logits must be numbers"),
    ],
)
def test_bad_batches(logits, labels, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CalibrationStats().update(logits, labels)


def test_bins_must_be_positive() -> None:
    for bad in (0, -3, 1.5, True):
        with pytest.raises(ValueError, match="bins must be a positive integer"):
            CalibrationStats(bad)  # type: ignore[arg-type]


def test_docstring_examples() -> None:
    assert doctest.testmod(calibration).failed == 0

"""Tests for corruptbench.metrics / corruptbench.tables.alexnet (ImageNet-C and ImageNet-P metrics)."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import rankdata

from corruptbench.corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS
from corruptbench.metrics import (
    flip_probability,
    is_noise_perturbation,
    load_p_baseline,
    ranks_from_logits,
    summarize_c,
    summarize_p,
    top5_distance,
    zipf_distance,
)
from corruptbench.perturbations import (
    NOISE_PERTURBATIONS,
    TEST_PERTURBATIONS,
    VALIDATION_PERTURBATIONS,
)
from corruptbench.tables.alexnet import ALEXNET_C_AVERAGES, ALEXNET_C_ERRORS, ALEXNET_CLEAN_ERROR

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ROBUSTBENCH_CSV = SHARED / "data" / "published" / "robustbench_imagenet_c.csv"


# ------------------------------------------------------------------------------------------------
# literal re-statements of the reference rules (reference-spec.md §4.2), loops on purpose
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


def alexnet_errors():
    return {name: list(v) for name, v in ALEXNET_C_ERRORS.items()}


# ------------------------------------------------------------------------------------------------
# baselines data module
# ------------------------------------------------------------------------------------------------
def test_baseline_tables_match_spec():
    assert ALL_CORRUPTIONS == BENCHMARK_CORRUPTIONS + EXTRA_CORRUPTIONS
    assert len(BENCHMARK_CORRUPTIONS) == 15 and len(EXTRA_CORRUPTIONS) == 4
    assert tuple(ALEXNET_C_ERRORS) == ALL_CORRUPTIONS
    assert EXTRA_CORRUPTIONS == ("speckle_noise", "gaussian_blur", "spatter", "saturate")
    published_averages = {  # reference-spec.md §4.1 "Average" column
        "gaussian_noise": 0.886428, "shot_noise": 0.894468, "impulse_noise": 0.922640,
        "defocus_blur": 0.819880, "glass_blur": 0.826268, "motion_blur": 0.785948,
        "zoom_blur": 0.798360, "snow": 0.866816, "frost": 0.826572, "fog": 0.819324,
        "brightness": 0.564592, "contrast": 0.853204, "elastic_transform": 0.646056,
        "pixelate": 0.717840, "jpeg_compression": 0.606500, "speckle_noise": 0.845388,
        "gaussian_blur": 0.787108, "spatter": 0.717512, "saturate": 0.658248,
    }  # fmt: skip
    for name, avg in published_averages.items():
        assert len(ALEXNET_C_ERRORS[name]) == 5
        assert ALEXNET_C_AVERAGES[name] == pytest.approx(avg, abs=1e-6), name
    # spec §7.6
    assert np.mean([ALEXNET_C_AVERAGES[n] for n in BENCHMARK_CORRUPTIONS]) == pytest.approx(
        0.788993, abs=1e-6
    )
    assert np.mean(list(ALEXNET_C_AVERAGES.values())) == pytest.approx(0.781219, abs=1e-6)
    assert ALEXNET_CLEAN_ERROR == 0.43478
    assert len(TEST_PERTURBATIONS) == 10 and len(VALIDATION_PERTURBATIONS) == 4
    assert NOISE_PERTURBATIONS == ("gaussian_noise", "shot_noise", "speckle_noise")


# ------------------------------------------------------------------------------------------------
# summarize_c
# ------------------------------------------------------------------------------------------------
def test_alexnet_against_itself_is_exactly_one():
    s = summarize_c(alexnet_errors(), clean_error=ALEXNET_CLEAN_ERROR)
    assert s.mce == 1.0 and s.relative_mce == 1.0
    assert s.extra_ce == 1.0 and s.extra_relative_ce == 1.0
    assert all(v == 1.0 for v in s.ce.values()) and all(v == 1.0 for v in s.relative_ce.values())
    assert not s.partial and s.missing == [] and s.extra_missing == [] and s.incomplete == []
    assert s.mean_error == pytest.approx(0.788993, abs=1e-6)
    assert s.extra_mean_error == pytest.approx(
        np.mean([ALEXNET_C_AVERAGES[n] for n in EXTRA_CORRUPTIONS])
    )
    assert "AlexNet" in s.baseline and s.baseline_clean_error == ALEXNET_CLEAN_ERROR
    json.dumps(s.to_dict())  # serialisable


def test_ce_formula_and_relative():
    errors = {n: [min(1.0, 0.6 * e) for e in v] for n, v in alexnet_errors().items()}
    s = summarize_c(errors, clean_error=0.2)
    for n in ALL_CORRUPTIONS:
        assert s.ce[n] == pytest.approx(sum(errors[n]) / sum(ALEXNET_C_ERRORS[n]))
        expected = (np.mean(errors[n]) - 0.2) / (ALEXNET_C_AVERAGES[n] - ALEXNET_CLEAN_ERROR)
        assert s.relative_ce[n] == pytest.approx(expected)
    assert s.mce == pytest.approx(np.mean([s.ce[n] for n in BENCHMARK_CORRUPTIONS]))
    assert s.extra_ce == pytest.approx(np.mean([s.ce[n] for n in EXTRA_CORRUPTIONS]))
    assert s.mce == pytest.approx(0.6)


def test_no_clean_error_means_no_relative():
    s = summarize_c(alexnet_errors())
    assert s.mce == 1.0 and s.relative_mce is None and set(s.relative_ce.values()) == {None}
    assert "clean_error" in s.notes


def test_uniform_baseline():
    errors = {"fog": [0.1, 0.2, 0.3, 0.4, 0.5], "saturate": [0.2] * 5}
    s = summarize_c(errors, clean_error=0.05, baseline="uniform")
    assert s.ce["fog"] == pytest.approx(0.3) and s.mce == pytest.approx(0.3)
    assert s.relative_ce["fog"] == pytest.approx(0.25) and s.relative_mce == pytest.approx(0.25)
    assert s.extra_ce == pytest.approx(0.2) and s.mean_error == pytest.approx(0.3)
    assert (
        s.partial
        and len(s.missing) == 14
        and s.extra_missing == ["speckle_noise", "gaussian_blur", "spatter"]
    )
    with pytest.raises(ValueError, match="uniform"):
        summarize_c(errors, baseline="uniform", baseline_clean_error=0.4)


def test_partial_and_missing_severities():
    errors = alexnet_errors()
    del errors["fog"]
    errors["snow"][2] = None
    errors["contrast"][0] = float("nan")
    s = summarize_c(errors, clean_error=ALEXNET_CLEAN_ERROR)
    assert s.partial and s.missing == ["snow", "fog", "contrast"]
    assert s.incomplete == ["snow", "contrast"]
    assert s.ce["snow"] is None and s.mean_errors["snow"] is None and "fog" not in s.ce
    assert s.mce == 1.0 and s.relative_mce == 1.0  # mean over the 12 present
    assert s.mean_error == pytest.approx(
        np.mean(
            [
                ALEXNET_C_AVERAGES[n]
                for n in BENCHMARK_CORRUPTIONS
                if n not in ("snow", "fog", "contrast")
            ]
        )
    )
    only_extra = summarize_c({"spatter": ALEXNET_C_ERRORS["spatter"]})
    assert only_extra.mce is None and only_extra.partial and only_extra.extra_ce == 1.0


def test_names_are_forgiving_but_checked():
    s = summarize_c(
        {
            "Gaussian Noise": ALEXNET_C_ERRORS["gaussian_noise"],
            "JPEG-Compression": ALEXNET_C_ERRORS["jpeg_compression"],
        }
    )
    assert set(s.ce) == {"gaussian_noise", "jpeg_compression"}
    with pytest.raises(ValueError, match="did you mean 'gaussian_noise'"):
        summarize_c({"gausian_noise": [0.5] * 5})
    with pytest.raises(ValueError, match="elastic_transform"):
        summarize_c({"elastic": [0.5] * 5})
    with pytest.raises(ValueError, match="twice"):
        summarize_c({"fog": [0.5] * 5, "Fog": [0.5] * 5})


@pytest.mark.parametrize(
    ("errors", "kwargs", "exc", "match"),
    [
        ({"fog": [0.5] * 4}, {}, ValueError, "has 4 values; expected 5"),
        ({"fog": 0.5}, {}, TypeError, "sequence of 5"),
        ({"fog": [0.5, 0.5, 76.7, 0.5, 0.5]}, {}, ValueError, "percentage"),
        ({"fog": [0.5, 0.5, -0.1, 0.5, 0.5]}, {}, ValueError, r"outside \[0, 1\]"),
        ({"fog": [0.5, 0.5, 150.0, 0.5, 0.5]}, {}, ValueError, r"outside \[0, 1\]"),
        ({"fog": [0.5, 0.5, "x", 0.5, 0.5]}, {}, TypeError, "number"),
        ({"fog": [0.5] * 5}, {"clean_error": 23.85}, ValueError, "percentage"),
        ({"fog": [0.5] * 5}, {"baseline": "resnet"}, ValueError, "unknown baseline"),
        (
            {"fog": [0.5] * 5},
            {"baseline": {"fog": [0.5, None, 0.5, 0.5, 0.5]}},
            ValueError,
            "missing",
        ),
        ({}, {}, ValueError, "empty"),
        ([0.5] * 5, {}, TypeError, "mapping"),
    ],
)
def test_summarize_c_validation(errors, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        summarize_c(errors, **kwargs)


def test_mapping_baseline_without_corruption_is_reported():
    base = {"fog": [0.5] * 5}
    s = summarize_c({"fog": [0.25] * 5, "snow": [0.3] * 5}, baseline=base)
    assert s.ce == {"snow": None, "fog": 0.5} and "snow" in s.missing and "snow" in s.notes
    assert s.relative_mce is None  # no baseline clean error given


# ------------------------------------------------------------------------------------------------
# RobustBench published figures
# ------------------------------------------------------------------------------------------------
def _robustbench_errors():
    if not ROBUSTBENCH_CSV.is_file():
        pytest.skip(f"published figures not available: {ROBUSTBENCH_CSV} is absent")
    with ROBUSTBENCH_CSV.open(newline="") as f:
        rows = list(csv.reader(f))
    names, severities = rows[0][1:], [int(s) for s in rows[1][1:]]
    models = {}
    for row in rows[2:]:
        errs = {n: [None] * 5 for n in dict.fromkeys(names)}
        for name, sev, acc in zip(names, severities, row[1:]):
            errs[name][sev - 1] = 1.0 - float(acc)  # accuracies -> errors
        models[row[0]] = errs
    return models


def test_robustbench_r50_mce():
    models = _robustbench_errors()
    alex, r50 = models["AlexNet"], models["Standard_R50"]
    assert set(alex) == set(BENCHMARK_CORRUPTIONS)
    self_s = summarize_c(alex, baseline=alex)
    assert self_s.mce * 100 == pytest.approx(100.0, abs=1e-12) and not self_s.partial
    s = summarize_c(r50, clean_error=1 - 0.7672, baseline=alex, baseline_clean_error=1 - 0.5624)
    assert abs(s.mce * 100 - 76.38) < 0.005, s.mce
    assert not s.partial
    # their "mean corruption accuracy" column: 21.12 % and 39.48 %
    assert 1 - self_s.mean_error == pytest.approx(0.2112, abs=5e-5)
    assert 1 - s.mean_error == pytest.approx(0.3948, abs=5e-5)
    official = summarize_c(r50, clean_error=1 - 0.7672)  # published AlexNet constants
    print(
        f"\nRobustBench Standard_R50: mCE vs their AlexNet row {s.mce * 100:.4f} % "
        f"(relative {s.relative_mce * 100:.2f} %); vs published AlexNet constants "
        f"{official.mce * 100:.4f} % (relative {official.relative_mce * 100:.2f} %)"
    )
    assert (
        0.6 < official.mce < 0.9
    )  # a different (5000-image, resized) subset: reported, not pinned


# ------------------------------------------------------------------------------------------------
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
# ------------------------------------------------------------------------------------------------
def test_summarize_p_without_baseline():
    fp = {p: 0.05 for p in TEST_PERTURBATIONS}
    s = summarize_p(fp, {p: 2.0 for p in TEST_PERTURBATIONS})
    assert s.mfr is None and s.mt5d is None and s.fr == {}
    assert s.mean_fp == pytest.approx(0.05) and s.mean_t5d == pytest.approx(2.0)
    assert "#49" in s.notes and "never published" in s.notes
    assert not s.partial and s.baseline is None
    json.dumps(s.to_dict())


def test_summarize_p_with_baseline(tmp_path):
    fp = {p: 0.02 for p in TEST_PERTURBATIONS} | {"shear": 0.03}
    t5d = {p: 1.0 for p in TEST_PERTURBATIONS}
    base = {
        "flip_probability": {p: 0.04 for p in fp},
        "top5_distance": {p: 4.0 for p in TEST_PERTURBATIONS},
    }
    s = summarize_p(fp, t5d, baseline=base)
    assert s.mfr == pytest.approx(0.5) and s.mt5d == pytest.approx(0.25)
    assert s.validation_mfr == pytest.approx(0.75) and s.validation_mt5d is None
    assert s.fr["shear"] == pytest.approx(0.75) and not s.partial

    path = tmp_path / "alexnet_p.json"
    path.write_text(json.dumps({"model": "alexnet", **base}))
    assert summarize_p(fp, t5d, baseline=path).mfr == pytest.approx(0.5)
    assert "alexnet_p.json" in summarize_p(fp, baseline=str(path)).baseline

    partial = summarize_p({"rotate": 0.02, "tilt": 0.01}, baseline=base)
    assert partial.partial and len(partial.missing) == 8
    assert partial.mfr == pytest.approx(np.mean([0.5, 0.25])) and partial.mt5d is None


def test_load_p_baseline_csv(tmp_path):
    path = tmp_path / "base.csv"
    path.write_text("perturbation,fp,t5d\nGaussian Noise,0.1,3.5\nrotate,0.05,\n")
    base = load_p_baseline(path)
    assert base == {
        "flip_probability": {"gaussian_noise": 0.1, "rotate": 0.05},
        "top5_distance": {"gaussian_noise": 3.5},
    }
    path.write_text("perturbation,flip_probability\nrotate,0.05\n")
    assert load_p_baseline(path)["flip_probability"] == {"rotate": 0.05}
    path.write_text("name,fp\nrotate,0.05\n")
    with pytest.raises(ValueError, match="header"):
        load_p_baseline(path)
    path.write_text("perturbation,fp\nrotat,0.05\n")
    with pytest.raises(ValueError, match="did you mean 'rotate'"):
        load_p_baseline(path)
    path.write_text("perturbation,fp\nrotate,abc\n")
    with pytest.raises(ValueError, match="not a number"):
        load_p_baseline(path)
    bad_json = tmp_path / "base.json"
    bad_json.write_text(json.dumps({"fp": {"rotate": 0.1}}))
    with pytest.raises(ValueError, match="flip_probability"):
        load_p_baseline(bad_json)


@pytest.mark.parametrize(
    ("fp", "t5d", "exc", "match"),
    [
        ({"rotate": 5.0}, None, ValueError, "percentage"),
        ({"rotat": 0.1}, None, ValueError, "did you mean 'rotate'"),
        ({"rotate": 0.1}, {"rotate": 20.0}, ValueError, r"\[0, 15\]"),
        ({}, None, ValueError, "empty"),
        ({"impulse_noise": 0.1}, None, ValueError, "unknown perturbation"),
    ],
)
def test_summarize_p_validation(fp, t5d, exc, match):
    with pytest.raises(exc, match=match):
        summarize_p(fp, t5d)


def test_is_noise_perturbation():
    assert [
        p for p in TEST_PERTURBATIONS + VALIDATION_PERTURBATIONS if is_noise_perturbation(p)
    ] == list(NOISE_PERTURBATIONS)
    assert math.isclose(
        flip_probability([[1, 2, 1]], noise=is_noise_perturbation("Shot Noise")), 0.5
    )

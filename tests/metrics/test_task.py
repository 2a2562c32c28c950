"""P, mPC, rPC of a task-score grid (Michaelis et al. 2019): the formulas against a transcription of
``corruption_eval.py`` (a (corruptions, 6) array: P = [0, 0], mPC = mean of [:15, 1:]), the table
rows and one clear line per error."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from corruptbench.corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS, EXTRA_CORRUPTIONS
from corruptbench.errors import ArgumentError
from corruptbench.metrics import task
from corruptbench.metrics.task import check_score, grid_from_cells, summarize_scores


def random_grid(seed: int = 0, names=ALL_CORRUPTIONS) -> tuple[float, dict[str, list[float]]]:
    rng = np.random.default_rng(seed)
    clean = float(rng.uniform(30, 45))
    return clean, {n: sorted(rng.uniform(0, clean, 5).tolist(), reverse=True) for n in names}


def michaelis(clean: float, grid: dict[str, list[float]]) -> tuple[float, float, float]:
    """The bethgelab transcription: results[corruption, severity] with severity 0 = clean, the
    15 benchmark corruptions first."""
    results = np.zeros((len(grid), 6))
    for i, name in enumerate(grid):
        results[i, 0] = clean
        results[i, 1:] = grid[name]
    p = results[0, 0]
    mpc = np.mean(results[:15, 1:])
    return p, mpc, mpc / p


def test_p_mpc_rpc_match_the_robustness_eval_definitions() -> None:
    clean, grid = random_grid(0)
    s = summarize_scores(grid, clean)
    p, mpc, rpc = michaelis(clean, grid)
    assert s.clean == p
    assert s.mpc == pytest.approx(mpc, rel=1e-14) and s.rpc == pytest.approx(rpc, rel=1e-14)
    assert s.mpc_corruptions == BENCHMARK_CORRUPTIONS and not s.partial and s.missing == ()
    for name, values in grid.items():
        assert s.corruption_means[name] == pytest.approx(sum(values) / 5, rel=1e-14)
        assert s.relative[name] == pytest.approx(sum(values) / 5 / clean, rel=1e-14)
    for k in range(5):
        column = [grid[n][k] for n in BENCHMARK_CORRUPTIONS]
        assert s.severity_means[k] == pytest.approx(sum(column) / 15, rel=1e-14)
    # the 4 extra corruptions change nothing of mPC
    bench_only = {n: grid[n] for n in BENCHMARK_CORRUPTIONS}
    assert summarize_scores(bench_only, clean).mpc == s.mpc
    assert set(s.corruption_means) == set(ALL_CORRUPTIONS)


def test_names_are_forgiving_and_order_is_the_reference_one() -> None:
    clean, grid = random_grid(1, BENCHMARK_CORRUPTIONS)
    shuffled = {n.replace("_", " ").title(): grid[n] for n in reversed(BENCHMARK_CORRUPTIONS)}
    s = summarize_scores(shuffled, clean)
    assert tuple(s.scores) == BENCHMARK_CORRUPTIONS
    assert s.mpc == summarize_scores(grid, clean).mpc


def test_partial_grids_only_when_asked() -> None:
    clean, grid = random_grid(2, ("fog", "snow", "saturate"))
    with pytest.raises(ArgumentError, match=r"^missing cells: no scores for 13 of the 15"):
        summarize_scores(grid, clean)
    try:
        summarize_scores(grid, clean)
    except ArgumentError as exc:  # the command line names its flag
        assert "pass --partial for" in exc.render({"partial": "--partial"})
    s = summarize_scores(grid, clean, partial=True)
    assert s.partial and s.mpc_corruptions == ("snow", "fog") and len(s.missing) == 13
    assert s.mpc == pytest.approx((sum(grid["fog"]) + sum(grid["snow"])) / 10, rel=1e-14)
    with pytest.raises(ValueError, match="no benchmark corruption has scores"):
        summarize_scores({"saturate": grid["saturate"]}, clean, partial=True)
    full = summarize_scores(random_grid(3)[1], 50.0, partial=True)
    assert not full.partial  # partial allowed, but nothing is missing


@pytest.mark.parametrize(
    ("change", "clean", "message"),
    [
        ({"fog": [1.0, float("nan"), 1.0, 1.0, 1.0]}, 2.0, r"^the score of fog/2 is NaN$"),
        ({"fog": [1.0, 1.0, float("inf"), 1.0, 1.0]}, 2.0, r"^the score of fog/3 is infinite"),
        ({"fog": [1.0, 1.0, 1.0, None, 1.0]}, 2.0, r"^missing cell: fog/4$"),
        ({"fog": [None, 1.0, 1.0, None, 1.0]}, 2.0, r"^missing cells: fog/1, fog/4$"),
        ({"fog": [1.0, 1.0, 1.0, 1.0]}, 2.0, r"has 4 values; expected 5"),
        ({"fog": [1.0, "x", 1.0, 1.0, 1.0]}, 2.0, r"fog/2 must be a number"),
        ({"fogg": [1.0] * 5}, 2.0, r"unknown corruption 'fogg'; did you mean 'fog'"),
        ({}, 0.0, r"^the clean score is 0, so rPC = mPC / P is undefined$"),
        ({}, -2.0, r"the clean score -2.0 is negative"),  # -1 is "undefined": its own test
        ({}, None, r"^no clean score \(severity 0\)"),
        # issue 33 item 9: COCOeval's "undefined" is refused, never averaged into mPC
        ({"fog": [1.0, 1.0, 1.0, 1.0, -1]}, 2.0, r"^the score of fog/5 is -1, COCOeval's mark"),
        ({}, -1, r"^the clean score is -1, COCOeval's mark for an undefined metric"),
        ({"blue_noise_sample": [1.0] * 5}, 2.0, r"'cbar' suite; task scores .* cover ImageNet-C"),
        ({}, float("nan"), r"^the clean score is NaN$"),
    ],
)
def test_errors_are_one_line_naming_the_cell(change: dict, clean, message: str) -> None:
    _, grid = random_grid(4, BENCHMARK_CORRUPTIONS)
    grid.update(change)
    with pytest.raises((ValueError, TypeError), match=message) as info:
        summarize_scores(grid, clean)
    assert "\n" not in str(info.value)


def test_check_score_accepts_numpy_and_0d_arrays() -> None:
    assert check_score(np.float32(0.5), "x") == 0.5
    assert check_score(np.array(0.25), "x") == 0.25
    assert check_score(3, "x") == 3.0
    for bad in (True, None, "0.5", [0.5]):
        with pytest.raises(ValueError, match="x must be a number"):
            check_score(bad, "x")


# ------------------------------------------------------------------------------------------------
# rows of a table
# ------------------------------------------------------------------------------------------------
def rows(*cells):
    return [(c, s, v, f"t.csv, line {i + 2}") for i, (c, s, v) in enumerate(cells)]


def test_grid_from_cells() -> None:
    clean, grid = grid_from_cells(
        rows(("clean", 0, 0.4), ("Fog", "3", 0.2), ("fog", 1.0, 0.3), ("snow", 5, "0.1"))
    )
    assert clean == 0.4
    assert grid == {"snow": [None, None, None, None, 0.1], "fog": [0.3, None, 0.2, None, None]}
    # mmdetection repeats the clean result under every corruption: equal values are one score
    clean, _ = grid_from_cells(rows(("fog", 0, 0.4), ("snow", 0, 0.4), ("", 0, 0.4)))
    assert clean == 0.4


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ((("fog", 6, 0.1),), r"^t.csv, line 2: severity 6 is outside 0..5 \(0 = clean\)$"),
        ((("fog", -1, 0.1),), r"severity -1 is outside 0..5"),
        ((("fog", 2.5, 0.1),), r"severity 2.5 is not an integer"),
        ((("fog", "x", 0.1),), r"severity 'x' is not an integer"),
        (
            (("fog", 1, 0.1), ("FOG", 1, 0.2)),
            r"^t.csv, line 3: fog/1 is given twice \(first at t.csv, line 2\)$",
        ),
        ((("clean", 0, 0.4), ("clean", 0, 0.4)), r"line 3: clean is given twice"),
        (
            (("fog", 0, 0.4), ("snow", 0, 0.5)),
            r"line 3: clean score 0.5 differs from 0.4 at t.csv, line 2",
        ),
        ((("fog", 2, "nan"),), r"^t.csv, line 2: the score of fog/2 is NaN$"),
        ((("fog", 2, ""),), r"the score of fog/2 must be a number"),
        ((("smog", 2, 0.1),), r"^t.csv, line 2: unknown corruption 'smog'"),
        ((("clean", 2, 0.1),), r"unknown corruption 'clean'"),
    ],
)
def test_grid_from_cells_errors(cells, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        grid_from_cells(rows(*cells))


def test_docstring_examples() -> None:
    assert doctest.testmod(task).failed == 0
    assert EXTRA_CORRUPTIONS  # the extra corruptions exist (used by random_grid)

"""find_walk equals the original's find_path (generate.py) on random matrices; its refusals."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ccc_reference import CCC_DIR, CCC_MISSING, ccc_available, free_names, load_functions
from corruptbench.ccc import find_walk
from corruptbench.ccc.walk import GRID, walk_severities
from corruptbench.errors import ArgumentError

needs_ccc = pytest.mark.skipif(not ccc_available(), reason=CCC_MISSING)


@pytest.fixture(scope="module")
def find_path():
    return load_functions(CCC_DIR / "generate.py", ["find_path", "traverse_graph"])["find_path"]


@needs_ccc
def test_reference_functions_need_only_builtins():
    # what the loader leaves out (the file's imports) is never read by these two functions
    assert free_names(CCC_DIR / "generate.py", ["find_path", "traverse_graph"]) <= {
        "abs",
        "len",
        "range",
    }


def _matrices(seed: int, n: int):
    rng = np.random.default_rng(seed)
    for k in range(n):
        kind = k % 4
        if kind == 0:  # uniform accuracies
            yield rng.uniform(0, 100, (GRID, GRID)), float(rng.choice([0, 20, 40]))
        elif kind == 1:  # decreasing in both severities, like a real model's
            a = 80 - np.add.outer(np.arange(GRID), np.arange(GRID)) * rng.uniform(1, 3)
            yield np.clip(a + rng.normal(0, 3, a.shape), 0, 100), float(rng.uniform(0, 60))
        elif kind == 2:  # coarse values: many ties
            yield rng.integers(0, 5, (GRID, GRID)) * 10.0, float(rng.integers(0, 5) * 10)
        else:  # float32 cells (sums in float32 in both)
            yield rng.uniform(0, 100, (GRID, GRID)).astype(np.float32), 20.0


@needs_ccc
def test_find_walk_equals_find_path_on_random_matrices(find_path):
    for matrix, baseline in _matrices(0, 200):
        expected = find_path(matrix, baseline)
        got = find_walk(matrix, baseline, tolerance=None)
        assert list(got.cells) == expected, (baseline, matrix)


@needs_ccc
def test_find_walk_constant_matrix_ties(find_path):
    matrix = np.full((GRID, GRID), 30.0)
    assert list(find_walk(matrix, 30, tolerance=None).cells) == find_path(matrix, 30)


def test_walk_goes_from_corruption_one_to_two():
    rng = np.random.default_rng(1)
    walk = find_walk(rng.uniform(0, 100, (GRID, GRID)), 50, tolerance=None)
    cells = walk.cells
    assert cells[0][1] == 0 and cells[0][0] >= 1 and cells[-1][0] == 0
    for (i0, j0), (i1, j1) in zip(cells, cells[1:]):
        assert (i1, j1) in {(i0 - 1, j0), (i0, j0 + 1)}
    assert walk_severities([(3, 5)]) == [(0.75, 1.25)]


def test_refuses_wrong_shape():
    with pytest.raises(ArgumentError, match=r"matrix must be 21 x 21 .*got shape \(20, 21\)"):
        find_walk(np.zeros((20, 21)), 20)


def test_refuses_nan():
    m = np.full((GRID, GRID), 50.0)
    m[3, 4] = np.nan
    with pytest.raises(ArgumentError, match=r"1 NaN or infinite cell\(s\), the first at \[3, 4\]"):
        find_walk(m, 20)


def test_refuses_unholdable_baseline_and_says_how_close():
    m = np.full((GRID, GRID), 50.0)
    with pytest.raises(
        ArgumentError, match=r"baseline 20 cannot be held.*averages 50\.00 %.*30\.00 points"
    ):
        find_walk(m, 20)
    assert find_walk(m, 20, tolerance=None).mean == 50.0


@pytest.mark.parametrize("value", [-0.5, 100.5, 1.7e308])
def test_refuses_cells_that_are_not_accuracies_in_percent(value):
    m = np.full((GRID, GRID), 50.0)
    m[2, 7] = value
    shown = re.escape(f"{value:g}")
    with pytest.raises(
        ArgumentError, match=rf"1 cell\(s\) outside 0\.\.100 .*first {shown} at \[2, 7\]"
    ):
        find_walk(m, 20, tolerance=None)


@pytest.mark.parametrize("tolerance", [float("nan"), -1.0, "5"])
def test_refuses_a_tolerance_that_is_not_points(tolerance):
    with pytest.raises(ArgumentError, match="tolerance must be a number of accuracy points >= 0"):
        find_walk(np.full((GRID, GRID), 20.0), 20, tolerance=tolerance)


@needs_ccc
def test_original_pickle_of_dataframes_reads_as_find_path_indexes_it(tmp_path, find_path):
    pd = pytest.importorskip("pandas")
    import pickle

    from corruptbench.ccc.matrices import load_matrices

    m = np.random.default_rng(5).uniform(0, 100, (GRID, GRID))
    df = pd.DataFrame(m)
    with open(tmp_path / "ccc_accuracy_matrix.pickle", "wb") as f:
        pickle.dump({"n1_fog_n2_snow": df, "n1_snow_n2_fog": m}, f)
    got = load_matrices(tmp_path / "ccc_accuracy_matrix.pickle")
    # the original runs find_path on whatever the pickle holds: df[i][j] is column i, row j
    assert list(find_walk(got["n1_fog_n2_snow"], 30, tolerance=None).cells) == find_path(df, 30)
    assert list(find_walk(got["n1_snow_n2_fog"], 30, tolerance=None).cells) == find_path(m, 30)


def test_fractions_instead_of_percent_are_refused_even_without_a_tolerance():
    m = np.linspace(0, 0.76, GRID * GRID).reshape(GRID, GRID)
    with pytest.raises(ArgumentError, match=r"at most 0.76: fractions, not percent\?"):
        find_walk(m, 20, tolerance=None)
    assert find_walk(m, 0, tolerance=None).cells  # CCC-Hard's 0 %: fine

"""Perlin noise of ImageNet-C-bar (corruptbench.ops.perlin)."""

from __future__ import annotations

import numpy as np

from corruptbench.ops.perlin import LATTICE, perlin_tables, perlin_turbulence


def test_tables_follow_the_original_draws():
    rs = np.random.RandomState(5)
    p, g = perlin_tables(rs)
    b = LATTICE
    assert p.shape == (2 * b + 2,) and g.shape == (2 * b + 2, 2)
    assert sorted(p[:b].tolist()) == list(range(b))  # a permutation of the lattice
    # entries B .. 2B + 1 copy 0 .. B + 1 one by one (2B and 2B + 1 repeat 0 and 1)
    assert np.array_equal(p[b : 2 * b], p[:b]) and p[2 * b] == p[0] and p[2 * b + 1] == p[1]
    assert np.allclose(np.hypot(g[:, 0], g[:, 1]), 1)
    # 514 draws of 2 then 256 of 1, nothing else
    ref = np.random.RandomState(5)
    for _ in range(2 * b + 2):
        ref.randint(low=0, high=2**31, size=2)
    for _ in range(b):
        ref.randint(low=0, high=2**31)
    assert rs.uniform() == ref.uniform()


def test_turbulence_is_in_range_and_seeded():
    p, g = perlin_tables(np.random.RandomState(1))
    out = np.empty((20, 30))
    perlin_turbulence(p, g, 1 / 32, 1 / 32, 16.0, 0.5, 0.5, 2.0, out)
    assert out.min() >= 0.5 and out.max() <= 1.0 and out.std() > 0
    again = np.empty_like(out)
    perlin_turbulence(p, g, 1 / 32, 1 / 32, 16.0, 0.5, 0.5, 2.0, again)
    assert np.array_equal(out, again)


def original_tables(rs: np.random.RandomState) -> tuple[np.ndarray, np.ndarray]:
    """PerlinNoiseGenerator's loops as written: one randint call per gradient and per swap."""
    b = LATTICE
    g = []
    for _ in range(2 * b + 2):
        v = (rs.randint(low=0, high=2**31, size=2) % (2 * b) - b) / b
        with np.errstate(invalid="ignore", divide="ignore"):
            g.append(v / np.linalg.norm(v))
    g = np.array(g)
    p = np.arange(2 * b + 2)
    for i in np.arange(b - 1, -1, -1):
        k = p[i]
        j = rs.randint(low=0, high=2**31) % b
        p[i] = p[j]
        p[j] = k
    for i in range(b + 2):
        p[b + i] = p[i]
        g[b + i, :] = g[i, :]
    return p, g


def test_vectorised_draws_equal_the_original_loops():
    for seed in (0, 1, 2, 1397 * 7):
        a, b = np.random.RandomState(seed), np.random.RandomState(seed)
        p1, g1 = perlin_tables(a)
        p2, g2 = original_tables(b)
        assert np.array_equal(p1, p2) and np.array_equal(g1, g2, equal_nan=True)
        assert a.uniform() == b.uniform()

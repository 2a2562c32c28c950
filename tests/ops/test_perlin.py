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

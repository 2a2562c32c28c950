"""The compiled legacy-``RandomState`` kernels vs NumPy's own samplers, at awkward stream positions.

The kernels read the MT19937 stream a block (624 words) at a time; these tests start them at every
kind of position (block start, odd words, the last word of a block, a used-up block), with and
without a cached Gaussian, and for sizes around the block and chunk boundaries, and compare the
values and the whole generator state afterwards with NumPy's ``RandomState``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import corruptbench.ops.legacy_random as legacy_random
from corruptbench.ops.legacy_random import (
    PoissonPlan,
    _raw_view_works,
    choice_threshold,
    legacy_normal_u8,
    legacy_poisson,
    legacy_state,
)
from corruptbench.ops.legacy_random_kernels import (
    gauss_u8,
    glass_shuffle_mt,
    impulse_u8,
    poisson_fill,
    poisson_squeeze,
    poisson_tables,
)

UNIT = np.arange(256) / 255.0
LUT = ((np.arange(256) / 255.0) * 255).astype(np.uint8)
#: word positions: block start, odd, the middle, the last pair, the last word, a used-up block
POSITIONS = (0, 1, 2, 311, 622, 623, 624)
#: around one block of doubles (312), the Gaussian chunk (2048) and one Gaussian pair
SIZES = (0, 1, 2, 3, 311, 312, 313, 625, 2047, 2048, 2049, 4099)


def _rs(seed: int, pos: int, has_gauss: int) -> np.random.RandomState:
    """A RandomState at word ``pos`` of its key, optionally with a cached Gaussian."""
    rs = np.random.RandomState(seed)
    state: Any = rs.get_state()
    key = state[1]
    rs.set_state(("MT19937", key, pos, has_gauss, -0.7 if has_gauss else 0.0))
    return rs


def _assert_same_state(a: np.random.RandomState, b: np.random.RandomState) -> None:
    sa: Any = a.get_state()
    sb: Any = b.get_state()
    np.testing.assert_array_equal(sa[1], sb[1])
    assert sa[2:] == sb[2:]


def _values(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, n).astype(np.uint8)


@pytest.mark.parametrize("pos", POSITIONS)
@pytest.mark.parametrize("has_gauss", [0, 1])
@pytest.mark.parametrize("speckle", [False, True])
def test_gauss_u8_is_numpy_normal(pos: int, has_gauss: int, speckle: bool) -> None:
    for n in SIZES:
        values = _values(n, n + pos)
        ours, numpy_rs = _rs(pos + n, pos, has_gauss), _rs(pos + n, pos, has_gauss)
        state = legacy_state(ours, gauss=True)
        assert state is not None
        out = np.empty(n, np.uint8)
        gauss_u8(values, UNIT, 0.38, speckle, state.key, state.ints, state.gauss, out)
        state.commit()
        x = UNIT[values]
        noise = numpy_rs.normal(size=n, scale=0.38)
        y = x + x * noise if speckle else x + noise
        np.testing.assert_array_equal(out, (np.clip(y, 0, 1) * 255).astype(np.uint8))
        _assert_same_state(ours, numpy_rs)


@pytest.mark.parametrize("pos", POSITIONS)
@pytest.mark.parametrize("has_gauss", [0, 1])
def test_impulse_u8_is_two_numpy_masks(pos: int, has_gauss: int) -> None:
    for n in SIZES:
        values = _values(n, n)
        ours, numpy_rs = _rs(n, pos, has_gauss), _rs(n, pos, has_gauss)
        state = legacy_state(ours)
        assert state is not None
        out = np.empty(n, np.uint8)
        impulse_u8(values, LUT, 0.09, 0.5, state.key, state.ints, out)
        state.commit()
        flipped = numpy_rs.random_sample(n) < 0.09
        salted = numpy_rs.random_sample(n) < 0.5
        want = LUT[values]
        want[flipped] = 0
        want[flipped & salted] = 255
        np.testing.assert_array_equal(out, want)
        _assert_same_state(ours, numpy_rs)


@pytest.mark.parametrize("pos", POSITIONS)
@pytest.mark.parametrize("scale", [60.0, 25.0, 12.0, 3.0, 500.0])
def test_poisson_u8_is_numpy_poisson(pos: int, scale: float) -> None:
    """Both of NumPy's methods (multiplication below rate 10, PTRS above) and the 0 rate."""
    for n in SIZES:
        values = _values(n, n + 1)
        ours, numpy_rs = _rs(n + 3, pos, 1), _rs(n + 3, pos, 1)
        out = PoissonPlan.from_uint8(values, scale).sample_unit_u8(ours, scale)
        counts = numpy_rs.poisson((values / 255.0) * scale)
        want = (np.clip(counts / scale, 0, 1) * 255).astype(np.uint8)
        np.testing.assert_array_equal(out, want)
        _assert_same_state(ours, numpy_rs)


def test_poisson_squeeze_changes_no_decision() -> None:
    """PTRS's squeeze columns decide as the two logs do: 10**6 draws at every uint8 rate of the
    shot-noise scales, with and without the columns, equal NumPy's (values and final state)."""
    values = np.tile(np.arange(256, dtype=np.uint8), 4000)
    for scale in (60.0, 25.0, 255.0):
        lams = (np.arange(256) / 255.0) * scale
        table, loggam_k1 = poisson_tables(lams)
        squeezed = poisson_squeeze(table, loggam_k1)
        assert squeezed.shape == (256, 7 + loggam_k1.size)
        np.testing.assert_array_equal(squeezed[:, :7], table)
        counts = {}
        for name, tab in (("plain", table), ("squeezed", squeezed)):
            ours = np.random.RandomState(5)
            st = legacy_state(ours)
            assert st is not None
            out = np.empty(values.size, np.int64)
            poisson_fill(values.astype(np.int64), tab, loggam_k1, 0.0, st.key, st.ints, out)
            st.commit()
            counts[name] = (out, ours.random_sample())
        theirs = np.random.RandomState(5)
        want = theirs.poisson(lams[values])
        next_value = theirs.random_sample()  # the generators end in the same state
        for out, after in counts.values():
            np.testing.assert_array_equal(out, want)
            assert after == next_value


@pytest.mark.parametrize("pos", POSITIONS)
def test_legacy_poisson_counts(pos: int) -> None:
    lam = np.random.default_rng(pos).random(3000) * np.r_[0.5, 8, 40, 3000].repeat(750)
    ours, numpy_rs = _rs(pos, pos, 0), _rs(pos, pos, 0)
    np.testing.assert_array_equal(legacy_poisson(ours, lam), numpy_rs.poisson(lam))
    _assert_same_state(ours, numpy_rs)


@pytest.mark.parametrize("pos", POSITIONS)
@pytest.mark.parametrize("d,iterations", [(1, 2), (2, 1), (3, 2), (4, 1), (5, 1)])
def test_glass_shuffle_mt_is_numpy_randint(pos: int, d: int, iterations: int) -> None:
    img = np.random.default_rng(d).integers(0, 256, (37, 41, 3)).astype(np.uint8)
    ours, numpy_rs = _rs(d, pos, 1), _rs(d, pos, 1)
    x = img.copy()
    state = legacy_state(ours)
    assert state is not None
    glass_shuffle_mt(x, d, iterations, state.key, state.ints)
    state.commit()
    want = img.copy()
    for _ in range(iterations):
        for h in range(37 - d, d, -1):
            for w in range(41 - d, d, -1):
                dx, dy = numpy_rs.randint(-d, d, size=(2,))
                want[h, w] = want[h + dy, w + dx]
    np.testing.assert_array_equal(x, want)
    _assert_same_state(ours, numpy_rs)


def test_state_in_place_without_gauss() -> None:
    """Kernels without normals work on the generator's own state; the cached Gaussian stays."""
    assert _raw_view_works()
    rs = _rs(5, 17, 1)
    state = legacy_state(rs)
    assert state is not None
    before: Any = rs.get_state()
    np.testing.assert_array_equal(state.key, before[1])
    assert state.ints[0] == 17
    state.ints[0] = 624
    state.key[:] = np.arange(624, dtype=np.uint32)
    state.commit()
    after: Any = rs.get_state()
    np.testing.assert_array_equal(after[1], np.arange(624))
    assert after[2:] == (624, 1, -0.7)
    assert legacy_state(np.random.RandomState(np.random.PCG64(1))) is None
    assert legacy_state(np.random.default_rng(1)) is None


@pytest.mark.parametrize("pos", POSITIONS)
@pytest.mark.parametrize("has_gauss", [0, 1])
@pytest.mark.parametrize("speckle", [False, True])
def test_legacy_normal_u8_is_numpy_normal(pos: int, has_gauss: int, speckle: bool) -> None:
    """The in-place path: NumPy draws the first value(s) and an odd last one itself."""
    for n in (*SIZES, 4, 5):
        values = _values(n, n + pos + 7)
        ours, numpy_rs = _rs(pos + n + 1, pos, has_gauss), _rs(pos + n + 1, pos, has_gauss)
        out = np.empty(n, np.uint8)
        assert legacy_normal_u8(ours, values, 0.6, speckle, out)
        x = UNIT[values]
        noise = numpy_rs.normal(size=n, scale=0.6)
        y = x + x * noise if speckle else x + noise
        np.testing.assert_array_equal(out, (np.clip(y, 0, 1) * 255).astype(np.uint8))
        _assert_same_state(ours, numpy_rs)


def test_legacy_normal_u8_other_sources() -> None:
    out = np.empty(3, np.uint8)
    values = np.zeros(3, np.uint8)
    assert not legacy_normal_u8(np.random.default_rng(0), values, 0.1, False, out)
    assert not legacy_normal_u8(np.random.RandomState(np.random.PCG64(0)), values, 0.1, False, out)


def test_copy_path_when_the_state_cannot_be_used_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the in-place view: get_state / set_state copies, same results."""
    monkeypatch.setattr(legacy_random, "_RAW_VIEW_OK", [False])
    for pos, has_gauss in ((0, 0), (623, 1), (624, 0)):
        values = _values(1001, pos)
        ours, numpy_rs = _rs(pos, pos, has_gauss), _rs(pos, pos, has_gauss)
        out = np.empty(values.size, np.uint8)
        assert legacy_normal_u8(ours, values, 0.3, False, out)
        noise = numpy_rs.normal(size=values.size, scale=0.3)
        want = (np.clip(UNIT[values] + noise, 0, 1) * 255).astype(np.uint8)
        np.testing.assert_array_equal(out, want)
        state = legacy_state(ours)
        current: Any = ours.get_state()
        assert state is not None and state.ints[1] == current[3]  # a copy, cached Gaussian too
        impulse_u8(values, LUT, 0.2, 0.5, state.key, state.ints, out)
        state.commit()
        flipped = numpy_rs.random_sample(values.size) < 0.2
        salted = numpy_rs.random_sample(values.size) < 0.5
        want = LUT[values]
        want[flipped] = 0
        want[flipped & salted] = 255
        np.testing.assert_array_equal(out, want)
        _assert_same_state(ours, numpy_rs)


@pytest.mark.parametrize("pre", [0, 1, 623, 624, 625])
@pytest.mark.parametrize("cached", [False, True])
@pytest.mark.parametrize("size", [(1,), (2,), (313,), (50, 51)])
def test_legacy_normal_and_uniform_equal_numpy(pre: int, cached: bool, size: tuple) -> None:
    from corruptbench.ops.legacy_random import legacy_normal, legacy_uniform

    a, b = np.random.RandomState(7), np.random.RandomState(7)
    for rs in (a, b):
        rs.random_sample(pre)
        if cached:
            rs.standard_normal()
    assert legacy_normal(a, 0.1, 0.3, size).tobytes() == b.normal(0.1, 0.3, size).tobytes()
    assert legacy_uniform(a, -1, 1, size).tobytes() == b.uniform(-1, 1, size).tobytes()
    assert legacy_normal(a, -2.5, 0.05, size).tobytes() == b.normal(-2.5, 0.05, size).tobytes()
    sa, sb = a.get_state(), b.get_state()
    assert all(np.array_equal(u, v) for u, v in zip(sa, sb))


def test_legacy_normal_and_uniform_other_sources() -> None:
    from corruptbench.ops.legacy_random import legacy_normal, legacy_uniform

    g1, g2 = np.random.default_rng(3), np.random.default_rng(3)
    assert np.array_equal(legacy_normal(g1, 1.0, 2.0, (4, 5)), g2.normal(1.0, 2.0, (4, 5)))
    assert np.array_equal(legacy_uniform(g1, -1, 1, 7), g2.uniform(-1, 1, 7))


@pytest.mark.parametrize("scale", [300.0, 60.0, 9.99, 0.4, 700.0])
def test_poisson_plan_is_numpy_legacy_poisson(scale: float) -> None:
    """The compiled sampler gives RandomState.poisson's numbers and leaves the same state."""
    from corruptbench.ops.legacy_random import PoissonPlan, legacy_poisson

    lam = np.random.RandomState(1).randint(0, 256, (60, 70, 3)) / 255.0 * scale
    lam[0, :5, 0] = [0.0, 10.0, 9.999999, 1e-9, 2000.0]  # sampler boundaries and a large rate
    ours, theirs = np.random.RandomState(42), np.random.RandomState(42)
    plan = PoissonPlan(lam)
    for _ in range(4):
        np.testing.assert_array_equal(plan.sample(ours), theirs.poisson(lam))
    np.testing.assert_array_equal(legacy_poisson(ours, lam), theirs.poisson(lam))
    assert ours.randint(0, 2**31, 5).tolist() == theirs.randint(0, 2**31, 5).tolist()
    img = np.random.RandomState(2).randint(0, 256, (40, 30, 3)).astype(np.uint8)
    ours, theirs = np.random.RandomState(7), np.random.RandomState(7)
    np.testing.assert_array_equal(
        PoissonPlan.from_uint8(img, scale).sample(ours), theirs.poisson((img / 255.0) * scale)
    )
    gen = np.random.default_rng(0)  # non-legacy sources fall back to their own poisson
    assert plan.sample(gen).shape == lam.shape


@pytest.mark.parametrize("p", [0.0, 0.01, 0.03, 0.27, 0.5, 1.0])
def test_choice_threshold_is_legacy_choice_cdf(p: float) -> None:
    """``u < choice_threshold(p)`` picks True exactly where legacy ``choice`` does."""
    a, b = np.random.RandomState(4), np.random.RandomState(4)
    expected = a.choice([True, False], size=5000, p=[p, 1 - p])
    assert np.array_equal(b.random_sample(5000) < choice_threshold(p), expected)
    with pytest.raises(ValueError, match="probability"):
        choice_threshold(1.5)

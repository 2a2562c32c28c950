"""The one rng helper (corruptbench.rng)."""

from __future__ import annotations

import numpy as np
import pytest

from corruptbench.rng import as_rng, check_rng, lent_rng, reseeded


def test_int_and_randomstate_give_the_reference_stream() -> None:
    r = as_rng(7)
    assert isinstance(r, np.random.RandomState)
    np.random.seed(7)  # noqa: NPY002 - the legacy global stream is the reference's
    assert r.random_sample() == np.random.random_sample()  # noqa: NPY002
    assert as_rng(np.uint32(7)).normal() == np.random.RandomState(7).normal()
    rs = np.random.RandomState(3)
    assert as_rng(rs) is rs  # used as is, and advanced by the caller


def _same_state(a: np.random.RandomState, b: np.random.RandomState) -> bool:
    sa, sb = a.get_state(legacy=False), b.get_state(legacy=False)
    return (
        np.array_equal(sa["state"]["key"], sb["state"]["key"])
        and sa["state"]["pos"] == sb["state"]["pos"]
        and (sa["has_gauss"], sa["gauss"]) == (sb["has_gauss"], sb["gauss"])
    )


def test_reseeded_is_in_the_state_of_a_fresh_random_state() -> None:
    for seed in (0, 7, 2**32 - 1):
        rs = reseeded(seed)
        assert _same_state(rs, np.random.RandomState(seed))
        rs.normal(size=3)  # leaves a cached Gaussian behind: the next re-seed must clear it
        assert reseeded(seed) is rs  # this thread's instance, reused
        assert _same_state(rs, np.random.RandomState(seed))
    assert as_rng(11) is not reseeded(11)  # as_rng: a fresh RandomState
    assert _same_state(reseeded(11), as_rng(11))


def test_lent_rng_is_kept_but_never_shared_with_an_enclosing_draw() -> None:
    outer_item = reseeded(5)  # make-c's item rng
    with lent_rng(11) as lent:
        assert lent is not outer_item  # corrupt(rng=int) inside an item leaves its rng alone
        assert _same_state(lent, np.random.RandomState(11))  # type: ignore[arg-type]
        lent.normal(size=3)
        with lent_rng(11) as inner:  # a corruption calling corrupt(rng=int): a fresh one
            assert inner is not lent
            assert _same_state(inner, np.random.RandomState(11))  # type: ignore[arg-type]
        expected = np.random.RandomState(11)
        expected.normal(size=3)
        assert _same_state(lent, expected)  # type: ignore[arg-type]  # the outer stream intact
    with lent_rng(11) as again:
        assert again is lent  # kept: re-seeded, not rebuilt
        assert _same_state(again, np.random.RandomState(11))  # type: ignore[arg-type]
    assert _same_state(outer_item, np.random.RandomState(5))
    rs = np.random.RandomState(3)
    with lent_rng(rs) as r:
        assert r is rs
    with pytest.raises(ValueError, match="2\\*\\*32"), lent_rng(2**32):
        pass
    with pytest.raises(TypeError), lent_rng(True):
        pass


def test_generator_is_wrapped_with_the_legacy_methods() -> None:
    r = as_rng(np.random.default_rng(5))
    g = np.random.default_rng(5)
    assert not r.is_legacy  # type: ignore[union-attr]
    assert r.normal(0, 2, 3).tolist() == g.normal(0, 2, 3).tolist()
    assert r.uniform(-1, 1, 2).tolist() == g.uniform(-1, 1, 2).tolist()
    assert r.poisson(4.0, 3).tolist() == g.poisson(4.0, 3).tolist()
    assert r.randint(0, 5, 4).tolist() == g.integers(0, 5, 4).tolist()
    assert r.random_sample(2).tolist() == g.random(2).tolist()
    assert r.standard_normal(2).tolist() == g.standard_normal(2).tolist()
    assert (
        r.choice(4, size=3, p=[0.1, 0.2, 0.3, 0.4]).tolist()
        == g.choice(4, size=3, p=[0.1, 0.2, 0.3, 0.4]).tolist()
    )


def test_none_draws_fresh_entropy() -> None:
    a, b = as_rng(None), as_rng(None)
    assert isinstance(a, np.random.RandomState)
    assert a.randint(2**31) != b.randint(2**31) or a.randint(2**31) != b.randint(2**31)


@pytest.mark.parametrize("func", [as_rng, check_rng])
def test_bad_arguments(func) -> None:  # type: ignore[no-untyped-def]
    for bad in (-1, 2**32):
        with pytest.raises(ValueError, match=r"rng seed must be in \[0, 2\*\*32\)"):
            func(bad)
    for bad in (True, 1.5, "3", [1]):
        with pytest.raises(TypeError, match="rng must be None, an int seed"):
            func(bad)
    for good in (None, 0, 2**32 - 1, np.random.RandomState(0), np.random.default_rng(0)):
        func(good)

"""The batch context, the random source and the registration of the batch implementations
(corruptbench.torch.context)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from corruptbench.torch import DRAW_KEYS  # noqa: E402


def test_randint_small_is_uniform():
    from corruptbench.torch.context import DeviceRandom

    rnd = DeviceRandom(torch.Generator().manual_seed(3), torch.device("cpu"))
    for low, high in ((-1, 1), (-2, 2), (-4, 4), (-3, 3), (0, 16)):
        v = rnd.randint_small(low, high, (5, 2, 999, 3))
        assert v.shape == (5, 2, 999, 3)
        assert int(v.min()) == low and int(v.max()) == high - 1
        counts = torch.bincount((v.to(torch.int64) - low).view(-1), minlength=high - low)
        expect = v.numel() / (high - low)
        # binomial standard deviation < 120 for these counts: 6 sigma
        assert (counts.double() - expect).abs().max() < 6 * expect**0.5, (low, high, counts)


def test_every_corruption_has_a_registered_batch_implementation():
    from corruptbench.registry import corruption_specs
    from corruptbench.torch import BatchImpl

    for spec in corruption_specs():
        assert isinstance(spec.batch, BatchImpl), spec.name
        # random corruptions accept explicit draws, and can draw them as the CPU library does
        assert bool(spec.batch.draw_keys) == spec.random, spec.name
        assert (spec.batch.cpu_draws is not None) == spec.random, spec.name
    assert DRAW_KEYS == {s.name: s.batch.draw_keys for s in corruption_specs() if s.random}
    assert list(DRAW_KEYS) == [s.name for s in corruption_specs() if s.random]

"""ImageNet-C-bar's Fourier noise (corruptbench.ops.fourier_noise): the original's gen_noise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from corruptbench.ops.fourier_noise import pow_inplace, power_map, spectral_field, spectral_noise


def test_spectral_noise_is_unit_variance_and_crops_for_non_square():
    field = spectral_noise(np.random.RandomState(0), 32, "blue")
    assert field.shape == (32, 32) and abs(field.std() - 1) < 1e-12
    a, b = np.random.RandomState(1), np.random.RandomState(1)
    cut = spectral_field(a, (20, 32), "brownish")
    assert np.array_equal(cut, spectral_noise(b, 32, "brownish")[:20])


def test_draws_half_the_phases_and_for_odd_sides_a_middle_column():
    for n, count in ((32, 32 * 16), (31, 31 * 15 + 15)):
        a, b = np.random.RandomState(2), np.random.RandomState(2)
        spectral_noise(a, n, "blue")
        b.uniform(size=count)
        assert a.uniform() == b.uniform(), n


def test_power_maps_use_libm_pow_for_the_square():
    blue = power_map(10, "blue")
    assert blue[5, 5] == 0.0 and blue[0, 5] == 5.0 and not blue.flags.writeable
    brown = power_map(10, "brownish")
    d = np.arange(10) - 5.0
    expected = [[1 / (math.pow(math.sqrt(x * x + y * y), 2.0) + 1) for x in d] for y in d]
    assert np.array_equal(brown, np.array(expected))
    with pytest.raises(ValueError, match="kind"):
        power_map(4, "pink")


def test_pow_inplace_is_libm_pow_not_a_product():
    # math.pow is the C library's pow (glibc's is not always x * x rounded: 22 in these 20,000)
    x = np.random.RandomState(1).uniform(-300, 300, 20000)
    y = x.copy()
    pow_inplace(y, 2.0)
    assert np.array_equal(y, [math.pow(v, 2.0) for v in x])

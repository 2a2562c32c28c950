"""The defocus disk, the plasma fractal and next_pow2 (corruptbench.ops.kernels)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from corruptbench.ops import kernels
from corruptbench.ops.kernels import disk, next_pow2, plasma_fractal
from corruptbench.tables.corruptions import TABLES
from support import ref_disk


def ref_plasma_fractal(mapsize, wibbledecay, rs):
    maparray = np.empty((mapsize, mapsize), dtype=np.float64)
    maparray[0, 0] = 0
    stepsize = mapsize
    wibble = 100

    def wibbledmean(array):
        return array / 4 + wibble * rs.uniform(-wibble, wibble, array.shape)

    while stepsize >= 2:
        cornerref = maparray[0:mapsize:stepsize, 0:mapsize:stepsize]
        squareaccum = cornerref + np.roll(cornerref, shift=-1, axis=0)
        squareaccum += np.roll(squareaccum, shift=-1, axis=1)
        maparray[stepsize // 2 : mapsize : stepsize, stepsize // 2 : mapsize : stepsize] = (
            wibbledmean(squareaccum)
        )
        drgrid = maparray[stepsize // 2 : mapsize : stepsize, stepsize // 2 : mapsize : stepsize]
        ulgrid = maparray[0:mapsize:stepsize, 0:mapsize:stepsize]
        ltsum = drgrid + np.roll(drgrid, 1, axis=0) + (ulgrid + np.roll(ulgrid, -1, axis=1))
        maparray[0:mapsize:stepsize, stepsize // 2 : mapsize : stepsize] = wibbledmean(ltsum)
        ttsum = drgrid + np.roll(drgrid, 1, axis=1) + (ulgrid + np.roll(ulgrid, -1, axis=0))
        maparray[stepsize // 2 : mapsize : stepsize, 0:mapsize:stepsize] = wibbledmean(ttsum)
        stepsize //= 2
        wibble /= wibbledecay
    maparray -= maparray.min()
    return maparray / maparray.max()


def _all_defocus_params():
    return sorted({p for t in TABLES.values() for p in t["defocus_blur"]})


@pytest.mark.parametrize("radius,alias", _all_defocus_params())
def test_disk_equals_reference_transcription(radius, alias):
    ours = disk(radius, alias)
    ref = ref_disk(radius, alias)
    assert ours.dtype == np.float32 and ours.shape == ref.shape
    np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize(
    "radius,alias,total",
    [
        (3, 0.1, 1.0),
        (4, 0.5, 1.0),
        (6, 0.5, 1.0),
        (8, 0.5, 1.012975),
        (10, 0.5, 1.010786),
        (7, 0.5, 1.002859),
        (12, 0.5, 1.007753),
    ],
)
def test_disk_sums(radius, alias, total):
    # the blurred kernel is not renormalised (imagenet_c/corruptions.py:26-38): radius 8 and 10 sum
    # to about 1.01
    assert float(disk(radius, alias).sum()) == pytest.approx(total, abs=2e-6)


@pytest.mark.parametrize("radius,size", [(0.3, 17), (3, 17), (8, 17), (10, 21), (12, 25)])
def test_disk_sizes(radius, size):
    assert disk(radius, 0.5).shape == (size, size)


def test_disk_tiny_radius_is_single_pixel_blurred():
    # r <= 0.5: a one-pixel disk, so the kernel is just the 3x3 Gaussian with sigma alias_blur
    k = disk(0.4, 0.5)
    nz = np.argwhere(k > 0)
    assert nz.min() == 7 and nz.max() == 9


def test_disk_returns_a_copy():
    a = disk(6, 0.5)
    a[:] = 0
    assert disk(6, 0.5).sum() > 0.99


@pytest.mark.parametrize(
    "mapsize,decay", [(256, 2), (256, 1.4), (512, 1.5), (64, 3), (32, 1.75), (2, 2)]
)
def test_plasma_fractal_matches_transcription(mapsize, decay):
    a = np.random.RandomState(11)
    b = np.random.RandomState(11)
    ours = plasma_fractal(mapsize, decay, a)
    ref = ref_plasma_fractal(mapsize, decay, b)
    np.testing.assert_array_equal(ours, ref)
    assert ours.shape == (mapsize, mapsize) and ours.min() == 0 and ours.max() == 1
    assert a.random_sample() == b.random_sample()  # same number of draws


def test_plasma_fractal_rejects_bad_mapsize():
    with pytest.raises(ValueError):
        plasma_fractal(100, 2, np.random.RandomState(0))


def test_next_pow2():
    assert [next_pow2(n) for n in (1, 2, 3, 32, 33, 224, 256, 299)] == [
        1,
        2,
        4,
        32,
        64,
        256,
        256,
        512,
    ]
    assert all(next_pow2(n) == 2 ** math.ceil(math.log2(n)) for n in range(1, 600))


class _UniformOnly:
    """A random source with only ``uniform``: plasma_fractal then runs level by level in NumPy."""

    def __init__(self, seed: int) -> None:
        self.rs = np.random.RandomState(seed)

    def uniform(self, low, high, size):
        return self.rs.uniform(low, high, size)


@pytest.mark.parametrize("mapsize,decay", [(256, 1.7), (64, 2.5), (32, 3)])
def test_plasma_fractal_compiled_path_equals_level_by_level(mapsize, decay):
    fast = plasma_fractal(mapsize, decay, np.random.RandomState(5))
    slow = plasma_fractal(mapsize, decay, _UniformOnly(5))
    np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize("per_call", [1, 5, 7, 64])
def test_plasma_draws_in_row_groups_are_one_stream(monkeypatch, per_call):
    # row groups that split levels unevenly (and single rows): the same map and the same number
    # of draws as the reference, whose levels draw one array each
    monkeypatch.setattr(kernels, "PLASMA_DRAWS_PER_CALL", per_call)
    a = np.random.RandomState(8)
    b = np.random.RandomState(8)
    np.testing.assert_array_equal(plasma_fractal(64, 1.7, a), ref_plasma_fractal(64, 1.7, b))
    assert a.random_sample() == b.random_sample()

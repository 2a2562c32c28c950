"""SciPy ndimage's cubic-spline sampling, compiled (corruptbench.ops.scipy_spline), against SciPy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from corruptbench.ops.scipy_spline import affine_accumulate_f32, spline_taps, zoom_shift_u8

ndimage = pytest.importorskip("scipy.ndimage")


def tables(coords: np.ndarray, n: int):
    k = len(coords)
    taps, weights, valid = np.empty((k, 4), np.int64), np.empty((k, 4)), np.empty(k, bool)
    spline_taps(coords, n, taps, weights, valid)
    return taps, weights, valid


def test_shift_and_zoom_equal_scipy():
    rs = np.random.RandomState(0)
    for k in range(120):
        h, w = rs.randint(5, 50, 2)
        img = rs.randint(0, 256, (h, w, 3)).astype(np.uint8)
        img.flags.writeable = False
        d = rs.uniform(-7, 7, 2)
        if k % 3 == 0:
            d = np.round(d)
        out = np.empty_like(img)
        rows = tables(np.arange(h, dtype=np.float64) + -d[0], h)
        cols = tables(np.arange(w, dtype=np.float64) + -d[1], w)
        zoom_shift_u8(img, 1, *rows, *cols, out)
        assert np.array_equal(out[:, :, 1], ndimage.shift(img[:, :, 1], d, prefilter=False))
        s = rs.uniform(1.0, 1.6)
        expected = ndimage.zoom(img[:, :, 2], s, prefilter=False)
        zh, zw = expected.shape
        big = np.empty((zh, zw, 3), np.uint8)
        rows = tables(np.arange(zh) * ((h - 1) / (zh - 1)), h)
        cols = tables(np.arange(zw) * ((w - 1) / (zw - 1)), w)
        zoom_shift_u8(img, 2, *rows, *cols, big)
        assert np.array_equal(big[:, :, 2], expected)


def test_affine_equals_scipy():
    rs = np.random.RandomState(1)
    for _ in range(60):
        h, w = rs.randint(5, 50, 2)
        coeffs = rs.uniform(-1, 2, (h, w))
        a = math.radians(rs.uniform(-20, 20))
        m = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
        off = rs.uniform(-5, 5, 2)
        plane = np.empty((h, w), np.float32)
        ndimage.affine_transform(
            coeffs, m, off, (h, w), plane, order=3, mode="constant", prefilter=False
        )
        acc = np.zeros((h, w, 3), np.float32)
        affine_accumulate_f32(coeffs, m, off, np.float32(0.7), 0, acc)
        assert np.array_equal(acc[:, :, 0], np.float32(0.7) * plane)

"""OpenCV 3.4's warpAffine and warpPerspective, re-implemented (corruptbench.ops.opencv_warp)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from corruptbench.ops import opencv_warp
from corruptbench.ops.geometry import tilt_homography


def test_warp_affine_cv34_basics():
    rs = np.random.RandomState(2)
    img = rs.rand(40, 50, 3).astype(np.float32)
    ident = np.float64([[1, 0, 0], [0, 1, 0]])
    assert np.array_equal(opencv_warp.warp_affine_cv34(img, ident), img)
    shift = np.float64(
        [[1, 0, 3], [0, 1, -2]]
    )  # integer translation: exact copy, reflect-101 borders
    want = cv2.warpAffine(img, shift, (50, 40), borderMode=cv2.BORDER_REFLECT_101)
    assert np.array_equal(opencv_warp.warp_affine_cv34(img, shift), want)
    # a general affine: OpenCV 3.4's fixed-point bilinear is within 1/32 px of any exact bilinear
    pts1 = np.float32([[30, 26], [30, 10], [13, 10]])
    pts2 = pts1 + rs.uniform(-3, 3, size=(3, 2)).astype(np.float32)
    m = cv2.getAffineTransform(pts1, pts2)
    got = opencv_warp.warp_affine_cv34(img, m, (50, 40))
    new = cv2.warpAffine(img, m, (50, 40), borderMode=cv2.BORDER_REFLECT_101)
    assert got.shape == new.shape and np.abs(got - new).mean() < 0.01
    gray = opencv_warp.warp_affine_cv34(img[..., 0], m, (50, 40))
    assert np.array_equal(gray, got[..., 0])


def _tilt_synth(h: int, w: int) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w]
    return np.stack(
        [(xx * 37 + yy * 11) % 256, (xx * xx + 3 * yy) % 256, (yy * yy * 5 + xx) % 256], axis=2
    ).astype(np.uint8)


# (w, h, frame i) -> (the homography as float.hex, md5 of opencv-python 3.4.18's warpPerspective)
_TILT_GOLDEN = {
    (64, 48, 30): (
        "0x1.5518a4c8d776dp+6 0x1.0907dc1930690p+3 -0x1.66646b176ba70p+8 0x1.483344dcbfaa7p-1 "
        "0x1.4df1616b3400ap+6 -0x1.971c3ae78b870p+6 0x1.fffffffffffffp-3 0x1.0907dc1930690p-2 "
        "0x1.0ae2ab0c28fafp+6",
        "39a06ae3a9f8445fef288651dc6abc9e",
    ),
    (32, 32, 7): (
        "0x1.54dfe23a8f383p+5 -0x1.1d06c968d9e19p+1 0x1.8fc797ec227f0p+6 -0x1.8a7365600439bp+1 "
        "0x1.54b3808134284p+5 0x1.c7a22fcb140f8p+6 -0x1.1a40add328e29p-3 -0x1.1d06c968d9e19p-3 "
        "0x1.9556b2d81fb88p+5",
        "495420b79e9da17f1a0ff7d6697d11e5",
    ),
    (341, 256, 0): (
        "0x1.713eede7924ecp+8 -0x1.6107782d8d7bep+5 0x1.e9759dcbff914p+13 -0x1.e481d11286e6bp+5 "
        "0x1.7abdf2646c41ap+8 0x1.04314349f4c54p+14 -0x1.fffffffffffffp-3 -0x1.0907dc1930690p-2 "
        "0x1.f7163ee81a51dp+8",
        "0bf4ed8af808e146acef2680dd99d281",
    ),
}


@pytest.mark.parametrize("key", list(_TILT_GOLDEN))
def test_warp_perspective_matches_opencv34(key: tuple[int, int, int]) -> None:
    """Golden hashes computed with opencv-python 3.4.18 (the reference env) on synthetic images."""
    import hashlib

    from corruptbench.ops.opencv_warp import warp_perspective_cv34

    w, h, i = key
    hexes, md5 = _TILT_GOLDEN[key]
    mat = np.array([float.fromhex(t) for t in hexes.split()]).reshape(3, 3)
    np.testing.assert_allclose(
        tilt_homography(w, h, np.deg2rad(i - 15), np.deg2rad(i - 15)), mat, rtol=1e-12
    )
    out = warp_perspective_cv34(_tilt_synth(h, w), mat, (w, h))
    assert hashlib.md5(out.tobytes()).hexdigest() == md5

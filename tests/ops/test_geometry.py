"""torchvision 0.2.1's affine and the tilt homography (corruptbench.ops.geometry)."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image

from corruptbench.ops.geometry import affine, inverse_affine_matrix, tilt_homography


def test_inverse_affine_matrix_hand_computed() -> None:
    cx, cy = 171.0, 128.5
    # 90 degrees: x_in = y + cx - cy, y_in = -x + cx + cy
    m = inverse_affine_matrix((cx, cy), 90, (0, 0), 1.0, 0)
    np.testing.assert_allclose(m, [0, 1, cx - cy, -1, 0, cx + cy], atol=1e-12)
    # general case: the inverse of T · C · RSS · C^-1 (torchvision 0.2.1's
    # _get_inverse_affine_matrix)
    a, sh, s, (tx, ty) = math.radians(30), math.radians(10), 2.0, (3, -4)
    rss = np.array(
        [
            [math.cos(a) * s, -math.sin(a + sh) * s, 0],
            [math.sin(a) * s, math.cos(a + sh) * s, 0],
            [0, 0, 1],
        ]
    )
    t = np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]])
    c = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1]])
    inv = np.linalg.inv(t @ c @ rss @ np.linalg.inv(c))
    m = inverse_affine_matrix((cx, cy), 30, (tx, ty), s, 10)
    np.testing.assert_allclose(m, inv[:2].ravel(), atol=1e-12)
    # identity
    np.testing.assert_allclose(
        inverse_affine_matrix((cx, cy), 0, (0, 0), 1, 0), [1, 0, 0, 0, 1, 0], atol=1e-12
    )


def test_affine_centre_convention() -> None:
    """torchvision 0.2.1 rotates about (W/2 + 0.5, H/2 + 0.5): a 180° turn maps pixel (x, y) to (W - x, H - y)."""
    img = np.arange(8 * 10 * 3, dtype=np.uint8).reshape(8, 10, 3)
    out = np.asarray(affine(Image.fromarray(img), angle=180))
    # pixel centres x + 0.5 -> 2 cx - (x + 0.5) = W + 1 - x - 0.5 -> source column W - x
    np.testing.assert_array_equal(out[1:, 1:], img[::-1, ::-1][:-1, :-1])
    assert (out[0, :] == 0).all() and (out[:, 0] == 0).all()  # black fill outside


def test_tilt_homography_hand_computed() -> None:
    w, h = 341, 256
    f = math.sqrt(w * w + h * h)
    # zero tilt: P2 T P1 = [[f, 0, w/2], [0, f, h/2], [0, 0, 1 + f]]
    np.testing.assert_allclose(
        tilt_homography(w, h, 0.0, 0.0), [[f, 0, w / 2], [0, f, h / 2], [0, 0, 1 + f]]
    )
    # rotation about y by phi: P1 lifts pixel (x, y) to (X, Y, 1) (X = x - w/2, Y = y - h/2);
    # Ry gives (X cos - sin, Y, X sin + cos); T adds f to the depth; P2 projects with focal f.
    phi = math.radians(10)
    m = tilt_homography(w, h, phi, 0.0)
    p = m @ np.array([w / 2 + 50, h / 2, 1.0])  # 50 px right of the centre
    z = 50 * math.sin(phi) + math.cos(phi) + f
    assert math.isclose(p[2], z, rel_tol=1e-12)
    assert math.isclose(p[0], f * (50 * math.cos(phi) - math.sin(phi)) + w / 2 * z, rel_tol=1e-12)
    assert math.isclose(p[1], h / 2 * z, rel_tol=1e-12)

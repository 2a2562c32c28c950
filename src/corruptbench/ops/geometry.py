"""The geometric transforms of the ImageNet-P generators, with the conventions of their time.

* :func:`inverse_affine_matrix` / :func:`affine` — torchvision 0.2.1 ``transforms.functional.affine``
  (and its ``_get_inverse_affine_matrix``), the version the ImageNet-P generators ran with: the
  output keeps the input size; the centre is
  ``(W * 0.5 + 0.5, H * 0.5 + 0.5)``; the forward map is ``M = T · C · RSS · C⁻¹`` with

      RSS = [[cos(a)·s, −sin(a + sh)·s],
             [sin(a)·s,  cos(a + sh)·s]]

  (``a``, ``sh`` in degrees); PIL's ``Image.transform(size, AFFINE, data)`` wants the *inverse* map
  (output pixel centre -> input position), ``M⁻¹ = C · RSS⁻¹ · C⁻¹ · T⁻¹``, resampled with the
  given PIL filter, black outside. Later torchvision versions moved the centre, changed the shear
  definition and renamed ``resample``, so this is a re-implementation of the 0.2.1 formula, not a
  call of a modern ``affine``. PIL does the resampling, exactly as in the reference.
* :func:`tilt_homography` — the 3 x 3 perspective matrix ``P2 · T · Rx(θ) · Ry(φ) · P1`` used with
  ``cv2.warpPerspective`` (bilinear, black border; OpenCV 3.4's numerics:
  :func:`corruptbench.ops.opencv_warp.warp_perspective_cv34`) by the tilt perturbation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from PIL import Image

__all__ = ["inverse_affine_matrix", "affine", "tilt_homography"]


def inverse_affine_matrix(
    center: Sequence[float], angle: float, translate: Sequence[float], scale: float, shear: float
) -> list[float]:
    """The 6 coefficients ``(a, b, c, d, e, f)`` that PIL's AFFINE transform takes.

    PIL maps the output pixel centre ``(x, y)`` to the input point ``(a x + b y + c, d x + e y + f)``.
    Computed as torchvision 0.2.1 did: with ``s' = 1 / scale`` and
    ``det = cos(a + sh) cos(a) + sin(a + sh) sin(a)``,

        RSS⁻¹ = s' / det · [[cos(a + sh), sin(a + sh)], [−sin(a), cos(a)]],
        (c, f) = RSS⁻¹ · (−center − translate) + center.

    Args:
        center: ``(cx, cy)`` in PIL pixel coordinates.
        angle: rotation in degrees.
        translate: ``(tx, ty)`` post-rotation translation in pixels.
        scale: overall scale (> 0).
        shear: shear angle in degrees.
    """
    if not scale > 0:
        raise ValueError(f"scale must be positive, got {scale}")
    a = math.radians(angle)
    sh = math.radians(shear)
    inv_scale = 1.0 / scale
    det = math.cos(a + sh) * math.cos(a) + math.sin(a + sh) * math.sin(a)
    m = [math.cos(a + sh), math.sin(a + sh), 0.0, -math.sin(a), math.cos(a), 0.0]
    m = [inv_scale / det * v for v in m]
    # the order of these float operations follows the reference formula exactly
    m[2] += m[0] * (-center[0] - translate[0]) + m[1] * (-center[1] - translate[1])
    m[5] += m[3] * (-center[0] - translate[0]) + m[4] * (-center[1] - translate[1])
    m[2] += center[0]
    m[5] += center[1]
    return m


def affine(
    img: Image.Image,
    *,
    angle: float = 0.0,
    translate: Sequence[float] = (0, 0),
    scale: float = 1.0,
    shear: float = 0.0,
    resample: Image.Resampling = Image.Resampling.NEAREST,
) -> Image.Image:
    """torchvision 0.2.1 ``affine(img, angle, translate, scale, shear, resample)`` on a PIL image.

    The default ``resample`` is NEAREST, as in torchvision 0.2.1 (the translate perturbation relies on
    that default); the area outside the source is filled with black.
    """
    w, h = img.size
    center = (w * 0.5 + 0.5, h * 0.5 + 0.5)
    matrix = inverse_affine_matrix(center, angle, translate, scale, shear)
    return img.transform((w, h), Image.Transform.AFFINE, matrix, resample)  # outside: black (fill)


def tilt_homography(w: int, h: int, phi: float, theta: float) -> np.ndarray:
    """``P2 @ T @ RX @ RY @ P1`` of the tilt perturbation (angles in radians), float64 3 x 3.

    ``P1`` lifts pixel coordinates to a centred 3-D plane (4 x 3), ``RX(θ)``/``RY(φ)`` rotate it
    about the x and y axes, ``T`` pushes it to depth ``f = sqrt(w² + h²)``, and ``P2`` (3 x 4)
    projects with focal length ``f`` back to the image centre.
    """
    f = np.sqrt(w**2 + h**2)
    p1 = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1], [0, 0, 1]])
    rx = np.array(
        [
            [1, 0, 0, 0],
            [0, np.cos(theta), -np.sin(theta), 0],
            [0, np.sin(theta), np.cos(theta), 0],
            [0, 0, 0, 1],
        ]
    )
    ry = np.array(
        [
            [np.cos(phi), 0, -np.sin(phi), 0],
            [0, 1, 0, 0],
            [np.sin(phi), 0, np.cos(phi), 0],
            [0, 0, 0, 1],
        ]
    )
    t = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, f], [0, 0, 0, 1]])
    p2 = np.array([[f, 0, w / 2, 0], [0, f, h / 2, 0], [0, 0, 1, 0]])
    return p2 @ t @ rx @ ry @ p1

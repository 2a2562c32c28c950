"""The two geometric warps of the ImageNet-P generators, with the conventions of their time.

* :func:`inverse_affine_matrix` / :func:`affine` — torchvision 0.2.1 ``transforms.functional.affine``
  (spec §3.2, last paragraph): the output keeps the input size; the centre is
  ``(W * 0.5 + 0.5, H * 0.5 + 0.5)``; the forward map is ``M = T · C · RSS · C⁻¹`` with

      RSS = [[cos(a)·s, −sin(a + sh)·s],
             [sin(a)·s,  cos(a + sh)·s]]

  (``a``, ``sh`` in degrees); PIL's ``Image.transform(size, AFFINE, data)`` wants the *inverse* map
  (output pixel centre -> input position), ``M⁻¹ = C · RSS⁻¹ · C⁻¹ · T⁻¹``, resampled with the
  given PIL filter, black outside. Later torchvision versions moved the centre, changed the shear
  definition and renamed ``resample``, so this is a re-implementation of the 0.2.1 formula, not a
  call of a modern ``affine``. PIL does the resampling, exactly as in the reference.
* :func:`tilt_homography` — the 3 x 3 perspective matrix ``P2 · T · Rx(θ) · Ry(φ) · P1`` used with
  ``cv2.warpPerspective`` (bilinear, black border) by the tilt perturbation.
* :func:`warp_perspective` — ``cv2.warpPerspective(src, H, dsize)`` (INTER_LINEAR, constant black
  border) with the numerics of OpenCV 3.4, the version of the reference era: OpenCV >= 4.11
  rewrote the warp kernels in float32, which changes up to ~17 % of a tilt frame's values by up
  to 4 levels; this reproduces 3.4 bit-exactly (checked against opencv-python 3.4.18).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numba
import numpy as np
from PIL import Image

__all__ = ["inverse_affine_matrix", "affine", "tilt_homography", "warp_perspective"]


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


_INTER_BITS = 5  # OpenCV: sub-pixel coordinates in 1/32 px
_INTER_TAB_SIZE = 1 << _INTER_BITS
_BLOCK = 32  # OpenCV's WarpPerspectiveInvoker works in blocks of at most 32 * 32 pixels


@numba.njit(cache=True)
def _perspective_maps(m, bw0, xy, alpha):  # pragma: no cover - compiled
    """OpenCV 3.4's fixed-point source coordinates (see :func:`warp_perspective`), in double."""
    h, w = alpha.shape
    lo, hi = -(2.0**31), 2.0**31 - 1
    for y in range(h):
        for x in range(w):
            x0 = (x // bw0) * bw0
            x1 = x - x0
            big0 = m[0] * x0 + m[1] * y + m[2]
            big1 = m[3] * x0 + m[4] * y + m[5]
            wgt = (m[6] * x0 + m[7] * y + m[8]) + m[6] * x1
            wgt = 32.0 / wgt if wgt != 0 else 0.0
            fx = min(max((big0 + m[0] * x1) * wgt, lo), hi)
            fy = min(max((big1 + m[3] * x1) * wgt, lo), hi)
            xi = np.int64(np.rint(fx))
            yi = np.int64(np.rint(fy))
            xy[y, x, 0] = min(max(xi >> 5, -32768), 32767)
            xy[y, x, 1] = min(max(yi >> 5, -32768), 32767)
            alpha[y, x] = (yi & 31) * 32 + (xi & 31)


def warp_perspective(src: np.ndarray, matrix: np.ndarray, dsize: tuple[int, int]) -> np.ndarray:
    """``cv2.warpPerspective(src, matrix, dsize)`` as OpenCV 3.4 computes it (bilinear, black border).

    OpenCV 3.4 (``imgwarp.cpp``, ``WarpPerspectiveInvoker``): ``M = inverse(matrix)`` (``cv2.invert``,
    LU); the output is processed in blocks ``bw0 x bh0`` (``bh0 = min(16, h)``,
    ``bw0 = min(1024 // bh0, w)``); in a block starting at column ``x``, pixel ``(x + x1, y)`` gets

        X0 = M0 x + M1 y + M2,  Y0 = M3 x + M4 y + M5,  W0 = M6 x + M7 y + M8   (double)
        W = 32 / (W0 + M6 x1)   (0 if the denominator is 0)
        X = round((X0 + M0 x1) W),  Y = round((Y0 + M3 x1) W)     (round half to even)

    i.e. source coordinates in 1/32 px: integer part ``X >> 5`` and table index
    ``(Y & 31) * 32 + (X & 31)``, then ``cv2.remap`` with these fixed-point maps (15-bit bilinear
    weights, constant border 0) — the remap path OpenCV still shares with 3.4.

    Args:
        src: uint8 H x W x C (or H x W).
        matrix: 3 x 3 forward homography (source -> destination), float64.
        dsize: output ``(width, height)``.
    """
    w, h = dsize
    ok, inv = cv2.invert(np.asarray(matrix, dtype=np.float64), flags=cv2.DECOMP_LU)
    m = np.ascontiguousarray(inv.ravel() if ok else np.zeros(9), dtype=np.float64)
    bh0 = min(_BLOCK // 2, h)
    bw0 = min(_BLOCK * _BLOCK // bh0, w)
    xy = np.empty((h, w, 2), dtype=np.int16)
    alpha = np.empty((h, w), dtype=np.uint16)
    _perspective_maps(m, bw0, xy, alpha)
    return cv2.remap(
        src, xy, alpha, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
    )

"""Blur corruptions: defocus, glass, motion, zoom and (extra) Gaussian blur.

References: ``imagenet_c/corruptions.py`` of the imagenet-c 0.0.3 package (PyPI) and
``ImageNet-C/create_c/make_imagenet_c.py`` of github.com/hendrycks/robustness (line numbers at
commit 8190fe3), which hold the same functions. All five follow the reference formulas and
random-draw order exactly; the slow parts of the reference (glass blur's per-pixel Python loop, zoom
blur's repeated ``scipy.ndimage.zoom``, ImageMagick's motion blur) are compiled re-implementations
with the same arithmetic.
"""

from __future__ import annotations

import threading
from typing import Any

import cv2
import numpy as np

from ..ops.gaussian import gaussian_blur_u8
from ..ops.jit import kernel
from ..ops.kernels import disk, trimmed_disk
from ..ops.legacy_random import legacy_state
from ..ops.legacy_random_kernels import glass_shuffle_mt
from ..ops.zoom import zoom_blur_u8
from ..profiles import Profile
from ..registry import register_corruption
from .params import NONNEGATIVE, POSITIVE, severity_params, whole_param

__all__ = [
    "defocus_blur",
    "glass_blur",
    "motion_blur",
    "zoom_blur",
    "gaussian_blur",
    "defocus_blur_p",
    "glass_blur_p",
    "motion_blur_p",
    "zoom_blur_p",
    "gaussian_blur_p",
    "glass_shuffle",
]


# Per-thread scratch arrays: large temporaries reused between calls avoid the page faults of fresh
# allocations (about 40 % of defocus blur's time at 224 px). They never leave this module: every
# function returns a new array.
_SCRATCH = threading.local()
_SCRATCH_MAX_BYTES = 32 << 20


def _scratch(key: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    bufs = getattr(_SCRATCH, "bufs", None)
    if bufs is None:
        bufs = _SCRATCH.bufs = {}
    arr = bufs.get(key)
    if arr is None or arr.shape != shape or arr.dtype != dtype:
        arr = np.empty(shape, dtype=dtype)
        if arr.nbytes <= _SCRATCH_MAX_BYTES:
            bufs[key] = arr
    return arr


@kernel
def _divide_255(src, out):  # pragma: no cover - compiled
    # out = src / 255. (float64; uint8 src, by table), flat C-contiguous arrays
    lut = np.empty(256, dtype=np.float64)
    for v in range(256):
        lut[v] = v / 255.0
    for e in range(src.shape[0]):
        out[e] = lut[src[e]]


@kernel
def _clip_scale_u8(src, out):  # pragma: no cover - compiled
    # out = uint8(clip(src, 0, 1) * 255) (float64 arithmetic, truncation), flat arrays
    for e in range(src.shape[0]):
        out[e] = np.uint8(min(max(src[e], 0.0), 1.0) * 255.0)


def _to_unit(image: np.ndarray, key: str = "unit") -> np.ndarray:
    """``image / 255.`` (float64) into a scratch array."""
    x = _scratch(key, image.shape, np.float64)
    if image.dtype == np.uint8:
        _divide_255(np.ascontiguousarray(image).reshape(-1), x.reshape(-1))
    else:  # pragma: no cover - the corruptions get uint8
        np.divide(image, 255.0, out=x)
    return x


def _finish_uint8(out: np.ndarray) -> np.ndarray:
    """``np.uint8(clip(out, 0, 1) * 255)`` (truncation, as the dispatcher would), in a new array.

    ``out``: C-contiguous float64 (left unchanged).
    """
    res = np.empty(out.shape, dtype=np.uint8)
    _clip_scale_u8(out.reshape(-1), res.reshape(-1))
    return res


def gaussian_blur_p(image: np.ndarray, *, sigma: float) -> np.ndarray:
    """Gaussian blur: ``clip(gaussian(x/255, sigma, channel_axis=-1), 0, 1) * 255``.

    Reference: imagenet_c/corruptions.py:162-166, make_imagenet_c.py:289-293.

    ``gaussian`` is scikit-image's (mode 'nearest', truncate 4, channels not mixed), computed in
    float64 with SciPy's kernel and summation order, fused with ``/ 255``, the clip and the uint8
    truncation (:func:`corruptbench.ops.gaussian.gaussian_blur_u8`). No random draws. Any size works
    (the border is replicated however large the kernel).

    Args:
        image: read-only uint8 H x W x 3.
        sigma: the Gaussian's standard deviation in pixels, >= 0 (0: no blur). Published:
            1 .. 6 (imagenet), 0.4 .. 1 (cifar).
    """
    return gaussian_blur_u8(image, sigma)


@register_corruption(
    "gaussian_blur",
    family=None,
    order=16,
    extra=True,
    random=False,
    params=("sigma",),
    apply=gaussian_blur_p,
    bounds={"sigma": NONNEGATIVE},
)
def gaussian_blur(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Gaussian blur: ``clip(gaussian(x/255, sigma=c, channel_axis=-1), 0, 1) * 255``.

    An extra (validation) corruption, not part of mCE. :func:`gaussian_blur_p` with ``sigma = c``,
    the profile's table entry at ``severity``.
    """
    return gaussian_blur_p(image, **severity_params("gaussian_blur", severity, profile))


@kernel
def _glass_shuffle_kernel(x, d, iterations, offsets):  # pragma: no cover - compiled
    height, width, nc = x.shape
    k = 0
    for _ in range(iterations):
        for h in range(height - d, d, -1):
            for w in range(width - d, d, -1):
                hp = h + offsets[k, 1]
                wp = w + offsets[k, 0]
                k += 1
                for c in range(nc):
                    x[h, w, c] = x[hp, wp, c]


def glass_shuffle(x: np.ndarray, max_delta: int, iterations: int, rng: Any) -> np.ndarray:
    """The reference's "local pixel shuffle" of glass blur, in place on uint8 ``x`` (H x W x C).

    ``iterations`` times: for ``h`` from ``H - d`` down to ``d + 1``, for ``w`` from ``W - d`` down
    to ``d + 1``: ``(dx, dy) = randint(-d, d, size=2)`` (values ``-d .. d-1``) and
    ``x[h, w] = x[h + dy, w + dx]`` — the reference's tuple "swap"
    ``x[h, w], x[h', w'] = x[h', w'], x[h, w]`` (imagenet_c/corruptions.py:182) only copies: the
    right-hand side holds views, so ``x[h', w']`` is assigned its own value back.

    With a legacy ``RandomState`` (MT19937) the offsets are drawn inline by the compiled copy of
    NumPy's MT19937 and bounded-integer code (:func:`corruptbench.ops.legacy_random_kernels.glass_shuffle_mt`), and the generator's state is advanced exactly as the
    ``n`` ``randint(-d, d, size=2)`` calls would (checked by the tests). Other sources draw all
    pairs with one ``randint(-d, d, size=(n, 2))`` call. Returns ``x``.
    """
    d = int(max_delta)
    height, width = x.shape[:2]
    n = int(iterations) * max(0, height - 2 * d) * max(0, width - 2 * d)
    if n == 0:
        return x
    state = legacy_state(rng) if d >= 1 else None
    if state is not None:
        glass_shuffle_mt(x, d, int(iterations), state.key, state.ints)
        state.commit()
        return x
    offsets = np.asarray(rng.randint(-d, d, size=(n, 2)), dtype=np.int64)
    _glass_shuffle_kernel(x, d, int(iterations), offsets)
    return x


def glass_blur_p(
    image: np.ndarray, *, sigma: float, max_delta: int, iterations: int, rng: Any
) -> np.ndarray:
    """Glass blur: Gaussian blur, local pixel shuffle, Gaussian blur.

    Reference: imagenet_c/corruptions.py:169-184, make_imagenet_c.py:296-311.

    ``x = uint8(gaussian(x/255, sigma) * 255)`` (truncation); :func:`glass_shuffle`
    (``iterations * (H - 2d) * (W - 2d)`` randint pairs, dx then dy, ``d = max_delta``);
    ``clip(gaussian(x/255, sigma), 0, 1) * 255``. Gaussians as in :func:`gaussian_blur_p`.
    At other sizes the loops run over the actual H and W.

    Args:
        image: read-only uint8 H x W x 3.
        sigma: the two Gaussians' standard deviation in pixels, >= 0. Published: 0.7 .. 1.5.
        max_delta: ``d``, the largest pixel offset of the shuffle (offsets ``-d .. d - 1`` per
            axis), an int >= 0 (0: no shuffle). Published: 1 .. 4.
        iterations: passes of the shuffle over the image, an int >= 0. Published: 1 .. 3.
        rng: legacy-style random source.
    """
    max_delta = whole_param(max_delta, "glass_blur's max_delta", 0)
    iterations = whole_param(iterations, "glass_blur's iterations", 0)
    # the reference's np.uint8(gaussian(...) * 255): truncation, no clip
    x = gaussian_blur_u8(image, sigma, clip=False)
    glass_shuffle(x, max_delta, iterations, rng)
    return gaussian_blur_u8(x, sigma)


@register_corruption(
    "glass_blur",
    family="blur",
    order=4,
    params=("sigma", "max_delta", "iterations"),
    apply=glass_blur_p,
    bounds={"sigma": NONNEGATIVE},
)
def glass_blur(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Glass blur: Gaussian blur, local pixel shuffle, Gaussian blur.

    :func:`glass_blur_p` with ``(sigma, max_delta, iterations) = c``, the profile's table entry
    at ``severity``.
    """
    return glass_blur_p(image, **severity_params("glass_blur", severity, profile), rng=rng)


def defocus_blur_p(image: np.ndarray, *, radius: float, alias_blur: float) -> np.ndarray:
    """Defocus blur: ``clip(filter2D(x/255, disk(radius, alias_blur)), 0, 1) * 255``.

    Reference: imagenet_c/corruptions.py:187-198, make_imagenet_c.py:314-325.

    ``disk`` is the reference's unnormalised anti-aliased kernel (:func:`corruptbench.ops.kernels.disk`,
    here :func:`~corruptbench.ops.kernels.trimmed_disk`);
    ``cv2.filter2D`` in float64, border REFLECT_101, applied to the three channels at once (the
    reference filters each channel separately with the same kernel: identical). The kernel's
    all-zero outer rows/columns are dropped (they contribute nothing), except where that leaves
    a 1 x 1 kernel (radius 0.75 with alias blur 0.025, say: CCC's severity 0.25): OpenCV's 1 x 1
    path scales instead of filtering and rounds otherwise (on a photo, 66,508 values off by one),
    so the whole disk is used, as the reference does. No random draws. Any size works: the kernel
    depends on the parameters only.

    Args:
        image: read-only uint8 H x W x 3.
        radius: the disk's radius in pixels, > 0 (the kernel spans ``8`` px beyond it up to
            radius 8, ``radius`` beyond it above: the reference's ``disk``). Published:
            3 .. 10 (imagenet), 0.3 .. 1.5 (cifar).
        alias_blur: the standard deviation in pixels of the Gaussian that smooths the disk's
            edge (``cv2.GaussianBlur``), >= 0. Published: 0.1 .. 0.5.
    """
    kernel = trimmed_disk(float(radius), float(alias_blur))
    if kernel.shape == (1, 1):  # OpenCV's 1 x 1 path rounds otherwise (docstring)
        kernel = disk(float(radius), float(alias_blur))
    if image.shape[0] * image.shape[1] > _PLANE_PIXELS:
        return _defocus_by_channel(image, kernel)
    x = _to_unit(image)
    out = _scratch("out", x.shape, np.float64)
    cv2.filter2D(x, -1, kernel, dst=out, borderType=cv2.BORDER_REFLECT_101)
    return _finish_uint8(out)


#: images of more pixels than this are defocused one channel at a time (float64 buffers of one
#: channel instead of three: about 20 bytes a pixel instead of 51; ``benchmarks/memory.py``)
_PLANE_PIXELS = 1 << 20


def _defocus_by_channel(image: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """:func:`defocus_blur`'s filter, clip and cast, one channel at a time (the reference's own
    per-channel loop, imagenet_c/corruptions.py:193-196; the same bytes as the three channels
    at once)."""
    h, w, channels = image.shape
    res = np.empty((h, w, channels), np.uint8)
    x = np.empty((h, w))
    out = np.empty((h, w))
    plane = np.empty(h * w, np.uint8)
    for c in range(channels):
        np.divide(image[:, :, c], 255.0, out=x)  # the float64 division of _divide_255's table
        cv2.filter2D(x, -1, kernel, dst=out, borderType=cv2.BORDER_REFLECT_101)
        _clip_scale_u8(out.reshape(-1), plane)
        res[:, :, c] = plane.reshape(h, w)
    return res


@register_corruption(
    "defocus_blur",
    family="blur",
    order=3,
    random=False,
    params=("radius", "alias_blur"),
    apply=defocus_blur_p,
    bounds={"radius": POSITIVE, "alias_blur": NONNEGATIVE},
)
def defocus_blur(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Defocus blur: ``clip(filter2D(x/255, disk(radius, alias_blur)), 0, 1) * 255``.

    :func:`defocus_blur_p` with ``(radius, alias_blur) = c``, the profile's table entry at
    ``severity``.
    """
    return defocus_blur_p(image, **severity_params("defocus_blur", severity, profile))


def motion_blur_p(image: np.ndarray, *, radius: float, sigma: float, rng: Any) -> np.ndarray:
    """Motion blur: ImageMagick ``MotionBlurImage(radius, sigma, angle)``.

    Reference: imagenet_c/corruptions.py:201-216, make_imagenet_c.py:328-343.

    ``angle = uniform(-45, 45)`` (one draw), then the native emulation of ImageMagick 6's motion
    blur (:func:`corruptbench.ops.magick.magick_motion_blur`). The reference's grayscale-PNG branch
    (R == G == B images) replicates the gray result to three channels, which is what per-channel
    processing gives, so a gray-looking image is blurred once and replicated. Any size works.

    Args:
        image: read-only uint8 H x W x 3.
        radius: ImageMagick's Gaussian radius in pixels (the kernel's width ``2 ceil(radius)
            + 1`` taps, :func:`corruptbench.ops.magick.motion_kernel`), >= 0. Published:
            10 .. 20 (imagenet), 6 .. 9 (cifar).
        sigma: the standard deviation in pixels of the kernel's one-sided Gaussian weights,
            > 0. Published: 3 .. 15 (imagenet), 1 .. 2.5 (cifar).
        rng: legacy-style random source (the angle, degrees).
    """
    from ..ops.magick import magick_motion_blur

    angle = rng.uniform(-45, 45)
    if _is_gray(image):
        out = magick_motion_blur(np.ascontiguousarray(image[:, :, 0]), radius, sigma, angle)
        return np.repeat(out[:, :, None], 3, axis=2)
    return magick_motion_blur(image, radius, sigma, angle)


def _is_gray(image: np.ndarray) -> bool:
    # R == G == B at every pixel; the first row settles it for almost every colour photo
    for rows in (image[:1], image):
        if not (
            np.array_equal(rows[:, :, 0], rows[:, :, 1])
            and np.array_equal(rows[:, :, 0], rows[:, :, 2])
        ):
            return False
    return True


@register_corruption(
    "motion_blur",
    family="blur",
    order=5,
    params=("radius", "sigma"),
    apply=motion_blur_p,
    bounds={"radius": NONNEGATIVE, "sigma": POSITIVE},
)
def motion_blur(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Motion blur: ImageMagick ``MotionBlurImage(radius, sigma, angle)``.

    :func:`motion_blur_p` with ``(radius, sigma) = c``, the profile's table entry at ``severity``.
    """
    return motion_blur_p(image, **severity_params("motion_blur", severity, profile), rng=rng)


def zoom_blur_p(image: np.ndarray, *, stop: float, step: float) -> np.ndarray:
    """Zoom blur: mean of the image and its centre zooms by ``np.arange(1, stop, step)``.

    Reference: imagenet_c/corruptions.py:219-232, make_imagenet_c.py:346-359.

    ``x = float32(x/255)``; ``out = sum(clipped_zoom(x, z) for z in np.arange(1, stop, step))``
    (float32, in that order; the list starts at 1, so the original counts twice);
    ``clip((x + out) / (n + 1), 0, 1) * 255``. The zooms are a compiled re-implementation of
    ``scipy.ndimage.zoom(order=1)``, summed as :func:`corruptbench.ops.zoom.zoom_sum` does and fused
    with the rest (:func:`corruptbench.ops.zoom.zoom_blur_u8`). Non-square images are zoomed about
    the centre on each axis independently. No random draws.

    Args:
        image: read-only uint8 H x W x 3.
        stop: the zoom factors' exclusive end (``np.arange``'s, float round-off included: the
            reference's ``np.arange(1, 1.11, 0.01)`` ends at 1.11); > 1 for any zoom (<= 1: no
            factor, the image itself). Published: 1.11 .. 1.31 (imagenet), 1.06 .. 1.26 (cifar).
        step: the factors' spacing, > 0. Published: 0.01 .. 0.03.
    """
    factors = np.arange(1, stop, step)
    h, w = image.shape[:2]
    return zoom_blur_u8(image, factors, scratch=_scratch("zoom_x", (h * w * 3 + 1,), np.float32))


@register_corruption(
    "zoom_blur",
    family="blur",
    order=6,
    random=False,
    params=("stop", "step"),
    apply=zoom_blur_p,
    bounds={"step": POSITIVE},
)
def zoom_blur(image: np.ndarray, severity: int, *, profile: Profile, rng: Any) -> np.ndarray:
    """Zoom blur: mean of the image and its centre zooms.

    :func:`zoom_blur_p` with ``(stop, step) = c``, the profile's table entry at ``severity``.
    """
    return zoom_blur_p(image, **severity_params("zoom_blur", severity, profile))

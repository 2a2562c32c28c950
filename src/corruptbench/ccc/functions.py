"""CCC's fifteen corruptions at any severity in [0, 5], built on the ImageNet-C kernels of ``ops/``.

Each function re-implements one of ``make_imagenet_c.py`` of github.com/oripress/CCC (MIT) on a
224 x 224 uint8 RGB image, with the parameters of :func:`corruptbench.ccc.params.ccc_params`
and the same random draws, in the same order, as the original after ``np.random.seed(k)``: with
``rng = RandomState(k)`` the result equals ``np.uint8(noise_dict()[name](Image.fromarray(x), s))``
(tests/ccc/test_functions.py runs the original in the reference env). At integer severities the
parameters are ImageNet-C's, so these are the ImageNet-C corruptions except where CCC's copy
differs (glass blur's rounding, frost's textures; see each function).

The original's frost textures are not ImageNet-C's files: ``generate.py``'s ``get_frost_images``
downloads them and writes them back with Pillow (``Image.open(...).save(name)``), which re-encodes
``frost4.jpg`` .. ``frost6.jpg`` as JPEG at Pillow's default quality 75; :func:`ccc_frost_texture`
does the same re-encoding (the PNGs keep their pixels).
"""

from __future__ import annotations

import io
from functools import cache
from importlib import resources
from typing import Any

import cv2
import numpy as np
import simplejpeg
from PIL import Image

from ..corruptions.blur import glass_shuffle
from ..corruptions.digital import elastic_source_points
from ..corruptions.weather import (
    FROST_FILES,
    frost_lookup_table,
    motion_blur_layer,
    snow_compose_u8,
    snow_gray,
    snow_layer_u8,
)
from ..errors import Arg, ArgumentError
from ..ops import weather_stages as wk
from ..ops.gaussian import gaussian_blur_u8
from ..ops.hsv import hsv_adjust_uint8
from ..ops.kernels import disk, plasma_raw_map, trimmed_disk
from ..ops.legacy_random import (
    PoissonPlan,
    choice_threshold,
    legacy_normal_u8,
    legacy_state,
    legacy_uniform,
)
from ..ops.legacy_random_kernels import impulse_u8
from ..ops.magick import magick_motion_blur
from ..ops.opencv_warp import invert_affine_cv, warp_affine_inverse_into
from ..ops.pillow_resize import pil_box_resize
from ..ops.scipy_ndimage import gaussian_filter_reflect_f32, map_coordinates_reflect_u8
from ..ops.zoom import zoom_blur_u8
from ..rng import as_rng
from .params import ccc_params, check_ccc_name, check_ccc_severity

__all__ = ["FUNCTIONS", "SIZE", "ccc_frost_texture", "check_ccc_image", "corrupt", "corrupt_pair"]

#: the one image size CCC's functions handle (its loops, crops and reshapes say 224)
SIZE = 224
#: (value / 255.) * 255 truncated, per uint8 value: what impulse noise keeps where it does not flip
_KEPT = ((np.arange(256) / 255.0) * 255).astype(np.uint8)
#: value / 255. per uint8 value
_UNIT = np.arange(256) / 255.0


def _flat(image: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(image).reshape(-1)


def gaussian_noise(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """``clip(x / 255 + normal(scale=c), 0, 1) * 255`` (one ``normal`` of the image's shape)."""
    c = ccc_params("gaussian_noise", s)
    out = np.empty(x.shape, np.uint8)
    if not legacy_normal_u8(rng, _flat(x), float(c), False, out.reshape(-1)):  # pragma: no cover
        noisy = np.clip(x / 255.0 + rng.normal(size=x.shape, scale=c), 0, 1) * 255
        return noisy.astype(np.uint8)
    return out


def shot_noise(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """``clip(poisson(x / 255 * c) / c, 0, 1) * 255`` with ``c = 1 / f(s)`` (CCC interpolates
    ``1 / photons``)."""
    f = ccc_params("shot_noise", s)
    c = float(1) / f if f != 0 else 9999
    return PoissonPlan.from_uint8(x, c).sample_unit_u8(rng, c)


def impulse_noise(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """scikit-image 0.13's salt and pepper (``random_noise(mode='s&p', amount=c)``): two
    ``choice`` masks of the image's shape on the global stream."""
    c = ccc_params("impulse_noise", s)
    state = legacy_state(rng)
    if state is None:  # pragma: no cover - corrupt() passes a RandomState
        raise TypeError("impulse_noise needs a np.random.RandomState")
    out = np.empty(x.shape, np.uint8)
    impulse_u8(
        _flat(x),
        _KEPT,
        choice_threshold(c),
        choice_threshold(0.5),
        state.key,
        state.ints,
        out.reshape(-1),
    )
    state.commit()
    return out


def glass_rounds(s: float) -> tuple[float, int, int]:
    """Glass blur's ``(sigma, d, iterations)`` at ``s``: ``c[1] = max(c[1], 1)``, then the
    shuffle's ``round(c[1])`` and ``round(c[2])`` (Python's round: half to even, so 2.5 -> 2)."""
    c = ccc_params("glass_blur", s)
    d = max(float(c[1]), 1.0)
    return float(c[0]), round(d), round(float(c[2]))


def glass_blur(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """Blur, shuffle, blur, as ImageNet-C's, with ``d`` and the iterations rounded.

    The original shuffles in a ``numba.jit`` function, whose ``np.random.randint`` draws from
    numba's own generator, which ``np.random.seed`` does not reach: its output cannot be
    reproduced, only its distribution (offsets uniform in ``-d .. d-1``). Here the offsets are
    the global stream's ``randint(-d, d, size=2)`` calls the same loop makes in plain Python.
    """
    sigma, d, iterations = glass_rounds(s)
    y = gaussian_blur_u8(x, sigma, clip=False)  # np.uint8(gaussian(...) * 255): no clip
    glass_shuffle(y, d, iterations, rng)
    return gaussian_blur_u8(y, sigma)


def defocus_blur(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """``clip(filter2D(x / 255, disk(radius, alias_blur)), 0, 1) * 255`` (a float radius above 8
    gives the original's float grid ``arange(-r, r + 1)``)."""
    radius, alias = (float(v) for v in ccc_params("defocus_blur", s))
    kernel = trimmed_disk(radius, alias)
    if kernel.shape[0] < 3:  # OpenCV's 1 x 1 path rounds otherwise (66,508 values off by one)
        kernel = disk(radius, alias)
    out = cv2.filter2D(x / 255.0, -1, kernel, borderType=cv2.BORDER_REFLECT_101)
    return (np.clip(out, 0, 1) * 255).astype(np.uint8)


def motion_blur(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """ImageMagick 6 ``MotionBlurImage(radius, sigma, angle)``, ``angle = uniform(-45, 45)``; a
    gray image (the PNG ImageMagick writes is then gray) is blurred once and replicated."""
    radius, sigma = (float(v) for v in ccc_params("motion_blur", s))
    angle = rng.uniform(-45, 45)
    if np.array_equal(x[:, :, 0], x[:, :, 1]) and np.array_equal(x[:, :, 0], x[:, :, 2]):
        out = magick_motion_blur(np.ascontiguousarray(x[:, :, 0]), radius, sigma, angle)
        return np.repeat(out[:, :, None], 3, axis=2)
    return magick_motion_blur(x, radius, sigma, angle)


def zoom_blur(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """Mean of the image and its centre zooms by ``np.arange(c0, c1, c2)`` (float32)."""
    start, stop, step = ccc_params("zoom_blur", s)
    return zoom_blur_u8(x, np.arange(start, stop, step))


def snow(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """ImageNet-C's snow with interpolated ``(loc, scale, zoom, threshold, radius, sigma, blend)``:
    ``normal((224, 224))`` then ``uniform(-135, -45)``."""
    loc, scale, zoom, threshold, radius, sigma, blend = (float(v) for v in ccc_params("snow", s))
    layer8 = snow_layer_u8(x.shape[:2], loc, scale, zoom, threshold, rng)
    angle = rng.uniform(-135, -45)
    blurred = motion_blur_layer(layer8, radius, sigma, angle)
    return snow_compose_u8(x, snow_gray(x), blurred, blend)


@cache
def ccc_frost_texture(index: int) -> np.ndarray:
    """Texture ``index`` (0-based) as CCC's ``cv2.imread("./frost/...")`` sees it, RGB.

    ``get_frost_images`` wrote each file with ``Image.open(BytesIO(data)).save(path)``: the JPEGs
    are Pillow's quality-75 re-encoding of the decoded original; the PNGs keep their pixels.
    """
    name = FROST_FILES[index]
    data = (resources.files("corruptbench") / "data" / "frost" / name).read_bytes()
    if name.endswith(".jpg"):
        buf = io.BytesIO()
        with Image.open(io.BytesIO(data)) as im:
            im.save(buf, format="JPEG")
        data = buf.getvalue()
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if bgr is None:  # pragma: no cover - a damaged installation
        raise RuntimeError(f"could not decode the frost texture {name}")
    rgb = np.ascontiguousarray(bgr[:, :, ::-1])
    rgb.flags.writeable = False
    return rgb


def frost(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """``clip(c0 x + c1 crop, 0, 255)``: ``randint(5)`` picks frost1..5, then ``randint(0, Hf -
    224)``, ``randint(0, Wf - 224)`` the crop (textures as :func:`ccc_frost_texture`)."""
    c0, c1 = (float(v) for v in ccc_params("frost", s))
    tex = ccc_frost_texture(int(rng.randint(5)))
    x0 = int(rng.randint(0, tex.shape[0] - SIZE))
    y0 = int(rng.randint(0, tex.shape[1] - SIZE))
    out = np.empty(x.shape, np.uint8)
    wk.frost_u8(np.ascontiguousarray(x), tex, x0, y0, frost_lookup_table(c0, c1), out)
    return out


def fog(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """``x += c0 plasma_fractal(256, c1)[:224, :224]``, ``clip(x m / (m + c0), 0, 1) * 255``."""
    strength, decay = (float(v) for v in ccc_params("fog", s))
    haze, lo, hi = plasma_raw_map(256, decay, rng)
    out = np.empty(x.shape, np.uint8)
    wk.fog_u8(np.ascontiguousarray(x), haze, float(lo), float(hi - lo), strength, out)
    return out


def brightness(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """HSV ``V = clip(V + c, 0, 1)`` (scikit-image's conversions), ``clip * 255``."""
    return hsv_adjust_uint8(x, v_add=ccc_params("brightness", s))


def contrast(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """``clip((x - mean) c + mean, 0, 1) * 255``, ``x = image / 255``, per-channel means (NumPy's
    ``mean`` of the float image, as the original), the formula evaluated once per channel and
    value (a lookup table: the same float64 operations)."""
    c = ccc_params("contrast", s)
    means = np.mean(x / 255.0, axis=(0, 1))
    lut = (np.clip((_UNIT[:, None] - means) * c + means, 0, 1) * 255).astype(np.uint8)
    return cv2.LUT(x, np.ascontiguousarray(lut).reshape(256, 1, 3))


def elastic(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """ImageNet-C's elastic transform with interpolated ``(alpha, sigma, jitter)`` (244-based;
    between severities 0 and 1 the smoothing's sigma runs from 999 down to 170.8)."""
    alpha, sigma, jitter = (float(v) for v in ccc_params("elastic", s))
    pts1 = elastic_source_points(SIZE, SIZE)
    pts2 = pts1 + np.asarray(rng.uniform(-jitter, jitter, size=pts1.shape)).astype(np.float32)
    inverse = invert_affine_cv(cv2.getAffineTransform(pts1, pts2))
    dx = gaussian_filter_reflect_f32(legacy_uniform(rng, -1, 1, (SIZE, SIZE)), sigma, alpha)
    dy = gaussian_filter_reflect_f32(legacy_uniform(rng, -1, 1, (SIZE, SIZE)), sigma, alpha)
    warped = np.empty(x.shape)
    warp_affine_inverse_into(x.astype(np.float32) / np.float32(255.0), inverse, warped)
    out = np.empty(x.shape, np.uint8)
    map_coordinates_reflect_u8(warped, dx, dy, out)
    return out


def pixelate(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """Pillow BOX resize to ``int(224 c)`` square and BOX back to 224."""
    c = ccc_params("pixelate", s)
    small = pil_box_resize(x, (int(SIZE * c), int(SIZE * c)))
    return pil_box_resize(small, (SIZE, SIZE))


def jpeg(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """Pillow JPEG round trip at quality ``round(c)`` (half to even), decoded as Pillow does."""
    quality = round(ccc_params("jpeg", s))
    buf = io.BytesIO()
    Image.fromarray(x).save(buf, "JPEG", quality=quality)
    return simplejpeg.decode_jpeg(
        buf.getbuffer(), colorspace="RGB", fastdct=False, fastupsample=False
    )


#: CCC name -> function ``(image, severity, rng) -> uint8 image``, in ``noise_dict()``'s order
FUNCTIONS: dict[str, Any] = {
    "gaussian_noise": gaussian_noise,
    "shot_noise": shot_noise,
    "impulse_noise": impulse_noise,
    "defocus_blur": defocus_blur,
    "glass_blur": glass_blur,
    "motion_blur": motion_blur,
    "zoom_blur": zoom_blur,
    "snow": snow,
    "frost": frost,
    "fog": fog,
    "brightness": brightness,
    "contrast": contrast,
    "elastic": elastic,
    "pixelate": pixelate,
    "jpeg": jpeg,
}


def check_ccc_image(image: Any, name: str = "image") -> np.ndarray:
    """``image`` as a C-contiguous 224 x 224 x 3 uint8 array, else one line naming the problem."""
    arr = np.asarray(image)
    if arr.dtype != np.uint8 or arr.shape != (SIZE, SIZE, 3):
        raise ArgumentError(
            Arg(name),
            f" must be a {SIZE} x {SIZE} x 3 uint8 RGB array (CCC's corruptions are written for "
            f"224 x 224 crops), got {arr.dtype} {arr.shape}",
        )
    return np.ascontiguousarray(arr)


def corrupt(image: Any, name: str, severity: float, rng: Any = None) -> np.ndarray:
    """CCC's corruption ``name`` at ``severity`` (any float in [0, 5]) of a 224 x 224 image.

    With ``rng = k`` (or ``np.random.RandomState(k)``) this equals the original's
    ``np.random.seed(k); np.uint8(noise_dict()[name](Image.fromarray(image), severity))``
    (glass blur: see :func:`glass_blur`). Severity 0 returns an unchanged copy, drawing nothing
    (``generate.py`` skips a corruption at severity 0).

    Args:
        image: 224 x 224 x 3 uint8 RGB.
        name: one of :data:`corruptbench.ccc.params.CCC_CORRUPTIONS` (CCC's names, e.g.
            ``"elastic"``, ``"jpeg"``) or the registry's (``"elastic_transform"``).
        severity: a number in [0, 5].
        rng: None (fresh entropy), an int seed or a ``np.random.RandomState`` (advanced).

    Raises:
        ArgumentError: an unknown corruption, a severity outside [0, 5], an image that is not
            224 x 224 x 3 uint8, or another kind of ``rng``.
    """
    key = check_ccc_name(name)
    s = check_ccc_severity(severity)
    x = check_ccc_image(image)
    if rng is not None and not isinstance(rng, (int, np.integer, np.random.RandomState)):
        raise ArgumentError(
            Arg("rng"), f" must be None, an int seed or a np.random.RandomState, got {rng!r}"
        )
    if s == 0:
        return x.copy()
    return FUNCTIONS[key](x, s, as_rng(rng))


def corrupt_pair(
    x: np.ndarray, n1: str, s1: float, n2: str, s2: float, rng: np.random.RandomState
) -> np.ndarray:
    """``generate.py``'s two corruptions of one crop: ``n1`` at ``s1`` then ``n2`` at ``s2``, each
    skipped at severity 0, the result made uint8 in between (CCC names; no checks: callers
    validate once)."""
    if s1 > 0:
        x = FUNCTIONS[n1](x, s1, rng)
    if s2 > 0:
        x = FUNCTIONS[n2](x, s2, rng)
    return x

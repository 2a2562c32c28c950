"""CCC's fifteen corruptions at any severity in [0, 5]: ImageNet-C's functions of their parameters.

Each function re-implements one of ``make_imagenet_c.py`` of github.com/oripress/CCC (MIT) on a
224 x 224 uint8 RGB image: the parameters of :func:`corruptbench.ccc.params.ccc_params` given to
the registry's ``<name>_p`` function (:mod:`corruptbench.corruptions.params`), with the same
random draws, in the same order, as the original after ``np.random.seed(k)``: with
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
from PIL import Image

from ..corruptions.blur import defocus_blur_p, glass_blur_p, motion_blur_p, zoom_blur_p
from ..corruptions.digital import (
    brightness_p,
    contrast_p,
    elastic_transform_p,
    jpeg_compression_p,
    pixelate_p,
)
from ..corruptions.noise import gaussian_noise_p, impulse_noise_p, shot_noise_p
from ..corruptions.weather import FROST_FILES, fog_p, frost_lookup_table, snow_p
from ..errors import Arg, ArgumentError
from ..ops import weather_stages as wk
from ..rng import as_rng
from .params import ccc_params, check_ccc_name, check_ccc_severity

__all__ = ["FUNCTIONS", "SIZE", "ccc_frost_texture", "check_ccc_image", "corrupt", "corrupt_pair"]

#: the one image size CCC's functions handle (its loops, crops and reshapes say 224)
SIZE = 224


def gaussian_noise(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """``clip(x / 255 + normal(scale=c), 0, 1) * 255`` (one ``normal`` of the image's shape)."""
    return gaussian_noise_p(x, std=float(ccc_params("gaussian_noise", s)), rng=rng)


def shot_noise(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """``clip(poisson(x / 255 * c) / c, 0, 1) * 255`` with ``c = 1 / f(s)`` (CCC interpolates
    ``1 / photons``)."""
    f = ccc_params("shot_noise", s)
    return shot_noise_p(x, photons=float(1) / f if f != 0 else 9999, rng=rng)


def impulse_noise(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """scikit-image 0.13's salt and pepper (``random_noise(mode='s&p', amount=c)``): two
    ``choice`` masks of the image's shape on the global stream."""
    return impulse_noise_p(x, amount=float(ccc_params("impulse_noise", s)), rng=rng)


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
    return glass_blur_p(x, sigma=sigma, max_delta=d, iterations=iterations, rng=rng)


def defocus_blur(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """``clip(filter2D(x / 255, disk(radius, alias_blur)), 0, 1) * 255``
    (:func:`~corruptbench.corruptions.blur.defocus_blur_p`; a float radius above 8 gives the
    original's float grid ``arange(-r, r + 1)``)."""
    radius, alias = (float(v) for v in ccc_params("defocus_blur", s))
    return defocus_blur_p(x, radius=radius, alias_blur=alias)


def motion_blur(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """ImageMagick 6 ``MotionBlurImage(radius, sigma, angle)``, ``angle = uniform(-45, 45)``."""
    radius, sigma = (float(v) for v in ccc_params("motion_blur", s))
    return motion_blur_p(x, radius=radius, sigma=sigma, rng=rng)


def zoom_blur(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """Mean of the image and its centre zooms by ``np.arange(c0, c1, c2)`` (``c0`` is 1 at every
    severity: the table's first column is constant)."""
    start, stop, step = (float(v) for v in ccc_params("zoom_blur", s))
    assert start == 1.0  # (1 - 1) * t + 1
    return zoom_blur_p(x, stop=stop, step=step)


def snow(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """ImageNet-C's snow with interpolated ``(loc, scale, zoom, threshold, radius, sigma, blend)``:
    ``normal((224, 224))`` then ``uniform(-135, -45)``."""
    loc, scale, zoom, threshold, radius, sigma, blend = (float(v) for v in ccc_params("snow", s))
    return snow_p(
        x, mean=loc, std=scale, zoom=zoom, threshold=threshold, blur_radius=radius,
        blur_sigma=sigma, blend=blend, rng=rng,
    )  # fmt: skip


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
    return fog_p(x, strength=strength, decay=decay, mapsize=256, rng=rng)


def brightness(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """HSV ``V = clip(V + c, 0, 1)`` (scikit-image's conversions), ``clip * 255``."""
    return brightness_p(x, delta=float(ccc_params("brightness", s)))


def contrast(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """``clip((x - mean) c + mean, 0, 1) * 255``, ``x = image / 255``, per-channel means."""
    return contrast_p(x, factor=float(ccc_params("contrast", s)))


def elastic(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """ImageNet-C's elastic transform with interpolated ``(alpha, sigma, jitter)`` (244-based;
    between severities 0 and 1 the smoothing's sigma runs from 999 down to 170.8)."""
    alpha, sigma, jitter = (float(v) for v in ccc_params("elastic", s))
    return elastic_transform_p(x, alpha=alpha, sigma=sigma, jitter=jitter, rng=rng)


def pixelate(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """Pillow BOX resize to ``int(224 c)`` square and BOX back to 224."""
    return pixelate_p(x, factor=float(ccc_params("pixelate", s)))


def jpeg(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
    """Pillow JPEG round trip at quality ``round(c)`` (half to even), decoded as Pillow does."""
    return jpeg_compression_p(x, quality=round(ccc_params("jpeg", s)))


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
    return _uint8(FUNCTIONS[key](x, s, as_rng(rng)))


def corrupt_pair(
    x: np.ndarray, n1: str, s1: float, n2: str, s2: float, rng: np.random.RandomState
) -> np.ndarray:
    """``generate.py``'s two corruptions of one crop: ``n1`` at ``s1`` then ``n2`` at ``s2``, each
    skipped at severity 0, the result made uint8 in between (CCC names; no checks: callers
    validate once)."""
    if s1 > 0:
        x = _uint8(FUNCTIONS[n1](x, s1, rng))
    if s2 > 0:
        x = _uint8(FUNCTIONS[n2](x, s2, rng))
    return x


def _uint8(x: Any) -> np.ndarray:
    """The original's ``np.uint8(result)`` (a truncating cast; our functions mostly return uint8)."""
    x = np.asarray(x)
    return x if x.dtype == np.uint8 else x.astype(np.uint8)

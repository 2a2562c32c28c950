"""``imagecorruptions.corruptions`` (1.1.2) as :mod:`corruptbench.compat` provides it: its helpers
and the 19 corruption functions, under the same names::

    # from imagecorruptions.corruptions import plasma_fractal, clipped_zoom, disk, fog
    from corruptbench.compat.corruptions import plasma_fractal, clipped_zoom, disk, fog

The helpers compute what imagecorruptions' do (the same values, dtypes and global random draws):
:func:`disk`, :func:`plasma_fractal`, :func:`clipped_zoom`, :func:`next_power_of_2`,
:func:`getOptimalKernelWidth1D`, :func:`gauss_function`, :func:`getMotionBlurKernel`,
:func:`shift` and :func:`rgb2gray`. The corruption functions ``gaussian_noise(x, severity=1)`` ...
``saturate(x, severity=1)`` (``elastic_transform(image, severity=1)``) are compat's (see
:mod:`corruptbench.compat`). Not provided: ``_motion_blur`` (private) and the modules and
functions imagecorruptions' module imports (``np``, ``cv2``, ``gaussian``, ``scizoom``, ...).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ops import kernels
from ..registry import CorruptionSpec, corruption_specs
from ..tables.imagecorruptions import FIRST_PARAMETER, return_kind
from .dispatch import ON_PIL, call_rgb
from .gray import call_gray, rgb2gray
from .inputs import read_function_image, read_function_pil, read_severity
from .randomness import global_state

__all__ = [
    "disk",
    "plasma_fractal",
    "clipped_zoom",
    "next_power_of_2",
    "getOptimalKernelWidth1D",
    "gauss_function",
    "getMotionBlurKernel",
    "shift",
    "rgb2gray",
    "MapSizeError",
    "corruption_tuple",
    "corruption_dict",
]


class MapSizeError(ValueError, AssertionError):
    """A plasma map size that is not a power of two (imagecorruptions: ``AssertionError``)."""


# ---- helpers ------------------------------------------------------------------------------------


def disk(radius: float, alias_blur: float = 0.1, dtype: Any = np.float32) -> np.ndarray:
    """Defocus blur's anti-aliased disk kernel: the disk ``X^2 + Y^2 <= r^2`` on ``-8..8`` (``-r..r``
    beyond radius 8) normalised to sum 1, then ``cv2.GaussianBlur`` with ``ksize`` 3 (5 beyond
    radius 8) and ``sigmaX = alias_blur`` (:func:`corruptbench.ops.kernels.disk`)."""
    return kernels.disk(radius, alias_blur, dtype)


def plasma_fractal(mapsize: int = 256, wibbledecay: float = 3) -> np.ndarray:
    """Fog's diamond-square height map, ``mapsize x mapsize`` float64 in [0, 1], drawn from NumPy's
    global random state as imagecorruptions draws it (per level one ``uniform`` array for the
    squares and two for the diamonds; the wibble amplitude is squared, a kept quirk;
    :func:`corruptbench.ops.kernels.plasma_fractal`). ``mapsize``: a power of two >= 2."""
    size = operator.index(mapsize)
    if size < 2 or size & (size - 1):
        raise MapSizeError(f"mapsize must be a power of two >= 2, got {mapsize!r}")
    return kernels.plasma_fractal(size, float(wibbledecay), global_state())


def clipped_zoom(img: np.ndarray, zoom_factor: float) -> np.ndarray:
    """The centre of ``img`` (H x W x C) zoomed by ``zoom_factor``, not trimmed: the crop of
    ``ceil(H / z)`` rows and ``ceil(W / z)`` columns starting at ``(H - ceil(H / z)) // 2`` (likewise
    for the columns), through ``scipy.ndimage.zoom(crop, (z, z, 1), order=1)``; the result has
    ``round(ceil(H / z) z)`` rows (imagecorruptions cuts it to the image afterwards, at the
    top-left)."""
    from scipy.ndimage import zoom  # imported when first used

    z = float(zoom_factor)
    rows, cols = (math.ceil(n / z) for n in img.shape[:2])
    top, left = (img.shape[0] - rows) // 2, (img.shape[1] - cols) // 2
    return zoom(img[top : top + rows, left : left + cols], (z, z, 1), order=1)


def next_power_of_2(x: int) -> int:
    """The smallest power of two >= ``x`` (1 for 0): fog's map size for the image's largest side."""
    n = operator.index(x)
    return 1 if n == 0 else 2 ** (n - 1).bit_length()


def getOptimalKernelWidth1D(radius: float, sigma: float) -> float:  # noqa: N802 - upstream's name
    """The motion blur kernel's width: ``2 radius + 1`` (``sigma`` is not used)."""
    return radius * 2 + 1


def gauss_function(x: Any, mean: float, sigma: float) -> Any:
    """``exp(-x^2 / (2 sigma^2)) / (sqrt(2 pi) sigma)``: the Gaussian density at ``x`` about 0
    (``mean`` is not used, as in imagecorruptions)."""
    return np.exp(-(x**2) / (2 * (sigma**2))) / (np.sqrt(2 * np.pi) * sigma)


def getMotionBlurKernel(width: int, sigma: float) -> np.ndarray:  # noqa: N802 - upstream's name
    """:func:`gauss_function` at ``0 .. width - 1``, normalised to sum 1 (float64)."""
    k = gauss_function(np.arange(width), 0, sigma)
    return k / np.sum(k)


def shift(image: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """``image`` moved by ``dx`` columns and ``dy`` rows (positive: right / down), the vacated
    border filled with the nearest remaining column / row: ``out[i, j] = image[clip(i - dy),
    clip(j - dx)]``. ``image`` itself when both are 0. (imagecorruptions rolls the array and
    overwrites the wrapped part; equal for ``|dx| < W`` and ``|dy| < H``, where it uses it.)"""
    if dx == 0 and dy == 0:
        return image
    h, w = image.shape[:2]
    rows = np.clip(np.arange(h) - dy, 0, h - 1)
    cols = np.clip(np.arange(w) - dx, 0, w - 1)
    return image[rows[:, None], cols[None, :]]


# ---- the 19 corruption functions ----------------------------------------------------------------


def _apply(name: str, x: Any, severity: Any) -> Any:
    if name in ON_PIL:
        image = read_function_pil(x, FIRST_PARAMETER.get(name, "x"))
        return ON_PIL[name](image, read_severity(severity))
    picture = read_function_image(x, FIRST_PARAMETER.get(name, "x"))
    sev = read_severity(severity)
    if not picture.gray:
        return call_rgb(name, picture.pixels, sev)
    out = call_gray(name, picture.pixels, sev)
    return out[:, :, None] if picture.channel_axis and isinstance(out, np.ndarray) else out


def _function(spec: CorruptionSpec) -> Callable[..., Any]:
    """``spec``'s corruption as imagecorruptions' ``name(x, severity=1)``."""
    name = spec.name
    if FIRST_PARAMETER.get(name) == "image":

        def func(image: Any, severity: int = 1) -> Any:
            return _apply(name, image, severity)
    else:

        def func(x: Any, severity: int = 1) -> Any:  # type: ignore[misc]
            return _apply(name, x, severity)

    kind = {"float64": "a float64 array", "float32": "a float32 array", "pil": "a PIL image"}
    kinds = sorted({kind[return_kind(name, s)] for s in range(1, 6)})
    func.__name__ = func.__qualname__ = name
    func.__module__ = __name__
    func.__doc__ = (
        f"{spec.summary}\n\nimagecorruptions' ``{name}``: draws from NumPy's global random "
        f"state, ImageNet (224 px) parameters at any size; returns {' or '.join(kinds)} in "
        "[0, 255] of the input's height and width (3 channels; a grayscale input gives a "
        "grayscale result); see :mod:`corruptbench.compat` for its values."
    )
    return func


#: the 19 corruption functions in the reference order (imagecorruptions' ``corruption_tuple``)
corruption_tuple: tuple[Callable[..., Any], ...] = tuple(_function(s) for s in corruption_specs())
#: ``name -> function`` (imagecorruptions' ``corruption_dict``)
corruption_dict: dict[str, Callable[..., Any]] = {f.__name__: f for f in corruption_tuple}
globals().update(corruption_dict)
__all__ += list(corruption_dict)

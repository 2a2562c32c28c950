"""Drop-in replacement for ``imagecorruptions`` (bethgelab, 1.1.2): API-compatible with
imagecorruptions; pixel-identical to imagenet-c 0.0.3.

Switch with one import::

    # from imagecorruptions import corrupt, get_corruption_names
    from corruptbench.compat import corrupt, get_corruption_names

Everything imagecorruptions exports for corrupting images is here, under the same names:
``corrupt(image, severity=1, corruption_name=None, corruption_number=-1)``,
``get_corruption_names(subset='common')``, ``corruption_tuple`` (the 19 functions in the reference
order), ``corruption_dict`` (name -> function) and the 19 functions ``gaussian_noise(x,
severity=1)`` ... ``saturate(x, severity=1)`` (``elastic_transform(image, severity=1)``).

* **Randomness.** Like imagecorruptions, everything draws from NumPy's global legacy random state:
  ``np.random.seed(k)`` before a call gives imagenet-c 0.0.3's pixels for that seed (and leaves the
  global state where imagenet-c leaves it). ``corrupt`` also takes ``rng=`` (an int seed, a
  ``RandomState`` or a ``Generator``) as an opt-in keyword.
* **Parameters.** The ImageNet (224 px) tables at every image size, as imagecorruptions does
  (its fog map, too, is the next power of two of the image's largest side: smaller than
  imagenet-c's 256 for images up to 128 px);
  ``corrupt(..., profile="cifar" | "tiny" | "inception" | "auto")`` opts in to another table.
* **Input** (``corrupt`` and the functions): a uint8 ``ndarray`` ``(H, W)``, ``(H, W, 1)`` or
  ``(H, W, 3)`` with ``H, W >= 32``; the functions also take a PIL image. Grayscale comes back as
  ``(H, W, 3)``, as from imagecorruptions' ``corrupt``.
* **Output of** ``corrupt``: a uint8 ``(H, W, 3)`` array, ``np.uint8`` of the function's result
  (truncation), as imagecorruptions.
* **Errors.** Each error is an instance of imagecorruptions' exception type *and* of this
  package's: bad input and severities raise ``AttributeError`` (also a ``TypeError`` /
  ``ValueError``), an unknown name ``KeyError`` (also a ``ValueError``, with a suggestion), a
  ``corruption_number`` outside 0..18 ``IndexError`` (also a ``ValueError``, saying the range).
  Severities and numbers may be NumPy integers.

What the functions return (imagecorruptions' type, dtype and range; values as below):

======================  ===========================  ==============================================
function                imagecorruptions 1.1.2       ``corruptbench.compat``
======================  ===========================  ==============================================
gaussian_noise,         float64 ndarray in [0, 255]  the same float64, exactly (computed in floats
shot_noise,                                          with NumPy's own samplers, the reference's
impulse_noise,                                       arithmetic)
speckle_noise
zoom_blur,              float32 ndarray in [0, 255]  float32 ndarray of the uint8 result (whole
elastic_transform                                    numbers: see below)
spatter                 float32 (severity 1-3),      the same dtypes, of the uint8 result
                        float64 (4-5)
pixelate,               PIL image, mode RGB          PIL image, mode RGB (a plain ``Image``; upstream
jpeg_compression                                     returns a ``JpegImageFile`` for JPEG)
the other 10            float64 ndarray in [0, 255]  float64 ndarray of the uint8 result
======================  ===========================  ==============================================

Why "of the uint8 result": the library's kernels for these corruptions are fused passes that
produce the reference's *truncated* uint8 value directly (that is where their speed comes from),
so the fractional part of imagecorruptions' float is not available. ``np.uint8(f(x, s))`` — what
``corrupt`` does, and the usual way to use these floats — is therefore exactly imagenet-c's value;
rounding (``np.round``) instead of truncating can differ by one level. Other differences from the
upstream functions: results are always C-contiguous (upstream ``defocus_blur`` returns a
transposed view), never read-only, and float images are refused instead of being corrupted as
0..255 floats.

Where the pixels differ from imagecorruptions 1.1.2 (because compat follows imagenet-c 0.0.3, the
code that made ImageNet-C): ``motion_blur`` (±1: imagecorruptions re-implements ImageMagick's
blur in NumPy), ``snow`` (that blur, and its layer is zoomed and cut differently), ``frost``
(imagecorruptions rescales the textures by 1.1 and crops with other ranges), ``elastic_transform``
(a different algorithm), ``spatter`` severities 4-5 (±1: float64 vs float32 mud colour),
``pixelate`` at some non-224 sizes (NEAREST vs BOX upsampling), and ``impulse_noise`` under
scikit-image >= 0.19, where imagecorruptions' draws ignore ``np.random.seed``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from PIL import Image

from .api import SUBSET_ALIASES, SUBSETS
from .api import corrupt as _corrupt
from .api import get_corruption_names as _names
from .corruptions import ALL_CORRUPTIONS
from .profiles import PROFILES, Profile
from .registry import CorruptionSpec, canonical_name, corruption_specs, get_corruption
from .rng import NumpyDraws, RNGLike
from .tables.imagecorruptions import FIRST_PARAMETER, return_kind
from .validation import check_image, check_severity

#: the smallest height and width imagecorruptions accepts
MIN_SIDE = 32


class CompatTypeError(TypeError, AttributeError):
    """Bad input type (imagecorruptions raises ``AttributeError``)."""


class CompatValueError(ValueError, AttributeError):
    """Bad input shape, size or severity (imagecorruptions raises ``AttributeError``)."""


class UnknownCorruptionError(ValueError, KeyError):
    """An unknown corruption name (imagecorruptions raises ``KeyError``)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return ValueError.__str__(self)


class CorruptionNumberError(ValueError, IndexError):
    """``corruption_number`` outside 0..18 (imagecorruptions raises ``IndexError``)."""


def _table(profile: str | Profile, shape: tuple[int, ...]) -> str | Profile:
    """The ``imagenet`` profile as imagecorruptions sizes its fog: the plasma map is the next power
    of two of the image's largest side (``next_power_of_2(max(shape))``: 256 at 224 px as in
    imagenet-c, but 128 for a 96 px image, where the library's own rule keeps at least 256)."""
    named = isinstance(profile, str) and canonical_name(profile) == "imagenet"
    if not named and profile is not PROFILES["imagenet"]:
        return profile
    side = max(int(v) for v in shape)
    return replace(PROFILES["imagenet"], fog_mapsize=1 << (side - 1).bit_length())


def _global_rng() -> np.random.RandomState:
    # The RandomState behind np.random.seed / np.random.normal / ... (imagecorruptions draws here)
    return np.random.mtrand._rand


def _as_rgb(image: Any, name: str) -> np.ndarray:
    """imagecorruptions' input checks, in its order; gray -> 3 equal channels."""
    if isinstance(image, Image.Image):
        image = np.asarray(image if image.mode in ("L", "RGB") else image.convert("RGB"))
    if not isinstance(image, np.ndarray):
        raise CompatTypeError(f"{name} must be a numpy uint8 array, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise CompatTypeError(
            f"{name} must have dtype uint8, got {image.dtype} (for a float image in [0, 1]: "
            "np.clip(np.round(image * 255), 0, 255).astype(np.uint8))"
        )
    if image.ndim not in (2, 3):
        raise CompatValueError(f"{name} must be H x W or H x W x C, got shape {image.shape}")
    h, w = image.shape[:2]
    if h < MIN_SIDE or w < MIN_SIDE:
        raise CompatValueError(
            f"{name} must be at least {MIN_SIDE} x {MIN_SIDE} pixels (as imagecorruptions), "
            f"got {h} x {w}"
        )
    if image.ndim == 3 and image.shape[2] not in (1, 3):
        raise CompatValueError(
            f"{name} must have 1 or 3 channels (last dimension), got {image.shape[2]}"
        )
    if image.ndim == 2 or image.shape[2] == 1:
        return np.repeat(image.reshape(h, w, 1), 3, axis=2)
    return image


def _severity(severity: Any) -> int:
    try:
        return check_severity(severity)
    except TypeError as exc:
        raise CompatTypeError(str(exc)) from None
    except ValueError as exc:
        raise CompatValueError(str(exc)) from None


def _name(corruption_name: Any) -> str:
    try:
        return get_corruption(corruption_name).name
    except (TypeError, ValueError) as exc:
        raise UnknownCorruptionError(str(exc)) from None


def _number(corruption_number: Any) -> int:
    top = len(ALL_CORRUPTIONS) - 1
    what = f"corruption_number must be an int in 0..{top} (or -1: not given)"
    if isinstance(corruption_number, (bool, np.bool_)):
        raise CorruptionNumberError(f"{what}, got {corruption_number!r}")
    try:
        number = operator.index(corruption_number)
    except TypeError:
        raise CorruptionNumberError(f"{what}, got {corruption_number!r}") from None
    if not 0 <= number <= top:
        raise CorruptionNumberError(f"{what}, got {number}")
    return number


def corrupt(
    image: np.ndarray,
    severity: int = 1,
    corruption_name: str | None = None,
    corruption_number: int = -1,
    *,
    profile: str | Profile = "imagenet",
    rng: RNGLike = None,
) -> np.ndarray:
    """Corrupt ``image`` like ``imagecorruptions.corrupt``, with imagenet-c 0.0.3's pixels.

    Args:
        image: uint8 array ``(H, W)``, ``(H, W, 1)`` or ``(H, W, 3)``, ``H, W >= 32``.
        severity: 1..5 (an int or a NumPy integer).
        corruption_name: One of :data:`ALL_CORRUPTIONS` (any case; ``-`` for ``_`` accepted); it
            wins over ``corruption_number``.
        corruption_number: Position 0..18 in :data:`corruption_tuple`; -1 (the default) means
            not given.
        profile: Parameter table (keyword only): ``imagenet`` (224 px; the default, at every
            size, as imagecorruptions), ``inception``, ``tiny``, ``cifar`` or ``auto``.
        rng: Keyword only. ``None`` (default): NumPy's global random state, as imagecorruptions;
            an int seed, a ``RandomState`` or a ``Generator`` otherwise.

    Returns:
        uint8 ``(H, W, 3)`` array: ``np.uint8`` of the corruption's result (truncation).

    Raises:
        AttributeError: bad image or severity (also ``TypeError`` / ``ValueError``).
        KeyError: unknown ``corruption_name`` (also ``ValueError``).
        IndexError: ``corruption_number`` outside 0..18 (also ``ValueError``).
        ValueError: neither ``corruption_name`` nor ``corruption_number`` given.
    """
    rgb = _as_rgb(image, "image")
    sev = _severity(severity)
    if corruption_name is not None:
        name = _name(corruption_name)
    elif corruption_number != -1:
        name = ALL_CORRUPTIONS[_number(corruption_number)]
    else:
        raise ValueError("either corruption_name or corruption_number must be passed")
    rng = _global_rng() if rng is None else rng
    return _corrupt(rgb, name, sev, profile=_table(profile, rgb.shape), rng=rng)


def get_corruption_names(subset: str = "common") -> list[str]:
    """Corruption names of ``subset``, in the reference order (imagecorruptions' subsets).

    ``common`` (the 15 benchmark corruptions), ``validation`` (the 4 extra ones), ``all`` (19),
    and the families of the paper's Figure 1: ``noise`` (gaussian, shot, impulse), ``blur``
    (defocus, glass, motion, zoom), ``weather`` (snow, frost, fog, brightness), ``digital``
    (contrast, elastic, pixelate, jpeg); also ``benchmark`` and ``extra``.

    Raises:
        ValueError: an unknown subset.
    """
    if subset not in SUBSETS and subset not in SUBSET_ALIASES:
        choices = ", ".join([*SUBSET_ALIASES, *SUBSETS])
        raise ValueError(f"subset must be one of {choices}; got {subset!r}")
    return _names(subset)


def _as_upstream(out: np.ndarray, name: str, severity: int) -> Any:
    kind = return_kind(name, severity)
    arr = np.asarray(out)
    if kind == "pil":
        return Image.fromarray(arr.astype(np.uint8, copy=False), mode="RGB")
    return arr.astype(np.dtype(kind), copy=False)


def _apply(spec: CorruptionSpec, x: Any, severity: Any) -> Any:
    rgb, _ = check_image(_as_rgb(x, FIRST_PARAMETER.get(spec.name, "x")))
    sev = _severity(severity)
    # NumpyDraws: the same global stream through NumPy's own samplers, so that the corruptions
    # that compute in floats return their float result (see rng.NumpyDraws)
    rng = NumpyDraws(_global_rng()) if spec.random else None
    table = _table("imagenet", rgb.shape)
    out = spec.func(rgb, sev, profile=table, rng=rng)
    return _as_upstream(out, spec.name, sev)


def _function(spec: CorruptionSpec) -> Callable[..., Any]:
    """``spec``'s corruption as imagecorruptions' ``name(x, severity=1)``."""
    if FIRST_PARAMETER.get(spec.name) == "image":

        def func(image: Any, severity: int = 1) -> Any:
            return _apply(spec, image, severity)
    else:

        def func(x: Any, severity: int = 1) -> Any:  # type: ignore[misc]
            return _apply(spec, x, severity)

    kind = {"float64": "a float64 array", "float32": "a float32 array", "pil": "a PIL image"}
    kinds = sorted({kind[return_kind(spec.name, s)] for s in range(1, 6)})
    func.__name__ = func.__qualname__ = spec.name
    func.__module__ = __name__
    func.__doc__ = (
        f"{spec.summary}\n\nimagecorruptions' ``{spec.name}``: draws from NumPy's global random "
        f"state, ImageNet (224 px) parameters at any size; returns {' or '.join(kinds)} in "
        "[0, 255] of the input's height and width with 3 channels (see "
        ":mod:`corruptbench.compat` for its values)."
    )
    return func


#: the 19 corruption functions in the reference order (imagecorruptions' ``corruption_tuple``)
corruption_tuple: tuple[Callable[..., Any], ...] = tuple(_function(s) for s in corruption_specs())
#: ``name -> function`` (imagecorruptions' ``corruption_dict``)
corruption_dict: dict[str, Callable[..., Any]] = {f.__name__: f for f in corruption_tuple}
globals().update(corruption_dict)

__all__ = [
    "corrupt",
    "get_corruption_names",
    "corruption_tuple",
    "corruption_dict",
    *corruption_dict,
]

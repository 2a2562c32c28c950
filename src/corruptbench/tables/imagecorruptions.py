"""What imagecorruptions 1.1.2 (bethgelab) returns and the constants of its own size rules, for
:mod:`corruptbench.compat` (data only).

Source: ``imagecorruptions/__init__.py`` and ``corruptions.py`` of the 1.1.2 wheel, and calls of
each function on uint8 RGB and grayscale (mode L) PIL images at 224 x 224, 200 x 300, 300 x 200
and 50 x 60, severities 1..5 (the same at every size). Every corruption function returns a
float64 ``ndarray`` in [0, 255] of the input's height and width, except the ones in
:data:`RETURNS` (RGB input) and :data:`GRAY_RETURNS` (grayscale input); ``corrupt`` returns
``np.uint8`` of that.

* ``zoom_blur``, ``elastic_transform``: float32 (their last steps run in float32).
* ``spatter``: for RGB, float32 at severities 1-3 (water) and float64 at 4-5 (mud: a colour layer
  built from a uint8 array); for grayscale, float64 (its ``rgb2gray`` is a float64 dot product).
* ``pixelate``, ``jpeg_compression``: a ``PIL.Image.Image`` (mode RGB, or L for a grayscale
  input; for RGB, jpeg_compression's is the ``JpegImageFile`` read back from the encoded bytes).

``FIRST_PARAMETER``: the name of each function's image parameter, where not ``x``.

The size rules (``corruptions.py`` of 1.1.2): ``elastic_transform`` smooths displacements drawn
from ``U(-0.005 H, 0.005 H)`` with a Gaussian of ``sigma = 0.01 (H, W)`` and scales them by
:data:`ELASTIC_ALPHA`; ``frost`` scales a texture that is smaller than the image by the ratio of
the sides (the larger ratio when both are smaller), then always by :data:`FROST_MARGIN`, with
``cv2.resize(INTER_CUBIC)`` before its random crop.
"""

from __future__ import annotations

__all__ = [
    "RETURNS",
    "GRAY_RETURNS",
    "DEFAULT_RETURN",
    "FIRST_PARAMETER",
    "ELASTIC_ALPHA",
    "ELASTIC_SIGMA_FRACTION",
    "ELASTIC_SHIFT_FRACTION",
    "FROST_MARGIN",
    "return_kind",
]

#: what a corruption function returns when it is not in :data:`RETURNS` / :data:`GRAY_RETURNS`
DEFAULT_RETURN = "float64"

#: corruption -> what it returns for an RGB image at severities 1..5: "float64", "float32", "pil"
RETURNS: dict[str, tuple[str, str, str, str, str]] = {
    "zoom_blur": ("float32",) * 5,
    "elastic_transform": ("float32",) * 5,
    "spatter": ("float32", "float32", "float32", "float64", "float64"),
    "pixelate": ("pil",) * 5,
    "jpeg_compression": ("pil",) * 5,
}

#: the same for a grayscale image (spatter's gray branch ends in a float64 ``rgb2gray``)
GRAY_RETURNS: dict[str, tuple[str, str, str, str, str]] = {
    "zoom_blur": ("float32",) * 5,
    "elastic_transform": ("float32",) * 5,
    "pixelate": ("pil",) * 5,
    "jpeg_compression": ("pil",) * 5,
}

#: corruption -> the name of its first (image) parameter, where not ``x``
FIRST_PARAMETER: dict[str, str] = {"elastic_transform": "image"}

#: elastic_transform's displacement scale per severity (``250 * (0.05, 0.065, 0.085, 0.1, 0.12)``)
ELASTIC_ALPHA: tuple[float, ...] = tuple(250 * f for f in (0.05, 0.065, 0.085, 0.1, 0.12))
#: elastic_transform's Gaussian sigma per axis, as a fraction of that axis' length
ELASTIC_SIGMA_FRACTION = 0.01
#: elastic_transform's largest raw displacement, as a fraction of the image height (both axes)
ELASTIC_SHIFT_FRACTION = 0.005
#: frost's extra texture scale, applied at every size
FROST_MARGIN = 1.1


def return_kind(name: str, severity: int, *, gray: bool = False) -> str:
    """``"float64"``, ``"float32"`` or ``"pil"``: what imagecorruptions' ``name`` returns at
    ``severity`` for an RGB (or, with ``gray``, a grayscale) image."""
    kinds = (GRAY_RETURNS if gray else RETURNS).get(name)
    return DEFAULT_RETURN if kinds is None else kinds[severity - 1]

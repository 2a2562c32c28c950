"""What imagecorruptions 1.1.2 (bethgelab) returns, for :mod:`corruptbench.compat` (data only).

Source: ``imagecorruptions/__init__.py`` and ``corruptions.py`` of the 1.1.2 wheel, and calls of
each function on uint8 RGB PIL images at 224 x 224, 200 x 300 and 300 x 200, severities 1..5 (the
same at every size). Every corruption function returns a float64 ``ndarray`` in [0, 255] of the
input's shape, except the ones in :data:`RETURNS`; ``corrupt`` returns ``np.uint8`` of that.

* ``zoom_blur``, ``elastic_transform``: float32 (their last steps run in float32).
* ``spatter``: float32 at severities 1-3 (water), float64 at 4-5 (mud: a colour layer built from
  a uint8 array).
* ``pixelate``, ``jpeg_compression``: a ``PIL.Image.Image`` in mode RGB (Pillow's resize, and a
  ``JpegImageFile`` read back from the encoded bytes).

``FIRST_PARAMETER``: the name of each function's image parameter, where not ``x``.
"""

from __future__ import annotations

__all__ = ["RETURNS", "DEFAULT_RETURN", "FIRST_PARAMETER", "return_kind"]

#: what a corruption function returns when it is not in :data:`RETURNS`
DEFAULT_RETURN = "float64"

#: corruption -> what it returns at severities 1..5: "float64", "float32" or "pil"
RETURNS: dict[str, tuple[str, str, str, str, str]] = {
    "zoom_blur": ("float32",) * 5,
    "elastic_transform": ("float32",) * 5,
    "spatter": ("float32", "float32", "float32", "float64", "float64"),
    "pixelate": ("pil",) * 5,
    "jpeg_compression": ("pil",) * 5,
}

#: corruption -> the name of its first (image) parameter, where not ``x``
FIRST_PARAMETER: dict[str, str] = {"elastic_transform": "image"}


def return_kind(name: str, severity: int) -> str:
    """``"float64"``, ``"float32"`` or ``"pil"``: what imagecorruptions' ``name`` returns at
    ``severity``."""
    kinds = RETURNS.get(name)
    return DEFAULT_RETURN if kinds is None else kinds[severity - 1]

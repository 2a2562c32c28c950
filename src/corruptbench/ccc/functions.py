"""CCC's fifteen corruptions at any severity in [0, 5]: ImageNet-C's functions of their parameters.

Each function re-implements one of ``make_imagenet_c.py`` of github.com/oripress/CCC (MIT) on a
224 x 224 uint8 RGB image: the parameters of :func:`corruptbench.ccc.params.ccc_params`, mapped
by :func:`corruptbench.ccc.params.corruption_params`, given to the registry's ``<name>_p``
function (:mod:`corruptbench.corruptions.params`), with the same
random draws, in the same order, as the original after ``np.random.seed(k)``: with
``rng = RandomState(k)`` the result equals ``np.uint8(noise_dict()[name](Image.fromarray(x), s))``
(tests/ccc/test_functions.py runs the original in the reference env). At integer severities the
parameters are ImageNet-C's, so these are the ImageNet-C corruptions except where CCC's copy
differs (glass blur's rounding, frost's textures; see each function).

The original's frost textures are not ImageNet-C's files: ``generate.py``'s ``get_frost_images``
downloads them and writes them back with Pillow (``Image.open(...).save(name)``), which re-encodes
``frost4.jpg`` .. ``frost6.jpg`` as JPEG at Pillow's default quality 75; :func:`ccc_frost_texture`
does the same re-encoding (the PNGs keep their pixels).

Glass blur: the original shuffles in a ``numba.jit`` function, whose ``np.random.randint`` draws
from numba's own generator, which ``np.random.seed`` does not reach: its output cannot be
reproduced, only its distribution (offsets uniform in ``-d .. d-1``). Here the offsets are the
global stream's ``randint(-d, d, size=2)`` calls the same loop makes in plain Python, ``d`` and
the iterations rounded as CCC does (:func:`~corruptbench.ccc.params.glass_rounds`).
"""

from __future__ import annotations

import io
from functools import cache
from importlib import resources
from typing import Any

import cv2
import numpy as np
from PIL import Image

from ..corruptions.weather import FROST_FILES, frost_lookup_table
from ..errors import Arg, ArgumentError
from ..ops import weather_stages as wk
from ..registry import get_corruption
from ..rng import as_rng
from ..tables.ccc import CCC_NAMES
from .params import (
    CCC_CORRUPTIONS,
    check_ccc_name,
    check_ccc_severity,
    corruption_params,
    glass_rounds,
)

__all__ = [
    "FUNCTIONS",
    "SIZE",
    "ccc_frost_texture",
    "check_ccc_image",
    "corrupt",
    "corrupt_pair",
    "glass_rounds",
]

#: the one image size CCC's functions handle (its loops, crops and reshapes say 224)
SIZE = 224


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
    224)``, ``randint(0, Wf - 224)`` the crop (textures as :func:`ccc_frost_texture`, which
    ``frost_p`` cannot take: the same steps here)."""
    p = corruption_params("frost", s)
    c0, c1 = p["image_weight"], p["frost_weight"]
    tex = ccc_frost_texture(int(rng.randint(5)))
    x0 = int(rng.randint(0, tex.shape[0] - SIZE))
    y0 = int(rng.randint(0, tex.shape[1] - SIZE))
    out = np.empty(x.shape, np.uint8)
    wk.frost_u8(np.ascontiguousarray(x), tex, x0, y0, frost_lookup_table(c0, c1), out)
    return out


def _registered(name: str) -> Any:
    """CCC's ``name`` as the registry's function of its parameters (``<name>_p``) given
    :func:`~corruptbench.ccc.params.corruption_params` at the severity."""
    spec = get_corruption(CCC_NAMES[name])
    apply = spec.apply
    assert apply is not None  # every registered corruption has one

    def run(x: np.ndarray, s: float, rng: np.random.RandomState) -> np.ndarray:
        kwargs = corruption_params(name, s)
        out = apply(x, **kwargs, rng=rng) if spec.random else apply(x, **kwargs)
        return np.asarray(out)

    run.__name__ = run.__qualname__ = name
    return run


#: CCC name -> function ``(image, severity, rng) -> uint8 image``, in ``noise_dict()``'s order
FUNCTIONS: dict[str, Any] = {
    name: frost if name == "frost" else _registered(name) for name in CCC_CORRUPTIONS
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
    (glass blur: see the module docstring). Severity 0 returns an unchanged copy, drawing nothing
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
    seed = isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)
    if not (rng is None or isinstance(rng, np.random.RandomState) or (seed and 0 <= rng < 2**32)):
        raise ArgumentError(
            Arg("rng"),
            f" must be None, an int seed in [0, 2**32) or a np.random.RandomState, got {rng!r}",
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

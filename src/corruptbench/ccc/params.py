"""CCC's continuous severities: each corruption's parameters interpolated between its levels.

``make_imagenet_c.py`` of CCC builds, per corruption, ``scipy.interpolate.interp1d([0, 1, 2, 3,
4, 5], rows, axis=0, kind="linear")`` over a severity-0 row (:data:`corruptbench.tables.ccc.ZERO_ROWS`)
and ImageNet-C's five 224-px rows, and calls it at the (float) severity. :func:`ccc_params`
evaluates the same function with the same float64 operations:

* one value per row: SciPy hands the call to ``np.interp`` (``interp1d._call_linear_np``), which
  returns a knot's own value at an integer severity;
* several values per row: ``interp1d._call_linear``: ``i = clip(searchsorted(x, s), 1, 5)``,
  ``slope = (y[i] - y[i-1]) / (x[i] - x[i-1])``, ``slope * (s - x[i-1]) + y[i-1]``, which at
  an integer severity ``k >= 2`` is ``(y[k] - y[k-1]) + y[k-1]``: not always ``y[k]`` to the last
  bit (tests/ccc/test_params.py compares with SciPy's ``interp1d`` on a fine grid).
"""

from __future__ import annotations

import functools
from functools import cache
from typing import Any

import numpy as np

from ..errors import Arg, ArgumentError
from ..tables.ccc import CCC_NAMES, ZERO_ROWS
from ..tables.corruptions import TABLES

__all__ = [
    "CCC_CORRUPTIONS",
    "ccc_params",
    "ccc_table",
    "check_ccc_name",
    "check_ccc_severity",
    "corruption_params",
    "glass_rounds",
]

#: CCC's corruption names (``noise_dict()``'s keys, in its order)
CCC_CORRUPTIONS: tuple[str, ...] = tuple(CCC_NAMES)
_KNOTS = np.arange(6)


def check_ccc_name(name: Any) -> str:
    """``name`` if it is one of CCC's corruptions (its names or the registry's), else one line."""
    if isinstance(name, str):
        if name in CCC_NAMES:
            return name
        for ccc, registered in CCC_NAMES.items():
            if name == registered:
                return ccc
    raise ArgumentError(
        Arg("name"),
        f" must be one of CCC's corruptions ({', '.join(CCC_CORRUPTIONS)}), got {name!r}",
    )


def check_ccc_severity(severity: Any) -> float:
    """``severity`` as a float in [0, 5], else one line naming it."""
    if isinstance(severity, (bool, np.bool_, str)):
        raise ArgumentError(Arg("severity"), f" must be a number in [0, 5], got {severity!r}")
    try:
        value = float(severity)
    except (TypeError, ValueError):
        raise ArgumentError(
            Arg("severity"), f" must be a number in [0, 5], got {severity!r}"
        ) from None
    if not 0.0 <= value <= 5.0:
        raise ArgumentError(Arg("severity"), f" must be in [0, 5], got {severity!r}")
    return value


@cache
def ccc_table(name: str) -> np.ndarray:
    """The six rows (severity 0..5) CCC interpolates for ``name`` (read-only float64 array)."""
    name = check_ccc_name(name)
    rows = list(TABLES["imagenet"][CCC_NAMES[name]])
    if name == "shot_noise":  # CCC interpolates the reciprocal: float(1) / 60, ...
        rows = [float(1) / r for r in rows]
    elif name == "zoom_blur":  # ImageNet-C's arange(1, stop, step) as (1, stop, step)
        rows = [(1, *r) for r in rows]
    table = np.array([ZERO_ROWS[name], *rows], dtype=np.float64)
    table.flags.writeable = False
    return table


def ccc_params(name: str, severity: float) -> Any:
    """``interpolation_function_dict[name](severity)`` of CCC: a float, or a float64 array.

    No post-processing: shot noise's ``1 / c``, glass blur's ``max(c[1], 1)`` and JPEG's
    ``round`` belong to the corruptions (:func:`corruption_params`).
    """
    value = _params_at(check_ccc_name(name), check_ccc_severity(severity))
    return value if isinstance(value, float) else value.copy()


@functools.lru_cache(maxsize=4096)
def _params_at(name: str, s: float) -> Any:
    """:func:`ccc_params` of a checked name and severity, kept: a run's severities lie on CCC's
    0.25 grid, so each (corruption, severity) is interpolated once per process (the array
    results are read-only; :func:`ccc_params` hands out copies)."""
    table = ccc_table(name)
    if table.ndim == 1:
        return float(np.interp(s, _KNOTS, table))
    i = min(max(int(np.searchsorted(_KNOTS, s)), 1), 5)
    slope = (table[i] - table[i - 1]) / float(_KNOTS[i] - _KNOTS[i - 1])
    out = slope * (s - float(_KNOTS[i - 1])) + table[i - 1]
    out.flags.writeable = False
    return out


def glass_rounds(s: float) -> tuple[float, int, int]:
    """Glass blur's ``(sigma, d, iterations)`` at ``s``: ``c[1] = max(c[1], 1)``, then the
    shuffle's ``round(c[1])`` and ``round(c[2])`` (Python's round: half to even, so 2.5 -> 2)."""
    c = ccc_params("glass_blur", s)
    d = max(float(c[1]), 1.0)
    return float(c[0]), round(d), round(float(c[2]))


def _floats(name: str, s: float, keys: tuple[str, ...]) -> dict[str, Any]:
    return dict(zip(keys, (float(v) for v in ccc_params(name, s)), strict=True))


def _shot_noise(s: float) -> dict[str, Any]:
    # CCC interpolates 1 / photons: c = 1 / f(s) (9999 where f is 0)
    f = ccc_params("shot_noise", s)
    return {"photons": float(1) / f if f != 0 else 9999}


def _zoom_blur(s: float) -> dict[str, Any]:
    # np.arange(c0, c1, c2) with c0 = 1 at every severity (the table's first column is constant)
    start, stop, step = (float(v) for v in ccc_params("zoom_blur", s))
    assert start == 1.0  # (1 - 1) * t + 1
    return {"stop": stop, "step": step}


def _glass_blur(s: float) -> dict[str, Any]:
    sigma, d, iterations = glass_rounds(s)
    return {"sigma": sigma, "max_delta": d, "iterations": iterations}


#: CCC name -> its parameters at ``s`` as the registry's ``<name>_p`` keywords
_KWARGS: dict[str, Any] = {
    "gaussian_noise": lambda s: {"std": float(ccc_params("gaussian_noise", s))},
    "shot_noise": _shot_noise,
    "impulse_noise": lambda s: {"amount": float(ccc_params("impulse_noise", s))},
    "defocus_blur": lambda s: _floats("defocus_blur", s, ("radius", "alias_blur")),
    "glass_blur": _glass_blur,
    "motion_blur": lambda s: _floats("motion_blur", s, ("radius", "sigma")),
    "zoom_blur": _zoom_blur,
    "snow": lambda s: _floats(
        "snow", s, ("mean", "std", "zoom", "threshold", "blur_radius", "blur_sigma", "blend")
    ),
    # CCC's own textures (corruptbench.ccc.functions.ccc_frost_texture), not rescaled
    "frost": lambda s: {
        **_floats("frost", s, ("image_weight", "frost_weight")),
        "texture_scale": None,
    },
    "fog": lambda s: {**_floats("fog", s, ("strength", "decay")), "mapsize": 256},
    "brightness": lambda s: {"delta": float(ccc_params("brightness", s))},
    "contrast": lambda s: {"factor": float(ccc_params("contrast", s))},
    "elastic": lambda s: _floats("elastic", s, ("alpha", "sigma", "jitter")),
    "pixelate": lambda s: {"factor": float(ccc_params("pixelate", s))},
    # Pillow's quality round(c) (half to even)
    "jpeg": lambda s: {"quality": round(ccc_params("jpeg", s))},
}


def corruption_params(name: str, severity: float) -> dict[str, Any]:
    """CCC's corruption ``name`` at ``severity`` (> 0) as the registry's parameters: the keyword
    arguments of ``get_corruption(CCC_NAMES[name]).apply`` (its ``<name>_p``) and of
    :func:`corruptbench.corruptions.params.apply_params` / :func:`corruptbench.torch.apply_params`.

    :func:`ccc_params` mapped as CCC's functions use them: shot noise's ``photons = 1 / f(s)``,
    glass blur's rounding (:func:`glass_rounds`), zoom blur's ``np.arange(1, stop, step)``, fog's
    256-px map, JPEG's ``round``; frost's ``texture_scale`` is None (CCC's textures as decoded).
    Between severities 0 and 1 some run far from the published ranges: elastic's smoothing sigma
    from 999 down to 170.8, defocus's radius below 1 (the whole disk: ``defocus_blur_p``).
    """
    key = check_ccc_name(name)
    result: dict[str, Any] = _KWARGS[key](check_ccc_severity(severity))
    return result

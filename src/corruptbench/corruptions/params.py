"""Corruptions as functions of their parameters: the severity -> parameters mapping and the
generic entry point that applies a corruption with parameters of your choice.

Every registered corruption is two functions (kornia-style): the function of its parameters,
``<name>_p(image, *, <params>, rng)`` (``rng`` only for random corruptions; the registry spec's
``apply``, its keyword names in ``params``), and the function of the severity that the registry
calls (``corrupt``): ``func(image, severity, *, profile, rng) = apply(image,
**params_of(name, severity, profile), rng=rng)``. The parameter values are written once:

* ImageNet-C (suite ``imagenet_c``): the table entry of :mod:`corruptbench.tables.corruptions`,
  zipped with the spec's ``params``, plus the few parameters taken from the profile
  (:data:`~corruptbench.tables.corruptions.PROFILE_PARAMS`: frost's texture scale, fog's map
  size);
* ImageNet-C-bar (suite ``cbar``): the original's level of :mod:`corruptbench.tables.cbar` turned
  into parameters by the class's own formulas (``float_parameter(level, maxval)``, in
  :mod:`.cbar_common`, each corruption's ``from_level``).

So :func:`params_of` at severity 1..5 gives exactly the published values, and
``apply_params(x, name, params_of(name, s, profile), rng=k)`` is ``corrupt(x, name, s,
profile=profile, rng=k)`` byte for byte (tests/corruptions/test_params.py). Between and beyond the
published levels (continuous severities, augmentation) the parameter functions take any value in
the ranges their docstrings give.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from ..errors import Arg, ArgumentError
from ..profiles import PROFILES, Profile
from ..registry import canonical_name, get_corruption, suggest
from ..rng import RNGLike, check_rng, lent_rng
from ..tables.corruptions import PROFILE_PARAMS, TABLES
from ..validation import check_image, check_severity
from .cbar_common import SUITE as CBAR_SUITE
from .cbar_common import level_of, level_params

__all__ = [
    "params_of",
    "apply_params",
    "check_params",
    "ParamCorruption",
    "severity_params",
    "whole_param",
    "NONNEGATIVE",
    "POSITIVE",
    "UNIT",
]

#: parameter domains for the registrations' ``bounds``: ``(low, high, low_open)``
NONNEGATIVE = (0.0, None, False)
POSITIVE = (0.0, None, True)
UNIT = (0.0, 1.0, False)


def whole_param(value: Any, name: str, lo: int, hi: int | None = None) -> int:
    """A parameter that counts something (pixels of an offset, passes, levels) as an int in
    ``lo..hi``: an int, or a float with no fractional part (``2.0``); anything else is refused
    in one line naming ``name`` (an interpolated ``1.5`` is the caller's to round)."""
    number: Any = value
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        number = int(value)
    if isinstance(number, (bool, np.bool_)) or not isinstance(number, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if number < lo or (hi is not None and number > hi):
        allowed = f"in {lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return int(number)


def _profile(profile: str | Profile) -> Profile:
    if isinstance(profile, Profile):
        return profile
    if not isinstance(profile, str):
        raise TypeError(f"profile must be a str, got {type(profile).__name__}")
    key = canonical_name(profile)
    if key not in PROFILES:
        raise ValueError(
            f"unknown profile {profile!r}{suggest(key, tuple(PROFILES))} "
            f"(choices: {', '.join(PROFILES)}; 'auto' needs an image: use a name)"
        )
    return PROFILES[key]


@cache
def _spec_of(name: str) -> tuple[str, tuple[str, ...]]:
    spec = get_corruption(name)
    return spec.suite, spec.params


def severity_params(name: str, severity: int, profile: Profile) -> dict[str, Any]:
    """:func:`params_of` for arguments already checked (the registered name, an int 1..5, a
    :class:`~corruptbench.profiles.Profile`): what the functions of the severity call."""
    suite, names = _spec_of(name)
    if suite == CBAR_SUITE:
        values = level_params(name, level_of(name, severity, profile))
    else:
        entry = TABLES[profile.name][name][severity - 1]
        values = entry if isinstance(entry, tuple) else (entry,)
        extra = PROFILE_PARAMS.get(name)
        if extra:
            values = tuple(values) + tuple(getattr(profile, attr) for attr in extra.values())
    return dict(zip(names, values, strict=True))


def params_of(
    corruption: str, severity: int, profile: str | Profile = "imagenet"
) -> dict[str, Any]:
    """The parameters of ``corruption`` at ``severity`` (1..5) for ``profile``, as keyword
    arguments of its parameter function (``get_corruption(corruption).apply``) and of
    :func:`apply_params`.

    Args:
        corruption: any registered name (or alias) of either suite.
        severity: int 1..5.
        profile: ``imagenet`` | ``inception`` | ``tiny`` | ``cifar`` (or a Profile); ``auto``
            needs an image and is refused here. For ``cbar`` corruptions ``cifar`` selects
            CIFAR-10-C-bar's levels, any other ImageNet-C-bar's.

    Returns:
        ``{parameter: value}`` in the spec's ``params`` order, e.g.
        ``params_of("gaussian_noise", 3) == {"std": 0.18}``.
    """
    spec = get_corruption(corruption)
    return severity_params(spec.name, check_severity(severity), _profile(profile))


def _check_params(name: str, names: tuple[str, ...], params: Any) -> dict[str, Any]:
    if not isinstance(params, Mapping):
        raise TypeError(
            f"params must be a mapping of {name}'s parameters, got {type(params).__name__}"
        )
    listed = ", ".join(names)
    for key in params:
        if key not in names:
            raise ArgumentError(
                Arg("params"),
                f": {name} has no parameter {key!r}{suggest(str(key), names)} "
                f"(parameters: {listed})",
            )
    missing = [k for k in names if k not in params]
    if missing:
        raise ArgumentError(
            Arg("params"), f": {name} needs {', '.join(missing)} (parameters: {listed})"
        )
    out: dict[str, Any] = {}
    for key in names:
        value = params[key]
        if value is not None:  # None: frost's texture_scale (no rescale)
            if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.integer, np.floating)
            ):
                raise ArgumentError(
                    Arg("params"), f": {name}'s {key} must be a number, got {value!r}"
                )
            if not np.isfinite(value):
                raise ArgumentError(
                    Arg("params"), f": {name}'s {key} must be finite, got {value!r}"
                )
        out[key] = value
    return out


def _check_bounds(name: str, bounds: Any, params: Mapping[str, Any]) -> None:
    for key, low, high, low_open in bounds:
        value = params[key]
        if value is None:
            continue
        below = low is not None and (value <= low if low_open else value < low)
        if below or (high is not None and value > high):
            if high is None:
                allowed = f"{'>' if low_open else '>='} {low:g}"
            else:
                allowed = f"in {'(' if low_open else '['}{low:g}, {high:g}]"
            raise ArgumentError(Arg("params"), f": {name}'s {key} must be {allowed}, got {value!r}")


def check_params(corruption: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` checked as :func:`apply_params` checks them: every parameter of ``corruption``
    named, each a finite number within the spec's ``bounds``; returned in the spec's order.
    Other backends with a function of the parameters (the torch one) call it.

    Raises:
        ArgumentError: a missing, unknown or non-finite parameter, or one outside its domain.
    """
    spec = get_corruption(corruption)
    kwargs = _check_params(spec.name, spec.params, params)
    _check_bounds(spec.name, spec.bounds, kwargs)
    return kwargs


def apply_params(
    image: np.ndarray,
    corruption: str,
    params: Mapping[str, Any],
    *,
    rng: RNGLike = None,
) -> np.ndarray:
    """Apply ``corruption`` with the parameters ``params`` instead of a severity.

    The checks and conventions of :func:`corruptbench.corrupt` (image layouts, ``rng``, the
    uint8 truncation), then the corruption's parameter function (its docstring: each
    parameter's unit, range and formula; the registry spec's ``params`` lists their names).

    Args:
        image: uint8 H x W x 3 (RGB), H x W or H x W x 4 (alpha kept).
        corruption: any registered name (or alias).
        params: every parameter of the corruption (:func:`params_of` gives the published ones).
        rng: as in :func:`corruptbench.corrupt`.

    Returns:
        uint8 array of the input's shape.

    Raises:
        ArgumentError: a missing, unknown or non-finite parameter, or one outside its domain
            (the spec's ``bounds``; one line naming it).
    """
    spec = get_corruption(corruption)
    if spec.apply is None:  # pragma: no cover - every registered corruption has one
        raise ValueError(f"{spec.name} has no function of its parameters")
    kwargs = check_params(spec.name, params)
    rgb, restore = check_image(image)
    if spec.random:
        with lent_rng(rng) as r:
            out: Any = spec.apply(rgb, rng=r, **kwargs)
    else:
        check_rng(rng)
        out = spec.apply(rgb, **kwargs)
    out = np.asarray(out)
    if out.dtype != np.uint8:
        out = out.astype(np.uint8)
    return restore(out)


class ParamCorruption:
    """A transform object for one corruption with fixed parameters (torchvision v2's pattern: the
    function :func:`apply_params`, and this object that holds its arguments).

    ``ParamCorruption("fog", strength=2.0)`` takes the other parameters from ``severity`` (default
    3) and ``profile`` (:func:`params_of`) and overrides ``strength``; the parameters are checked
    once, here. Calling it on an image (anything :func:`corruptbench.corrupt` takes) applies them
    with ``rng`` (None: fresh randomness every call; a ``RandomState`` or ``Generator``: its stream
    goes on from call to call; an int: the same draws every call).

    Examples:
        >>> import numpy as np
        >>> t = ParamCorruption("gaussian_noise", std=0.1)
        >>> t
        ParamCorruption('gaussian_noise', std=0.1)
        >>> t(np.zeros((8, 8, 3), np.uint8), rng=0).shape
        (8, 8, 3)
    """

    def __init__(
        self,
        corruption: str,
        *,
        severity: int = 3,
        profile: str | Profile = "imagenet",
        **params: Any,
    ) -> None:
        spec = get_corruption(corruption)
        merged = {**params_of(spec.name, severity, profile), **params}
        self.corruption = spec.name
        self.params = _check_params(spec.name, spec.params, merged)
        _check_bounds(spec.name, spec.bounds, self.params)

    def __call__(self, image: np.ndarray, *, rng: RNGLike = None) -> np.ndarray:
        return apply_params(image, self.corruption, self.params, rng=rng)

    def __repr__(self) -> str:
        args = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"ParamCorruption({self.corruption!r}{args})"

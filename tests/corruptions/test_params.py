"""Corruptions as functions of their parameters (corruptbench.corruptions.params): every
registered corruption's function of the severity is its table's parameters (``params_of``) applied
by its function of the parameters (the spec's ``apply``), byte for byte, at every severity and
profile; the parameter names are written once (the spec's ``params`` are the function's keyword
parameters); ``apply_params`` checks what it is given.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import corruptbench
from corruptbench import corruptions
from corruptbench.corruptions import ParamCorruption, apply_params, params_of
from corruptbench.profiles import PROFILES
from corruptbench.registry import corruption_specs
from corruptbench.tables.corruptions import TABLES
from support import pattern_image

SPECS = {s.name: s for s in corruption_specs(None)}
IMG = pattern_image(48, 40, seed=3)  # non-square


def _profiles(name: str) -> list[str]:
    return list(PROFILES) if SPECS[name].suite == "imagenet_c" else ["imagenet", "cifar"]


@pytest.mark.parametrize("name", list(SPECS))
def test_severity_is_its_parameters(name):
    """corrupt(x, name, s) == apply_params(x, name, params_of(name, s)) at every severity and
    profile, with the same seed."""
    for profile in _profiles(name):
        for severity in range(1, 6):
            params = params_of(name, severity, profile)
            want = corruptbench.corrupt(IMG, name, severity, profile=profile, rng=severity)
            got = apply_params(IMG, name, params, rng=severity)
            assert np.array_equal(got, want), (name, profile, severity, params)


@pytest.mark.parametrize("name", list(SPECS))
def test_params_are_the_functions_keywords(name):
    """The spec's ``params`` are exactly the parameter function's keyword-only parameters (plus
    ``rng`` for a random corruption), in order; the function is exported as ``<name>_p``."""
    spec = SPECS[name]
    assert spec.apply is not None and spec.params
    sig = inspect.signature(spec.apply)
    keywords = [p.name for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY]
    assert keywords == [*spec.params, *(["rng"] if spec.random else [])]
    assert getattr(corruptions, f"{name}_p") is spec.apply
    for param in spec.params:  # each parameter documented in the function's docstring
        assert f"    {param}: " in (spec.apply.__doc__ or ""), param


@pytest.mark.parametrize("name", [s.name for s in corruption_specs("imagenet_c")])
def test_imagenet_c_params_are_the_table(name):
    """ImageNet-C's parameters are the table entry, in the entry's order (the profile supplies
    frost's texture scale and fog's map size)."""
    for profile in PROFILES:
        for severity in range(1, 6):
            entry = TABLES[profile][name][severity - 1]
            entry = entry if isinstance(entry, tuple) else (entry,)
            values = tuple(params_of(name, severity, profile).values())
            assert values[: len(entry)] == entry


def test_params_of_examples():
    assert params_of("gaussian_noise", 3) == {"std": 0.18}
    assert params_of("Gaussian-Noise", 3, PROFILES["cifar"]) == {"std": 0.08}
    assert params_of("frost", 2, "cifar") == {
        "image_weight": 1,
        "frost_weight": 0.3,
        "texture_scale": 0.2,
    }
    assert params_of("fog", 1, "inception")["mapsize"] == 512
    assert params_of("glass_blur", 5) == {"sigma": 1.5, "max_delta": 4, "iterations": 2}


@pytest.mark.parametrize(
    ("args", "error", "text"),
    [
        (("fogg", 1), ValueError, "did you mean 'fog'"),
        (("fog", 0), ValueError, "severity must be in 1..5"),
        (("fog", 1, "auto"), ValueError, "'auto' needs an image"),
        (("fog", 1, "imagenett"), ValueError, "did you mean 'imagenet'"),
    ],
)
def test_params_of_refuses(args, error, text):
    with pytest.raises(error, match=text):
        params_of(*args)


@pytest.mark.parametrize(
    ("params", "text"),
    [
        ({}, "gaussian_noise needs std"),
        ({"std": 0.1, "sigma": 1}, "has no parameter 'sigma'"),
        ({"sdt": 0.1}, "did you mean 'std'"),
        ({"std": float("nan")}, "std must be finite"),
        ({"std": True}, "std must be a number"),
        ({"std": [0.1]}, "std must be a number"),
        ({"std": "0.1"}, "std must be a number"),
        ({"std": 1j}, "std must be a number"),
    ],
)
def test_apply_params_refuses(params, text):
    with pytest.raises(ValueError, match=text):
        apply_params(IMG, "gaussian_noise", params, rng=0)


@pytest.mark.parametrize(
    ("name", "changed", "text"),
    [
        ("shot_noise", {"photons": 0}, "shot_noise's photons must be > 0, got 0"),
        ("impulse_noise", {"amount": 1.5}, r"impulse_noise's amount must be in \[0, 1\], got 1.5"),
        ("pixelate", {"factor": -1}, r"pixelate's factor must be in \(0, 1\], got -1"),
        ("snow", {"zoom": 0.5}, "snow's zoom must be >= 1, got 0.5"),
        ("fish_eye", {"eta": 0.9}, "fish_eye's eta must be >= 1, got 0.9"),
    ],
)
def test_apply_params_refuses_values_outside_the_domain(name, changed, text):
    with pytest.raises(ValueError, match=text):
        apply_params(IMG, name, {**params_of(name, 1), **changed}, rng=0)


@pytest.mark.parametrize("name", list(SPECS))
def test_published_parameters_are_inside_the_domain(name):
    """Every published parameter (every severity and profile) lies in the spec's bounds (so the
    bounds refuse nothing a table holds)."""
    spec = SPECS[name]
    for profile in _profiles(name):
        for severity in range(1, 6):
            params = params_of(name, severity, profile)
            for key, low, high, low_open in spec.bounds:
                value = params[key]
                if value is None:
                    continue
                assert low is None or (value > low if low_open else value >= low), (key, value)
                assert high is None or value <= high, (key, value)


def test_apply_params_between_levels():
    """A parameter between two published levels gives a corruption between them (what continuous
    severities use): gaussian noise's mean absolute change grows with ``std``."""
    change = [
        np.abs(apply_params(IMG, "gaussian_noise", {"std": s}, rng=0).astype(int) - IMG).mean()
        for s in (0.08, 0.10, 0.12)
    ]
    assert change[0] < change[1] < change[2]


def test_apply_params_layouts_and_checks():
    """apply_params takes what corrupt takes (gray, RGBA) and refuses a bad rng for a
    deterministic corruption."""
    gray = IMG[:, :, 0]
    out = apply_params(gray, "contrast", {"factor": 0.3})
    assert out.shape == gray.shape and out.dtype == np.uint8
    rgba = np.dstack([IMG, np.full(IMG.shape[:2], 7, np.uint8)])
    assert np.all(apply_params(rgba, "brightness", {"delta": 0.2})[:, :, 3] == 7)
    with pytest.raises(TypeError):
        apply_params(IMG, "contrast", {"factor": 0.3}, rng="x")


def test_out_of_range_parameters_name_the_problem():
    with pytest.raises(ValueError, match="quality must be in 1..100, got 0"):
        apply_params(IMG, "jpeg_compression", {"quality": 0})
    params = dict(params_of("spatter", 1), mode=2)
    with pytest.raises(ValueError, match=r"mode \(0 water, 1 mud\) must be in 0..1, got 2"):
        apply_params(IMG, "spatter", params, rng=0)
    # a count is a whole number: an interpolated 1.5 is refused, 2.0 is 2
    params = dict(params_of("glass_blur", 1), max_delta=1.5)
    with pytest.raises(ValueError, match="glass_blur's max_delta must be a whole number, got 1.5"):
        apply_params(IMG, "glass_blur", params, rng=0)
    params = dict(params_of("glass_blur", 1), iterations=2.0)
    assert np.array_equal(
        apply_params(IMG, "glass_blur", params, rng=0),
        apply_params(IMG, "glass_blur", params_of("glass_blur", 1), rng=0),
    )


def test_cbar_params_are_the_class_formulas():
    """ImageNet-C-bar's parameters are the original class's formulas of the level
    (``float_parameter(level, maxval) = level * maxval / 10``) at the tables' levels."""
    from corruptbench.tables.cbar import cbar_level

    assert params_of("sparkles", 1) == {"radius": 1.0 * 0.1 / 10}  # imagenet_c_bar.csv: 1.0
    assert params_of("scatter", 1) == {"radius": 0.5}  # ours: level 1 of the 10-level row
    # color_dither: 14 - int(level) levels per channel; ours: 3.0 -> 11
    assert params_of("color_dither", 1) == {"levels": 11}
    level = cbar_level("perspective_no_bars", 4, "cifar")
    assert params_of("perspective_no_bars", 4, "cifar") == {
        "shear": level * 0.1 / 10,
        "shift": level,
        "zoom": level * 0.15 / 10,
        "perspective": level,
    }
    assert params_of("pinch_and_twirl", 5, "cifar") == {
        "twirl": 10.0 * (np.pi / 2) / 10,  # cifar10_c_bar.csv: 10.0
        "pinch": 10.0 * 0.4 / 10 + 0.1,
    }


def test_cbar_out_of_range_parameters_name_the_problem():
    with pytest.raises(ValueError, match="levels must be in 2..256, got 1"):
        apply_params(IMG, "color_dither", {"levels": 1})


def test_param_corruption_is_apply_params_with_its_arguments():
    """The transform object: the severity's parameters with some overridden, checked once at
    construction; a RandomState's stream goes on from call to call."""
    t = ParamCorruption("fog", severity=2, profile="cifar", strength=0.6)
    assert t.params == {**params_of("fog", 2, "cifar"), "strength": 0.6}
    assert repr(t) == "ParamCorruption('fog', strength=0.6, decay=3, mapsize=32)"
    assert np.array_equal(t(IMG, rng=4), apply_params(IMG, "fog", t.params, rng=4))
    noise = ParamCorruption("gaussian_noise", std=0.1)
    rs = np.random.RandomState(0)
    first, second = noise(IMG, rng=rs), noise(IMG, rng=rs)
    assert not np.array_equal(first, second)
    with pytest.raises(ValueError, match="gaussian_noise has no parameter 'sigma'"):
        ParamCorruption("gaussian_noise", sigma=1)
    with pytest.raises(ValueError, match="shot_noise's photons must be > 0"):
        ParamCorruption("shot_noise", photons=-1)

"""The registry (corruptbench.registry): the specs, the lists derived from them, name resolution."""

from __future__ import annotations

import numpy as np
import pytest

import corruptbench
from corruptbench import registry
from corruptbench.corruptions import (
    ALL_CORRUPTIONS,
    BENCHMARK_CORRUPTIONS,
    EXTRA_CORRUPTIONS,
    FAMILIES,
)
from corruptbench.perturbations import (
    ALL_PERTURBATIONS,
    NOISE_PERTURBATIONS,
    TEST_PERTURBATIONS,
    VALIDATION_PERTURBATIONS,
)

#: imagenet_c.corruption_tuple (imagenet_c/__init__.py:5-8), the reference order
REFERENCE_CORRUPTIONS = (
    "gaussian_noise",
    "shot_noise",
    "impulse_noise",
    "defocus_blur",
    "glass_blur",
    "motion_blur",
    "zoom_blur",
    "snow",
    "frost",
    "fog",
    "brightness",
    "contrast",
    "elastic_transform",
    "pixelate",
    "jpeg_compression",
    "speckle_noise",
    "gaussian_blur",
    "spatter",
    "saturate",
)
#: make_imagenet_p.py:61 (test) and :384 (validation)
REFERENCE_PERTURBATIONS = (
    "gaussian_noise",
    "shot_noise",
    "motion_blur",
    "zoom_blur",
    "snow",
    "brightness",
    "translate",
    "rotate",
    "tilt",
    "scale",
    "speckle_noise",
    "gaussian_blur",
    "spatter",
    "shear",
)


def test_the_19_corruptions_in_the_reference_order() -> None:
    specs = registry.corruption_specs()
    assert tuple(s.name for s in specs) == REFERENCE_CORRUPTIONS == ALL_CORRUPTIONS
    assert [s.order for s in specs] == list(range(19))
    assert BENCHMARK_CORRUPTIONS == REFERENCE_CORRUPTIONS[:15]
    assert EXTRA_CORRUPTIONS == REFERENCE_CORRUPTIONS[15:]
    assert all(s.benchmark == (not s.extra) for s in specs)
    assert FAMILIES == ("noise", "blur", "weather", "digital")
    assert list(registry.corruption_registry()) == list(REFERENCE_CORRUPTIONS)


def test_corruption_specs() -> None:
    for spec in registry.corruption_specs():
        assert spec.family in FAMILIES if spec.benchmark else spec.family is None
        assert callable(spec.func) and spec.doc
        assert spec.doc == spec.func.__doc__.strip().splitlines()[0]
        # what `corruptbench list` shows: no spec references, no reStructuredText backticks
        assert "§" not in spec.summary and "``" not in spec.summary and spec.summary
    # families as in the paper's Figure 1 and imagecorruptions; the 4 extra ones in none
    family = {s.name: s.family for s in registry.corruption_specs()}
    assert [n for n in REFERENCE_CORRUPTIONS if family[n] == "weather"] == [
        "snow",
        "frost",
        "fog",
        "brightness",
    ]
    assert [n for n in REFERENCE_CORRUPTIONS if family[n] is None] == list(EXTRA_CORRUPTIONS)
    random = {s.name for s in registry.corruption_specs() if s.random}
    assert random == {
        "gaussian_noise",
        "shot_noise",
        "impulse_noise",
        "speckle_noise",
        "glass_blur",
        "motion_blur",
        "snow",
        "frost",
        "fog",
        "spatter",
        "elastic_transform",
    }


def test_the_14_perturbations_in_the_reference_order() -> None:
    specs = registry.perturbation_specs()
    assert tuple(s.name for s in specs) == REFERENCE_PERTURBATIONS == ALL_PERTURBATIONS
    assert [s.order for s in specs] == list(range(14))
    assert TEST_PERTURBATIONS == REFERENCE_PERTURBATIONS[:10]
    assert VALIDATION_PERTURBATIONS == REFERENCE_PERTURBATIONS[10:]
    # ImageNet-P/test.py:234,257: a perturbation is "noise" iff 'noise' is in its name
    assert NOISE_PERTURBATIONS == tuple(p for p in REFERENCE_PERTURBATIONS if "noise" in p)
    assert all(s.noise == ("noise" in s.name) for s in specs)
    assert all(callable(s.func) and s.doc for s in specs)


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> registry._Registered:
    """A copy of the corruption registry that the test may extend."""
    copy = registry._Registered("corruption")
    for spec in registry.corruption_specs(None):
        copy.add(spec)
    monkeypatch.setattr(registry, "_CORRUPTIONS", copy)
    return copy


def test_a_newly_registered_corruption_is_listed(scratch_registry: registry._Registered) -> None:
    @registry.register_corruption("sepia", family=None, order=19, extra=True, random=False)
    def sepia(image: np.ndarray, severity: int, *, profile, rng) -> np.ndarray:
        """Sepia tone."""
        return image

    names = [s.name for s in registry.corruption_specs()]
    assert names == [*REFERENCE_CORRUPTIONS, "sepia"]
    assert registry.get_corruption("Sepia").func is sepia
    assert registry.corruption_registry()["sepia"].doc == "Sepia tone."


def test_registration_errors(scratch_registry: registry._Registered) -> None:
    def f(image, severity, *, profile, rng):  # type: ignore[no-untyped-def]
        return image

    with pytest.raises(RuntimeError, match="registered twice"):
        registry.register_corruption("fog", family="weather", order=30)(f)
    with pytest.raises(RuntimeError, match="order 9 is already 'fog'"):
        registry.register_corruption("mist", family="weather", order=9)(f)
    with pytest.raises(KeyError, match="no corruption 'mist'"):
        registry.register_batch("mist", object())
    with pytest.raises(ValueError, match="the extra ones none"):
        registry.register_corruption("mist", family="weather", order=31, extra=True)
    with pytest.raises(ValueError, match="benchmark corruptions have a family"):
        registry.register_corruption("mist", family=None, order=31)


def test_register_batch_replaces_the_spec(scratch_registry: registry._Registered) -> None:
    impl = object()
    before = registry.get_corruption("fog")
    registry.register_batch("fog", impl)
    after = registry.get_corruption("fog")
    assert after.batch is impl and after.func is before.func and after.order == before.order
    assert registry.corruption_specs()[9] is after


def test_canonical_and_resolve_names() -> None:
    assert registry.canonical_name("  Gaussian-Noise ") == "gaussian_noise"
    assert registry.canonical_name("JPEG compression") == "jpeg_compression"
    choices = ("gaussian_noise", "shot_noise")
    assert registry.resolve_name("Shot-Noise", choices, "corruption") == "shot_noise"
    with pytest.raises(ValueError, match="did you mean 'gaussian_noise'.*choices: gaussian_noise"):
        registry.resolve_name("gausian_noise", choices, "corruption")
    with pytest.raises(TypeError, match="perturbation must be a str, got int"):
        registry.resolve_name(3, choices, "perturbation")
    assert registry.suggest("rotat", ALL_PERTURBATIONS) == "; did you mean 'rotate'?"
    assert registry.suggest("xyz", ALL_PERTURBATIONS) == ""


def test_get_corruption_and_perturbation() -> None:
    assert registry.get_corruption("Elastic Transform").name == "elastic_transform"
    assert registry.get_perturbation("TILT").name == "tilt"
    with pytest.raises(ValueError, match="unknown corruption 'fogg'; did you mean 'fog'"):
        registry.get_corruption("fogg")
    with pytest.raises(ValueError, match="unknown perturbation 'impulse_noise'"):
        registry.get_perturbation("impulse_noise")


def test_package_lists_come_from_the_registry() -> None:
    assert corruptbench.ALL_CORRUPTIONS == ALL_CORRUPTIONS
    assert corruptbench.CORRUPTIONS == BENCHMARK_CORRUPTIONS
    assert corruptbench.EXTRA_CORRUPTIONS == EXTRA_CORRUPTIONS
    assert corruptbench.ALL_PERTURBATIONS == ALL_PERTURBATIONS
    assert corruptbench.PERTURBATIONS == TEST_PERTURBATIONS
    assert corruptbench.EXTRA_PERTURBATIONS == VALIDATION_PERTURBATIONS


def test_suggest_by_prefix_word_and_edit_distance() -> None:
    assert registry.suggest("jpeg", ALL_CORRUPTIONS) == "; did you mean 'jpeg_compression'?"
    assert registry.suggest("elastic", ALL_CORRUPTIONS) == "; did you mean 'elastic_transform'?"
    assert registry.suggest("compression", ALL_CORRUPTIONS) == (
        "; did you mean 'jpeg_compression'?"
    )
    assert registry.suggest("gaussian", ALL_CORRUPTIONS) == (
        "; did you mean 'gaussian_noise' or 'gaussian_blur'?"
    )
    assert registry.suggest("Zoom", ALL_PERTURBATIONS) == "; did you mean 'zoom_blur'?"
    assert registry.suggest("fogg", ALL_CORRUPTIONS) == "; did you mean 'fog'?"
    assert registry.suggest("xyz", ALL_CORRUPTIONS) == ""
    with pytest.raises(
        ValueError, match="unknown corruption 'jpeg'; did you mean 'jpeg_compression'"
    ):
        registry.get_corruption("jpeg")


#: transform_finder.transform_list of ImageNet-C-bar (facebookresearch/augmentation-corruption
#: ba4d5a5), the suite's reference order
REFERENCE_CBAR = (
    "color_balance",
    "quadrilateral_no_bars",
    "perspective_no_bars",
    "single_frequency_greyscale",
    "cocentric_sine_waves",
    "plasma_noise",
    "voronoi_noise",
    "caustic_noise",
    "perlin_noise",
    "blue_noise",
    "brownish_noise",
    "scatter",
    "chromatic_abberation",
    "transverse_chromatic_abberation",
    "circular_motion_blur",
    "bleach_bypass",
    "technicolor",
    "pseudocolor",
    "hue_shift",
    "color_dither",
    "checkerboard_cutout",
    "sparkles",
    "inverse_sparkles",
    "lines",
    "blue_noise_sample",
    "pinch_and_twirl",
    "caustic_refraction",
    "fish_eye",
    "water_drop",
    "ripple",
)


def test_the_cbar_suite() -> None:
    specs = registry.corruption_specs("cbar")
    assert tuple(s.name for s in specs) == REFERENCE_CBAR
    assert [s.order for s in specs] == list(range(30))
    assert registry.corruption_suites() == ("imagenet_c", "cbar")
    assert len(registry.corruption_specs(None)) == 49
    # the 19 of ImageNet-C are unchanged
    assert tuple(s.name for s in registry.corruption_specs()) == REFERENCE_CORRUPTIONS
    by_tag = {
        tag: [s.name for s in specs if tag in s.tags]
        for tag in ("imagenet_c_bar", "cifar10_c_bar", "cbar_extra")
    }
    assert sorted(by_tag["imagenet_c_bar"]) == [
        "blue_noise_sample",
        "brownish_noise",
        "caustic_refraction",
        "checkerboard_cutout",
        "cocentric_sine_waves",
        "inverse_sparkles",
        "perlin_noise",
        "plasma_noise",
        "single_frequency_greyscale",
        "sparkles",
    ]
    assert sorted(by_tag["cifar10_c_bar"]) == [
        "blue_noise_sample",
        "brownish_noise",
        "checkerboard_cutout",
        "circular_motion_blur",
        "inverse_sparkles",
        "lines",
        "pinch_and_twirl",
        "ripple",
        "sparkles",
        "transverse_chromatic_abberation",
    ]
    assert len(by_tag["cbar_extra"]) == 15
    for s in specs:
        assert s.suite == "cbar" and s.extra == ("cbar_extra" in s.tags)
        assert s.family in ("noise", "blur", "color", "obscure", "distortion", "pil")
        assert s.doc == s.func.__doc__.strip().splitlines()[0] and "``" not in s.summary
    deterministic = {s.name for s in specs if not s.random}
    assert deterministic == {"bleach_bypass", "technicolor", "color_dither", "circular_motion_blur"}


def test_aliases_resolve_to_their_corruption() -> None:
    get = registry.get_corruption
    assert get("transverse_chromatic_aberration").name == "transverse_chromatic_abberation"
    assert get("Chromatic Aberration").name == "chromatic_abberation"
    assert get("concentric-sine-waves").name == "cocentric_sine_waves"
    assert get("single_frequency_grayscale").name == "single_frequency_greyscale"
    assert get("Pinch and Twirl").name == "pinch_and_twirl"
    assert registry.resolve_name("Fogg", ("fog",), "corruption", {"fogg": "fog"}) == "fog"
    with pytest.raises(ValueError, match="unknown corruption 'aberration'"):
        get("aberration")


def test_alias_clashes_are_refused(scratch_registry: registry._Registered) -> None:
    def f(image, severity, *, profile, rng):  # type: ignore[no-untyped-def]
        return image

    with pytest.raises(RuntimeError, match="alias 'fog' is taken"):
        registry.register_corruption("mist", family=None, order=40, extra=True, aliases=("fog",))(f)
    registry.register_corruption("mist", family=None, order=41, extra=True, aliases=("Haze",))(f)
    assert registry.get_corruption("haze").name == "mist"
    with pytest.raises(RuntimeError, match="alias 'haze' is taken"):
        registry.register_corruption("smog", family=None, order=42, extra=True, aliases=("haze",))(
            f
        )


# list_corruptions: timm's list_models over the one registry


def test_list_corruptions_filters():
    """Every name, in registry order, by default; a wildcard, a suite, a family, extra."""
    every = [s.name for s in registry.corruption_specs(None)]
    assert corruptbench.list_corruptions() == every
    assert len(every) == 49
    assert corruptbench.list_corruptions(suite="imagenet_c") == list(ALL_CORRUPTIONS)
    assert corruptbench.list_corruptions("*blur*", suite="imagenet_c") == [
        "defocus_blur",
        "glass_blur",
        "motion_blur",
        "zoom_blur",
        "gaussian_blur",
    ]
    assert "circular_motion_blur" in corruptbench.list_corruptions("*BLUR")
    assert corruptbench.list_corruptions(["fog", "frost"]) == ["frost", "fog"]
    assert corruptbench.list_corruptions(family="noise", suite="imagenet_c") == [
        "gaussian_noise",
        "shot_noise",
        "impulse_noise",
    ]
    assert corruptbench.list_corruptions(extra=True, suite="imagenet_c") == list(EXTRA_CORRUPTIONS)
    assert corruptbench.list_corruptions(suite="cbar", family="pil") == [
        "color_balance",
        "quadrilateral_no_bars",
        "perspective_no_bars",
    ]
    assert corruptbench.list_corruptions("nothing*") == []


@pytest.mark.parametrize(
    ("kwargs", "text"),
    [
        ({"suite": "imagenetc"}, "unknown suite 'imagenetc'; did you mean 'imagenet_c'"),
        ({"family": "nois"}, "unknown family 'nois'; did you mean 'noise'"),
        ({"suite": "cbar", "family": "weather"}, "unknown family 'weather'"),
    ],
)
def test_list_corruptions_refuses(kwargs, text):
    with pytest.raises(ValueError, match=text):
        corruptbench.list_corruptions(**kwargs)
    with pytest.raises(TypeError, match="pattern must be a str"):
        corruptbench.list_corruptions([1])

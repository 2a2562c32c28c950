"""The one benchmark grid (grid.py): names, subsets, levels and cells of both kinds."""

from __future__ import annotations

import numpy as np
import pytest

from corruptbench import grid
from corruptbench.errors import ArgumentError
from corruptbench.grid import CLEAN, Cell, GridError, cell_key, parse_cell_key, select

# written out here from the paper (Hendrycks & Dietterich 2019, Figure 1 and Table 1; ImageNet-P:
# Section 4), not derived from the registry, so a registry change that moves a name fails here
BENCHMARK = (
    "gaussian_noise shot_noise impulse_noise defocus_blur glass_blur motion_blur zoom_blur snow "
    "frost fog brightness contrast elastic_transform pixelate jpeg_compression"
).split()
EXTRA = ["speckle_noise", "gaussian_blur", "spatter", "saturate"]
P_TEST = (
    "gaussian_noise shot_noise motion_blur zoom_blur snow brightness translate rotate tilt scale"
).split()
P_VALIDATION = ["speckle_noise", "gaussian_blur", "spatter", "shear"]


def test_subsets_of_both_kinds() -> None:
    c = grid.subsets("c")
    assert list(c["benchmark"]) == BENCHMARK and list(c["extra"]) == EXTRA
    assert list(c["all"]) == BENCHMARK + EXTRA
    assert c["common"] == c["benchmark"] and c["validation"] == c["extra"]
    assert list(c["weather"]) == ["snow", "frost", "fog", "brightness"]
    p = grid.subsets("p")
    assert list(p["test"]) == P_TEST and list(p["validation"]) == P_VALIDATION
    assert p["benchmark"] == p["test"] and p["extra"] == p["validation"]


def test_names_keep_the_order_given_and_subsets_expand_in_reference_order() -> None:
    assert grid.resolve_names("c", ["fog", "noise", "Gaussian-Noise"]) == (
        "fog",
        "gaussian_noise",
        "shot_noise",
        "impulse_noise",
    )
    assert grid.resolve_names("c", None) == tuple(BENCHMARK + EXTRA)
    assert grid.resolve_names("p", "extra") == tuple(P_VALIDATION)
    assert grid.resolve_names("c", "brightness") == ("brightness",)


def test_one_name() -> None:
    assert grid.resolve_name("c", " Motion Blur ") == "motion_blur"
    assert grid.resolve_name("p", "Gaussian-Noise") == "gaussian_noise"
    with pytest.raises(GridError, match="did you mean 'frost'"):
        grid.resolve_name("c", "frst")
    with pytest.raises(
        GridError, match="^unknown corruption 'xyzzy'; known corruptions: gaussian_no"
    ):
        grid.resolve_name("c", "xyzzy")
    with pytest.raises(GridError, match="unknown perturbation 'impulse_noise'"):
        grid.resolve_name("p", "impulse_noise")
    with pytest.raises(GridError, match="unknown corruption 'weather'"):
        grid.resolve_name("c", "weather")  # a subset is not a name
    with pytest.raises(TypeError, match="corruption names must be strings"):
        grid.resolve_name("c", 3)


def test_unknown_names_and_empty_lists() -> None:
    with pytest.raises(
        GridError, match="unknown corruption 'jpeg'; did you mean 'jpeg_compression'"
    ):
        grid.resolve_names("c", ["jpeg"])
    with pytest.raises(GridError, match="unknown perturbation 'zoom'; did you mean 'zoom_blur'"):
        grid.resolve_names("p", ["zoom"])
    with pytest.raises(ArgumentError, match="corruptions is empty"):
        grid.resolve_names("c", [])
    with pytest.raises(GridError, match="must hold names"):
        grid.resolve_names("c", [3])  # type: ignore[list-item]
    with pytest.raises(GridError, match="unknown subset 'wether'; did you mean 'weather'"):
        grid.subset_names("c", "wether")


@pytest.mark.parametrize(
    ("kind", "levels", "message"),
    [
        ("c", [0], r"severities must be in 1..5, got \[0\]"),
        ("c", [6], r"severities must be in 1..5"),
        ("c", [True], r"severities must be integers in 1..5"),
        ("c", [2.0], r"severities must be integers in 1..5"),
        ("p", [4], r"difficulties must be in 1..3, got \[4\]"),
        ("c", [], r"severities must be in 1..5, got \[\]"),
    ],
)
def test_levels_are_checked_per_kind(kind: str, levels: list[object], message: str) -> None:
    with pytest.raises(GridError, match=message):
        grid.check_levels(kind, levels)  # type: ignore[arg-type]


def test_levels_accept_numpy_integers_and_sort() -> None:
    assert grid.check_levels("c", [np.int64(3), 1, 3]) == (1, 3)
    assert grid.check_levels("p", None) == (1, 2, 3) and grid.check_levels("c", 2) == (2,)


def test_cells_and_keys() -> None:
    g = select("c", ["fog", "snow"], [2, 1])
    assert g.cells == (Cell("fog", 1), Cell("fog", 2), Cell("snow", 1), Cell("snow", 2))
    assert g.keys == ("fog/1", "fog/2", "snow/1", "snow/2") and len(g) == 4
    assert cell_key(CLEAN) == "clean" and CLEAN.key == "clean" and Cell("fog", 3).key == "fog/3"
    assert parse_cell_key("zoom_blur/5") == ("zoom_blur", 5) and parse_cell_key("clean") == CLEAN
    with pytest.raises(ValueError, match="not a cell key"):
        parse_cell_key("fog")


def test_perturbation_difficulties_above_one_only_for_noise() -> None:
    g = select("p", ["gaussian_noise", "rotate"], [1, 2, 3])
    assert g.keys == ("gaussian_noise/1", "gaussian_noise/2", "gaussian_noise/3", "rotate/1")
    assert select("p", "all", [2]).keys == (
        "gaussian_noise/2",
        "shot_noise/2",
        "speckle_noise/2",
    )
    with pytest.raises(GridError, match="difficulties 2 and 3 exist only for gaussian_noise"):
        select("p", ["rotate", "tilt"], [2, 3])


def test_suites_defaults_and_reference_order() -> None:
    """The suite a command takes is checked; with no names, ImageNet-C's 19, or for ``cbar`` the
    benchmark whose level table the profile reads (CIFAR-10-C-bar's ten for ``cifar``)."""
    assert grid.check_suite("c", "cbar") == "cbar"
    with pytest.raises(GridError, match="^suite must be one of imagenet_c, cbar, got 'x'$"):
        grid.check_suite("c", "x")
    with pytest.raises(GridError, match="^suite must be one of imagenet_c, got 'cbar'$"):
        select("p", suite="cbar")
    with pytest.raises(GridError, match="^suite must be one of imagenet_c, cbar, got 'x'$"):
        select("c", suite="x")
    assert grid.default_subset() == "all" and grid.default_subset("imagenet_c", "cifar") == "all"
    assert grid.default_subset("cbar") == grid.default_subset("cbar", "tiny") == "imagenet_c_bar"
    assert grid.default_subset("cbar", "cifar") == "cifar10_c_bar"
    bar = grid.subsets("c", "cbar")
    assert "sparkles" in bar["imagenet_c_bar"] and "ripple" in bar["cifar10_c_bar"]
    assert len(bar["imagenet_c_bar"]) == len(bar["cifar10_c_bar"]) == 10
    assert grid.suite_of("sparkles") == "cbar" and grid.suite_of("fog") == "imagenet_c"
    assert grid.reference_order(["sparkles", "fog", "gaussian_noise"]) == (
        "gaussian_noise",
        "fog",
        "sparkles",
    )
    g = select("c", "imagenet_c_bar", [1], suite="cbar")
    assert g.names == bar["imagenet_c_bar"] and g.suite == "cbar"


def test_comma_strings_are_split_as_on_the_command_line() -> None:
    # issue 33 item 27: corruptions="fog,snow" was "unknown corruption 'fog,snow'; did you mean
    # 'snow'?" in Python while the CLI's --corruptions fog,snow worked
    from corruptbench.cli.options import split_list

    for given in ("fog,snow", " fog , snow ,", ["fog,snow"], ["fog", "snow"], "fog, weather"):
        assert grid.resolve_names("c", given) == grid.resolve_names("c", split_list(given))
    assert grid.resolve_names("c", "fog,snow") == ("fog", "snow")
    assert grid.resolve_names("c", ["fog,noise", "frost"])[:2] == ("fog", "gaussian_noise")
    assert select("c", "fog,snow", [1]).keys == ("fog/1", "snow/1")
    assert grid.resolve_names("p", "rotate,tilt") == ("rotate", "tilt")
    with pytest.raises(ArgumentError, match="corruptions is empty"):
        grid.resolve_names("c", " , ")
    with pytest.raises(GridError, match="unknown corruption 'frst'; did you mean 'frost'"):
        grid.resolve_names("c", "fog,frst")

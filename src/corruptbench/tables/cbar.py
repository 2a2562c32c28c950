"""The level tables of ImageNet-C-bar and CIFAR-10-C-bar, and our five levels for the rest (data).

Source: the public GitHub repository facebookresearch/augmentation-corruption, commit ba4d5a5,
folder ``imagenet_c_bar/`` (Mintun, Kirillov, Xie, "On Interaction Between Augmentations and
Corruptions in Natural Corruption Robustness", NeurIPS 2021), four files, transcribed as they are:

* ``imagenet_c_bar.csv`` -> :data:`IMAGENET_C_BAR`: the 10 corruptions of ImageNet-C-bar, 5
  levels each (``make_imagenet_c_bar.py``'s default ``--corruption_file``);
* ``cifar10_c_bar.csv`` -> :data:`CIFAR10_C_BAR`: the 10 of CIFAR-10-C-bar (what
  ``make_cifar10_c_bar.py`` reads);
* ``imagenet_new_corruptions.csv`` / ``cifar10_new_corruptions.csv`` ->
  :data:`IMAGENET_NEW_CORRUPTIONS` / :data:`CIFAR10_NEW_CORRUPTIONS`: 10 levels for each of the 30
  corruptions (two rows are named ``pinch_and_twirl_v2`` and ``fish_eye_v2``: the classes
  ``corrupt.py`` names ``pinch_and_twirl`` and ``fish_eye`` are the ``PinchAndTwirlV2`` and
  ``FishEyeV2`` of the repository's ``experiments/overlap/augmentations/distortion.py``, so those
  rows are theirs, :data:`CSV_ROW_NAMES`).

A level is the original's ``severity`` argument, a float in [0, 10] that the classes turn into
parameters (``float_parameter(level, maxval) = level * maxval / 10``; each corruption's
registration writes its formulas once, ``from_level``, and
:func:`corruptbench.corruptions.params_of` applies them); our severities 1..5 index five of
them. The ``cifar`` profile reads the CIFAR-10 tables, every other profile the ImageNet
ones (at the image's own size: ``tiny``, 64 px, is our Tiny-ImageNet-C-bar, ImageNet levels at
64 px: no published table exists for it).

**Our choice** (not the paper's) for a corruption outside a benchmark's 5-level table (the 15
extras everywhere, and for CIFAR the 5 of ImageNet-C-bar it lacks, and vice versa): levels 1, 3,
5, 7 and 9 of its 10-level row (:data:`OUR_LEVEL_INDICES`). Reason: the paper's own picks sit,
on average over the 10 corruptions of each table, at positions (0.6, 1.9, 3.4, 5.7, 7.1)
(ImageNet) and (0.1, 1.6, 3.3, 5.5, 6.7) (CIFAR-10) of the 10-level rows (0-based), and
(0, 2, 4, 6, 8) is the evenly spaced pattern nearest to both.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = [
    "IMAGENET_C_BAR",
    "CIFAR10_C_BAR",
    "IMAGENET_NEW_CORRUPTIONS",
    "CIFAR10_NEW_CORRUPTIONS",
    "CSV_ROW_NAMES",
    "OUR_LEVEL_INDICES",
    "BENCHMARK_TABLES",
    "table_key",
    "benchmark_levels",
    "cbar_levels",
    "cbar_level",
    "level_source",
]

Table = Mapping[str, tuple[float, ...]]

#: imagenet_c_bar.csv (ba4d5a5), in the file's order
IMAGENET_C_BAR: Table = MappingProxyType(
    {
        "caustic_refraction": (2.35, 3.2, 4.9, 6.6, 9.15),
        "inverse_sparkles": (1.0, 2.0, 4.0, 9.0, 10.0),
        "sparkles": (1.0, 2.0, 3.0, 5.0, 6.0),
        "perlin_noise": (4.6, 5.2, 5.8, 7.6, 8.8),
        "blue_noise_sample": (0.8, 1.6, 2.4, 4.0, 5.6),
        "plasma_noise": (4.75, 7.0, 8.5, 9.25, 10.0),
        "checkerboard_cutout": (2.0, 3.0, 4.0, 5.0, 6.0),
        "cocentric_sine_waves": (3.0, 5.0, 8.0, 9.0, 10.0),
        "single_frequency_greyscale": (1.0, 1.5, 2.0, 4.5, 5.0),
        "brownish_noise": (1.0, 2.0, 3.0, 4.0, 5.0),
    }
)

#: cifar10_c_bar.csv (ba4d5a5), in the file's order
CIFAR10_C_BAR: Table = MappingProxyType(
    {
        "blue_noise_sample": (0.7, 1.4, 2.1, 3.5, 4.2),
        "checkerboard_cutout": (1.0, 2.0, 3.0, 4.0, 5.0),
        "inverse_sparkles": (1.0, 1.5, 2.5, 4.5, 5.0),
        "pinch_and_twirl": (5.5, 6.0, 6.5, 8.5, 10.0),
        "ripple": (5.5, 6.0, 6.5, 7.5, 8.0),
        "brownish_noise": (2.5, 4.0, 5.5, 6.5, 7.0),
        "circular_motion_blur": (2.8, 3.6, 4.4, 5.2, 6.0),
        "lines": (0.5, 1.0, 1.5, 2.0, 2.5),
        "sparkles": (0.7, 3.5, 5.6, 6.3, 7.0),
        "transverse_chromatic_abberation": (1.0, 2.0, 5.0, 9.0, 10.0),
    }
)

#: imagenet_new_corruptions.csv (ba4d5a5), in the file's order
IMAGENET_NEW_CORRUPTIONS: Table = MappingProxyType(
    {
        "single_frequency_greyscale": (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0),
        "cocentric_sine_waves": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "plasma_noise": (3.25, 4.0, 4.75, 5.5, 6.25, 7.0, 7.75, 8.5, 9.25, 10.0),
        "voronoi_noise": (3.25, 4.0, 4.75, 5.5, 6.25, 7.0, 7.75, 8.5, 9.25, 10.0),
        "caustic_noise": (3.25, 4.0, 4.75, 5.5, 6.25, 7.0, 7.75, 8.5, 9.25, 10.0),
        "sparkles": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "inverse_sparkles": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "checkerboard_cutout": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "lines": (0.8, 1.6, 2.4, 3.2, 4.0, 4.8, 5.6, 6.4, 7.2, 8.0),
        "scatter": (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0),
        "chromatic_abberation": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "transverse_chromatic_abberation": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "caustic_refraction": (2.35, 3.2, 4.05, 4.9, 5.75, 6.6, 7.45, 8.3, 9.15, 10.0),
        "pinch_and_twirl_v2": (4.15, 4.8, 5.45, 6.1, 6.75, 7.4, 8.05, 8.7, 9.35, 10.0),
        "fish_eye_v2": (0.4, 0.8, 1.2, 1.6, 2.0, 2.4, 2.8, 3.2, 3.6, 4.0),
        "water_drop": (5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0, 9.5, 10.0),
        "ripple": (3.25, 4.0, 4.75, 5.5, 6.25, 7.0, 7.75, 8.5, 9.25, 10.0),
        "bleach_bypass": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "technicolor": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "pseudocolor": (1.9, 2.8, 3.7, 4.6, 5.5, 6.4, 7.3, 8.2, 9.1, 10.0),
        "color_balance": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "quadrilateral_no_bars": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "perspective_no_bars": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "perlin_noise": (4.6, 5.2, 5.8, 6.4, 7.0, 7.6, 8.2, 8.8, 9.4, 10.0),
        "blue_noise_sample": (0.8, 1.6, 2.4, 3.2, 4.0, 4.8, 5.6, 6.4, 7.2, 8.0),
        "blue_noise": (0.7, 1.4, 2.1, 2.8, 3.5, 4.2, 4.9, 5.6, 6.3, 7.0),
        "hue_shift": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "circular_motion_blur": (2.35, 3.2, 4.05, 4.9, 5.75, 6.6, 7.45, 8.3, 9.15, 10.0),
        "color_dither": (3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0),
        "brownish_noise": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
    }
)

#: cifar10_new_corruptions.csv (ba4d5a5), in the file's order
CIFAR10_NEW_CORRUPTIONS: Table = MappingProxyType(
    {
        "single_frequency_greyscale": (0.3, 0.6, 0.9, 1.2, 1.5, 1.8, 2.1, 2.4, 2.7, 3.0),
        "cocentric_sine_waves": (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0),
        "plasma_noise": (0.7, 1.4, 2.1, 2.8, 3.5, 4.2, 4.9, 5.6, 6.3, 7.0),
        "voronoi_noise": (1.4, 1.8, 2.2, 2.6, 3.0, 3.4, 3.8, 4.2, 4.6, 5.0),
        "caustic_noise": (2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0),
        "sparkles": (0.7, 1.4, 2.1, 2.8, 3.5, 4.2, 4.9, 5.6, 6.3, 7.0),
        "inverse_sparkles": (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0),
        "checkerboard_cutout": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "lines": (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0),
        "scatter": (1.4, 1.8, 2.2, 2.6, 3.0, 3.4, 3.8, 4.2, 4.6, 5.0),
        "chromatic_abberation": (0.7, 1.4, 2.1, 2.8, 3.5, 4.2, 4.9, 5.6, 6.3, 7.0),
        "transverse_chromatic_abberation": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "caustic_refraction": (1.4, 1.8, 2.2, 2.6, 3.0, 3.4, 3.8, 4.2, 4.6, 5.0),
        "pinch_and_twirl_v2": (5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0, 9.5, 10.0),
        "fish_eye_v2": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
        "water_drop": (2.8, 3.6, 4.4, 5.2, 6.0, 6.8, 7.6, 8.4, 9.2, 10.0),
        "ripple": (5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0, 9.5, 10.0),
        "bleach_bypass": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "technicolor": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "pseudocolor": (0.7, 1.4, 2.1, 2.8, 3.5, 4.2, 4.9, 5.6, 6.3, 7.0),
        "color_balance": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "quadrilateral_no_bars": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "perspective_no_bars": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "perlin_noise": (4.6, 5.2, 5.8, 6.4, 7.0, 7.6, 8.2, 8.8, 9.4, 10.0),
        "blue_noise_sample": (0.7, 1.4, 2.1, 2.8, 3.5, 4.2, 4.9, 5.6, 6.3, 7.0),
        "blue_noise": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
        "hue_shift": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "circular_motion_blur": (2.8, 3.6, 4.4, 5.2, 6.0, 6.8, 7.6, 8.4, 9.2, 10.0),
        "color_dither": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0),
        "brownish_noise": (2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0),
    }
)

#: corruption name -> its row name in the 10-level CSVs, where they differ (module docstring)
CSV_ROW_NAMES: Mapping[str, str] = MappingProxyType(
    {"pinch_and_twirl": "pinch_and_twirl_v2", "fish_eye": "fish_eye_v2"}
)

#: ours: the 0-based positions in a 10-level row that give severities 1..5 where no benchmark
#: table lists the corruption (levels 1, 3, 5, 7, 9; the module docstring says why)
OUR_LEVEL_INDICES: tuple[int, ...] = (0, 2, 4, 6, 8)

#: benchmark tag -> (its 5-level table, the 10-level table of the same dataset, the CSV files)
BENCHMARK_TABLES: Mapping[str, tuple[Table, Table, str, str]] = MappingProxyType(
    {
        "imagenet_c_bar": (
            IMAGENET_C_BAR,
            IMAGENET_NEW_CORRUPTIONS,
            "imagenet_c_bar.csv",
            "imagenet_new_corruptions.csv",
        ),
        "cifar10_c_bar": (
            CIFAR10_C_BAR,
            CIFAR10_NEW_CORRUPTIONS,
            "cifar10_c_bar.csv",
            "cifar10_new_corruptions.csv",
        ),
    }
)


def table_key(profile: str) -> str:
    """The benchmark whose tables a profile reads: ``cifar10_c_bar`` for ``cifar``, else
    ``imagenet_c_bar``."""
    return "cifar10_c_bar" if profile == "cifar" else "imagenet_c_bar"


def benchmark_levels(name: str, benchmark: str) -> tuple[float, ...]:
    """The five original levels (severities 1..5) of corruption ``name`` in ``benchmark``
    (``imagenet_c_bar`` or ``cifar10_c_bar``): its row of the benchmark's table, else
    :data:`OUR_LEVEL_INDICES` of its 10-level row of the same dataset."""
    five, ten, _, _ = BENCHMARK_TABLES[benchmark]
    if name in five:
        return five[name]
    row = ten[CSV_ROW_NAMES.get(name, name)]
    return tuple(row[i] for i in OUR_LEVEL_INDICES)


def cbar_levels(name: str, profile: str) -> tuple[float, ...]:
    """The five original levels (severities 1..5) of corruption ``name`` for ``profile``
    (:func:`benchmark_levels` of :func:`table_key`)."""
    return benchmark_levels(name, table_key(profile))


def cbar_level(name: str, severity: int, profile: str) -> float:
    """The original level of ``name`` at ``severity`` (1..5) for ``profile``."""
    return cbar_levels(name, profile)[severity - 1]


def level_source(name: str, profile: str) -> str:
    """Where :func:`cbar_levels` takes the levels from, e.g. ``"imagenet_c_bar.csv"`` or
    ``"ours: levels 1, 3, 5, 7, 9 of imagenet_new_corruptions.csv"``."""
    five, _, five_file, ten_file = BENCHMARK_TABLES[table_key(profile)]
    if name in five:
        return five_file
    which = ", ".join(str(i + 1) for i in OUR_LEVEL_INDICES)
    row = CSV_ROW_NAMES.get(name, name)
    suffix = f" (row {row})" if row != name else ""
    return f"ours: levels {which} of {ten_file}{suffix}"

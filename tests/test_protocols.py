"""The protocol table (corruptbench.protocols): what each protocol fixes, checked against
RobustBench's public package; the leaderboard figures in closed form."""

from __future__ import annotations

import math

import pytest

from corruptbench.corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS
from corruptbench.errors import ArgumentError
from corruptbench.formats.robustbench import robustbench_image_ids
from corruptbench.grid import SEVERITIES
from corruptbench.protocols import (
    DEFAULT_PROTOCOL,
    PROTOCOLS,
    leaderboard,
    protocol_of,
    resolve_protocol,
)

#: robustbench 1.1.1, robustbench/data.py: CORRUPTIONS (its ImageNet-C leaderboard's names)
ROBUSTBENCH_CORRUPTIONS = (
    "shot_noise",
    "motion_blur",
    "snow",
    "pixelate",
    "gaussian_noise",
    "defocus_blur",
    "brightness",
    "fog",
    "zoom_blur",
    "frost",
    "glass_blur",
    "impulse_noise",
    "contrast",
    "jpeg_compression",
    "elastic_transform",
)


def test_the_robustbench_protocol_is_robustbench_s() -> None:
    rb = resolve_protocol("robustbench")
    assert set(rb.corruption_names()) == set(ROBUSTBENCH_CORRUPTIONS)
    assert rb.corruption_names() == tuple(BENCHMARK_CORRUPTIONS)  # our reference order
    assert rb.severities == (1, 2, 3, 4, 5)  # robustbench/eval.py: range(1, 6)
    assert rb.image_ids is not None and rb.image_ids() == robustbench_image_ids()
    assert len(set(rb.image_ids())) == 5000 and rb.fixed
    assert rb.image_size == 224 and rb.metric == "accuracy"


def test_the_full_protocol_is_the_paper_s() -> None:
    full = resolve_protocol(DEFAULT_PROTOCOL)
    assert full.name == "full" and not full.fixed and full.image_ids is None
    assert full.corruption_names() == tuple(ALL_CORRUPTIONS) and full.severities == SEVERITIES
    assert full.image_size is None and full.metric == "mce"
    assert list(PROTOCOLS) == ["full", "robustbench"]


def test_unknown_protocols() -> None:
    with pytest.raises(ArgumentError, match="^protocol must be one of full, robustbench, got 'x'$"):
        resolve_protocol("x")
    with pytest.raises(ArgumentError, match="got None"):
        resolve_protocol(None)  # type: ignore[arg-type]
    assert protocol_of(None) is None and protocol_of("robustbench") is PROTOCOLS["robustbench"]


def _errors(names: tuple[str, ...]) -> dict[str, list[float | None]]:
    """Error 0.1 x severity in every cell: accuracy 0.9, 0.8, ..., 0.5, mean 0.7."""
    return {n: [0.1 * s for s in SEVERITIES] for n in names}


def test_leaderboard_is_the_mean_accuracy_over_the_75_cells() -> None:
    errors = _errors(tuple(ALL_CORRUPTIONS))
    errors["speckle_noise"] = [1.0] * 5  # an extra corruption: not RobustBench's
    lb = leaderboard("robustbench", errors, clean_error=0.25)
    assert lb is not None
    assert lb["clean_acc"] == 0.75 and math.isclose(lb["corruptions_acc"], 0.7, rel_tol=1e-12)
    assert (lb["cells"], lb["of_cells"], lb["protocol"]) == (75, 75, "robustbench")
    # one cell changed by d moves the mean by d / 75
    errors["fog"][2] = 0.3 + 0.75
    moved = leaderboard("robustbench", errors, clean_error=None)
    assert moved is not None and moved["clean_acc"] is None
    assert math.isclose(moved["corruptions_acc"], 0.7 - 0.75 / 75, rel_tol=1e-12)


def test_leaderboard_needs_every_cell_and_an_accuracy_protocol() -> None:
    errors = _errors(tuple(BENCHMARK_CORRUPTIONS))
    errors["fog"][4] = None
    del errors["snow"]
    lb = leaderboard("robustbench", errors, clean_error=0.5)
    assert lb is not None and lb["corruptions_acc"] is None and lb["clean_acc"] == 0.5
    assert (lb["cells"], lb["of_cells"]) == (69, 75)
    assert leaderboard("full", _errors(tuple(ALL_CORRUPTIONS)), 0.2) is None
    assert leaderboard(None, _errors(tuple(ALL_CORRUPTIONS)), 0.2) is None

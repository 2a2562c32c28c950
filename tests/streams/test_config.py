"""Settings as data and their refusals: one line each, naming the closest known name."""

from __future__ import annotations

import pytest

from corruptbench.streams import ORDERS, SETTINGS, StreamError, resolve_config
from corruptbench.streams.sequence import plan_blocks
from corruptbench.streams.settings import CANONICAL


def test_the_ten_cotta_orders_are_permutations_of_the_canonical_15() -> None:
    assert len(CANONICAL) == 15
    for i in range(10):
        assert sorted(ORDERS[f"cotta{i}"]) == sorted(CANONICAL)
    assert ORDERS["cotta0"][:3] == ("brightness", "pixelate", "gaussian_noise")
    assert ORDERS["cotta9"][-1] == "brightness"


def test_defaults_are_the_references() -> None:
    c = resolve_config(dataset="cifar10_c")
    assert (c.setting, c.seed, c.severities, c.batch_size, c.order) == (
        "continual",
        1,
        (5,),
        200,
        CANONICAL,
    )
    assert resolve_config(dataset="imagenet_c").batch_size == 64
    assert resolve_config(dataset="imagenet_c", setting="gradual").schedule() == (
        1,
        2,
        3,
        4,
        5,
        4,
        3,
        2,
        1,
    )
    assert resolve_config(
        dataset="imagenet_c", setting="gradual", severities=[5, 3]
    ).schedule() == (5, 3)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"setting": "continous"}, "unknown setting 'continous'; did you mean 'continual'?"),
        ({"setting": "mixed"}, "did you mean 'mixed_domains'"),
        ({"order": "cota3"}, "unknown order 'cota3'; did you mean 'cotta3'?"),
        ({"dataset": "cifar10c"}, "did you mean 'cifar10_c'"),
        ({"setting": "correlated", "delta": 0}, "delta must be a finite number > 0, got 0"),
        ({"setting": "correlated", "delta": -0.1}, "delta must be a finite number > 0"),
        (
            {"setting": "correlated", "delta": float("inf")},
            "delta must be a finite number > 0, got inf",
        ),
        ({"delta": 0.1}, "delta applies to the correlated settings only"),
        ({"batch_size": 0}, "batch_size must be an image count >= 1, got 0"),
        ({"num_examples": 0}, "num_examples must be an image count >= 1"),
        ({"severities": [6]}, "severities must be integers 1..5, got 6"),
        ({"rounds": 3}, "rounds applies to the recurring setting only"),
        ({"order": ["fog", "fog"]}, "order names fog twice"),
        ({"image_list": "robustbench", "dataset": "cifar10_c"}, "ImageNet-C list"),
    ],
)
def test_refusals_are_one_line_naming_the_problem(kwargs: dict, needle: str) -> None:
    args = {"dataset": "imagenet_c", **kwargs}
    with pytest.raises(StreamError) as info:
        resolve_config(**args)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_recurring_repeats_the_order_without_reset_between_rounds() -> None:
    c = resolve_config(dataset="cifar10_c", setting="recurring", order=["fog", "snow"], rounds=3)
    blocks = plan_blocks(c)
    assert [b.name for b in blocks] == ["fog", "snow"] * 3
    assert [b.reset for b in blocks] == [True] + [False] * 5


def test_every_setting_plans_its_resets() -> None:
    order = ["fog", "snow", "frost"]
    for name, flags in SETTINGS.items():
        c = resolve_config(dataset="cifar10_c", setting=name, order=order)
        blocks = plan_blocks(c)
        resets = [b.name for b in blocks if b.reset]
        if flags.mixed:
            assert [b.domains for b in blocks] == [tuple(order)] and resets == ["mixed"]
        elif flags.reset_each_shift:
            assert resets == order
        else:
            assert resets == ["fog"]


def test_an_impossible_dirichlet_split_is_refused_at_once() -> None:
    import numpy as np

    from corruptbench.streams.config import StreamError as Err
    from corruptbench.streams.sequence import dirichlet_order

    with pytest.raises(
        Err, match=r"needs at least 10 samples per class slot \(10 x 10 = 100\); this block has 24"
    ):
        dirichlet_order(np.arange(24) % 10, 0.5, np.random.RandomState(1))


def test_num_examples_minus_one_is_the_references_every_image() -> None:
    # NUM_EX = -1, the reference's default: every image (and RobustBench's 5,000 on ImageNet-C)
    every = resolve_config(dataset="imagenet_c", setting="continual", num_examples=-1)
    assert every.num_examples is None and every == resolve_config(
        dataset="imagenet_c", setting="continual"
    )
    assert every.id_list() == resolve_config(dataset="imagenet_c", setting="continual").id_list()

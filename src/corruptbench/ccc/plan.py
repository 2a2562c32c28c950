"""A CCC run's plan: which corruption pair and severities each step has, and the shards.

Follows ``GenerateDataset`` of CCC's ``generate.py`` (github.com/oripress/CCC, MIT):

1. ``random.seed(seed)`` (Python's generator, which only picks corruptions here); the walk of
   every ordered pair of the baseline's corruptions (:func:`corruptbench.ccc.find_walk`).
2. ``noise1 = random.choice(noises)``; ``noise2 = random.choice(noises)`` until it differs.
3. Each cell of the pair's walk is one step of ``speed`` images at severities ``(i / 4, j / 4)``;
   after the walk's last cell ``noise1 = noise2`` and a new ``noise2 != noise1`` is chosen the
   same way.
4. Steps are grouped into shards ("serials"): a shard closes at the first step boundary where it
   holds at least ``images_per_shard`` (25,000) images (speed 2,000: 26,000 images); the run
   ends after the shard that brings the total to ``images`` (7.5M) or more.

Python's ``random`` is consumed only by these choices, in the reference as here, so the plan is
the reference's for any process count. (Its images and noise are not: see
:mod:`corruptbench.ccc.generate`.)
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import Arg, ArgumentError
from ..tables.ccc import BASELINE_CORRUPTIONS, IMAGES_PER_RUN, IMAGES_PER_SHARD
from .matrices import check_matrices, pair_key
from .params import check_ccc_name
from .walk import DEFAULT_TOLERANCE, find_walk

__all__ = [
    "check_seed",
    "Step",
    "Shard",
    "RunPlan",
    "corruptions_for",
    "group_shards",
    "plan_run",
    "run_name",
    "shard_closes",
]


@dataclass(frozen=True)
class Step:
    """One step: ``speed`` images with ``n1`` at ``s1`` then ``n2`` at ``s2`` (CCC names)."""

    index: int  #: the step's number in the run
    n1: str
    n2: str
    s1: float
    s2: float


@dataclass(frozen=True)
class Shard:
    """One shard ("serial"): its steps and the run's index of its first image."""

    serial: int
    steps: tuple[Step, ...]
    first_image: int
    speed: int

    def __len__(self) -> int:
        return len(self.steps) * self.speed


@dataclass(frozen=True)
class RunPlan:
    """A run's settings and its shards."""

    baseline: float
    speed: int
    seed: int
    images: int
    images_per_shard: int
    corruptions: tuple[str, ...]
    shards: tuple[Shard, ...]

    @property
    def name(self) -> str:
        return run_name(self.baseline, self.speed, self.seed)

    def __len__(self) -> int:
        return sum(len(s.steps) for s in self.shards) * self.speed


def run_name(baseline: float, speed: int, seed: int) -> str:
    """The run's folder name, as the original's hosted runs are named
    (``baseline_20_transition+speed_1000_seed_44``; generate.py itself writes ``str(float)``
    of ``--baseline``, ``baseline_20.0_...``)."""
    b = int(baseline) if float(baseline).is_integer() else baseline
    return f"baseline_{b}_transition+speed_{speed}_seed_{seed}"


def corruptions_for(baseline: float) -> tuple[str, ...]:
    """The corruptions a run of ``baseline`` draws from (generate.py's three lists)."""
    for lowest, names in BASELINE_CORRUPTIONS:
        if baseline >= lowest:
            return names
    raise AssertionError("unreachable: the last list has no lower bound")  # pragma: no cover


def shard_closes(steps: int, speed: int, images_per_shard: int) -> bool:
    """Whether a shard of ``steps`` steps closes (step 4 of the module docstring)."""
    return steps * speed >= images_per_shard


def group_shards(steps: list[Step], speed: int, images_per_shard: int) -> tuple[Shard, ...]:
    """A run's steps (all of them, in order) grouped into its shards again (a run folder's
    recorded steps: :meth:`corruptbench.ccc.CCCStream.open`)."""
    shards: list[Shard] = []
    current: list[Step] = []
    total = 0
    for step in steps:
        current.append(step)
        if shard_closes(len(current), speed, images_per_shard):
            shards.append(Shard(len(shards), tuple(current), total, int(speed)))
            total += len(current) * speed
            current = []
    if current:
        raise ValueError(f"{len(current)} steps after the last shard: not a run's steps")
    return tuple(shards)


def _names(corruptions: Sequence[str]) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(check_ccc_name(n) for n in corruptions))
    if len(names) < 2:
        raise ArgumentError(
            Arg("corruptions"), f" must name at least two corruptions, got {list(corruptions)}"
        )
    return names


def _pairs(rnd: random.Random, noises: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """The reference's sequence of corruption pairs (generate.py's random.choice loops)."""
    noise1 = rnd.choice(noises)
    noise2 = rnd.choice(noises)
    while noise2 == noise1:
        noise2 = rnd.choice(noises)
    while True:
        yield noise1, noise2
        noise1 = noise2
        while noise1 == noise2:
            noise2 = rnd.choice(noises)


def check_seed(seed: Any) -> int:
    """A run's or a calibration's seed: an int in [0, 2**32) (NumPy's legacy seeding), else one
    line."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise ArgumentError(Arg("seed"), f" must be an int in [0, 2**32), got {seed!r}")
    return int(seed)


def _check_run_args(baseline: Any, speed: Any, seed: Any, images: Any, per_shard: Any) -> None:
    for name, value, lo in (
        ("speed", speed, 1),
        ("images", images, 1),
        ("images_per_shard", per_shard, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
            raise ArgumentError(Arg(name), f" must be a positive int, got {value!r}")
    check_seed(seed)
    if not isinstance(baseline, (int, float, np.number)) or not np.isfinite(baseline):
        raise ArgumentError(
            Arg("baseline"), f" must be a finite number (percent), got {baseline!r}"
        )


def plan_run(
    matrices: Mapping[str, np.ndarray],
    baseline: float,
    speed: int,
    seed: int,
    *,
    images: int = IMAGES_PER_RUN,
    images_per_shard: int = IMAGES_PER_SHARD,
    tolerance: float | None = DEFAULT_TOLERANCE,
    corruptions: Sequence[str] | None = None,
) -> RunPlan:
    """The steps and shards of the run ``(baseline, speed, seed)`` (see the module docstring).

    ``corruptions``: draw the pairs from these CCC names instead of the baseline's list (a
    small run on a matrix calibrated on a few corruptions; the pairs then differ from the
    original's, which always draws from the baseline's list).

    Raises:
        ArgumentError: bad settings, a matrix missing for a pair, or (with ``tolerance``) a
            pair whose best walk is further than ``tolerance`` points from ``baseline``.
    """
    _check_run_args(baseline, speed, seed, images, images_per_shard)
    noises = corruptions_for(float(baseline)) if corruptions is None else _names(corruptions)
    check_matrices(matrices, noises)
    walks = {}
    for a in noises:
        for b in noises:
            if a != b:
                try:
                    walks[(a, b)] = find_walk(
                        matrices[pair_key(a, b)], baseline, tolerance=tolerance
                    )
                except ArgumentError as exc:
                    raise ArgumentError(f"{pair_key(a, b)}: ", *exc.parts) from None
    shards: list[Shard] = []
    steps: list[Step] = []
    total = 0
    pairs = _pairs(random.Random(seed), noises)
    index = 0
    while total < images:
        a, b = next(pairs)
        for i, j in walks[(a, b)].cells:
            steps.append(Step(index, a, b, float(i) / 4, float(j) / 4))
            index += 1
            if shard_closes(len(steps), speed, images_per_shard):
                shards.append(Shard(len(shards), tuple(steps), total, int(speed)))
                total += len(steps) * speed
                steps = []
                if total >= images:
                    break
    return RunPlan(
        float(baseline),
        int(speed),
        int(seed),
        int(images),
        int(images_per_shard),
        noises,
        tuple(shards),
    )

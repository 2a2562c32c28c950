"""A stream's settings resolved and checked once: :class:`StreamConfig`, :func:`resolve_config`.

Every refusal is one :class:`StreamError` line naming the argument and, for an unknown name, the
closest known one (:func:`corruptbench.registry.suggest`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..errors import Arg, ArgumentError
from ..registry import canonical_name, suggest
from .settings import (
    DATASETS,
    DEFAULT_ROUNDS,
    DEFAULT_SEED,
    DEFAULT_SEVERITIES,
    GRADUAL_SEVERITIES,
    IMAGE_LISTS,
    ORDERS,
    SETTINGS,
    Setting,
)

__all__ = ["StreamError", "StreamConfig", "resolve_config", "resolve_name"]


class StreamError(ArgumentError):
    """Bad stream input: the message names the argument and the problem in one line."""


@dataclass(frozen=True)
class StreamConfig:
    """What makes a stream (with the data): every field is a plain value, so it round-trips
    through a manifest.

    Attributes:
        dataset: a key of :data:`~.settings.DATASETS`.
        setting: a key of :data:`~.settings.SETTINGS`.
        order: the domains in order.
        order_name: the order's name in :data:`~.settings.ORDERS`, or ``"custom"``.
        severities: the severities given (the gradual schedule is derived, see :meth:`schedule`).
        num_examples: the reference's ``NUM_EX`` (None or -1: every image).
        delta: Dirichlet delta of correlated settings (None: sorted by label).
        seed: ``RNG_SEED``; each block re-seeds Python's and NumPy's generators with it.
        batch_size: images per batch.
        rounds: repetitions of the order (``recurring``; 1 otherwise).
        image_list: ImageNet-C: ``reference``, ``robustbench``, ``imagenet_50k`` or ``data``.
    """

    dataset: str
    setting: str
    order: tuple[str, ...]
    order_name: str
    severities: tuple[int, ...]
    num_examples: int | None
    delta: float | None
    seed: int
    batch_size: int
    rounds: int = 1
    image_list: str = "reference"

    @property
    def flags(self) -> Setting:
        return SETTINGS[self.setting]

    def schedule(self) -> tuple[int, ...]:
        """The severities of each domain: :data:`~.settings.GRADUAL_SEVERITIES` for a gradual
        setting given one severity (test_time.py), else :attr:`severities`."""
        if self.flags.gradual and len(self.severities) == 1:
            return GRADUAL_SEVERITIES
        return self.severities

    def id_list(self) -> str:
        """The ImageNet list a ``reference`` choice means: the 50,000 list when ``num_examples``
        is set or the setting is correlated, else RobustBench's 5,000
        (corruptions_datasets.py ``create_imagenetc_dataset``)."""
        if self.image_list != "reference":
            return self.image_list
        if self.num_examples is not None or self.flags.correlated:
            return "imagenet_50k"
        return "robustbench"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["order"], d["severities"] = list(self.order), list(self.severities)
        return d

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> StreamConfig:
        """The config a manifest stores, checked again as if given by hand."""
        return resolve_config(
            dataset=doc["dataset"],
            setting=doc["setting"],
            order=doc["order"] if doc.get("order_name") == "custom" else doc["order_name"],
            severities=doc["severities"],
            num_examples=doc["num_examples"],
            delta=doc["delta"],
            seed=doc["seed"],
            batch_size=doc["batch_size"],
            rounds=doc["rounds"] if SETTINGS[doc["setting"]].recurring else None,
            image_list=doc["image_list"],
        )


def resolve_name(kind: str, name: object, choices: Sequence[str], arg: str) -> str:
    """``name`` as one of ``choices`` (case, ``-`` and spaces forgiven), or a :class:`StreamError`
    naming the closest."""
    key = canonical_name(name) if isinstance(name, str) else None
    if key in choices:
        return key  # type: ignore[return-value]
    raise StreamError(
        Arg(arg),
        f": unknown {kind} {name!r}{suggest(str(name), choices)} (known: {', '.join(choices)})",
    )


def _order(order: str | Sequence[str] | None, dataset: str) -> tuple[tuple[str, ...], str]:
    if order is None:
        name = DATASETS[dataset].order
        return ORDERS[name], name
    if isinstance(order, str) and "," in order:
        order = [part for part in order.split(",") if part.strip()]
    elif isinstance(order, str):
        key = canonical_name(order)
        if key not in ORDERS and key in _domain_names():
            return (key,), "custom"  # one domain
        name = resolve_name("order", order, list(ORDERS), "order")
        return ORDERS[name], name
    names = tuple(canonical_name(str(n)) for n in order)
    if not names:
        raise StreamError(Arg("order"), " is empty: name at least one domain")
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise StreamError(Arg("order"), f" names {', '.join(twice)} twice")
    return names, "custom"


def _domain_names() -> set[str]:
    from ..registry import corruption_specs

    return {spec.name for spec in corruption_specs(None)}


def _positive_int(value: object, arg: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise StreamError(Arg(arg), f" must be {what} >= 1, got {value!r}")
    return int(value)


def _severities(severities: int | Sequence[int] | None) -> tuple[int, ...]:
    if severities is None:
        return DEFAULT_SEVERITIES
    values = [severities] if isinstance(severities, (int, numbers.Integral)) else list(severities)
    out: list[int] = []
    for s in values:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral) or not 1 <= int(s) <= 5:
            raise StreamError(Arg("severities"), f" must be integers 1..5, got {s!r}")
        out.append(int(s))
    if not out:
        raise StreamError(Arg("severities"), " is empty: give at least one severity 1..5")
    return tuple(out)


def _delta(delta: float | None, flags: Setting, setting: str) -> float | None:
    if delta is None:
        return None
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise StreamError(Arg("delta"), f" must be a number > 0, got {delta!r}")
    if not 0 < float(delta) < math.inf:  # also NaN
        raise StreamError(
            Arg("delta"),
            f" must be a finite number > 0, got {delta!r} (leave it out to sort each block by "
            "label)",
        )
    if not flags.correlated:
        raise StreamError(
            Arg("delta"), f" applies to the correlated settings only, not to {setting!r}"
        )
    return float(delta)


def resolve_config(
    *,
    dataset: str,
    setting: str = "continual",
    order: str | Sequence[str] | None = None,
    severities: int | Sequence[int] | None = None,
    num_examples: int | None = None,
    delta: float | None = None,
    seed: int = DEFAULT_SEED,
    batch_size: int | None = None,
    rounds: int | None = None,
    image_list: str = "reference",
) -> StreamConfig:
    """Check and complete a stream's settings (the defaults of :mod:`.settings`).

    Raises:
        StreamError: an unknown dataset, setting, order or image list (with the closest name),
            severities outside 1..5, ``num_examples`` / ``batch_size`` / ``rounds`` < 1,
            ``delta`` <= 0 or given to a setting that is not correlated, ``rounds`` given to a
            setting that is not recurring, a non-integer seed.
    """
    dataset = resolve_name("dataset", dataset, list(DATASETS), "dataset")
    setting = resolve_name("setting", setting, list(SETTINGS), "setting")
    flags = SETTINGS[setting]
    names, order_name = _order(order, dataset)
    if num_examples is not None and not isinstance(num_examples, bool) and num_examples == -1:
        num_examples = None  # the reference's NUM_EX = -1: every image (its default)
    if num_examples is not None:
        num_examples = _positive_int(num_examples, "num_examples", "an image count")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise StreamError(Arg("seed"), f" must be an integer >= 0, got {seed!r}")
    size = DATASETS[dataset].batch_size if batch_size is None else batch_size
    size = _positive_int(size, "batch_size", "an image count")
    if rounds is not None and not flags.recurring:
        raise StreamError(Arg("rounds"), f" applies to the recurring setting only, not {setting!r}")
    n_rounds = _positive_int(DEFAULT_ROUNDS if rounds is None else rounds, "rounds", "a count")
    image_list = resolve_name("image list", image_list, list(IMAGE_LISTS), "image_list")
    if image_list != "reference" and not DATASETS[dataset].image_lists and image_list != "data":
        raise StreamError(
            Arg("image_list"), f" {image_list!r} is an ImageNet-C list; {dataset} has none"
        )
    return StreamConfig(
        dataset=dataset,
        setting=setting,
        order=names,
        order_name=order_name,
        severities=_severities(severities),
        num_examples=num_examples,
        delta=_delta(delta, flags, setting),
        seed=int(seed),
        batch_size=size,
        rounds=n_rounds if flags.recurring else 1,
        image_list=image_list,
    )

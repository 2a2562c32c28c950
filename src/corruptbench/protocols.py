"""Evaluation protocols of eval-c: which images, corruptions and severities are evaluated, how the
images are prepared, and which figure makes a result comparable with whom (one table).

``full`` (the default) is the paper's protocol (Hendrycks & Dietterich, "Benchmarking Neural
Network Robustness to Common Corruptions and Perturbations", ICLR 2019): every image the data
holds (the 50,000 ImageNet validation images of the released ImageNet-C), the 19 corruptions
reported and the 15 benchmark ones averaged into the AlexNet-normalised mCE.

``robustbench`` is the ImageNet-C protocol of the RobustBench leaderboard (Croce et al.,
NeurIPS 2021 Datasets and Benchmarks; the ``robustbench`` package 1.1.1 on PyPI):

* images: the 5,000 ``<wnid>/<file>`` ids of ``robustbench/helper_files/imagenet_test_image_ids.txt``
  (:func:`corruptbench.formats.robustbench.robustbench_image_ids`), read from each
  ``<corruption>/<severity>/`` folder by ``robustbench/loaders.py`` ``CustomImageFolder`` (and, for
  the clean accuracy, from the ImageNet ``val/`` folder);
* corruptions and severities: ``robustbench/data.py`` ``CORRUPTIONS`` (the 15 benchmark
  corruptions, in another order) at ``severity in range(1, 6)`` (``robustbench/eval.py``
  ``corruptions_evaluation``);
* preprocessing: ``PREPROCESSINGS['Res224']`` = ``Resize([224, 224])`` for corrupted images
  (``benchmark()`` in ``robustbench/eval.py``): no crop, and on the 224 x 224 ImageNet-C JPEGs
  no resize either (torchvision's ``resize`` returns an image of the requested size unchanged), so
  the images reach the model as stored - what eval-c does with a 224 model. The clean images get
  the model's own preprocessing (``Res256Crop224`` for the zoo's corruption models), as eval-c's
  ``clean=`` does (``Resize(256) + CenterCrop(224)``);
* metric: accuracy. The leaderboard's ``corruptions_acc`` is the mean of the 75 per-cell
  accuracies (``model_results.values.mean()`` in ``corruptions_evaluation``), ``clean_acc`` the
  clean accuracy on the 5,000 images (:func:`leaderboard`). Its ``corruptions_mce`` divides by
  AlexNet's errors measured by RobustBench on the same 5,000 images, not the paper's published
  50,000-image ones that eval-c's ``alexnet`` baseline uses.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import Arg, ArgumentError
from .grid import SEVERITIES, subset_names

__all__ = [
    "EvalProtocol",
    "PROTOCOLS",
    "DEFAULT_PROTOCOL",
    "resolve_protocol",
    "protocol_of",
    "leaderboard",
]


def _robustbench_ids() -> tuple[str, ...]:
    from .formats.robustbench import robustbench_image_ids  # package data, read on first use

    return robustbench_image_ids()


@dataclass(frozen=True)
class EvalProtocol:
    """One named evaluation protocol.

    Attributes:
        name: Its name (``evaluate_c(protocol=...)``, ``eval-c --protocol``, the results'
            ``dataset.protocol``).
        title: One line for reports and help.
        image_ids: The ``<wnid>/<file>`` ids of the images evaluated, in every cell and in the
            clean folder (each must be present); ``None``: every image of the data.
        images_source: Where the ids come from.
        corruptions: The grid subset (:func:`corruptbench.grid.subset_names`) evaluated by
            default; other names are refused when ``image_ids`` fixes the benchmark.
        severities: The severities evaluated by default; likewise.
        image_size: The side the corrupted images have and the model takes, used with no crop
            and no resize; ``None``: any (the model's preprocessing resizes).
        metric: ``"mce"`` (CE / mCE against a baseline) or ``"accuracy"`` (RobustBench's
            ``clean_acc`` / ``corruptions_acc``, :func:`leaderboard`, besides mCE).
        leaderboard_name: Whose leaderboard :func:`leaderboard`'s figures are (display).
    """

    name: str
    title: str
    image_ids: Callable[[], tuple[str, ...]] | None
    images_source: str
    corruptions: str
    severities: tuple[int, ...]
    image_size: int | None
    metric: str
    leaderboard_name: str = ""

    @property
    def fixed(self) -> bool:
        """Whether the protocol fixes the images (then ``limit`` is refused)."""
        return self.image_ids is not None

    def corruption_names(self) -> tuple[str, ...]:
        """The protocol's corruptions, in the reference order."""
        return subset_names("c", self.corruptions)


#: every protocol by name
PROTOCOLS: dict[str, EvalProtocol] = {
    "full": EvalProtocol(
        name="full",
        title="every image of the data (ImageNet-C: the 50,000 validation images), "
        "19 corruptions reported, mCE over the 15 benchmark ones",
        image_ids=None,
        images_source="the data",
        corruptions="all",
        severities=SEVERITIES,
        image_size=None,
        metric="mce",
    ),
    "robustbench": EvalProtocol(
        name="robustbench",
        title="RobustBench's ImageNet-C leaderboard: its 5,000 validation images, "
        "15 corruptions x 5 severities, mean accuracy",
        image_ids=_robustbench_ids,
        images_source="RobustBench/robustbench helper_files/imagenet_test_image_ids.txt",
        corruptions="benchmark",
        severities=SEVERITIES,
        image_size=224,
        metric="accuracy",
        leaderboard_name="RobustBench",
    ),
}
DEFAULT_PROTOCOL = "full"


def resolve_protocol(name: str) -> EvalProtocol:
    """The protocol called ``name`` (:class:`~corruptbench.errors.ArgumentError` naming
    ``protocol`` and the choices otherwise)."""
    found = PROTOCOLS.get(name) if isinstance(name, str) else None
    if found is None:
        raise ArgumentError(
            Arg("protocol"), f" must be one of {', '.join(PROTOCOLS)}, got {name!r}"
        )
    return found


def protocol_of(dataset_protocol: str | None) -> EvalProtocol | None:
    """The protocol a results file names (``None`` when it names none, e.g. a demo file)."""
    return None if dataset_protocol is None else PROTOCOLS.get(dataset_protocol)


def leaderboard(
    protocol: str | None,
    errors: Mapping[str, Sequence[float | None]],
    clean_error: float | None,
) -> dict[str, Any] | None:
    """The figures a leaderboard of ``protocol`` lists (``None`` for an ``mce`` protocol).

    For ``robustbench`` (fractions; the leaderboard shows ``100 x`` rounded to 2 decimals)::

        clean_acc       = 1 - clean error
        corruptions_acc = mean over the 15 corruptions c and severities s = 1..5 of (1 - E[s, c])

    ``corruptions_acc`` is ``None`` until all 75 cells are measured; ``cells`` says how many are.
    """
    proto = protocol_of(protocol)
    if proto is None or proto.metric != "accuracy":
        return None
    accs = [
        1.0 - e
        for name in proto.corruption_names()
        for s, e in zip(SEVERITIES, errors.get(name) or ())
        if s in proto.severities and e is not None
    ]
    total = len(proto.corruption_names()) * len(proto.severities)
    return {
        "protocol": proto.name,
        "leaderboard": proto.leaderboard_name,
        "clean_acc": None if clean_error is None else 1.0 - clean_error,
        "corruptions_acc": math.fsum(accs) / total if len(accs) == total else None,
        "cells": len(accs),
        "of_cells": total,
    }

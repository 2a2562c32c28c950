"""Checks of an evaluation's inputs against each other, before any work (called from eval-c's
plan in a line, so they live apart from the evaluation loop)."""

from __future__ import annotations

from ..errors import ArgumentError
from ..results import Baseline, MeasuredOn
from .common import EvalError
from .layouts import Layout

__all__ = ["baseline_notes"]


def baseline_notes(baseline: Baseline, layout: Layout, protocol: str) -> list[str]:
    """The notes the results carry about ``baseline`` against this data
    (:meth:`corruptbench.results.Baseline.compare`: another protocol, other images in some
    cells, AlexNet's ImageNet-C errors for Tiny-ImageNet or CIFAR data).

    Raises:
        EvalError: naming ``baseline``, when it was measured on data of another profile.
    """
    here = MeasuredOn(
        layout.profile, protocol, layout.content_fingerprint(), dict(layout.fingerprints)
    )
    try:
        return baseline.compare(here)
    except ArgumentError as exc:
        raise EvalError(*exc.parts) from None

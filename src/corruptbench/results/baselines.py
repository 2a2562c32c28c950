"""The baselines CE / mCE (ImageNet-C) and FR / mFR (ImageNet-P) are normalised by, resolved in
one place for eval-c, eval-p and ``report --baseline``.

A baseline is named by what the user gives:

* ``alexnet``: the published AlexNet errors of the ImageNet-C paper (Hendrycks & Dietterich 2019,
  Table 1; :mod:`corruptbench.tables.alexnet`), ImageNet-C only;
* ``uniform``: no normalisation (CE = mean error over the severities), ImageNet-C only;
* ``auto`` (eval-c): the data's own default (``uniform`` for CIFAR, else ``alexnet``);
* the display label or model id of a result in the same report;
* the path of a results file (eval-c / eval-p, read and validated by :class:`Results`), or for
  ImageNet-P a CSV ``perturbation,fp,t5d`` (:func:`corruptbench.metrics.load_p_baseline`).

:func:`resolve_baseline` checks the name before any evaluation runs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import Arg, ArgumentError
from ..metrics import CSummary, PSummary, load_p_baseline, summarize_p
from .core import Results, summarize_errors

__all__ = ["Baseline", "BUILT_IN_BASELINES", "resolve_baseline"]

#: the baselines that need no file (ImageNet-C only)
BUILT_IN_BASELINES = ("alexnet", "uniform")


@dataclass(frozen=True)
class Baseline:
    """A resolved baseline.

    Attributes:
        name: How results files and reports name it (``alexnet``, ``uniform``, a model label, a
            path).
        c_errors: Per-severity errors of the corruptions the baseline has at every severity, or
            None for a built-in baseline (then ``name`` says which).
        c_clean: The baseline's clean error (for relative CE), when known.
        p: ``{"flip_probability": {...}, "top5_distance": {...}}`` of a measured ImageNet-P
            baseline, or None.
    """

    name: str
    c_errors: Mapping[str, Sequence[float]] | None = None
    c_clean: float | None = None
    p: Mapping[str, Mapping[str, float]] | None = None

    def summarize_c(
        self,
        errors: Mapping[str, Sequence[float | None]],
        clean_error: float | None,
        source: str = "<results>",
    ) -> CSummary:
        """CE, relative CE, mCE ... of ``errors`` against this baseline."""
        if self.c_errors is None and self.name not in BUILT_IN_BASELINES:
            raise ArgumentError(Arg("baseline"), f" {self.name!r} has no ImageNet-C errors")
        base: Any = self.name if self.c_errors is None else self.c_errors
        return summarize_errors(source, errors, clean_error, base, self.c_clean)

    def summarize_p(self, fp: Mapping[str, float], t5d: Mapping[str, float] | None) -> PSummary:
        """FR, T5D ratio, mFR, mT5D of ``fp`` / ``t5d`` against this baseline."""
        return summarize_p(fp, t5d or None, baseline=self.p)


def _refuse(spec: str, why: str) -> ArgumentError:
    return ArgumentError(Arg("baseline"), f" {spec!r}: {why}")


def _from_results(spec: str, ref: Results, need: str) -> Baseline:
    """A baseline measured by another model (``ref``): its ImageNet-C errors (the corruptions
    with all 5 severities) and ImageNet-P numbers, whichever it has; ``need`` must be there."""
    c_errors = c_clean = p = None
    if ref.c is not None:
        complete = {n: v for n, v in ref.c.errors.items() if all(x is not None for x in v)}
        if need == "c" and not complete:
            raise _refuse(spec, "has no corruption with all 5 severities")
        c_errors, c_clean = complete or None, ref.c.clean_error
    elif need == "c":
        raise _refuse(spec, "has no ImageNet-C errors")
    if ref.p is not None:
        p = {"flip_probability": ref.p.flip_probability, "top5_distance": ref.p.top5_distance}
    elif need == "p":
        raise _refuse(spec, "has no ImageNet-P results")
    return Baseline(spec, c_errors=c_errors, c_clean=c_clean, p=p)  # type: ignore[arg-type]


def resolve_baseline(
    spec: str | os.PathLike[str] | Results,
    *,
    need: str,
    auto: str = "alexnet",
    candidates: Sequence[Results] = (),
) -> Baseline:
    """The :class:`Baseline` that ``spec`` names (see the module docstring), for ImageNet-C
    (``need="c"``) or ImageNet-P (``need="p"``) numbers.

    Args:
        spec: A built-in name, ``auto``, a model label or id of ``candidates``, a results file
            (or ImageNet-P CSV), or a :class:`Results`.
        need: ``"c"`` or ``"p"``: which numbers will be normalised.
        auto: What ``auto`` stands for (the data's default).
        candidates: Results a label may name (the other models of a report).

    Raises:
        ArgumentError: naming ``baseline``: unknown name, unreadable file, or a baseline without
            the numbers ``need`` asks for.
    """
    if isinstance(spec, Results):
        return _from_results(spec.label, spec, need)
    text = os.fspath(spec).strip()
    key = auto if text.lower() == "auto" else text
    if key.lower() in BUILT_IN_BASELINES:
        if need == "p":
            raise _refuse(text, "there is no built-in ImageNet-P baseline; give a results file")
        return Baseline(key.lower())
    for res in candidates:
        if key in (res.label, res.model_id):
            return _from_results(key, res, need)
    path = Path(key)
    if not path.is_file():
        if os.sep in key or path.suffix.lower() in (".json", ".csv"):
            raise _refuse(text, "file not found")
        labels = ", ".join(repr(r.label) for r in candidates)
        models = f"a model in the report ({labels}), " if labels else ""
        if need == "p":
            raise _refuse(text, f"not {models}an existing results file or CSV")
        raise _refuse(text, f"not alexnet, uniform, auto, {models}or an existing results file")
    try:
        ref = Results.from_json(path)
    except ValueError as exc:
        if need == "c":
            raise _refuse(text, str(exc)) from None
        try:  # a CSV, or a bare {"flip_probability": ...} mapping
            return Baseline(key, p=load_p_baseline(path))
        except (OSError, ValueError) as exc2:
            raise _refuse(text, str(exc2)) from None
    return _from_results(key, ref, need)

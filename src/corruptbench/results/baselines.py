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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Arg, ArgumentError
from ..metrics import CSummary, PSummary, load_p_baseline, summarize_p
from .core import Results, summarize_errors

__all__ = ["Baseline", "BUILT_IN_BASELINES", "MeasuredOn", "resolve_baseline"]

#: the baselines that need no file (ImageNet-C only)
BUILT_IN_BASELINES = ("alexnet", "uniform")
#: profiles whose data is not ImageNet-C's: AlexNet's published errors are not of their images
_NOT_IMAGENET = {"tiny": "Tiny-ImageNet", "cifar": "CIFAR"}


@dataclass(frozen=True)
class MeasuredOn:
    """What a set of errors was measured on, as far as a results file says: the profile, the
    protocol, the content fingerprint of the whole data and the fingerprint of each cell
    (``run.cell_fingerprints``: its files and the images a ``limit`` picked)."""

    profile: str | None = None
    protocol: str | None = None
    content_fingerprint: str | None = None
    cells: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, res: Results) -> MeasuredOn:
        """What ``res`` was measured on."""
        run = res.run or {}
        cells = run.get("cell_fingerprints")
        return cls(
            res.dataset.profile,
            res.dataset.protocol,
            res.dataset.content_fingerprint,
            {str(k): str(v) for k, v in cells.items()} if isinstance(cells, dict) else {},
        )


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
        measured_on: What a measured baseline's file says it was measured on (None: built-in,
            a CSV).
    """

    name: str
    c_errors: Mapping[str, Sequence[float]] | None = None
    c_clean: float | None = None
    p: Mapping[str, Mapping[str, float]] | None = None
    measured_on: MeasuredOn | None = None

    def compare(self, data: MeasuredOn) -> list[str]:
        """Notes for numbers of ``data`` normalised by this baseline, which every view shows
        (the results' dataset notes): measured on another protocol, or on other images in some
        cells (other files, another ``limit`` subset); AlexNet's published ImageNet-C errors for
        Tiny-ImageNet or CIFAR data. A baseline of another profile is refused: its errors are of
        other image sizes and corruption parameters, so CE would compare unlike things.

        Raises:
            ArgumentError: naming ``baseline``, for a baseline of another profile.
        """
        notes: list[str] = []
        if self.name == "alexnet" and data.profile in _NOT_IMAGENET:
            notes.append(
                f"CE / mCE are normalised by AlexNet's published errors on 224 px ImageNet-C "
                f"(Hendrycks & Dietterich 2019, Table 1), not on {_NOT_IMAGENET[data.profile]} "
                "images: compare them between models evaluated alike, not with the paper's"
            )
        base = self.measured_on
        if base is None:
            return notes
        if base.profile and data.profile and base.profile != data.profile:
            raise _refuse(
                self.name,
                f"was measured on {base.profile!r} data, these results are of {data.profile!r} "
                "data (other image sizes and corruption parameters): CE would compare unlike "
                "errors",
            )
        if base.protocol and data.protocol and base.protocol != data.protocol:
            notes.append(
                f"baseline {self.name} was measured with protocol {base.protocol}, these "
                f"results with {data.protocol}: CE compares errors on other image sets"
            )
        same = base.content_fingerprint and base.content_fingerprint == data.content_fingerprint
        differ = [k for k, v in data.cells.items() if k in base.cells and base.cells[k] != v]
        if differ and not same:
            shown = ", ".join(differ[:4]) + (f" and {len(differ) - 4} more" * (len(differ) > 4))
            notes.append(
                f"baseline {self.name} was measured on other images in {len(differ)} cell"
                f"{'s' * (len(differ) != 1)} ({shown}; other files or another limit subset): "
                "CE there compares errors on different images"
            )
        return notes

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
    return Baseline(
        spec,
        c_errors=c_errors,  # type: ignore[arg-type]
        c_clean=c_clean,
        p=p,  # type: ignore[arg-type]
        measured_on=MeasuredOn.of(ref),
    )


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

"""Resuming an evaluation from its results file, and the state eval-c and eval-p share.

After each finished cell (corruption x severity, or perturbation for eval-p) the results file is
rewritten atomically. Re-running with the same ``out`` keeps every finished cell whose model (id,
preprocessing, weights hash), data fingerprint, seed and ``limit`` match, and evaluates only the
rest. A file written for another model is never overwritten unless ``overwrite=True``.
:class:`RunState` is that logic once: the file, what it resumes, the clock and the ``run`` entry
of every save.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Arg
from ..models import LoadedModel
from ..results import SCHEMA, Results, model_key
from .common import EvalError, Log, RunOptions

__all__ = ["RunState", "load_previous", "model_key"]


def _quiet(_message: str) -> None:
    pass


@dataclass
class RunState:
    """What one eval-c or eval-p run keeps besides its tallies.

    Attributes:
        out: The results file (None: nothing written).
        previous: The results it resumes (:func:`load_previous`), or None.
        info: The results' ``run`` entry: ``limit``, ``seed``, ``batch_size``,
            ``cell_fingerprints``, ``resumed_cells``, ``finished``.
        log: Where progress lines go.
        t0: When this run started (``time.perf_counter``).
    """

    out: Path | None
    previous: Results | None
    info: dict[str, Any]
    log: Log = _quiet
    t0: float = field(default_factory=time.perf_counter)

    @classmethod
    def start(cls, kind: str, model: LoadedModel, run: RunOptions, **info: Any) -> RunState:
        """The state of a new run of ``kind`` (``"c"`` / ``"p"``): ``run.out`` read back when it
        can be resumed (:func:`load_previous`), ``info`` the ``run`` entry's values."""
        out = Path(run.out) if run.out is not None else None
        previous = load_previous(out, kind, model, run.overwrite)
        return cls(
            out, previous, {**info, "resumed_cells": 0, "finished": False}, run.log or _quiet
        )

    def matching(self, limit: int | None, seed: int) -> dict[str, Any] | None:
        """The previous file's cell fingerprints when it was run with this ``limit`` and
        ``seed`` (its finished cells may be kept where their fingerprints match), else None."""
        prun = (self.previous.run or {}) if self.previous is not None else {}
        if self.previous is None or prun.get("limit") != limit or prun.get("seed") != seed:
            return None
        found = prun.get("cell_fingerprints")
        return found if isinstance(found, dict) else {}

    def elapsed(self) -> float:
        """Seconds of evaluation, the resumed file's included."""
        before = (self.previous.time_s or 0.0) if self.previous is not None else 0.0
        return before + time.perf_counter() - self.t0

    def run_entry(self, finished: bool) -> dict[str, Any]:
        """The results' ``run`` entry now."""
        self.info["finished"] = finished
        return self.info

    def save(self, res: Results) -> Results:
        """Write ``res`` to :attr:`out` (atomically) when there is one; return it."""
        if self.out is not None:
            res.to_json(self.out)
        return res

    def kept(self, n: int, what: str = "cell") -> str:
        """``"; OUT keeps the 3 finished cells"`` for an error that ends the run (or ``""``)."""
        if self.out is None:
            return ""
        return f"; {self.out} keeps the {n} finished {what}{'s' * (n != 1)}"


def load_previous(
    out: Path | None, kind: str, model: LoadedModel, overwrite: bool
) -> Results | None:
    """The previous results file at ``out`` (read and validated by :class:`Results`) if it can be
    resumed (same model), else None.

    Raises:
        EvalError: ``out`` is not a valid results file of ``kind``, or holds another model's
            results (and ``overwrite`` is false).
    """
    if out is None or not out.exists() or overwrite:
        return None
    try:
        prev = Results.from_json(out)
    except ValueError as exc:
        raise EvalError(
            f"{out} exists but is not a readable eval-{kind} results file ({exc}); pass ",
            Arg("overwrite"),
            " to replace it or choose another ",
            Arg("out"),
        ) from None
    if prev.kind != kind:
        raise EvalError(
            f"{out} exists and is not an eval-{kind} results file ({SCHEMA}, kind {prev.kind!r}); "
            "pass ",
            Arg("overwrite"),
            " to replace it or choose another ",
            Arg("out"),
        )
    if model_key(prev.model) != model_key(model.info()):
        raise EvalError(
            f"{out} holds results of another model or preprocessing "
            f"({prev.model.get('id')!r}: {prev.model.get('preprocessing')!r}); "
            "refusing to mix them - pass ",
            Arg("overwrite"),
            " to replace the file or choose another ",
            Arg("out"),
        )
    return prev

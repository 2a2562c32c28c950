"""Resuming an evaluation from its results file.

After each finished cell (corruption x severity, or perturbation for eval-p) the results file is
rewritten atomically. Re-running with the same ``out`` keeps every finished cell whose model (id,
preprocessing, weights hash), data fingerprint, seed and ``limit`` match, and evaluates only the
rest. A file written for another model is never overwritten unless ``overwrite=True``.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import Arg
from ..models import LoadedModel
from ..results import SCHEMA, Results, model_key
from .common import EvalError

__all__ = ["load_previous", "model_key"]


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

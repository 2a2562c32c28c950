"""What a model's outputs are, checked before they are counted: logits or probabilities, and
which of them are the data's classes (a class map).

Top-1 / top-5 errors and flip rates read only the order of the outputs, so probabilities would
give the same errors; the calibration statistics (NLL, Brier, ECE) take the softmax of the
outputs, and the softmax of probabilities is a flattened distribution: a model returning
``softmax(z)`` measured as logits gets a wrong ECE with no error anywhere. So outputs whose every
row is non-negative and sums to 1 are refused unless the caller says they are probabilities
(``outputs="probabilities"``, ``--outputs probabilities``); then they are used as such: their
logarithm is the logits (``softmax(log p) = p``).

A class map is ImageNet-R's / ImageNet-A's way of scoring a 1000-class model on a dataset of
fewer classes (hendrycks/imagenet-r, ``eval.py``: ``output[:, indices_in_1k]``): entry ``i`` is
the model output that stands for the data's class ``i``; only those outputs are kept, in that
order, so the data's labels ``0..len(map) - 1`` index them.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import Arg
from ..models import LoadedModel
from .common import EvalError

__all__ = [
    "OUTPUTS",
    "ClassMap",
    "adapt_outputs",
    "check_outputs",
    "looks_like_probabilities",
    "read_class_map",
]

#: what a model returns (``outputs=``, ``--outputs``)
OUTPUTS = ("logits", "probabilities")
#: how far a row's sum may be from 1 and still be a probability vector (float32 softmax over
#: 1000 classes is within ~1e-6; the margin allows float16 models)
SUM_TOLERANCE = 1e-3

ClassMap = Sequence[int] | str | os.PathLike[str]


def check_outputs(outputs: str) -> str:
    """``outputs`` checked against :data:`OUTPUTS`, or :class:`EvalError` naming it."""
    if outputs not in OUTPUTS:
        raise EvalError(Arg("outputs"), f" must be {' or '.join(OUTPUTS)}, got {outputs!r}")
    return outputs


def looks_like_probabilities(out: Any) -> bool:
    """Whether every row of the ``(N, C)`` tensor ``out`` (C > 1) is non-negative and sums to 1
    within :data:`SUM_TOLERANCE`: what a softmax returns, and what logits essentially never are."""
    if out.ndim != 2 or out.shape[0] == 0 or out.shape[1] < 2:
        return False
    return bool((out >= 0).all()) and bool(((out.sum(1) - 1).abs() <= SUM_TOLERANCE).all())


def read_class_map(class_map: ClassMap, num_classes: int) -> tuple[int, ...]:
    """The class map as model output indices: a sequence of ints, or a file holding a JSON list
    or integers separated by white space or commas (one per data class, in the data's label
    order). Each in ``0..num_classes - 1``, none twice, at least two.

    Raises:
        EvalError: naming ``class_map`` and what is wrong.
    """
    source = ""
    values: Any = class_map
    if isinstance(class_map, (str, os.PathLike)):
        path = Path(class_map)
        source = f" ({path})"
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise EvalError(Arg("class_map"), f": cannot read {path}: {exc}") from None
        try:
            values = json.loads(text)
        except (ValueError, RecursionError):
            values = text.replace(",", " ").split()
    try:
        if isinstance(values, (str, bytes, dict)):
            raise TypeError
        items = list(values)
        indices = tuple(int(v) for v in items)
        if any(isinstance(v, (bool, float)) for v in items):
            raise TypeError
    except (TypeError, ValueError):
        raise EvalError(
            Arg("class_map"), f"{source} must be a list of model output indices (ints)"
        ) from None
    bad = [i for i in indices if not 0 <= i < num_classes]
    if bad:
        raise EvalError(
            Arg("class_map"),
            f"{source} has output {bad[0]}, but the model outputs {num_classes} logits "
            f"(0..{num_classes - 1})",
        )
    twice = sorted({i for i in indices if indices.count(i) > 1})
    if twice:
        raise EvalError(Arg("class_map"), f"{source} maps two classes to output {twice[0]}")
    if len(indices) < 2:
        raise EvalError(Arg("class_map"), f"{source} must map at least 2 classes")
    return indices


def _as_logits(out: Any, outputs: str, model_id: str) -> Any:
    """One batch of outputs as logits: refused when ``outputs`` is logits but the batch is
    probabilities, and the reverse; the logarithm of probabilities."""
    import torch

    if outputs == "logits":
        if looks_like_probabilities(out):
            raise EvalError(
                f"model {model_id} returns probabilities (every row is non-negative and sums to "
                "1), not logits: its calibration would be measured on the softmax of "
                "probabilities; pass ",
                Arg("outputs", "probabilities", python='outputs="probabilities"'),
                " (or return the logits)",
            )
        return out
    if not looks_like_probabilities(out):
        sums = out.sum(1)
        raise EvalError(
            Arg("outputs", "probabilities", python='outputs="probabilities"'),
            f" but model {model_id} returned rows that are not probabilities (minimum "
            f"{float(out.min()):.4g}, row sums {float(sums.min()):.4g}..{float(sums.max()):.4g})",
        )
    return torch.log(out.clamp_min(torch.finfo(torch.float32).tiny))


def adapt_outputs(
    model: LoadedModel, outputs: str = "logits", class_map: ClassMap | None = None
) -> LoadedModel:
    """``model`` whose ``predict`` returns checked logits (:func:`_as_logits`), restricted to the
    class map's outputs when one is given; the results' ``model`` entry records both
    (``outputs``), so a results file is resumed only with the same ones. A model returning
    probabilities is refused at its first batch unless ``outputs="probabilities"`` (every batch
    is checked: a row sum is cheap beside the model).

    Raises:
        EvalError: a bad ``outputs`` or ``class_map``; probabilities passed as logits.
    """
    check_outputs(outputs)
    num_classes = model.require_num_classes()
    indices = None if class_map is None else read_class_map(class_map, num_classes)
    inner = model.predict

    def predict(x: Any) -> Any:
        out = _as_logits(inner(x), outputs, model.id)
        return out if indices is None else out[:, list(indices)]

    adapted = dataclasses.replace(
        model,
        num_classes=num_classes if indices is None else len(indices),
        notes=list(model.notes),
    )
    adapted.predict = predict  # type: ignore[method-assign]
    described: dict[str, Any] = {"kind": outputs}
    if indices is not None:
        described["class_map"] = list(indices)
    if outputs != "logits" or indices is not None:
        adapted.outputs = described
    return adapted

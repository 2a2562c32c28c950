"""The evaluation harness behind ``corruptbench eval-c`` and ``eval-p``.

Data
    One :class:`~corruptbench.evaluation.layouts.base.Layout` per dataset layout
    (:mod:`~corruptbench.evaluation.layouts`): ImageNet-C folders, CIFAR-10/100-C arrays, ImageNet-P
    MP4 sequences, CIFAR-10-P arrays, or clean images corrupted on the fly exactly as make-c /
    make-p do (``data=OnTheFly(src)``, the shared :mod:`corruptbench.pipeline` step).

Preprocessing
    Corrupted ImageNet-C images are already at the profile size (224): no ``Resize(256)`` /
    ``CenterCrop(224)`` is applied again (the reference's ``CenterCrop(224)`` is a no-op on them).
    The clean error (``clean=``) uses the benchmark's own preparation of clean images - ImageNet:
    ``Resize(256) + CenterCrop(224)``; CIFAR: none - so clean and corrupted inputs differ only by
    the corruption. Then the model's :class:`~corruptbench.models.Preprocessing` (optional CLAHE,
    resize to the model's input size only if different, ImageNet mean/std).

Protocols
    ``evaluate_c(protocol=...)`` (:mod:`corruptbench.protocols`): ``full``, every image of the
    data (the paper's), or ``robustbench``, exactly RobustBench's 5,000 listed images of each
    cell and of the clean folder, its 15 corruptions x 5 severities and its accuracies.

Throughput
    :mod:`~corruptbench.evaluation.loader`: decoding, corruption and the model's uint8
    preprocessing run in data-loader worker processes; the model runs in the main process.

Resume
    :mod:`~corruptbench.evaluation.resume`: after each finished cell the results file is
    rewritten atomically; a re-run keeps the finished cells whose model and data match.

:func:`evaluate_grid` (also ``corruptbench.evaluate_grid``) calls a user's function once per cell of a
built dataset (any task: detection AP, segmentation mIoU) and summarises P, mPC and rPC
(:mod:`~corruptbench.evaluation.score_grid`); it needs no torch.

:func:`evaluate_c` and :func:`evaluate_p` (also ``corruptbench.evaluate_c`` / ``evaluate_p``) take a
model object (a ``torch.nn.Module`` or any callable from a normalised batch to logits), a model
source string or a :class:`~corruptbench.models.LoadedModel`, and return a
:class:`~corruptbench.results.Results`. The CLI's eval-c / eval-p call them.
"""

from __future__ import annotations

from .common import SEVERITIES, EvalError, RunOptions, stderr_log
from .eval_c import evaluate_c
from .eval_p import evaluate_p
from .layouts import OnTheFly
from .loader import LoadItem, plan_resources, predict_batches, read_item
from .score_grid import evaluate_grid

__all__ = [
    "evaluate_c",
    "evaluate_p",
    "evaluate_grid",
    "EvalError",
    "RunOptions",
    "stderr_log",
    "OnTheFly",
    "SEVERITIES",
    "LoadItem",
    "plan_resources",
    "predict_batches",
    "read_item",
]

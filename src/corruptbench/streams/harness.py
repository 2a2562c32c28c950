"""Online evaluation of a stream: :func:`evaluate_stream`.

Batches in stream order (a block's last batch kept); before a batch marked ``reset`` the
adapter's ``reset()`` is called (test_time.py: before the first domain, and before each domain
in ``reset_each_shift`` settings); then ``step(x)`` gives the batch's logits, which are scored
before anything else happens. Counted per block, per domain (mixed blocks split by domain) and
per (domain, severity) cell, with the calibration of each domain
(:class:`~corruptbench.metrics.calibration.CalibrationStats`, as eval-c keeps it per cell).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import Arg
from ..metrics.calibration import CalibrationStats, stored_bins
from ..models import Preprocessing
from .adapters import make_adapter
from .config import StreamError
from .core import Batch, Stream
from .manifest import sequence_sha256
from .results import Counts, StreamResults

__all__ = ["evaluate_stream", "batch_tensor"]


def batch_tensor(images: np.ndarray, prep: Preprocessing, device: str = "cpu") -> Any:
    """uint8 ``(N, H, W, 3)`` -> the model's normalised float32 ``(N, 3, S, S)`` on ``device``
    (resized to the input size only where the images differ from it)."""
    import torch

    s = prep.input_size
    if images.shape[1:3] != (s, s):
        images = np.stack([prep.prepare(im) for im in images])
    x = torch.from_numpy(np.ascontiguousarray(images.transpose(0, 3, 1, 2))).to(device)
    return prep.normalize(x)


def _loaded(model: Any, stream: Stream, preprocessing: Preprocessing | None) -> Any:
    from ..models import LoadedModel, resolve_model, wrap_model

    if isinstance(model, (str, LoadedModel)):
        if preprocessing is not None:
            raise StreamError(
                Arg("preprocessing"), " goes with a module or callable; this model brings its own"
            )
        return resolve_model(model)
    size = 32 if stream.data.profile == "cifar" else 224
    return wrap_model(model, preprocessing=preprocessing or Preprocessing(input_size=size))


class _Tally:
    """The counts of one evaluation, fed batch by batch."""

    def __init__(self, stream: Stream, bins: int) -> None:
        self.stream = stream
        self.bins = bins
        order = list(stream.config.order)
        self.blocks = [Counts(b.name, severity=b.severity) for b in stream.blocks]
        self.domains = {d: Counts(d) for d in order}
        self.cells: dict[tuple[str, int], Counts] = {}
        self.stats = {d: CalibrationStats(stored_bins(bins)) for d in order}
        self.batches: list[list[int]] = []

    def add(self, batch: Batch, logits: np.ndarray) -> None:
        wrong = logits.argmax(axis=1) != batch.labels
        blk = self.blocks[batch.block]
        blk.n += len(wrong)
        blk.errors += int(wrong.sum())
        self.batches.append([batch.samples[0].index, len(wrong), int(wrong.sum())])
        doms = np.asarray([s.domain for s in batch.samples])
        for d in dict.fromkeys(doms.tolist()):
            here = doms == d
            part = self.domains[d]
            part.n += int(here.sum())
            part.errors += int(wrong[here].sum())
            cell = self.cells.setdefault((d, blk.severity or 0), Counts(d, severity=blk.severity))
            cell.n += int(here.sum())
            cell.errors += int(wrong[here].sum())
            self.stats[d].update(logits[here], batch.labels[here], where=f"{d} batch")

    def results(self, model: dict[str, Any], adapt: str) -> StreamResults:
        domains = [c for c in self.domains.values() if c.n]
        for c in domains:
            c.calibration = self.stats[c.name].summary(self.bins)
        return StreamResults(
            model=model,
            adapt=adapt,
            settings=self.stream.settings,
            sequence_sha256=sequence_sha256(self.stream),
            blocks=self.blocks,
            domains=domains,
            cells=list(self.cells.values()),
            batches=self.batches,
            ece_bins=self.bins,
        )


def evaluate_stream(
    model: Any,
    stream: Stream,
    adapt: Any = "source",
    *,
    preprocessing: Preprocessing | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    workers: int = 0,
    ece_bins: int = 15,
    adapt_options: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> StreamResults:
    """Evaluate ``model`` online on ``stream`` (module docstring).

    Args:
        model: a model source string (``"efficientnet_lite0"``), a
            :class:`~corruptbench.models.LoadedModel`, a ``torch.nn.Module`` or a callable from
            the normalised batch to logits.
        stream: the stream (:func:`corruptbench.streams.stream`).
        adapt: ``"source"``, ``"norm"``, ``"tent"`` (on a copy of the model), or an object with
            ``step(x) -> logits`` and ``reset()`` (``x``: the normalised float batch), or a
            callable used as ``step``.
        preprocessing: a module's (default: the data's size, ImageNet mean / std).
        device: where the model runs (default: the model's).
        batch_size: default the stream's.
        workers: processes reading / corrupting batches ahead of the model.
        ece_bins: ECE bins of the calibration.
        adapt_options: ``tent``: ``method`` (``adam`` / ``sgd``), ``lr``, ``steps``;
            ``norm``: ``eps``, ``momentum``.
        progress: called with (batches done, batches in all) after each batch.

    Raises:
        StreamError: an unknown method, a model a method cannot adapt.
    """
    import torch

    loaded = _loaded(model, stream, preprocessing)
    dev = device or loaded.device or "cpu"
    module = loaded.module
    if adapt == "source" and module is None:
        adapter: Any = make_adapter(loaded.forward, None, stream.config.dataset)
        name = "source"
    else:
        adapter = make_adapter(adapt, module, stream.config.dataset, **(adapt_options or {}))
        name = adapt if isinstance(adapt, str) else type(adapt).__name__
    if isinstance(adapt, str) and hasattr(adapter, "module"):
        adapter.module.to(dev)
    tally = _Tally(stream, ece_bins)
    total = stream.num_batches(batch_size)
    for k, batch in enumerate(stream.batches(batch_size, workers)):
        if batch.reset:
            adapter.reset()
        out = adapter.step(batch_tensor(batch.images, loaded.preprocessing, dev))
        if isinstance(out, (tuple, list)):
            out = out[0]
        logits = (
            out.detach().to("cpu", torch.float64).numpy()
            if hasattr(out, "detach")
            else np.asarray(out, dtype=np.float64)
        )
        if logits.ndim != 2 or logits.shape[0] != len(batch.labels):
            raise StreamError(
                f"the model returned shape {tuple(logits.shape)} for a batch of {len(batch.labels)}; "
                "expected (N, classes) logits"
            )
        tally.add(batch, logits)
        if progress is not None:
            progress(k + 1, total)
    info = loaded.info()
    info["num_classes"] = info.get("num_classes") or (int(logits.shape[1]) if total else None)
    return tally.results(info, name)

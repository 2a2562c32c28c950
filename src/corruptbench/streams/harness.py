"""Online evaluation of a stream: :func:`evaluate_stream`.

Any stream of the :class:`~.protocol.OnlineStream` protocol: a TTA setting's
:class:`~.core.Stream` or a CCC run (:class:`corruptbench.ccc.CCCStream`, on the fly or from
its shards). Batches in stream order (a block's last batch kept); before a batch marked
``reset`` the adapter's ``reset()`` is called (test_time.py: before the first domain, and
before each domain in ``reset_each_shift`` settings; never in CCC, a continual run); then
``step(x)`` gives the batch's logits, which are scored before anything else happens. Counted
per block (a CCC walk step; a batch across two steps is split between them), per domain (mixed
blocks split by domain) and per (domain, severity) cell, with the calibration of each domain
(:class:`~corruptbench.metrics.calibration.CalibrationStats`, as eval-c keeps it per cell), and
per batch (``[first index, n, errors]``: the per-batch accuracy CCC's ``eval.py`` logs).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import Arg
from ..metrics.calibration import CalibrationStats, stored_bins
from ..models import Preprocessing
from ..results.parts import DatasetInfo
from ..results.stream_part import Counts
from .adapters import adapter_options, make_adapter
from .checkpoint import load_checkpoint, save_checkpoint
from .config import StreamError
from .core import Batch
from .protocol import OnlineStream
from .results import StreamResults

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


def _loaded(model: Any, stream: OnlineStream, preprocessing: Preprocessing | None) -> Any:
    from ..models import LoadedModel, resolve_model, wrap_model

    if isinstance(model, (str, LoadedModel)):
        if preprocessing is not None:
            raise StreamError(
                Arg("preprocessing"), " goes with a module or callable; this model brings its own"
            )
        return resolve_model(model)
    size = stream.image_size
    return wrap_model(model, preprocessing=preprocessing or Preprocessing(input_size=size))


class _Tally:
    """The counts of one evaluation, fed batch by batch."""

    def __init__(self, stream: OnlineStream, bins: int, batch_size: int | None) -> None:
        self.stream = stream
        self.bins = bins
        # the results say the batch size used: the one given, not the stream's default
        given = {} if batch_size is None else {"batch_size": batch_size}
        self.settings = {**stream.settings, **given}
        order = list(stream.domains)
        self.blocks = [Counts(b.name, severity=b.severity) for b in stream.blocks]
        self.starts = np.asarray([b.start for b in stream.blocks], dtype=np.int64)
        self.domains = {d: Counts(d) for d in order}
        self.cells: dict[tuple[str, int], Counts] = {}
        self.stats = {d: CalibrationStats(stored_bins(bins)) for d in order}
        self.batches: list[list[int]] = []

    def add(self, batch: Batch, logits: np.ndarray) -> None:
        wrong = logits.argmax(axis=1) != batch.labels
        self.batches.append([batch.samples[0].index, len(wrong), int(wrong.sum())])
        index = np.asarray([s.index for s in batch.samples], dtype=np.int64)
        which = np.searchsorted(self.starts, index, side="right") - 1  # each sample's block
        doms = np.asarray([s.domain for s in batch.samples])
        for b in dict.fromkeys(which.tolist()):
            inside = which == b
            blk = self.blocks[b]
            blk.n += int(inside.sum())
            blk.errors += int(wrong[inside].sum())
            for d in dict.fromkeys(doms[inside].tolist()):
                here = inside & (doms == d)
                self._count(d, blk.severity, here, wrong)
        for d in dict.fromkeys(doms.tolist()):
            here = doms == d
            stats = self.stats.setdefault(d, CalibrationStats(stored_bins(self.bins)))
            stats.update(logits[here], batch.labels[here], where=f"{d} batch")

    def _count(self, d: str, severity: Any, here: np.ndarray, wrong: np.ndarray) -> None:
        n, errors = int(here.sum()), int(wrong[here].sum())
        part = self.domains.setdefault(d, Counts(d))
        part.n += n
        part.errors += errors
        cell = self.cells.setdefault((d, severity or 0), Counts(d, severity=severity))
        cell.n += n
        cell.errors += errors

    def state(self) -> dict[str, Any]:
        """Everything counted so far, as JSON-able values (calibration sums are exact integers)."""
        return {
            "blocks": [vars(c).copy() for c in self.blocks],
            "domains": [vars(c).copy() for c in self.domains.values()],
            "cells": [vars(c).copy() for c in self.cells.values()],
            "stats": {d: st.to_dict() for d, st in self.stats.items()},
            "batches": self.batches,
        }

    def restore(self, state: dict[str, Any]) -> None:
        self.blocks = [Counts(**c) for c in state["blocks"]]
        self.domains = {c["name"]: Counts(**c) for c in state["domains"]}
        self.cells = {(c["name"], c["severity"] or 0): Counts(**c) for c in state["cells"]}
        self.stats = {d: CalibrationStats.from_dict(v) for d, v in state["stats"].items()}
        self.batches = [list(b) for b in state["batches"]]

    def results(
        self, model: dict[str, Any], adapt: str, options: dict[str, Any], digest: str, time_s: float
    ) -> StreamResults:
        domains = [c for c in self.domains.values() if c.n]
        for c in domains:
            c.calibration = self.stats[c.name].summary(self.bins)
        return StreamResults(
            model=model,
            adapt=adapt,
            adapt_options=options,
            settings=self.settings,
            sequence_sha256=digest,
            blocks=self.blocks,
            domains=domains,
            cells=list(self.cells.values()),
            batches=self.batches,
            ece_bins=self.bins,
            dataset=DatasetInfo(path=self.stream.where, layout=self.stream.kind),
            time_s=round(time_s, 3),
        )


def evaluate_stream(
    model: Any,
    stream: OnlineStream,
    adapt: Any = "source",
    *,
    preprocessing: Preprocessing | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    workers: int = 0,
    ece_bins: int = 15,
    adapt_options: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: int = 20,
) -> StreamResults:
    """Evaluate ``model`` online on ``stream`` (module docstring).

    Args:
        model: a model source string (``"efficientnet_lite0"``), a
            :class:`~corruptbench.models.LoadedModel`, a ``torch.nn.Module`` or a callable from
            the normalised batch to logits.
        stream: the stream (:func:`corruptbench.streams.stream`, or a CCC run:
            :meth:`corruptbench.ccc.CCCStream.create` / :meth:`~corruptbench.ccc.CCCStream.open`).
        adapt: ``"source"``, ``"norm"``, ``"tent"`` (on a copy of the model), or an object with
            ``step(x) -> logits`` and ``reset()`` (``x``: the normalised float batch), or a
            callable used as ``step``.
        preprocessing: a module's (default: the data's size, ImageNet mean / std).
        device: where the model runs (default: the model's).
        batch_size: default the stream's.
        workers: processes reading / corrupting batches ahead of the model.
        ece_bins: ECE bins of the calibration.
        adapt_options: ``tent``: ``method`` (``adam`` / ``sgd``), ``lr``, ``steps``;
            ``norm``: ``eps``, ``momentum`` (the rest at their defaults:
            :func:`~.adapters.adapter_options`); refused for a method that does not take them.
        progress: called with (batches done, batches in all) after each batch.
        checkpoint: a file where the counts and the adapter's state are saved every
            ``checkpoint_every`` batches (:mod:`.checkpoint`); an evaluation interrupted and
            started again with the same file resumes from it to the same numbers; one of
            another evaluation (stream, batch size, method, its options, model, ``ece_bins``)
            is refused, naming what differs. Removed when the evaluation ends.

    Raises:
        StreamError: an unknown method, an option it does not take or a bad value (``lr`` -1),
            a model a method cannot adapt.
    """
    import time

    import torch

    began = time.perf_counter()
    stream.check_images()
    if isinstance(adapt, str):  # resolved and checked before the model loads
        options = adapter_options(adapt, stream.dataset, adapt_options)
    else:  # an adapter of yours takes none: make_adapter refuses them
        options = dict(adapt_options or {})
    loaded = _loaded(model, stream, preprocessing)
    dev = device or loaded.device or "cpu"
    adapter = _adapter(adapt, loaded, stream.dataset, options, dev)
    name = adapt if isinstance(adapt, str) else type(adapt).__name__
    tally = _Tally(stream, ece_bins, batch_size)
    total = stream.num_batches(batch_size)
    digest = stream.sequence_sha256()
    key = {
        "sequence_sha256": digest,
        "settings": stream.identity,  # the resets too: same samples, other setting
        "adapt": name,
        "adapt_options": options,  # another lr would go on from this one's optimiser state
        "batches": total,
        "model": loaded.info().get("weights_sha256"),
        "ece_bins": ece_bins,  # the calibration sums so far are binned
    }
    start = 0
    if checkpoint is not None:
        saved = load_checkpoint(checkpoint, key)
        if saved is not None:
            start = int(saved["next_batch"])
            tally.restore(saved["tally"])
            _load_adapter(adapter, saved["adapter"])
    for k, batch in enumerate(stream.batches(batch_size, workers, start=start), start):
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
        if checkpoint is not None and (k + 1) % checkpoint_every == 0 and k + 1 < total:
            save_checkpoint(checkpoint, key, k + 1, tally.state(), _adapter_state(adapter))
        if progress is not None:
            progress(k + 1, total)
    info = loaded.info()
    info["num_classes"] = info.get("num_classes") or (
        int(logits.shape[1]) if start < total else None
    )
    if checkpoint is not None:
        Path(checkpoint).unlink(missing_ok=True)
    return tally.results(info, name, options, digest, time.perf_counter() - began)


def _adapter(adapt: Any, loaded: Any, dataset: str, options: dict[str, Any], dev: str) -> Any:
    """The adapter of ``adapt`` on ``dev`` (``source`` of a plain callable: the callable)."""
    if adapt == "source" and loaded.module is None:
        return make_adapter(loaded.forward, None, dataset, **options)
    adapter = make_adapter(adapt, loaded.module, dataset, **options)
    if isinstance(adapt, str):  # a copy of the model, made here: moved where it runs
        adapter.module.to(dev)
    return adapter


def _adapter_state(adapter: Any) -> dict[str, Any]:
    if not hasattr(adapter, "state_dict"):
        raise StreamError(
            Arg("checkpoint"),
            f" needs an adapter with state_dict() / load_state_dict(); {type(adapter).__name__} "
            "has none",
        )
    return dict(adapter.state_dict())


def _load_adapter(adapter: Any, state: dict[str, Any]) -> None:
    _adapter_state(adapter)  # the same refusal
    adapter.load_state_dict(state)

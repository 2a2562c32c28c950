"""A test-time-adaptation stream: samples in order, batches with resets, manifest and CSV.

The interface other streams (CCC) follow too: ``settings``, ``len()``, ``samples``,
``batches(batch_size=None, workers=0)``, ``manifest()``, ``to_csv(path)``; and what the harness
needs (:class:`~.protocol.OnlineStream`).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

from ..errors import Arg
from ..processes import bounded_map, worker_pool
from ..profiles import PROFILES
from .config import StreamConfig, StreamError, resolve_config
from .data import DataLike, StreamData, open_data
from .manifest import CSV_COLUMNS, read_manifest, sequence_sha256, stream_manifest, write_csv
from .sequence import Block, StreamSequence, build_sequence
from .settings import DATASETS

__all__ = ["Sample", "Batch", "Stream", "stream", "replay", "CSV_COLUMNS"]

#: the columns of a stream's CSV export


@dataclass(frozen=True)
class Sample:
    """One sample of a stream: its position, domain, severity, image id and label."""

    index: int
    domain: str
    severity: int | float | str
    id: str
    label: int


@dataclass
class Batch:
    """Consecutive samples of one block: ``images`` uint8 ``(N, H, W, 3)``, ``labels`` int64
    ``(N,)``; ``reset``: reset the model before this batch."""

    images: np.ndarray
    labels: np.ndarray
    samples: list[Sample]
    reset: bool = False
    block: int = field(default=0, compare=False)  #: position of the batch's block in the stream


class SampleView(Sequence[Sample]):
    """The samples of a sequence, made on access (a 750,000-sample stream holds four arrays)."""

    def __init__(self, seq: StreamSequence) -> None:
        self._seq = seq

    def __len__(self) -> int:
        return len(self._seq)

    @overload
    def __getitem__(self, i: int) -> Sample: ...
    @overload
    def __getitem__(self, i: slice) -> list[Sample]: ...
    def __getitem__(self, i: int | slice) -> Sample | list[Sample]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                return [self[k] for k in range(start, stop, step)]
            return [Sample(*row) for row in self._seq.rows(start, stop)]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        k = i % n
        return Sample(*next(self._seq.rows(k, k + 1)))

    def __iter__(self) -> Iterator[Sample]:
        step = 65536
        for start in range(0, len(self), step):
            yield from self[start : start + step]


def _read_batch(job: tuple[Any, list[Any]]) -> np.ndarray:
    """A worker's job: the images of one batch, stacked."""
    reader, payloads = job
    images = [np.asarray(reader.read(p), dtype=np.uint8) for p in payloads]
    shapes = {im.shape for im in images}
    if len(shapes) > 1:
        raise StreamError(
            f"a batch mixes image sizes {sorted(shapes)}; a stream needs images of one size"
        )
    return np.stack(images)


class Stream:
    """A stream built from data and settings (:func:`stream`); see the module docstring."""

    def __init__(self, config: StreamConfig, data: StreamData, sequence: StreamSequence) -> None:
        self.config = config
        self.data = data
        self.sequence = sequence

    @property
    def settings(self) -> dict[str, Any]:
        """What made the stream: the config, and where the data is."""
        return {**self.config.to_dict(), "data": self.data.where, "data_kind": self.data.kind}

    @property
    def identity(self) -> dict[str, Any]:
        """What a checkpoint must match (:class:`~.protocol.OnlineStream`): the config, the
        resets included (same samples, other setting)."""
        return self.config.to_dict()

    @property
    def dataset(self) -> str:
        return self.config.dataset

    @property
    def image_size(self) -> int:
        """The side of the dataset's images (its profile's: 32 CIFAR, 64 Tiny, 224 ImageNet)."""
        return PROFILES[DATASETS[self.config.dataset].profile].size

    @property
    def domains(self) -> list[str]:
        return list(self.config.order)

    @property
    def where(self) -> str | None:
        return self.data.where

    @property
    def kind(self) -> str:
        return self.data.kind

    def sequence_sha256(self) -> str:
        """SHA-256 of the CSV export (:func:`.manifest.sequence_sha256`)."""
        return sequence_sha256(self)

    def check_images(self) -> None:
        """Refuse a stream built from an id list alone."""
        if self.data.kind == "ids":
            raise StreamError(
                Arg("data"), " is needed: this stream was built from the id list alone (no images)"
            )

    @property
    def samples(self) -> SampleView:
        return SampleView(self.sequence)

    @property
    def blocks(self) -> list[Block]:
        return self.sequence.blocks

    def __len__(self) -> int:
        return len(self.sequence)

    def __repr__(self) -> str:
        c = self.config
        return (
            f"Stream({c.dataset}, {c.setting}, order {c.order_name}, {len(self):,} samples in "
            f"{len(self.blocks)} blocks, batch {c.batch_size})"
        )

    def _jobs(self, size: int, start: int) -> Iterator[tuple[int, int, int, bool]]:
        """``(block, begin, end, reset)`` of each batch from batch number ``start`` on."""
        k = 0
        for b, block in enumerate(self.blocks):
            count = -(-len(block) // size)
            if k + count <= start:  # the whole block is skipped
                k += count
                continue
            first = block.start + max(0, start - k) * size
            for begin in range(first, block.stop, size):
                reset = block.reset and begin == block.start
                yield b, begin, min(begin + size, block.stop), reset
            k += count

    def num_batches(self, batch_size: int | None = None) -> int:
        size = batch_size or self.config.batch_size
        return sum(-(-len(b) // size) for b in self.blocks)

    def batches(
        self, batch_size: int | None = None, workers: int = 0, *, start: int = 0
    ) -> Iterator[Batch]:
        """The batches in stream order (a block's last batch kept, as ``drop_last=False``);
        ``workers`` > 0 reads and corrupts them in that many processes, ahead of the caller;
        ``start``: skip the first batches (a resumed evaluation). The pixels do not depend on
        ``workers``."""
        size = self.config.batch_size if batch_size is None else batch_size
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise StreamError(Arg("batch_size"), f" must be an image count >= 1, got {size!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
            raise StreamError(Arg("workers"), f" must be a count >= 0, got {workers!r}")
        jobs = self._jobs(size, start)
        seq, data = self.sequence, self.data

        def job(begin: int, end: int) -> tuple[Any, list[Any]]:
            doms, sevs, ids = (a[begin:end].tolist() for a in (seq.domain, seq.severity, seq.id))
            return data.reader, [
                data.payload(seq.domains[d], s, i) for d, s, i in zip(doms, sevs, ids)
            ]

        def batch(b: int, begin: int, end: int, reset: bool, images: np.ndarray) -> Batch:
            return Batch(images, seq.label[begin:end].copy(), self.samples[begin:end], reset, b)

        if workers == 0:
            for b, begin, end, reset in jobs:
                yield batch(b, begin, end, reset, _read_batch(job(begin, end)))
            return
        pending: deque[tuple[int, int, int, bool]] = deque()

        def feed() -> Iterator[tuple[Any, list[Any]]]:
            for desc in jobs:  # taken as the batches are consumed, in order
                pending.append(desc)
                yield job(desc[1], desc[2])

        # spawn: the workers fork no threads of this process; bounded: at most two batches per
        # worker made ahead of a slower model (Pool.imap made them all)
        with worker_pool(workers, context="spawn") as pool:
            for images in bounded_map(pool, _read_batch, feed(), 2 * workers):
                b, begin, end, reset = pending.popleft()
                yield batch(b, begin, end, reset, images)

    def manifest(self) -> dict[str, Any]:
        return stream_manifest(self)

    def to_csv(self, path: Any) -> None:
        """Write the sequence as CSV (``index,domain,severity,id,label``), atomically."""
        write_csv(self, path)


def stream(
    data: DataLike | None,
    dataset: str | None = None,
    setting: str = "continual",
    *,
    order: str | Sequence[str] | None = None,
    severities: int | Sequence[int] | None = None,
    num_examples: int | None = None,
    delta: float | None = None,
    seed: int | None = None,
    batch_size: int | None = None,
    rounds: int | None = None,
    image_list: str = "reference",
    corruption_seed: int = 0,
) -> Stream:
    """A test-time-adaptation stream over ``data`` (a CIFAR-C or ImageNet-C style folder, or
    :class:`~corruptbench.evaluation.layouts.OnTheFly` clean images) in ``setting``.

    Args:
        data: the images.
        dataset: ``cifar10_c``, ``cifar100_c``, ``imagenet_c``, ``tiny_imagenet_c``,
            ``imagenet_c_bar``, ``cifar10_c_bar`` (default: ``cifar10_c`` for a folder with
            ``labels.npy``, else ``imagenet_c``).
        setting: a name of :data:`~.settings.SETTINGS`.
        order: ``canonical``, ``cotta0`` .. ``cotta9``, or a list of domains.
        severities: severities (default 5; gradual: 1,2,3,4,5,4,3,2,1 from one severity).
        num_examples: the reference's ``NUM_EX`` (a random subset of each block).
        delta: Dirichlet delta of correlated settings (default: sorted by label).
        seed: ``RNG_SEED`` (default 1).
        batch_size: default 200 on CIFAR, 64 on ImageNet.
        rounds: repetitions of the order (``recurring``; default 20).
        image_list: ImageNet-C's images: ``reference`` (RobustBench's 5,000, or the 50,000
            list when ``num_examples`` is set or the setting is correlated), ``robustbench``,
            ``imagenet_50k``, or ``data`` (every image of the folder, sorted).
        corruption_seed: make-c's base seed for images corrupted on the fly.

    Raises:
        StreamError: bad settings or data, in one line.
    """
    from .settings import DEFAULT_SEED

    if dataset is None:
        dataset = _default_dataset(data)
    config = resolve_config(
        dataset=dataset,
        setting=setting,
        order=order,
        severities=severities,
        num_examples=num_examples,
        delta=delta,
        seed=DEFAULT_SEED if seed is None else seed,
        batch_size=batch_size,
        rounds=rounds,
        image_list=image_list,
    )
    return build_stream(config, data, corruption_seed=corruption_seed)


def _default_dataset(data: DataLike | None) -> str:
    """``cifar10_c`` for a folder with ``labels.npy`` or CIFAR-sized clean images, else
    ``imagenet_c``."""
    from pathlib import Path

    from ..evaluation.layouts import OnTheFly, default_profile

    if isinstance(data, OnTheFly):
        try:
            return "cifar10_c" if default_profile(data.open()) == "cifar" else "imagenet_c"
        except ValueError:
            return "imagenet_c"  # open_data says what is wrong
    if data is None:
        return "imagenet_c"
    root = Path(data)
    if (root / "shards.json").is_file():
        from ..layouts.webdataset import read_index

        try:
            return "cifar10_c" if read_index(root).get("media") == "png" else "imagenet_c"
        except ValueError:
            return "imagenet_c"  # open_data says what is wrong
    return "cifar10_c" if (root / "labels.npy").is_file() else "imagenet_c"


def build_stream(
    config: StreamConfig, data: DataLike | None, *, corruption_seed: int = 0
) -> Stream:
    """The stream of a resolved config over ``data``."""
    opened = open_data(data, config, seed=corruption_seed)
    return Stream(config, opened, build_sequence(config, opened))


def _differences(want: dict[str, str], have: dict[str, str]) -> list[str]:
    keys = list(dict.fromkeys([*want, *have]))
    return [k for k in keys if want.get(k) != have.get(k)]


def replay(
    manifest: str | os.PathLike[str] | dict[str, Any],
    data: DataLike,
    *,
    corruption_seed: int | None = None,
    batch_size: int | None = None,
) -> Stream:
    """The stream a manifest describes, over ``data``; in batches of ``batch_size`` when given
    (else the manifest's: the sequence does not depend on it, its settings then say the size).

    Raises:
        StreamError: another format or version; data of another dataset or with other
            fingerprints (naming the parts that differ); a sequence with another SHA-256.
    """
    doc = read_manifest(manifest)
    try:
        settings = doc["settings"]
        if batch_size is not None:  # checked with the rest
            settings = {**settings, "batch_size": batch_size}
        config = StreamConfig.from_dict(settings)
        fingerprints = dict(doc["data"]["fingerprints"])
        want_hash = str(doc["sequence_sha256"])
    except (KeyError, TypeError) as exc:
        raise StreamError(Arg("manifest"), f": incomplete stream manifest (no {exc})") from None
    seed = corruption_seed
    if seed is None:
        seed = int(fingerprints.get("corruption_seed", 0))
    stream = build_stream(config, data, corruption_seed=seed)
    diff = _differences(fingerprints, stream.data.fingerprints)
    if diff:
        shown = ", ".join(diff[:5]) + (", ..." if len(diff) > 5 else "")
        raise StreamError(
            Arg("data"),
            f" {stream.data.where} is not the data of the manifest ({doc['data'].get('where')}): "
            f"{len(diff)} part(s) differ: {shown}",
        )
    got = sequence_sha256(stream)
    if got != want_hash:
        raise StreamError(
            f"the replayed sequence differs from the manifest's (SHA-256 {got[:12]} != "
            f"{want_hash[:12]})"
        )
    return stream

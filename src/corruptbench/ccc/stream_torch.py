"""A CCC run made on the fly with the corruptions on torch (:class:`~corruptbench.ccc.runs.CCCStream`
with ``backend="torch"``).

Per shard, as the NumPy path (:func:`corruptbench.ccc.generate.shard_samples`): the same picks
(the shard's shuffles), the same flips and crops (its PyTorch crop generator, image after image)
and the same pairs and severities; then each step's crops, in chunks of :data:`CHUNK` images, go
through :func:`corruptbench.ccc.batch.corrupt_pair_batch` on ``device`` and back, and each image
through the sample's JPEG (quality 85) and its decode, as a reader of the shards gets it (on
``torch.get_num_threads()`` threads: the encoder and decoder release the GIL).

Statistically equivalent to the NumPy stream, not byte-identical: the corruptions' draws come
from a ``torch.Generator`` on ``device`` seeded per shard from the shard's NumPy generator after
its shuffles (where the NumPy path's corruption draws continue), so a run is reproducible on the
same kind of device, and images at severity 0 + 0 equal the NumPy stream's. The crops are made
in this process chunk by chunk, or in worker processes a chunk per call (:func:`crop_jobs`: the
crop draws depend on the images' sizes alone, so the boxes are drawn here from the files'
headers, in order, and the chunks are independent: the same images for any worker count, memory
~ a few chunks however large the shards).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import groupby
from typing import Any

import numpy as np
import torch

from ..errors import Arg, ArgumentError
from ..formats.images import image_size, load_image
from ..processes import bounded_map
from ..torch.library import map_images
from .batch import corrupt_pair_batch
from .generate import (
    CropBox,
    SampleRecord,
    Source,
    apply_crop,
    crop_box,
    crops_generator,
    sample_jpeg,
    shard_records,
)
from .plan import Shard

__all__ = [
    "CHUNK",
    "Chunk",
    "check_device",
    "iter_crops",
    "crop_jobs",
    "make_crops",
    "corrupt_chunks",
    "torch_shard_images",
]

#: images per corruption call: a step's crops are corrupted this many at a time (fixed, so the
#: images do not depend on the consumer's batch size or the worker count)
CHUNK = 64

#: a step's records and their clean crops (at most :data:`CHUNK`)
Chunk = tuple[list[SampleRecord], list[np.ndarray]]


def check_device(device: Any) -> str:
    """The type of ``device`` (``"cpu"``, ``"cuda"``, ...) if torch can allocate there, else one
    line naming it."""
    try:
        dev = torch.device(device)
        torch.empty(0, device=dev)
    except (RuntimeError, TypeError, ValueError, AssertionError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ArgumentError(Arg("device"), f" {device!r} is not usable here: {msg}") from None
    return dev.type


def iter_crops(shard: Shard, source: Source, seed: int, draws: str) -> tuple[int, Iterator[Chunk]]:
    """The seed of the shard's corruption generator, and its crops chunk by chunk (made here, as
    iterated: :func:`crop_jobs` made by :func:`make_crops`)."""
    corruption_seed, jobs = crop_jobs(shard, source, seed, draws)
    return corruption_seed, (make_crops(job) for job in jobs)


#: a chunk's crops to make in a worker process: its records, their files and crop boxes
CropJob = tuple[list[SampleRecord], list[Any], list[CropBox]]


def crop_jobs(shard: Shard, source: Source, seed: int, draws: str) -> tuple[int, Iterator[CropJob]]:
    """:func:`iter_crops` with the crops left to be made: the seed of the shard's corruption
    generator, and per chunk the records, files and boxes (the crop draws depend on the images'
    sizes alone, read from their headers here, in order, as the chunks are taken)."""
    records, rng = shard_records(shard, source, seed, draws)
    corruption_seed = int(rng.randint(0, 2**63 - 1, dtype=np.int64))
    g = crops_generator(shard, seed, draws)

    def jobs() -> Iterator[CropJob]:
        for _, group in groupby(records, key=lambda r: r.step.index):
            recs = list(group)
            for lo in range(0, len(recs), CHUNK):
                part = recs[lo : lo + CHUNK]
                paths = [source.paths[rec.source] for rec in part]
                yield part, paths, [crop_box(*image_size(p), g) for p in paths]

    return corruption_seed, jobs()


def make_crops(job: CropJob) -> Chunk:
    """A chunk's clean crops (a worker process's job): the records and the crops."""
    part, paths, boxes = job
    return part, [np.asarray(apply_crop(load_image(p), box)) for p, box in zip(paths, boxes)]


def corrupt_chunks(
    corruption_seed: int,
    chunks: Iterable[Chunk],
    device: torch.device,
    decode: Callable[[bytes], np.ndarray],
) -> Iterator[tuple[SampleRecord, np.ndarray]]:
    """A shard's records and images: each chunk's two corruptions on ``device``, then each image's
    JPEG q85 round trip (``decode`` of the bytes)."""
    gen = torch.Generator(device=device).manual_seed(corruption_seed)

    def round_trip(img: np.ndarray) -> np.ndarray:
        return decode(sample_jpeg(img))

    for recs, crops in chunks:
        step = recs[0].step
        x = torch.as_tensor(np.stack(crops)).permute(0, 3, 1, 2).contiguous().to(device)
        y = corrupt_pair_batch(x, step.n1, step.s1, step.n2, step.s2, generator=gen)
        made = y.permute(0, 2, 3, 1).cpu().numpy()
        yield from zip(recs, map_images(round_trip, list(made)))


def torch_shard_images(
    jobs: Iterable[tuple[Shard, Source, int, str]],
    device: torch.device,
    decode: Callable[[bytes], np.ndarray],
    pool: Any = None,
    ahead: int = 1,
) -> Iterator[tuple[SampleRecord, np.ndarray]]:
    """The shards' records and images in order; ``pool`` (an executor): their crops made a chunk
    at a time in its worker processes (at most ``2 * ahead`` chunks ahead of the consumer), else
    here chunk by chunk."""
    if pool is None:
        for job in jobs:
            yield from corrupt_chunks(*iter_crops(*job), device, decode)
        return

    def tagged() -> Iterator[tuple[int, int, CropJob]]:
        for job in jobs:
            corruption_seed, chunk_jobs = crop_jobs(*job)
            for cj in chunk_jobs:
                yield job[0].serial, corruption_seed, cj

    made = bounded_map(pool, _make_tagged, tagged(), 2 * max(1, ahead))
    for (_, corruption_seed), group in groupby(made, key=lambda t: (t[0], t[1])):
        yield from corrupt_chunks(corruption_seed, (c for _, _, c in group), device, decode)


def _make_tagged(item: tuple[int, int, CropJob]) -> tuple[int, int, Chunk]:
    serial, corruption_seed, job = item
    return serial, corruption_seed, make_crops(job)

"""A CCC run's images in order, made or read a chunk at a time (what :class:`~corruptbench.ccc.runs.CCCStream`
yields), with memory that does not grow with the shard size.

Made with the NumPy functions: a shard's draws run through its images in order (its corruptions
draw as many values as the pixels ask for), so a shard is one chain of calls of :data:`CHUNK`
images each, its NumPy and PyTorch generators' states passed from call to call: the same images
as one call per shard, for any chunk size and worker count. ``workers`` processes make that many
shards side by side (:func:`corruptbench.processes.chained_map`); each chunk comes back as its
samples' JPEG bytes (the sample's quality-85 JPEG, ~15-40 KB, against 150 KB decoded), decoded
here, by up to :data:`DECODE_THREADS` threads, when the consumer reaches it. Memory: about
``workers`` shards of JPEG bytes (25,000 images x ~25 KB: ~0.6 GB a worker), where whole decoded
shards took 3.8 GB each, twice over while pickled; the first batch comes after one chunk, not
one shard.

Read from a written run: the tar files in order in this process, the JPEGs decoded the same way.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np

from ..processes import chained_map
from .generate import (
    SampleRecord,
    Source,
    crops_generator,
    make_sample,
    shard_records,
    shard_samples,
)
from .plan import Shard

__all__ = ["CHUNK", "DECODE_THREADS", "decode", "decode_in_order", "made_jpegs", "make_chunk"]

#: images per call of a shard's chain (~1.5 s of one core at 224 px: the first batch's wait)
CHUNK = 256

#: the most threads decoding in the consuming process (a decode takes ~0.4 ms and releases the
#: GIL: 4 threads decode more images a second than 16 making processes give)
DECODE_THREADS = 4

M = TypeVar("M")

#: a chain's argument: the shard, the run's seed and draws, the images per call, the first image
#: of the call, the NumPy generator's state and the crops generator's (None: the shard's start)
ChunkArg = tuple[Shard, int, str, int, int, Any, Any]


def decode(jpeg: bytes) -> np.ndarray:
    """A sample's JPEG as a reader of the shards gets it (libjpeg-turbo, exact DCT, RGB)."""
    import simplejpeg

    return simplejpeg.decode_jpeg(jpeg, colorspace="RGB", fastdct=False, fastupsample=False)


def decode_in_order(
    items: Iterable[tuple[M, bytes]], threads: int
) -> Iterator[tuple[M, np.ndarray]]:
    """``(meta, decode(jpeg))`` for each ``(meta, jpeg)``, in order; ``threads > 0``: a chunk at a
    time on up to :data:`DECODE_THREADS` threads."""
    if threads <= 0:
        for meta, jpeg in items:
            yield meta, decode(jpeg)
        return
    it = iter(items)
    with ThreadPoolExecutor(min(threads, DECODE_THREADS), thread_name_prefix="ccc-decode") as pool:
        while chunk := list(itertools.islice(it, CHUNK)):
            yield from zip((m for m, _ in chunk), pool.map(decode, [j for _, j in chunk]))


_WORKER: dict[str, Source] = {}


def _init_worker(source: Source) -> None:
    """A making process's source listing, given once (not with every chunk)."""
    _WORKER["source"] = source


@functools.lru_cache(maxsize=64)
def _shard_start(shard: Shard, seed: int, draws: str) -> tuple[list[SampleRecord], Any]:
    """The shard's records and its NumPy generator's state after the picks (per process: each
    chunk of a shard needs them; the picks take a few shuffles of the listing)."""
    records, rng = shard_records(shard, _WORKER["source"], seed, draws)
    return records, rng.get_state()


def make_chunk(arg: ChunkArg) -> tuple[list[tuple[SampleRecord, bytes]], ChunkArg | None]:
    """One call of a shard's chain (in a making process): ``chunk`` samples' JPEGs from the given
    generator states, and the next call's argument (None after the shard's last image)."""
    import torch

    shard, seed, draws, chunk, first, np_state, crop_state = arg
    source = _WORKER["source"]
    records, picked = _shard_start(shard, seed, draws)
    rng = np.random.RandomState()
    rng.set_state(picked if np_state is None else np_state)
    if crop_state is None:
        g = crops_generator(shard, seed, draws)
    else:
        g = torch.Generator()
        g.set_state(crop_state)
    part = records[first : first + chunk]
    made = [(rec, make_sample(rec, source, rng, g)) for rec in part]
    end = first + len(part)
    nxt = (
        None
        if end >= len(records)
        else (shard, seed, draws, chunk, end, rng.get_state(), g.get_state())
    )
    return made, nxt


def made_jpegs(
    shards: Iterable[Shard],
    source: Source,
    seed: int,
    draws: str,
    workers: int,
    chunk: int = CHUNK,
) -> Iterator[tuple[SampleRecord, bytes]]:
    """The shards' samples and JPEG bytes in order: here, or ``workers`` shards at a time in
    making processes, ``chunk`` images per call (the same bytes for any ``workers`` and
    ``chunk``)."""
    if workers <= 0:
        for shard in shards:
            yield from shard_samples(shard, source, seed, draws)
        return
    chains = ((shard, seed, draws, chunk, 0, None, None) for shard in shards)
    with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(source,)) as pool:
        for made in chained_map(pool, make_chunk, chains, workers):
            yield from made

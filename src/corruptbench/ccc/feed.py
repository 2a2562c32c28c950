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

Read from a written run: the tar files in order in this process (each sample checked against the
step the run records for it), the JPEGs decoded the same way.
"""

from __future__ import annotations

import functools
import itertools
import tarfile
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np

from ..errors import ArgumentError
from ..formats.webdataset import iter_samples
from ..processes import chained_map, worker_pool
from ..streams.core import Sample
from .generate import (
    SampleRecord,
    Source,
    crops_generator,
    make_sample,
    parse_info,
    shard_records,
    shard_samples,
)
from .plan import Shard

__all__ = [
    "CHUNK",
    "DECODE_THREADS",
    "check_count",
    "decode",
    "decode_in_order",
    "made_jpegs",
    "made_sample",
    "make_chunk",
    "read_jpegs",
    "read_sample",
]

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
    with worker_pool(workers, _init_worker, (source,)) as pool:
        for made in chained_map(pool, make_chunk, chains, workers):
            yield from made


# -- read from a written run ------------------------------------------------------------------


def read_jpegs(shards: Iterable[tuple[Shard, str]]) -> Iterator[tuple[Sample, bytes]]:
    """The samples and JPEG bytes of written shards, in order: each sample's key and ``info``
    checked against the run's steps (a shard renamed or moved is refused, not evaluated under
    the wrong steps), each shard's count checked; a damaged tar file named in one line."""
    for shard, tar in shards:
        n = 0
        try:
            for key, members in iter_samples(tar):
                yield _checked_sample(shard, n, tar, key, members), members["input.jpg"]
                n += 1
        except (OSError, tarfile.TarError) as exc:
            raise ArgumentError(
                f"{tar} is damaged ({exc}); run 'corruptbench ccc generate' again to re-make it"
            ) from None
        check_count(tar, n, shard)


def _checked_sample(
    shard: Shard, n: int, tar: str, key: str, members: Mapping[str, bytes]
) -> Sample:
    """Sample ``n`` of a written shard, if it is the one the run records there."""
    try:
        sample = read_sample(shard.first_image + n, members)
        members["input.jpg"]
    except (KeyError, ValueError) as exc:
        raise ArgumentError(f"{tar}: sample {key}: not a CCC sample ({exc})") from None
    step = shard.steps[min(n // shard.speed, len(shard.steps) - 1)]
    expected = (f"sample_{n}", f"{step.n1}+{step.n2}", f"{step.s1}+{step.s2}")
    if (key, sample.domain, sample.severity) != expected:
        raise ArgumentError(
            f"{tar}: sample {n} is {key} with {sample.domain} at {sample.severity}, but the run "
            f"records {expected[0]} with {expected[1]} at {expected[2]} there (a shard renamed, "
            "moved or from another run); run 'corruptbench ccc generate' again to re-make it"
        )
    return sample


def check_count(tar: str, n: int, shard: Shard) -> None:
    """Refuse a shard file that holds another number of samples than the run records."""
    if n != len(shard):
        raise ArgumentError(f"{tar} holds {n} samples; the run records {len(shard)}")


def made_sample(rec: SampleRecord, source: Source) -> Sample:
    """The :class:`Sample` of a sample made from ``source``."""
    c, f = source.names[rec.source]
    s = rec.step
    return Sample(rec.index, f"{s.n1}+{s.n2}", f"{s.s1}+{s.s2}", f"{c}/{f}", rec.label)


def read_sample(index: int, members: Mapping[str, bytes]) -> Sample:
    """The :class:`Sample` of a written sample (its ``info`` and ``output.cls``): the one
    :func:`made_sample` gave when it was made."""
    f = parse_info(members["info"].decode())
    label = int(members["output.cls"].decode())
    return Sample(
        index, f"{f['n1']}+{f['n2']}", f"{f['s1']}+{f['s2']}", f"{f['dir']}/{f['name']}", label
    )

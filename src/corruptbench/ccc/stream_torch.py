"""A CCC run made on the fly with the corruptions on torch (:class:`~corruptbench.ccc.runs.CCCStream`
with ``backend="torch"``).

Per shard, as the NumPy path (:func:`corruptbench.ccc.generate.shard_samples`): the same picks
(the shard's shuffles), the same flips and crops (its PyTorch crop generator, image after image)
and the same pairs and severities; then each step's crops, in chunks of :data:`CHUNK` images, go
through :func:`corruptbench.ccc.batch.corrupt_pair_batch` on ``device`` and back, and each image
through the sample's JPEG (quality 85) and its decode, as a reader of the shards gets it.

Statistically equivalent to the NumPy stream, not byte-identical: the corruptions' draws come
from a ``torch.Generator`` on ``device`` seeded per shard from the shard's NumPy generator after
its shuffles (where the NumPy path's corruption draws continue), so a run is reproducible on the
same kind of device, and images at severity 0 + 0 equal the NumPy stream's. The crops and JPEGs
stay on the CPU in this process.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from typing import Any

import numpy as np
import torch

from .batch import corrupt_pair_batch
from .generate import Source, crop_sample, crops_generator, sample_jpeg, shard_records
from .plan import Shard

__all__ = ["CHUNK", "torch_shard_images"]

#: images per corruption call: a step's crops are corrupted this many at a time (fixed, so the
#: images do not depend on the consumer's batch size)
CHUNK = 64


def _corrupt_chunk(
    crops: list[np.ndarray], step: Any, device: torch.device, gen: Any
) -> np.ndarray:
    x = torch.as_tensor(np.stack(crops)).permute(0, 3, 1, 2).contiguous().to(device)
    y = corrupt_pair_batch(x, step.n1, step.s1, step.n2, step.s2, generator=gen)
    return y.permute(0, 2, 3, 1).cpu().numpy()


def torch_shard_images(
    shard: Shard,
    source: Source,
    seed: int,
    draws: str,
    device: torch.device,
    decode: Any,
) -> Iterator[tuple[Any, np.ndarray]]:
    """The shard's records and images (JPEG q85 round trip, ``decode`` of the bytes), in order."""
    records, rng = shard_records(shard, source, seed, draws)
    g = crops_generator(shard, seed, draws)
    gen = torch.Generator(device=device).manual_seed(int(rng.randint(0, 2**63 - 1, dtype=np.int64)))
    for _, group in groupby(records, key=lambda r: r.step.index):
        recs = list(group)
        for lo in range(0, len(recs), CHUNK):
            chunk = recs[lo : lo + CHUNK]
            crops = [crop_sample(rec, source, g) for rec in chunk]
            made = _corrupt_chunk(crops, chunk[0].step, device, gen)
            for rec, img in zip(chunk, made):
                yield rec, decode(sample_jpeg(img))

"""The order of a stream's samples, block by block, as the reference feeds its model.

A *block* is one call of the reference's ``get_test_loader`` (mariodoebler/test-time-adaptation
commit 8b2ed63, ``classification/datasets/data_loading.py``): one domain at one severity, or
every domain at once in a mixed setting. Each block re-seeds the generators with the seed, so
every block of one length is shuffled the same way. In a block:

1. the base list: for each domain of the block, the images of its cell in the data's order
   (CIFAR: the rows; ImageNet-C: the id list);
2. ``random.shuffle`` (Python's Mersenne Twister seeded with the seed);
3. with ``num_examples``: ``random.sample(samples, k=min(num_examples, len))``;
4. correlated settings: a stable sort by label, or with ``delta`` the Dirichlet sort
   (:func:`dirichlet_order`) on NumPy's legacy generator seeded with the seed.

Batches never span blocks: the reference builds one DataLoader per block (``drop_last=False``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..errors import Arg
from .config import StreamConfig, StreamError

__all__ = [
    "Block",
    "Catalog",
    "StreamSequence",
    "plan_blocks",
    "order_block",
    "dirichlet_order",
    "build_sequence",
    "MIN_CHUNK",
    "MAX_ATTEMPTS",
]

#: sort_by_dirichlet's ``min_size_thresh``: every chunk needs at least this many samples
MIN_CHUNK = 10
#: Dirichlet draws tried before giving up (the reference gives up after 120 s of wall clock)
MAX_ATTEMPTS = 10_000


@dataclass(frozen=True)
class Block:
    """One block of the stream: ``domains`` at ``severity``, samples ``[start, stop)``;
    ``reset``: the model is reset before its first batch. ``name``: the domain, or ``mixed``."""

    name: str
    domains: tuple[str, ...]
    severity: int
    reset: bool
    start: int = 0
    stop: int = 0

    def __len__(self) -> int:
        return self.stop - self.start


class Catalog(Protocol):
    """What the sequence needs of the data: an id table, and per cell the ids (codes into the
    table) and labels in the reference's base order."""

    ids: tuple[str, ...]

    def cell(self, domain: str, severity: int) -> tuple[np.ndarray, np.ndarray]: ...


def plan_blocks(config: StreamConfig) -> list[Block]:
    """The blocks of ``config``, in order, with their resets (test_time.py's loop: a reset
    before the first domain, and before each domain in ``reset_each_shift`` settings)."""
    flags = config.flags
    loop = [("mixed", config.order)] if flags.mixed else [(d, (d,)) for d in config.order]
    out = []
    for r in range(config.rounds):
        for i, (name, domains) in enumerate(loop):
            reset = (r == 0 and i == 0) or flags.reset_each_shift
            for j, severity in enumerate(config.schedule()):
                out.append(Block(name, domains, severity, reset and j == 0))
    return out


def dirichlet_order(
    labels: np.ndarray,
    delta: float,
    rng: np.random.RandomState,
    *,
    max_attempts: int = MAX_ATTEMPTS,
) -> np.ndarray:
    """Positions of ``labels`` in a temporally correlated order (data_loading.py
    ``sort_by_dirichlet``, after NOTE, Gong et al. 2022).

    There are as many chunks as classes (``max(labels) + 1``). Per attempt, for each class in
    turn: its positions are shuffled, split across the chunks by proportions drawn from
    Dirichlet(delta, ..., delta), where chunks already holding ``len / chunks`` samples get
    none (renormalised); an attempt succeeds when every chunk holds at least :data:`MIN_CHUNK`
    samples. Then each chunk is emitted class by class in a shuffled class order. The draws are
    those of NumPy's legacy generator, in the reference's order, so the result is the
    reference's whenever the reference finishes (it gives up after 120 s of wall clock, a
    number of attempts that depends on the machine; here after ``max_attempts`` attempts, and
    at once when fewer than ``MIN_CHUNK`` x chunks samples make success impossible).

    Raises:
        StreamError: no attempt succeeded.
    """
    n = len(labels)
    classes = int(np.max(labels) + 1)
    chunks = classes
    if n < MIN_CHUNK * chunks:  # no split can succeed: the reference spins for its 120 s
        raise StreamError(
            f"a Dirichlet-sorted block needs at least {MIN_CHUNK} samples per class slot "
            f"({MIN_CHUNK} x {chunks} = {MIN_CHUNK * chunks}); this block has {n}: leave out ",
            Arg("delta"),
            " to sort by label, or use more samples",
        )
    share = n / chunks
    by_class = [np.where(labels == k)[0] for k in range(classes)]
    for _ in range(max_attempts):
        sizes = np.zeros(chunks, dtype=np.int64)
        drawn: list[tuple[np.ndarray, np.ndarray, bool]] = []  # positions, bounds / cuts, sliced
        for k in range(classes):
            idx = by_class[k].copy()
            rng.shuffle(idx)
            p = rng.dirichlet(np.repeat(delta, chunks))
            p = np.where(sizes < share, p, 0.0)
            with np.errstate(invalid="ignore", divide="ignore"):
                p = p / p.sum()
                cuts = (np.cumsum(p) * len(idx)).astype(int)[:-1]
            bounds = np.concatenate(([0], cuts, [len(idx)]))
            if (np.diff(bounds) >= 0).all() and bounds[-2] <= len(idx):
                sizes += np.diff(bounds)  # np.split's pieces, without making them
                drawn.append((idx, bounds, True))
            else:  # cuts np.split reads otherwise (no proportion left: NaN)
                pieces = np.split(idx, cuts)
                sizes += np.asarray([len(q) for q in pieces])
                drawn.append((idx, cuts, False))
        if sizes.min() >= MIN_CHUNK:
            break
    else:
        raise StreamError(
            "no Dirichlet split with ",
            Arg("delta"),
            f" {delta:g} gave each of the {chunks} "
            f"chunks {MIN_CHUNK} of the {n} samples in {max_attempts:,} attempts (the reference "
            "gives up after 120 s); try a larger delta",
        )
    parts: list[list[np.ndarray]] = [[] for _ in range(chunks)]
    for idx, marks, sliced in drawn:
        if sliced:
            pieces = [idx[a:b] for a, b in zip(marks[:-1].tolist(), marks[1:].tolist())]
        else:
            pieces = np.split(idx, marks)
        for j, piece in enumerate(pieces):
            parts[j].append(piece)
    out: list[np.ndarray] = []
    for chunk in parts:
        cls_seq = list(range(classes))
        rng.shuffle(cls_seq)
        out.extend(chunk[c] for c in cls_seq)
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def order_block(labels: np.ndarray, config: StreamConfig) -> np.ndarray:
    """Positions into a block's base list, in stream order (steps 2-4 of the module docstring)."""
    n = len(labels)
    rnd = random.Random(config.seed)
    pos = list(range(n))
    rnd.shuffle(pos)
    if config.num_examples is not None:
        pos = rnd.sample(pos, k=min(config.num_examples, n))
    out = np.asarray(pos, dtype=np.int64)
    if config.flags.correlated:
        picked = labels[out]
        if config.delta is not None:
            out = out[dirichlet_order(picked, config.delta, np.random.RandomState(config.seed))]
        else:
            out = out[np.argsort(picked, kind="stable")]
    return out


@dataclass
class StreamSequence:
    """A stream's samples as arrays (codes into :attr:`domains` and :attr:`ids`), and its blocks."""

    domains: tuple[str, ...]
    ids: tuple[str, ...]
    domain: np.ndarray  #: int16 codes into ``domains``
    severity: np.ndarray  #: int16
    id: np.ndarray  #: int64 codes into ``ids``
    label: np.ndarray  #: int64
    blocks: list[Block]

    def __len__(self) -> int:
        return int(self.label.shape[0])

    def rows(
        self, start: int = 0, stop: int | None = None
    ) -> Iterator[tuple[int, str, int, str, int]]:
        """``(index, domain, severity, id, label)`` of samples ``[start, stop)``."""
        stop = len(self) if stop is None else stop
        doms, ids = self.domains, self.ids
        d, s, i, y = (
            a[start:stop].tolist() for a in (self.domain, self.severity, self.id, self.label)
        )
        for k in range(stop - start):
            yield start + k, doms[d[k]], s[k], ids[i[k]], y[k]


def build_sequence(config: StreamConfig, catalog: Catalog) -> StreamSequence:
    """The stream of ``config`` over ``catalog``: every block's base list ordered by
    :func:`order_block`, concatenated."""
    domains = tuple(dict.fromkeys(config.order))
    code = {d: i for i, d in enumerate(domains)}
    parts: list[tuple[np.ndarray, ...]] = []
    blocks: list[Block] = []
    start = 0
    for block in plan_blocks(config):
        cells = [catalog.cell(d, block.severity) for d in block.domains]
        ids = np.concatenate([c[0] for c in cells]).astype(np.int64)
        labels = np.concatenate([c[1] for c in cells]).astype(np.int64)
        dom = np.concatenate(
            [np.full(len(c[0]), code[d], dtype=np.int16) for d, c in zip(block.domains, cells)]
        )
        pos = order_block(labels, config)
        parts.append((dom[pos], np.full(len(pos), block.severity, np.int16), ids[pos], labels[pos]))
        blocks.append(
            Block(block.name, block.domains, block.severity, block.reset, start, start + len(pos))
        )
        start += len(pos)
    empty = (
        np.zeros(0, np.int16),
        np.zeros(0, np.int16),
        np.zeros(0, np.int64),
        np.zeros(0, np.int64),
    )
    cols = [np.concatenate([p[k] for p in parts]) if parts else empty[k] for k in range(4)]
    return StreamSequence(domains, tuple(catalog.ids), cols[0], cols[1], cols[2], cols[3], blocks)

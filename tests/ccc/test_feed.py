"""A run's images made a chunk at a time in worker processes: the same samples and JPEG bytes as
one pass per shard, for any chunk size and worker count; decoded in order by threads."""

from __future__ import annotations

import numpy as np
import pytest

from ccc.test_generate import MATRICES
from corruptbench.ccc.feed import decode, decode_in_order, made_jpegs
from corruptbench.ccc.runs import CCCStream, generate
from corruptbench.formats.jpeg import encode_jpeg
from support import IMAGENET_SAMPLE, need_shared

# three shards of 8 images (steps of 4): chunks of 3 cut steps and shards unevenly
RUN = {"baseline": 20, "speed": 4, "seed": 44, "images": 20, "images_per_shard": 8}


@pytest.fixture(scope="module")
def stream():
    pytest.importorskip("torch")
    need_shared()
    return CCCStream.create(IMAGENET_SAMPLE, MATRICES, **RUN)


def _made(stream, workers, chunk=3):
    plan, source = stream.plan, stream.source
    return list(made_jpegs(plan.shards, source, plan.seed, stream.draws, workers, chunk=chunk))


@pytest.mark.slow
def test_chunks_in_two_workers_make_the_same_bytes_as_one_pass(stream):
    assert [len(sh) for sh in stream.plan.shards] == [8, 8, 8]  # the run ends at a shard's end
    one_pass = _made(stream, 0)
    chunked = _made(stream, 2, chunk=3)
    assert [r for r, _ in chunked] == [r for r, _ in one_pass]
    assert [r.index for r, _ in chunked] == list(range(24))
    assert [j for _, j in chunked] == [j for _, j in one_pass]
    # and the stream's images (decoded by threads) are those bytes decoded
    images = np.concatenate([b.images for b in stream.batches(6, workers=2)])
    assert all(np.array_equal(images[k], decode(j)) for k, (_, j) in enumerate(one_pass))


@pytest.mark.slow
def test_a_written_run_read_with_decode_threads_equals_the_run_made(stream, tmp_path):
    folder = generate(IMAGENET_SAMPLE, MATRICES, tmp_path, **RUN)
    read = [(b.samples, b.images) for b in CCCStream.open(folder).batches(7, workers=2)]
    made = [(b.samples, b.images) for b in stream.batches(7)]
    assert [s for s, _ in read] == [s for s, _ in made] and len(read) == 4
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(read, made))


def test_decode_in_order_with_threads_keeps_the_order():
    rng = np.random.default_rng(0)
    arrays = [rng.integers(0, 256, (16 + k, 24, 3), dtype=np.uint8) for k in range(300)]
    items = [(k, encode_jpeg(a, 85)) for k, a in enumerate(arrays)]
    plain = list(decode_in_order(items, 0))
    threaded = list(decode_in_order(iter(items), 3))
    assert [k for k, _ in threaded] == list(range(300))
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(plain, threaded))
    assert plain[7][1].shape == (23, 24, 3)

"""Does a CCC run made on the fly keep a model busy? The stream alone, the model alone and both
together (``evaluate_stream``), images per second by the wall clock, in one run on one machine.

Usage::

    .venv/bin/python benchmarks/ccc_feed.py        # here: EfficientNet-Lite0 on the CPU, 2 workers
    python benchmarks/ccc_feed.py --model "torchvision:resnet50?weights=none" --device cuda \\
        --workers 16 --images 16384                 # issue 32's question on a 16-core GPU machine

The stream: :class:`~corruptbench.ccc.runs.CCCStream` over ``--data`` (default the test photos),
NumPy backend (the bytes ``ccc generate`` writes), steps of 64 images of the benchmark's seeded
corruption pairs (CCC-Medium's 13, severities on the 0.25 grid), shards of ``--shard-images``
(small, so that a short run has at least ``--workers`` shards: a full run's are 25,000), read as
batches of 64 with ``--workers`` processes. The model alone: the adapter's step (``--adapt``:
source, norm, tent) on one batch of 64 already in memory, its logits brought back to the host
as the harness does, after a warm-up. Together: ``evaluate_stream`` of the model on the stream
with the same workers. The stream keeps the model busy when "together" is close to "model
alone"; where it is close to "stream alone" instead, the cores are the bound (more workers).
(The pairs come from benchmarks/ccc.py, whose import sets one thread for NumPy, OpenCV and numba,
as each worker process is one core; a model on the CPU then runs on one thread too.)

Measured on the shared 2-core machine, with other jobs running (so a low bound): the stream of
512 images in shards of 128 gave 67 images/s with 2 workers, EfficientNet-Lite0 with tent on one
CPU thread 6 images/s alone and 4 together; no GPU was lent to this work.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
PHOTOS = REPO.parent / "shared" / "data" / "imagenet-sample"


def make_stream(data: str, images: int, per_shard: int):  # type: ignore[no-untyped-def]
    from ccc import cases  # the benchmark's seeded pairs (benchmarks/ccc.py)
    from corruptbench.ccc.generate import scan_source
    from corruptbench.ccc.plan import RunPlan, Step, group_shards
    from corruptbench.ccc.runs import CCCStream

    speed = 64
    todo = cases(max(1, images // speed), with_glass=True)
    steps = [Step(k, a, b, s1, s2) for k, (a, s1, b, s2) in enumerate(todo)]
    plan = RunPlan(
        20.0, speed, 0, len(steps) * speed, per_shard, (), group_shards(steps, speed, per_shard)
    )
    return CCCStream(plan, scan_source(data))


def stream_alone(stream, workers: int) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    n = sum(len(b.labels) for b in stream.batches(64, workers=workers))
    return n / (time.perf_counter() - t0)


def model_alone(model: str, adapt: str, device: str, batches: int) -> float:
    import torch

    from corruptbench.models import load_model
    from corruptbench.streams.adapters import make_adapter
    from corruptbench.streams.harness import batch_tensor

    loaded = load_model(model, device=device)
    adapter = make_adapter(adapt, loaded.module, "imagenet_c")
    if hasattr(adapter, "module"):
        adapter.module.to(device)
    images = np.random.RandomState(0).randint(0, 256, (64, 224, 224, 3), dtype=np.uint8)
    for _ in range(3):  # warm-up: kernels, allocator, the optimiser's state
        adapter.step(batch_tensor(images, loaded.preprocessing, device)).to("cpu")
    t0 = time.perf_counter()
    for _ in range(batches):
        adapter.step(batch_tensor(images, loaded.preprocessing, device)).to("cpu")
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return 64 * batches / (time.perf_counter() - t0)


def together(stream, model: str, adapt: str, device: str, workers: int) -> float:  # type: ignore[no-untyped-def]
    from corruptbench.streams.harness import evaluate_stream

    t0 = time.perf_counter()
    res = evaluate_stream(model, stream, adapt, device=device, batch_size=64, workers=workers)
    assert sum(b.n for b in res.blocks) == len(stream)  # every image evaluated, counted
    return len(stream) / (time.perf_counter() - t0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", default=str(PHOTOS), help="source images (class folders or wnid files)"
    )
    parser.add_argument("--model", default="efficientnet_lite0")
    parser.add_argument("--adapt", default="tent", help="source | norm | tent (default tent)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--images", type=int, default=1024, help="images in the stream")
    parser.add_argument("--shard-images", type=int, default=256, help="images per shard")
    parser.add_argument("--model-batches", type=int, default=10, help="batches timed, model alone")
    args = parser.parse_args()
    if not Path(args.data).is_dir():
        print(f"needs source images: --data (default {PHOTOS})")
        return 1
    stream = make_stream(args.data, args.images, args.shard_images)
    print(f"{stream!r}; {args.workers} workers; model {args.model} ({args.adapt}) on {args.device}")
    s = stream_alone(stream, args.workers)
    print(f"stream alone:  {s:8.0f} images/s")
    m = model_alone(args.model, args.adapt, args.device, args.model_batches)
    print(f"model alone:   {m:8.0f} images/s")
    t = together(stream, args.model, args.adapt, args.device, args.workers)
    print(
        f"together:      {t:8.0f} images/s ({t / m:.0%} of the model alone, {t / s:.0%} of the stream alone)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

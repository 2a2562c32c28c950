"""CCC's corruption pairs on the torch backend against the NumPy functions, images per second.

Usage::

    .venv/bin/python benchmarks/ccc_torch.py                  # small: 6 cases, 16 images (seconds)
    .venv/bin/python benchmarks/ccc_torch.py --large          # 30 cases, 64 images, 3 rounds
    .venv/bin/python benchmarks/ccc_torch.py --device cuda    # the torch side on a GPU

A case is a corruption pair of CCC-Medium's 13 corruptions (glass blur included) at two severities
on its 0.25 grid (seeded, as benchmarks/ccc.py). Per case the same batch of ``--batch`` copies of a
224 px photo goes through ``generate.py``'s two corruptions: NumPy
(:func:`corruptbench.ccc.functions.corrupt_pair`, image by image, one thread) and torch
(:func:`corruptbench.ccc.batch.corrupt_pair_batch` on ``--device``, the batch moved there and
back as :class:`~corruptbench.ccc.runs.CCCStream` with ``backend="torch"`` does; ``--threads``
torch threads on the CPU, 1 by default: per core). Timed by the wall clock (CUDA synchronised),
the best of ``rounds`` interleaved rounds after an untimed warm-up round (kernels, tables, frost
textures). The crops and the JPEG of a sample are the same on both paths and left out.

Printed: per case ms per image of each and the ratio; the whole set's images per second of each
and the ratio (same run, same machine; say which device gave the torch figure).

``--stream``: also the whole on-the-fly stream (:class:`~corruptbench.ccc.runs.CCCStream`: picks,
decode, flip + crop, the two corruptions, JPEG q85 round trip) over one step per case of
``--batch`` images of the test photos, ``backend="numpy"`` against ``backend="torch"`` on
``--device``, with ``--workers`` processes, images per second by the wall clock.
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import PHOTO, synthetic  # isort: split

import argparse
import sys
import time

import numpy as np
import torch
from PIL import Image

from corruptbench.ccc.batch import corrupt_pair_batch
from corruptbench.ccc.functions import ccc_frost_texture, corrupt_pair
from corruptbench.ccc.plan import corruptions_for

Case = tuple[str, float, str, float]


def photo224() -> np.ndarray:
    from corruptbench.ops.preprocess import profile_preprocess

    if not PHOTO.is_file():
        return synthetic(224, 224)
    with Image.open(PHOTO) as im:
        return profile_preprocess(im.convert("RGB"), "imagenet")


def cases(n: int) -> list[Case]:
    names = list(corruptions_for(20))
    rng = np.random.RandomState(0)
    out = []
    for _ in range(n):
        a, b = rng.choice(names, 2, replace=False)
        out.append((str(a), rng.randint(1, 21) / 4, str(b), rng.randint(1, 21) / 4))
    return out


def numpy_seconds(images: np.ndarray, case: Case, rng: np.random.RandomState) -> float:
    t0 = time.perf_counter()
    for img in images:
        corrupt_pair(img, case[0], case[1], case[2], case[3], rng)
    return time.perf_counter() - t0


def torch_seconds(
    images: np.ndarray, case: Case, device: torch.device, g: torch.Generator
) -> float:
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    host = torch.as_tensor(images).permute(0, 3, 1, 2).contiguous()
    sync()
    t0 = time.perf_counter()
    y = corrupt_pair_batch(host.to(device), case[0], case[1], case[2], case[3], generator=g)
    y.permute(0, 2, 3, 1).cpu().numpy()  # back to the host, as the stream does
    sync()
    return time.perf_counter() - t0


def stream_rate(todo: list[Case], speed: int, backend: str, device: str, workers: int) -> float:
    """Images per second of a CCC stream of one step per case (one shard each)."""
    from corruptbench.ccc.generate import scan_source
    from corruptbench.ccc.plan import RunPlan, Step, group_shards
    from corruptbench.ccc.runs import CCCStream

    steps = [Step(k, a, b, s1, s2) for k, (a, s1, b, s2) in enumerate(todo)]
    plan = RunPlan(20.0, speed, 0, speed * len(steps), speed, (), group_shards(steps, speed, speed))
    kw = {"device": device} if backend == "torch" else {}
    stream = CCCStream(plan, scan_source(PHOTO.parent), backend=backend, **kw)
    t0 = time.perf_counter()
    n = sum(len(b.labels) for b in stream.batches(64, workers=workers))
    return n / (time.perf_counter() - t0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true")
    parser.add_argument("--device", default="cpu", help="the torch side's device (cpu, cuda, ...)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads on the CPU")
    parser.add_argument("--batch", type=int, default=None, help="images per case")
    parser.add_argument("--stream", action="store_true", help="also the whole on-the-fly stream")
    parser.add_argument("--workers", type=int, default=0, help="--stream: crop processes")
    args = parser.parse_args()
    n, batch, rounds = (30, 64, 3) if args.large else (6, 16, 1)
    batch = args.batch or batch
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    images = np.stack([photo224()] * batch)
    todo = cases(n)
    for k in range(5):  # the frost textures' one-time re-encoding (per process)
        ccc_frost_texture(k)
    rng = np.random.RandomState(0)
    g = torch.Generator(device=device).manual_seed(0)
    best = {"numpy": [np.inf] * n, "torch": [np.inf] * n}
    for r in range(rounds + 1):  # round 0: warm-up, untimed
        for k, c in enumerate(todo):
            a = numpy_seconds(images[:2] if r == 0 else images, c, rng)
            b = torch_seconds(images[:2] if r == 0 else images, c, device, g)
            if r:
                best["numpy"][k] = min(best["numpy"][k], a / batch)
                best["torch"][k] = min(best["torch"][k], b / batch)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    print(f"torch on {device} ({name}, {args.threads} CPU thread(s)); NumPy one thread; "
          f"{batch} images per case, best of {rounds}")  # fmt: skip
    print(f"{'case':46s} {'numpy ms':>9s} {'torch ms':>9s} {'speed-up':>8s}")
    for k, c in enumerate(todo):
        a, b = best["numpy"][k], best["torch"][k]
        label = f"{c[0]}@{c[1]} + {c[2]}@{c[3]}"
        print(f"{label:46s} {a * 1e3:9.2f} {b * 1e3:9.2f} {a / b:8.2f}")
    a, b = float(np.mean(best["numpy"])), float(np.mean(best["torch"]))
    print(
        f"\nall cases: NumPy {1 / a:.1f} images/s, torch {1 / b:.1f} images/s "
        f"(torch / NumPy {a / b:.2f}x)"
    )
    if args.stream and PHOTO.is_file():
        rates = {}
        for backend in ("numpy", "torch", "numpy", "torch"):  # the second round counts (warm)
            rates[backend] = stream_rate(todo, batch, backend, args.device, args.workers)
        print(
            f"stream (picks, decode, crop, 2 corruptions, JPEG; {args.workers} workers): NumPy "
            f"{rates['numpy']:.1f} images/s, torch on {device} {rates['torch']:.1f} images/s "
            f"({rates['torch'] / rates['numpy']:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How much does the eval-c harness add to the pure model time?

1. Builds an ImageNet-C folder (one cell, ``gaussian_noise/3``) from N real photos of
   ``../shared/data/imagenet-sample`` exactly like make-c (Resize(256)+CenterCrop(224), corrupt,
   JPEG q85) - not timed.
2. *Pure model time*: the same JPEGs decoded and normalised beforehand into one tensor; only the
   batched forward passes under ``torch.inference_mode`` are timed.
3. *Harness time*: ``evaluate_c`` on the folder (scan, fingerprint, decode in DataLoader workers,
   normalise, model, bookkeeping, results file) - wall clock of the whole call.

Prints both times and the overhead (the target: at most 15 % on CPU). On a shared machine the model
time itself varies by tens of percent between runs, so the headline number is measured inside each
harness run: wall time spent outside the model's forward calls (scan, fingerprint, waiting for the
loader, normalisation, bookkeeping, results file) divided by the forward time of that same run.
The plain ratio of the fastest harness run to the fastest pure run is printed too.

Usage: ``python benchmarks/eval_overhead.py [--images 96] [--batch-size 32] [--workers 2] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data" / "imagenet-sample"


def build_folder(root: Path, n: int) -> list[Path]:
    from corruptbench import corrupt
    from corruptbench.ops.preprocess import profile_preprocess
    from corruptbench.pipeline import item_seed

    files = sorted(SHARED.iterdir())[:n]
    out = []
    for f in files:
        wnid = f.name.split("_")[0]
        rel = f"{wnid}/{f.name}"
        img = profile_preprocess(Image.open(f), "imagenet")
        arr = corrupt(
            img,
            "gaussian_noise",
            3,
            profile="imagenet",
            rng=item_seed(0, "c", "gaussian_noise", 3, rel),
        )
        p = root / "gaussian_noise" / "3" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(arr).save(p, quality=85, optimize=True)
        out.append(p)
    return out


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="efficientnet_lite0")
    ap.add_argument("--images", type=int, default=96)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--workers", type=int, default=None, help="default: CPU count (max 8)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: torch's choice)"
    )
    return ap.parse_args(argv)


def _cpu() -> float:
    """CPU seconds of this process and its joined children (the DataLoader workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _prepared(model, files: list[Path]):  # type: ignore[no-untyped-def]
    """Every image prepared and normalised as the model expects, in one tensor."""
    import torch

    from corruptbench.formats.imagenet import load_image

    pre = model.preprocessing
    x_all = torch.from_numpy(
        np.stack([pre.prepare(np.asarray(load_image(f))).transpose(2, 0, 1) for f in files])
    )
    return pre.normalize(x_all)


def _pure(model, x_all, batch_size: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(wall, CPU) seconds of the model alone on the prepared batches."""
    import torch

    t, c = time.perf_counter(), _cpu()
    with torch.inference_mode():
        for i in range(0, len(x_all), batch_size):
            model.predict(x_all[i : i + batch_size])
    return time.perf_counter() - t, _cpu() - c


def _harness(model, root: Path, batch_size: int, workers: int, threads: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(wall, CPU) seconds of evaluate_c on the folder, loading included."""
    from corruptbench.evaluation import RunOptions, evaluate_c

    t, c = time.perf_counter(), _cpu()
    evaluate_c(
        model,
        root,
        batch_size=batch_size,
        progress=False,
        run=RunOptions(
            workers=workers, threads=threads, out=root / "r.json", overwrite=True, log=None
        ),
    )
    return time.perf_counter() - t, _cpu() - c


def _interleaved(model, root: Path, x_all, args, workers: int, threads: int):  # type: ignore[no-untyped-def]
    """``args.repeat`` runs of each, interleaved so that slow phases of a shared machine hit
    both: (pure runs, harness runs, harness seconds outside the model's forward calls)."""
    inner = model.forward
    in_model = [0.0]

    def timed_forward(x):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        out = inner(x)
        in_model[0] += time.perf_counter() - t
        return out

    model.forward = timed_forward
    pures, harnesses, rest = [], [], []
    for _ in range(args.repeat):
        pures.append(_pure(model, x_all, args.batch_size))
        in_model[0] = 0.0
        harnesses.append(_harness(model, root, args.batch_size, workers, threads))
        rest.append(harnesses[-1][0] - in_model[0])
    return pures, harnesses, rest


def _report(model, args, workers: int, pures, harnesses, rest) -> None:  # type: ignore[no-untyped-def]
    import torch

    tp, th = min(v[0] for v in pures), min(v[0] for v in harnesses)
    cp, ch = min(v[1] for v in pures), min(v[1] for v in harnesses)
    print(
        f"model {model.id}, {args.images} images, batch {args.batch_size}, {workers} workers, "
        f"torch threads {torch.get_num_threads()}, CPUs {os.cpu_count()}"
    )
    print(
        f"pure model time   {tp:8.3f} s  ({tp / args.images * 1e3:.1f} ms/image)  wall runs {[round(v[0], 2) for v in pures]}"
    )
    print(
        f"eval-c harness    {th:8.3f} s  ({th / args.images * 1e3:.1f} ms/image)  wall runs {[round(v[0], 2) for v in harnesses]}"
    )
    print(
        f"overhead, min wall / min wall: {(th / tp - 1) * 100:+.1f} %  (noisy on a shared machine)"
    )
    paired = sorted(r / (h[0] - r) for r, h in zip(rest, harnesses))
    print(
        f"harness time outside the model's forward calls: {[round(r, 3) for r in rest]} s; "
        f"relative to the model time of the same run: median {paired[len(paired) // 2] * 100:+.1f} %  "
        "(the overhead; target <= 15 %)"
    )
    print(f"CPU time (incl. loader workers): model {cp:.2f} s, harness {ch:.2f} s")


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    if not SHARED.is_dir():
        print(f"skipped: {SHARED} is absent", file=sys.stderr)
        return 0

    import torch

    from corruptbench.evaluation import plan_resources
    from corruptbench.models import load_model

    workers, threads = plan_resources(
        "cpu", corrupts_in_loader=False, workers=args.workers, threads=args.threads
    )
    torch.set_num_threads(threads)  # the pure-model runs use the threads the harness will use
    model = load_model(args.model)
    with tempfile.TemporaryDirectory(prefix="cb-overhead-") as d:
        root = Path(d)
        x_all = _prepared(model, build_folder(root, args.images))
        with torch.inference_mode():
            model.predict(x_all[: args.batch_size])  # warm-up
        pures, harnesses, rest = _interleaved(model, root, x_all, args, workers, threads)
    _report(model, args, workers, pures, harnesses, rest)
    return 0


if __name__ == "__main__":
    sys.exit(main())

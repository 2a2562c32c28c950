"""Throughput of the torch batch backend vs the CPU library, and on-the-fly evaluation cost.

Prints, per corruption (mean over the chosen severities), images/s of

* the CPU library (``corruptbench.corrupt``, one image at a time, one thread: OpenCV and numba
  limited to 1 thread),
* ``corruptbench.torch.corrupt_batch`` on batches of ``--batch`` images at 224 x 224 on the CPU with
  ``--threads`` torch threads (wall clock, and per core: images per CPU-second of the process), with
  the default ``backend="auto"`` (uint8 CPU batches: the CPU library's compiled kernels for the
  (corruption, severity) pairs of ``CPU_LIBRARY_DISPATCH``, tensor ops for the rest) and with
  ``backend="tensor"`` (tensor ops for all 19, the implementation a GPU runs), and on CUDA when
  available;

CPU figures per core are measured in CPU time (``time.process_time``), so other work on a shared
machine does not count against them; ``ratio`` is torch per core over the CPU library. The default
is one torch thread, so that both sides keep one core busy: with every core busy, the cores share
caches and memory bandwidth and each gets slower (on the 2-core dev VM two single-thread processes
run at ~0.7x the speed of one alone), which would lower the torch figure per core but not the
library's. ``--threads N`` gives the wall-clock figures with N threads. The CPU
library is timed on the same images as the batch (``--cpu-images``, default: the whole batch), in
turn with the torch calls within every repeat.

then the throughput of an on-the-fly evaluation (``corrupt_batch`` + EfficientNet-Lite0) against
the same model on pre-corrupted tensors.

Usage::

    python benchmarks/torch_backend.py                       # all 19, severities 1..5, batch 64
    python benchmarks/torch_backend.py --severities 3 --threads 2
    python benchmarks/torch_backend.py --profile cifar --batch 256 --dispatch   # re-measure the table
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # the CPU library's single-thread figure

import argparse  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import corruptbench  # noqa: E402
from corruptbench.profiles import PROFILE_NAMES  # noqa: E402
from corruptbench.torch import CPU_LIBRARY_DISPATCH, corrupt_batch  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "data" / "imagenet-sample"


def photos(n: int, profile: str = "imagenet") -> np.ndarray:
    """``n`` real photos preprocessed for ``profile`` (224, 299, 64 px; CIFAR-10 test images for
    ``cifar``), repeated if needed, or synthetic images without the shared sample."""
    from PIL import Image

    from corruptbench.ops.preprocess import profile_preprocess
    from corruptbench.profiles import PROFILES

    if profile == "cifar":
        found = (SAMPLE.parent / "cifar10-test").glob("*/*.jpg")
        files = sorted(found, key=lambda f: (f.name, f.parent.name))[:n]  # classes interleaved
    else:
        files = sorted(SAMPLE.glob("*.JPEG"))[:n] if SAMPLE.is_dir() else []
    if not files:
        side = PROFILES[profile].size
        rs = np.random.RandomState(0)
        return rs.randint(0, 256, (n, side, side, 3)).astype(np.uint8)
    imgs = []
    for f in files:
        with Image.open(f) as im:
            imgs.append(profile_preprocess(im.convert("RGB"), profile))
    while len(imgs) < n:
        imgs.append(imgs[len(imgs) % len(files)])
    return np.stack(imgs[:n])


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def time_torch(
    x: torch.Tensor, name: str, sevs, device: str, repeat: int, backend: str = "auto"
) -> tuple[float, float]:
    """(images/s wall clock, images per CPU-second of this process) of corrupt_batch on ``device``
    (warm-up call first, best of ``repeat`` per severity, mean time over severities). The CPU
    figure counts every thread's time, so it is the throughput per core."""
    g = torch.Generator(device=device).manual_seed(0)
    xd = x.to(device)
    wall, cpu = [], []
    for sev in sevs:
        corrupt_batch(xd, name, sev, generator=g, backend=backend)  # warm-up (caches, kernels)
        _sync(device)
        ws, cs = [], []
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            corrupt_batch(xd, name, sev, generator=g, backend=backend)
            _sync(device)
            ws.append(time.perf_counter() - t0)
            cs.append(time.process_time() - c0)
        wall.append(min(ws))
        cpu.append(min(cs))
    return len(x) / float(np.mean(wall)), len(x) / float(np.mean(cpu))


def time_side_by_side(
    images: np.ndarray,
    x: torch.Tensor,
    name: str,
    sevs,
    n_lib: int,
    repeat: int,
    backends: tuple[str, ...],
) -> dict[str, tuple[float, float]]:
    """``{"lib": (per core, per core), backend: (wall, per core)}`` in images/s on the CPU, the
    CPU library and each backend timed in turn within every repeat (so that a slower or faster
    spell of a shared machine falls on all of them alike); best of ``repeat`` per severity, mean
    time over severities."""
    corruptbench.corrupt(images[0], name, sevs[0], rng=0)  # warm-up (numba, caches)
    per: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in ("lib", *backends)}
    for sev in sevs:
        g = torch.Generator().manual_seed(0)
        for b in backends:
            corrupt_batch(x, name, sev, generator=g, backend=b)  # warm-up
        best = {k: [np.inf, np.inf] for k in per}
        for _ in range(repeat):
            c0 = time.process_time()
            for k in range(n_lib):
                corruptbench.corrupt(images[k], name, sev, rng=k)
            t = (time.process_time() - c0) / n_lib
            best["lib"] = [min(best["lib"][0], t), min(best["lib"][1], t)]
            for b in backends:
                t0, c0 = time.perf_counter(), time.process_time()
                corrupt_batch(x, name, sev, generator=g, backend=b)
                w, c = (time.perf_counter() - t0) / len(x), (time.process_time() - c0) / len(x)
                best[b] = [min(best[b][0], w), min(best[b][1], c)]
        for k, (w, c) in best.items():
            per[k][0].append(w)
            per[k][1].append(c)
    return {k: (1.0 / float(np.mean(w)), 1.0 / float(np.mean(c))) for k, (w, c) in per.items()}


def eval_throughput(
    x: torch.Tensor, device: str, name: str, sev: int, repeat: int
) -> tuple[float, float]:
    """(images/s on-the-fly corrupt + model, images/s model on pre-corrupted) on ``device``."""
    from corruptbench.models import load_model

    model = load_model("efficientnet_lite0", probe=False, device=device)
    g = torch.Generator(device=device).manual_seed(0)
    xd = x.to(device)
    pre = corrupt_batch(xd, name, sev, generator=g)

    @torch.inference_mode()
    def run(fly: bool) -> float:
        batch = corrupt_batch(xd, name, sev, generator=g) if fly else pre
        model.module(model.preprocessing.normalize(batch)).argmax(1)
        _sync(device)
        return 0.0

    run(True)
    run(False)
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(repeat):  # alternate, best of ``repeat`` each
        for fly in (True, False):
            t0 = time.perf_counter()
            run(fly)
            times[fly].append(time.perf_counter() - t0)
    return len(x) / min(times[True]), len(x) / min(times[False])


def dispatch_table(x: torch.Tensor, args: argparse.Namespace) -> int:
    """Per (corruption, severity): images per CPU-second of ``backend="library"`` and
    ``backend="tensor"`` on the batch; prints the faster side and the dispatch row."""
    print(f"{'corruption':18s} sev {'library':>9s} {'tensor':>9s}  faster")
    row: dict[str, list[int]] = {}
    for name in args.corruptions:
        for sev in args.severities:
            _, lib = time_torch(x, name, [sev], "cpu", args.repeat, "library")
            _, ten = time_torch(x, name, [sev], "cpu", args.repeat, "tensor")
            # the library only where it is clearly faster (5 %: above the run-to-run noise);
            # JPEG's tensor path is the same per-image Pillow code, so it is always the library
            clear = lib > 1.05 * ten or name == "jpeg_compression"
            faster = "library" if clear else ("tensor" if ten >= lib else "tie: tensor")
            if clear:
                row.setdefault(name, []).append(sev)
            print(f"{name:18s} {sev:3d} {lib:9.1f} {ten:9.1f}  {faster}", flush=True)
    # the row in the format of src/corruptbench/tables/cpu_dispatch.py
    print(f'    "{args.profile}": {{')
    for name, sevs in row.items():
        print(f'        "{name}": {tuple(sevs)!r},')
    print("    },")
    return 0


def _parse_args(argv) -> argparse.Namespace:  # type: ignore[no-untyped-def]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument(
        "--profile",
        default="imagenet",
        choices=PROFILE_NAMES,
        help="image size and parameter table (224, 299, 64, 32 px)",
    )
    ap.add_argument(
        "--dispatch",
        action="store_true",
        help="per (corruption, severity): CPU library kernels vs tensor ops on the batch, per core, "
        "and the CPU_LIBRARY_DISPATCH row for --profile that follows (for "
        "src/corruptbench/tables/cpu_dispatch.py)",
    )
    ap.add_argument("--severities", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--corruptions", nargs="+", default=list(corruptbench.ALL_CORRUPTIONS))
    ap.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch CPU threads (default 1: the per-core ratio compares one busy core with one)",
    )
    ap.add_argument(
        "--cpu-images",
        type=int,
        default=0,
        help="images timed per severity for the CPU library (0: the whole batch)",
    )
    ap.add_argument("--repeat", type=int, default=3, help="best of this many timings")
    ap.add_argument("--no-eval", action="store_true", help="skip the on-the-fly evaluation figure")
    ap.add_argument("--eval-corruption", default="gaussian_noise")
    return ap.parse_args(argv)


def _corruption_row(  # type: ignore[no-untyped-def]
    imgs, x, name: str, args, devices: list[str], n_lib: int
) -> tuple[str, dict[str, float]]:
    """One corruption's line of the speed table and its figures (images per second)."""
    table = CPU_LIBRARY_DISPATCH[args.profile]
    # auto runs the tensor ops for a corruption without an entry in the dispatch table
    backends = ("auto", "tensor") if table.get(name) else ("auto",)
    t = time_side_by_side(imgs, x, name, args.severities, n_lib, args.repeat, backends)
    lib = t["lib"][1]
    auto, auto_core = t["auto"]
    tens, tens_core = t.get("tensor", t["auto"])
    line = (
        f"{name:18s} {lib:8.1f} {auto:8.1f} {auto_core:9.1f} {auto_core / lib:6.2f} "
        f"{tens:8.1f} {tens_core:9.1f} {tens_core / lib:6.2f}"
    )
    figures = {"lib": lib, "auto": auto, "auto_core": auto_core}
    figures.update({"tens": tens, "tens_core": tens_core})
    if "cuda" in devices:
        cuda, _ = time_torch(x, name, args.severities, "cuda", max(3, args.repeat))
        line += f" {cuda:9.1f}"
        figures["cuda"] = cuda
    return line, figures


def _speed_table(imgs, x, args, devices: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Images per second per corruption (CPU library, auto, tensor; cuda when there), the
    harmonic means over the corruptions and the GPU figure over the 15 benchmark ones."""
    head = (
        f"{'corruption':18s} {'CPU lib':>8s} {'auto':>8s} {'auto/core':>9s} {'ratio':>6s} "
        f"{'tensor':>8s} {'tens/core':>9s} {'ratio':>6s}"
    )
    if "cuda" in devices:
        head += f" {'cuda':>9s}"
    print("images per second (per core: per CPU-second of the process)")
    print(head, flush=True)
    n_lib = min(args.cpu_images or len(imgs), len(imgs))
    inv: dict[str, float] = {}
    cuda_rows: dict[str, float] = {}
    for name in args.corruptions:
        line, figures = _corruption_row(imgs, x, name, args, devices, n_lib)
        if "cuda" in figures:
            cuda_rows[name] = figures["cuda"]
        print(line, flush=True)
        for key, value in figures.items():
            inv[key] = inv.get(key, 0.0) + 1.0 / value
    n = len(args.corruptions)
    hm = {key: n / value for key, value in inv.items()}
    line = (
        f"{'all (harmonic)':18s} {hm['lib']:8.1f} {hm['auto']:8.1f} {hm['auto_core']:9.1f} "
        f"{hm['auto_core'] / hm['lib']:6.2f} {hm['tens']:8.1f} {hm['tens_core']:9.1f} "
        f"{hm['tens_core'] / hm['lib']:6.2f}"
    )
    if "cuda" in hm:
        line += f" {hm['cuda']:9.1f}"
    print(line)
    bench = [cuda_rows[c] for c in corruptbench.CORRUPTIONS if c in cuda_rows]
    if bench:  # the GPU target: images/s averaged over the 15 benchmark corruptions
        print(
            f"cuda over the {len(bench)} benchmark corruptions: mean {np.mean(bench):.1f} img/s, "
            f"harmonic {len(bench) / sum(1.0 / v for v in bench):.1f} img/s"
        )


def main(argv=None) -> int:
    args = _parse_args(argv)
    cv2.setNumThreads(1)
    torch.set_num_threads(args.threads)
    imgs = photos(args.batch, args.profile)
    x = torch.as_tensor(imgs).permute(0, 3, 1, 2).contiguous()
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    side = imgs.shape[1]
    print(
        f"batch {args.batch} x {side} x {side} uint8 ({args.profile}), severities {args.severities}; "
        f"torch {torch.__version__}, {args.threads} CPU thread(s); CPU library 1 thread; "
        f"devices {devices}"
    )
    if args.dispatch:
        return dispatch_table(x, args)
    _speed_table(imgs, x, args, devices)
    if not args.no_eval:
        for dev in devices:
            fly, pre = eval_throughput(x, dev, args.eval_corruption, 3, max(3, args.repeat))
            print(
                f"eval on {dev} ({args.eval_corruption} s3 + EfficientNet-Lite0, batch {args.batch}): "
                f"on-the-fly {fly:.1f} img/s vs pre-corrupted {pre:.1f} img/s"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

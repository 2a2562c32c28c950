"""Throughput of ``make-c`` on a Ray cluster against local worker processes, on this machine.

For each worker count k (default 1 and 2) it starts a real multi-node Ray cluster on 127.0.0.1
(``tools/loopback_ray.py``: a head with no CPUs + k worker nodes of one CPU each, every node its
own raylet and object store) and times, interleaved in the same loop (``--repeats`` rounds):

* ``local``: ``build(..., workers=k)`` (k = 1: in this process; k > 1: a spawned process pool);
* ``ray``: ``build(..., ray=ADDRESS)`` from this process as the driver (a new Ray job per run:
  fresh worker processes that import corruptbench and load the numba cache on their first shard).

Both run the full 19 corruptions x 5 severities at 224 px on real photos (decode, the 95
corruptions, JPEG q85 encodes, atomic writes), the work of ``make-c`` on ImageNet. Printed per
mode and k (medians over the rounds, min-max in brackets): wall seconds, images per second,
images per second per worker (wall), images per CPU-second of the workers (``time.process_time``
inside each shard, robust on a shared machine), the fixed start-up cost of a run (a 1-image build:
pool spawn / Ray job start + worker imports and numba cache loads), which a 50,000-image build pays
once, and the running rate, images / (wall - start-up).

Usage::

    .venv/bin/python benchmarks/ray_cluster.py                    # 24 photos, k = 1,2, 3 rounds
    .venv/bin/python benchmarks/ray_cluster.py --images 48 --workers 1,2 --repeats 5 --json ray.json
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))
from loopback_ray import CLUSTER_ENV, LoopbackCluster  # noqa: E402 (imports no ray)

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"
# before ray is imported: this process is a driver of the loopback cluster (127.0.0.1 stays
# 127.0.0.1, no auth token; see tools/loopback_ray.py)
os.environ.update(CLUSTER_ENV)

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

SAMPLE = REPO.parent / "shared" / "data" / "imagenet-sample"


def _run(src: Path, out: Path, workers: int, ray: str | None) -> dict[str, float]:
    from corruptbench import ALL_CORRUPTIONS
    from corruptbench.builders import build

    t0 = time.perf_counter()
    s = build(
        "c",
        src,
        out,
        profile="imagenet",
        fmt="jpeg",
        names=list(ALL_CORRUPTIONS),
        levels=[1, 2, 3, 4, 5],
        workers=workers,
        ray=ray,
        progress=False,
    )
    wall = time.perf_counter() - t0
    assert not s.failed and not s.skipped, (s.failed, s.skipped)
    shutil.rmtree(out)
    return {"wall": wall, "images": s.processed, "cpu": s.cpu_seconds}


def _fmt(values: list[float], spec: str) -> str:
    med = statistics.median(values)
    if len(values) == 1:
        return format(med, spec)
    return f"{format(med, spec)} [{format(min(values), spec)}-{format(max(values), spec)}]"


def _place_sources(work: Path, n: int) -> tuple[Path, Path]:
    """``n`` real photos in class folders under ``work/src``, the first also alone under
    ``work/one`` (the 1-image build that measures the start-up): ``(src, one)``."""
    src, one = work / "src", work / "one"
    for i, f in enumerate(sorted(SAMPLE.iterdir())[:n]):
        d = src / f.name.split("_")[0]
        d.mkdir(parents=True, exist_ok=True)
        (d / f.name).symlink_to(f)
        if i == 0:
            (one / d.name).mkdir(parents=True)
            (one / d.name / f.name).symlink_to(f)
    return src, one


def _row(mode: str, k: int, images: int, r: list[dict[str, float]], start: list[float]) -> dict:  # type: ignore[type-arg]
    """The figures of one mode and worker count from its runs and its 1-image runs."""
    return {
        "mode": mode,
        "workers": k,
        "images": images,
        "wall_s": [x["wall"] for x in r],
        "images_per_second": [x["images"] / x["wall"] for x in r],
        "images_per_second_per_worker": [x["images"] / x["wall"] / k for x in r],
        "images_per_core_second": [x["images"] / x["cpu"] for x in r],
        "startup_s": start,
        # the rate once running: the 1-image run's wall taken off
        "images_per_second_after_startup": [
            x["images"] / max(1e-9, x["wall"] - statistics.median(start)) for x in r
        ],
    }


def _time_k(work: Path, src: Path, one: Path, k: int, args: argparse.Namespace) -> list[dict]:  # type: ignore[type-arg]
    """Local and Ray builds with ``k`` workers, interleaved, on a fresh loopback cluster."""
    with LoopbackCluster(workers=k, cpus_per_worker=1) as cluster:
        runs: dict[str, list[dict[str, float]]] = {"local": [], "ray": []}
        start: dict[str, list[float]] = {"local": [], "ray": []}
        for _ in range(args.repeats):
            for mode, ray in (("local", None), ("ray", cluster.address)):
                runs[mode].append(_run(src, work / "out", k, ray))
                start[mode].append(_run(one, work / "out", k, ray)["wall"])
        return [_row(mode, k, args.images, runs[mode], start[mode]) for mode in ("local", "ray")]


def _print_rows(rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    print(
        f"make-c imagenet 224, 19 corruptions x 5 severities, {args.images} real photos per run; "
        f"medians of {args.repeats} interleaved rounds [min-max]"
    )
    print(
        "local = worker processes on this machine; ray = a loopback Ray cluster of k worker "
        "nodes (1 CPU each) + a head with 0 CPUs, this process the driver"
    )
    print(
        "img/s/worker = wall-clock rate per worker; img/core-s = images per CPU-second of the "
        "workers; start-up = wall of a 1-image run; running img/s = images / (wall - start-up)"
    )
    head = (
        f"{'mode':<6} {'k':>2} {'wall s':>20} {'img/s':>20} {'img/s/worker':>20} "
        f"{'img/core-s':>20} {'start-up s':>20} {'running img/s':>20}"
    )
    print(head)
    for r in rows:
        print(
            f"{r['mode']:<6} {r['workers']:>2} {_fmt(r['wall_s'], '.2f'):>20} "
            f"{_fmt(r['images_per_second'], '.2f'):>20} "
            f"{_fmt(r['images_per_second_per_worker'], '.2f'):>20} "
            f"{_fmt(r['images_per_core_second'], '.2f'):>20} {_fmt(r['startup_s'], '.2f'):>20}"
            f" {_fmt(r['images_per_second_after_startup'], '.2f'):>20}"
        )
    print(
        f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
        "(wall figures need an idle machine)"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--images", type=int, default=24, help="real photos per run (default 24)")
    ap.add_argument("--workers", default="1,2", help="worker counts, e.g. 1,2 (default)")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved rounds (default 3)")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    if not SAMPLE.is_dir():
        print(f"benchmark needs real photos: {SAMPLE} is absent", file=sys.stderr)
        return 2
    try:
        import ray  # noqa: F401
    except ImportError:
        print("benchmark needs ray: pip install 'corruptbench[ray]'", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="corruptbench-raybench-"))
    rows: list[dict[str, Any]] = []
    try:
        src, one = _place_sources(work, args.images)
        _run(one, work / "warm", 1, None)  # imports, numba cache, frost textures: not timed
        for k in (int(x) for x in args.workers.split(",")):
            rows += _time_k(work, src, one, k, args)
        _print_rows(rows, args)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

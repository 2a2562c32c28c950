"""WebDataset shards against the folder build: make-c speed, files and bytes, converting, reading.

Usage::

    .venv/bin/python benchmarks/shards.py                    # 10 real images, 19 x 5, 3 rounds
    .venv/bin/python benchmarks/shards.py --images 20 --rounds 5 --json shards.json

What it measures, on the same real ImageNet photos (``../shared/data/imagenet-sample``, placed in
class folders of up to 50 like the ImageNet validation set), with one worker (in this process):

* **make-c**: ``--format jpeg`` (the folder tree) and ``--format webdataset`` built alternately
  (A/B, B/A, ... so that load on the shared machine hits both alike). Images per core-second use the
  CPU time the workers report (``time.process_time`` per task), as ``benchmarks/make_c.py`` does;
  the wall-clock seconds include the shards' fsyncs and the index. Medians and min-max over rounds.
* **what a shard costs to produce**: the per-image decode + ``Resize(256) + CenterCrop(224)`` time
  against the 95 corruptions + encodes — what splitting one block's cells over several tasks would
  add per extra task (the reason a task computes all cells of its block).
* **convert**: the folder build to shards (byte copies), MB/s and images/s.
* **reading**: every image's bytes from the folder tree (one file each) vs from the shards
  (``iter_samples``), and opening the eval-c layout (the tar headers are scanned) vs the folder's.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402

cv2.setNumThreads(1)

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO.parent / "shared" / "data" / "imagenet-sample"


def _size(root: Path) -> tuple[int, int, int]:
    """(files, bytes, bytes allocated on disk) under root, hidden bookkeeping excluded."""
    n = b = alloc = 0
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for f in files:
            st = os.stat(os.path.join(dirpath, f))
            n += 1
            b += st.st_size
            alloc += st.st_blocks * 512
    return n, b, alloc


def _med(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def _place_sources(work: Path, n: int) -> Path:
    """``n`` real photos linked into class folders of up to 50 (the ImageNet validation layout)
    under ``work/src`` (returned), and the first one alone under ``work/warm-src`` (the warm-up
    build's source)."""
    src = work / "src"
    files = sorted(SAMPLE.iterdir())[:n]
    for i, f in enumerate(files):
        wnid = files[i - i % 50].name.split("_")[0]
        (src / wnid).mkdir(parents=True, exist_ok=True)
        (src / wnid / f.name).symlink_to(f)
    warm = work / "warm-src" / files[0].name.split("_")[0]
    warm.mkdir(parents=True)
    (warm / files[0].name).symlink_to(files[0])
    return src


def _time_builds(work: Path, src: Path, kw: dict, args: argparse.Namespace) -> tuple[dict, dict]:
    """make-c of both formats, alternating each round: (images per core-second, wall seconds)
    per format; the last round's outputs are kept."""
    from corruptbench.builders import build

    per_core: dict[str, list[float]] = {"jpeg": [], "webdataset": []}
    wall: dict[str, list[float]] = {"jpeg": [], "webdataset": []}
    for r in range(args.rounds):
        order = ("jpeg", "webdataset") if r % 2 == 0 else ("webdataset", "jpeg")
        for fmt in order:
            out = work / f"{fmt}-{r}"
            extra = {"shard_size": args.shard_size} if fmt == "webdataset" else {}
            t0 = time.perf_counter()
            s = build("c", src, out, fmt=fmt, **kw, **extra)  # type: ignore[arg-type]
            wall[fmt].append(time.perf_counter() - t0)
            assert not s.failed and not s.skipped
            per_core[fmt].append(s.processed / s.cpu_seconds)
            if r < args.rounds - 1:
                shutil.rmtree(out)
    return per_core, wall


def _report_builds(
    folder: Path, shards: Path, per_core: dict, wall: dict, args: argparse.Namespace
) -> dict:
    """Print the make-c table (speed, files, bytes) and return its figures."""
    nf, bf, af = _size(folder)
    ns, bs, as_ = _size(shards)
    print(
        f"make-c imagenet 224, 19 x 5, {args.images} real images, 1 worker, {args.rounds} rounds (A/B)"
    )
    print(
        f"{'format':<11} {'img/core-s median (min-max)':>28} {'wall s median (min-max)':>26} "
        f"{'files':>7} {'MB':>7} {'MB on disk':>10}"
    )
    for fmt, n, b, a in (("jpeg", nf, bf, af), ("webdataset", ns, bs, as_)):
        print(
            f"{fmt:<11} {_med(per_core[fmt]):>28} {_med(wall[fmt]):>26} {n:>7} "
            f"{b / 1e6:>7.2f} {a / 1e6:>10.2f}"
        )
    ratio = statistics.median(per_core["webdataset"]) / statistics.median(per_core["jpeg"])
    print(f"shards / folder, images per core-second: {ratio:.3f}")
    return {
        "images_per_core_second": per_core,
        "wall_seconds": wall,
        "files": {"jpeg": nf, "webdataset": ns},
        "bytes": {"jpeg": bf, "webdataset": bs},
        "bytes_on_disk": {"jpeg": af, "webdataset": as_},
    }


def _decode_cost(src: Path, per_core: dict) -> float:
    """Milliseconds of one decode + resize + crop per image, printed next to an image's cost."""
    from corruptbench.pipeline import CorruptStep, open_source

    step = CorruptStep("imagenet")
    items = open_source(src).items
    t0 = time.process_time()
    for it in items:
        step.prepare(it)
    decode_ms = (time.process_time() - t0) / len(items) * 1e3
    image_ms = 1e3 / statistics.median(per_core["webdataset"])
    print(
        f"decode + resize + crop: {decode_ms:.1f} ms per image, {decode_ms / image_ms * 100:.1f} % "
        f"of the {image_ms:.0f} ms an image costs for all 95 cells (one more task per block adds that)"
    )
    return decode_ms


def _time_convert(work: Path, folder: Path, args: argparse.Namespace) -> list:
    """convert of the folder build (byte copies), per round: (images/s, MB/s, images/core-s)."""
    from corruptbench.builders.convert import convert

    rates = []
    for r in range(args.rounds):
        out = work / f"conv-{r}"
        t0, c0 = time.perf_counter(), time.process_time()
        cs = convert(folder, out, shard_size=args.shard_size)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        rates.append((cs.samples / dt, cs.bytes_written / 1e6 / dt, cs.samples / dc))
        shutil.rmtree(out)
    print(
        f"convert: {statistics.median(r[0] for r in rates):.0f} images/s wall, "
        f"{statistics.median(r[1] for r in rates):.1f} MB/s wall, "
        f"{statistics.median(r[2] for r in rates):.0f} images per core-second"
    )
    return rates


def _time_reading(
    folder: Path, shards: Path, names: list[str], levels: list[int], args: argparse.Namespace
) -> dict:
    """Reading every image's bytes and opening eval-c's layout, folder against shards."""
    from corruptbench.evaluation.layouts import ImageNetCFolder, Selection, WebDatasetC
    from corruptbench.formats.webdataset import iter_samples

    read_f, read_s, open_f, open_s = [], [], [], []
    sel = Selection(names, levels)
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        n1 = sum(len(p.read_bytes()) for p in folder.rglob("*.JPEG"))
        read_f.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        n2 = sum(
            len(m["jpg"]) for tar in sorted(shards.glob("*.tar")) for _, m in iter_samples(tar)
        )
        read_s.append(time.perf_counter() - t0)
        assert n1 == n2
        t0 = time.perf_counter()
        ImageNetCFolder.open(folder, sel, 1000, None)
        open_f.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        WebDatasetC.open(shards, sel, 1000, None)
        open_s.append(time.perf_counter() - t0)
    n = args.images * 95
    print(
        f"read all image bytes: folder {_med(read_f)} s, shards {_med(read_s)} s "
        f"({n} images, {n1 / 1e6:.1f} MB)"
    )
    print(
        f"open eval-c layout: folder {_med(open_f)} s, shards {_med(open_s)} s "
        f"({statistics.median(open_s) / n * 1e6:.0f} us per sample: tar headers + .json)"
    )
    return {
        "read_seconds": {"folder": read_f, "shards": read_s},
        "open_seconds": {"folder": open_f, "shards": open_s},
    }


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--images", type=int, default=10, help="real images (default 10)")
    ap.add_argument("--rounds", type=int, default=3, help="A/B rounds (default 3)")
    ap.add_argument(
        "--shard-size", type=int, default=None, help="samples per shard (default: ceil(N / 64))"
    )
    ap.add_argument("--json", default=None, help="also write the figures here")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    if not SAMPLE.is_dir():
        print(f"benchmark needs real photos: {SAMPLE} is absent", file=sys.stderr)
        return 2

    from corruptbench import ALL_CORRUPTIONS
    from corruptbench.builders import build

    names = list(ALL_CORRUPTIONS)
    levels = [1, 2, 3, 4, 5]
    work = Path(tempfile.mkdtemp(prefix="corruptbench-bench-shards-"))
    figures: dict[str, object] = {"images": args.images, "rounds": args.rounds}
    try:
        src = _place_sources(work, args.images)
        kw = dict(profile="imagenet", names=names, levels=levels, workers=1, progress=False)
        warm = work / "warm-src"
        build("c", warm, work / "warm-out", fmt="webdataset", **kw)  # type: ignore[arg-type]
        per_core, wall = _time_builds(work, src, kw, args)
        last = args.rounds - 1
        folder, shards = work / f"jpeg-{last}", work / f"webdataset-{last}"
        figures["make_c"] = _report_builds(folder, shards, per_core, wall, args)
        figures["decode_ms"] = _decode_cost(src, per_core)
        figures["convert"] = _time_convert(work, folder, args)
        figures.update(_time_reading(folder, shards, names, levels, args))
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

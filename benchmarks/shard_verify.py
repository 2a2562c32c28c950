"""What checking WebDataset shards against ``shards.json`` costs (eval-c / eval-p before a run,
a resumed make-c / convert), next to what evaluating the same images costs anyway.

Usage::

    .venv/bin/python benchmarks/shard_verify.py                  # builds 60 photos x 10 cells
    .venv/bin/python benchmarks/shard_verify.py --photos 120 --rounds 5
    .venv/bin/python benchmarks/shard_verify.py --data OUT       # shards already built

It builds (or reads) make-c ``--format webdataset`` shards of real photos
(``../shared/data/imagenet-sample``) and times, with the page cache warm (a first pass reads every
shard; a cold disk adds its read time to the hash and to the evaluation alike):

* **hash**: SHA-256 of every shard alone; with its tar headers in the same read
  (:func:`~corruptbench.formats.webdataset.inspect_shard`, what ``verify_shards="hash"`` does per
  shard); through :func:`~corruptbench.formats.webdataset.shard_problems` (up to 8 threads, what a
  resumed make-c / convert runs): MB/s, ms per shard, s per GB;
* **count**: the tar headers of every shard (what ``verify_shards="count"`` and a resume always
  read): ms per shard and per 1,000 samples;
* **decode**: Pillow decoding each ``.jpg`` sample (the least work eval-c does per image before the
  model), ms per image, and the hash's share of it;
* **open**: ``open_c_layout`` of the shard folder with ``verify_shards="hash"`` and ``"count"``;
* **content digest** (the results' ``dataset.content_fingerprint``): hashing the ``(name, size)``
  line of each image, which both layouts read anyway (a folder: one more ``stat`` per file);
* the same figures scaled to the released ImageNet-C (50,000 images x 95 cells) at the measured
  mean sample size.

Medians over ``--rounds``.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import io  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO.parent / "shared" / "data" / "imagenet-sample"
CELLS = (["brightness", "contrast"], [1, 2, 3, 4, 5])  #: fast to build; any cell reads alike
IMAGENET_C_IMAGES = 50_000 * 95


def _median_s(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _build(photos: int, out: Path, shard_size: int) -> None:
    from corruptbench.builders import build

    src = out.parent / "src"
    for f in sorted(SAMPLE.iterdir())[:photos]:
        wnid = f.name.split("_")[0]
        (src / wnid).mkdir(parents=True, exist_ok=True)
        (src / wnid / f.name).write_bytes(f.read_bytes())
    names, levels = CELLS
    build(
        "c",
        src,
        out,
        profile="imagenet",
        fmt="webdataset",
        names=names,
        levels=levels,
        shard_size=shard_size,
        workers=1,
        progress=False,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--photos", type=int, default=60, help="real photos to build (default 60)")
    ap.add_argument("--shard-size", type=int, default=20, help="samples per shard (default 20)")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds (default 3)")
    ap.add_argument("--data", default=None, help="an existing shard folder instead of a build")
    args = ap.parse_args(argv)

    from PIL import Image

    from corruptbench.evaluation.common import content_digest
    from corruptbench.evaluation.layouts import Selection, open_c_layout
    from corruptbench.formats.webdataset import file_sha256, inspect_shard, iter_samples
    from corruptbench.layouts.webdataset import read_index, shard_problems

    with tempfile.TemporaryDirectory() as tmp:
        if args.data is None:
            if not SAMPLE.is_dir():
                print(f"needs real photos: {SAMPLE} is absent (or pass --data)", file=sys.stderr)
                return 2
            root = Path(tmp) / "shards"
            t0 = time.perf_counter()
            _build(args.photos, root, args.shard_size)
            print(f"built {root} in {time.perf_counter() - t0:.1f} s")
        else:
            root = Path(args.data)
        doc = read_index(root)
        shards = [s for row in doc["cells"] for s in row["shards"]]
        paths = [root / s["name"] for s in shards]
        total = sum(int(s["bytes"]) for s in shards)
        samples = sum(int(s["samples"]) for s in shards)
        per_sample = total / samples
        for p in paths:  # warm the page cache
            p.read_bytes()

        one = _median_s(lambda: [file_sha256(p) for p in paths], args.rounds)
        both = _median_s(lambda: [inspect_shard(p, hash=True) for p in paths], args.rounds)
        many = _median_s(lambda: shard_problems(root, shards, hash=True), args.rounds)
        heads = _median_s(lambda: [inspect_shard(p, hash=False) for p in paths], args.rounds)

        def decode() -> None:
            for p in paths:
                for _key, members in iter_samples(p):
                    with Image.open(io.BytesIO(members["jpg"])) as im:
                        im.load()

        dec = _median_s(decode, max(1, args.rounds - 1))
        sel = Selection(sorted({r["corruption"] for r in doc["cells"]}), [1, 2, 3, 4, 5])
        open_hash = _median_s(lambda: open_c_layout(root, sel, 1000, None), args.rounds)
        count_sel = Selection(sel.names, sel.levels, verify_shards="count")
        open_count = _median_s(lambda: open_c_layout(root, count_sel, 1000, None), args.rounds)
        lines = [(f"n{i:08d}/ILSVRC2012_val_{i:08d}.JPEG", 13_000 + i) for i in range(50_000)]
        digest = _median_s(lambda: content_digest(lines), args.rounds) / len(lines)
        stat = _median_s(lambda: [p.stat().st_size for p in paths], args.rounds) / len(paths)

    mb = total / 1e6
    threads = max(1, min(len(paths), os.cpu_count() or 1, 8))
    print(
        f"\n{len(paths)} shards, {samples} samples, {mb:.1f} MB "
        f"({per_sample / 1e3:.1f} kB per sample), page cache warm, {os.cpu_count()} CPUs"
    )
    print(f"{'':38}{'MB/s':>9}{'ms/shard':>10}{'s/GB':>8}{'us/image':>10}")
    for label, secs in (
        ("sha256 alone, 1 thread", one),
        ("sha256 + headers, one read, 1 thread", both),
        (f"shard_problems (hash, {threads} threads)", many),
    ):
        print(
            f"{label:38}{mb / secs:9.0f}{1e3 * secs / len(paths):10.2f}"
            f"{secs / (total / 1e9):8.2f}{1e6 * secs / samples:10.1f}"
        )
    print(
        f"{'tar headers only (count)':38}{mb / heads:9.0f}{1e3 * heads / len(paths):10.2f}"
        f"{heads / (total / 1e9):8.2f}{1e6 * heads / samples:10.1f}"
    )
    print(f"{'Pillow decode of each .jpg':38}{mb / dec:9.0f}{'':18}{1e6 * dec / samples:10.1f}")
    print(
        f"\nhash + headers / decode per image: {both / dec:.1%} (1 thread); the model's forward "
        "pass comes on top of the decode"
    )
    print(
        f"open_c_layout: {open_hash:.3f} s with verify_shards='hash', {open_count:.3f} s with "
        f"'count' ({len(paths)} shards)"
    )
    print(
        f"content digest: {1e6 * digest:.2f} us per image (+ {1e6 * stat:.1f} us per stat of a "
        f"file in a folder); {IMAGENET_C_IMAGES * (digest + stat):.0f} s for the released "
        "ImageNet-C, no extra reads"
    )
    gb = IMAGENET_C_IMAGES * per_sample / 1e9
    print(
        f"released ImageNet-C scale ({IMAGENET_C_IMAGES:,} images at {per_sample / 1e3:.1f} kB): "
        f"{gb:.0f} GB; hash + headers {gb * both / (total / 1e9) / 60:.1f} min on 1 thread, "
        f"{gb * many / (total / 1e9) / 60:.1f} min with {threads} threads (warm cache; a cold "
        f"disk reads at its own speed); headers {IMAGENET_C_IMAGES * heads / samples / 60:.1f} min; "
        f"decode alone {IMAGENET_C_IMAGES * dec / samples / 3600:.1f} h on 1 core"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

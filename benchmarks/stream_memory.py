"""Peak memory of iterating a CIFAR-C test-time-adaptation stream, against one copy of its data.

Usage::

    PYTHONPATH=src .venv/bin/python benchmarks/stream_memory.py          # 3 x 10,000 rows: seconds
    PYTHONPATH=src nice -n 10 .venv/bin/python benchmarks/stream_memory.py --full   # 15 x 50,000

Writes a CIFAR-10-C shaped folder (``<corruption>.npy`` of ``(5 N, 32, 32, 3)`` uint8, cheap
content, and ``labels.npy``) in a temporary folder (removed after; refused in one line when the
disk is short), then iterates two ``continual`` streams over every corruption at batch size 200,
each in a fresh Python process: severity 5 only (the reference's default: ``N`` per domain) and
all five severities (``5 N`` per domain: every byte of the folder). ``--full``: the 15 benchmark
corruptions and ``N`` = 10,000 (CIFAR-10-C's size, 2.3 GB; 150,000 and 750,000 samples).

The child reads one image of a one-domain stream first (the modules a stream imports load then),
records its resident set, resets the peak (``/proc/self/clear_refs``), builds the stream, reads every batch, and reports:

* **data MB**: one copy of the pixels the stream delivers (samples x 32 x 32 x 3 bytes);
* **peak RSS MB**: the growth of the resident set's peak (``VmHWM``) over the start: private
  memory and the pages of the memory-mapped arrays the stream touched (the latter are the OS page
  cache, shared and dropped under pressure);
* **peak private MB**: the largest growth of ``RssAnon`` seen after any batch (what the process
  itself holds: the order arrays, a batch, the interpreter's heap);
* **x data** of each, and **samples/s** of the iteration (one process, ``workers=0``).

``--json`` prints one JSON object per stream instead of the table (what the test reads).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
ROW = 32 * 32 * 3  # bytes of one CIFAR image

_CHILD = """
    import json, re, sys, time
    from pathlib import Path
    import numpy as np
    import corruptbench

    def kib(field):
        text = Path("/proc/self/status").read_text()
        return int(re.search(rf"^{field}:\\s+(\\d+) kB", text, re.M).group(1)) * 1024

    root, order, severities = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
    batch = int(sys.argv[4])
    def make(order, severities):
        return corruptbench.stream(
            root, "cifar10_c", "continual", order=order, severities=severities, batch_size=batch
        )

    next(make(order[:1], [5]).batches(batch_size=1))  # warm-up: the modules a stream imports
    Path("/proc/self/clear_refs").write_text("5")  # the peak starts again from here
    rss0, anon0 = kib("VmRSS"), kib("RssAnon")
    st = make(order, severities)
    anon, samples, t0 = anon0, 0, time.perf_counter()
    for b in st.batches():
        samples += len(b.labels)
        anon = max(anon, kib("RssAnon"))
    seconds = time.perf_counter() - t0
    print(json.dumps({
        "samples": samples, "seconds": seconds, "peak_rss": kib("VmHWM") - rss0,
        "peak_private": anon - anon0, "data": samples * b.images[0].nbytes,
    }))
"""


def write_folder(root: Path, names: list[str], n: int) -> None:
    """``<name>.npy`` of ``(5 n, 32, 32, 3)`` uint8 (a row's bytes: a ramp plus its row number)
    and ``labels.npy`` (``5 n`` int64 classes), written a chunk at a time."""
    base = (np.arange(ROW) % 251).astype(np.uint8)
    for k, name in enumerate(names):
        arr = np.lib.format.open_memmap(root / f"{name}.npy", "w+", np.uint8, (5 * n, 32, 32, 3))
        flat = arr.reshape(5 * n, ROW)
        for a in range(0, 5 * n, 5000):
            rows = np.arange(a, min(a + 5000, 5 * n))
            flat[a : a + len(rows)] = base[None, :] + ((rows + k) % 256).astype(np.uint8)[:, None]
        arr.flush()
        del arr, flat
    np.save(root / "labels.npy", np.arange(5 * n, dtype=np.int64) % 10)


def measure(root: Path, order: list[str], severities: list[int], batch: int) -> dict[str, float]:
    """One stream's figures, from a fresh process (see the module docstring)."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), OMP_NUM_THREADS="1")
    args = [str(root), json.dumps(order), json.dumps(severities), str(batch)]
    res = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_CHILD), *args],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    if res.returncode != 0:
        raise SystemExit(f"the child failed: {res.stderr.strip().splitlines()[-1:]}")
    out: dict[str, float] = json.loads(res.stdout.strip().splitlines()[-1])
    out["severities"] = len(severities)
    return out


def main() -> None:
    from corruptbench.corruptions import BENCHMARK_CORRUPTIONS

    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--full", action="store_true", help="15 corruptions x 5 x 10,000 rows")
    ap.add_argument("--corruptions", type=int, default=3, help="how many (default 3)")
    ap.add_argument("--rows", type=int, default=2000, help="images per severity (default 2000)")
    ap.add_argument("--batch-size", type=int, default=200)
    ap.add_argument("--dir", default=None, help="where the temporary folder goes")
    ap.add_argument("--json", action="store_true", help="one JSON object per stream")
    args = ap.parse_args()
    k, n = (15, 10_000) if args.full else (args.corruptions, args.rows)
    names = list(BENCHMARK_CORRUPTIONS)[:k]
    need = k * 5 * n * ROW + 5 * n * 8
    where = args.dir or tempfile.gettempdir()
    if not Path(where).is_dir():
        raise SystemExit(f"stream_memory: --dir {where}: no such folder")
    free = shutil.disk_usage(where).free
    if free < need + (256 << 20):
        raise SystemExit(
            f"stream_memory: {where} has {free / 2**20:,.0f} MB free; the folder needs "
            f"{need / 2**20:,.0f} MB and 256 MB to spare (--dir elsewhere)"
        )
    with tempfile.TemporaryDirectory(dir=where, prefix="stream_memory_") as tmp:
        write_folder(Path(tmp), names, n)
        rows = [measure(Path(tmp), names, sev, args.batch_size) for sev in ([5], [1, 2, 3, 4, 5])]
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return
    mb = 2**20
    print(f"{k} corruptions x 5 severities x {n:,} images of 32 x 32 x 3 ({need / mb:,.0f} MB)")
    print(
        f"{'severities':>10} {'samples':>9} {'data MB':>8} {'peak RSS MB':>12} {'x data':>7} "
        f"{'private MB':>11} {'x data':>7} {'samples/s':>10}"
    )
    for r in rows:
        print(
            f"{'5' if r['severities'] == 1 else '1-5':>10} {r['samples']:>9,} "
            f"{r['data'] / mb:>8,.0f} {r['peak_rss'] / mb:>12,.0f} {r['peak_rss'] / r['data']:>7.2f} "
            f"{r['peak_private'] / mb:>11,.1f} {r['peak_private'] / r['data']:>7.3f} "
            f"{r['samples'] / r['seconds']:>10,.0f}"
        )


if __name__ == "__main__":
    main()

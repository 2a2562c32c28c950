"""Peak memory of reading a score table (``corruptbench score``'s read), against its size.

Usage::

    PYTHONPATH=src .venv/bin/python benchmarks/score_memory.py              # 2 and 8 MB tables
    PYTHONPATH=src .venv/bin/python benchmarks/score_memory.py --sizes-mb 64 1024 \\
        --baseline-src ../base/src            # the same tables read by another checkout

The table is a valid one (the clean score and the 15 benchmark corruptions x 5 severities, as
fractions) with a wide ``note`` column, followed by blank rows (``,,,``, which the reader skips) up
to the size asked: a file ``corruptbench score`` accepts, as large as asked. Each case (size,
checkout) runs in a fresh Python process whose ``PYTHONPATH`` is that checkout's ``src``; it imports corruptbench, records its resident set (``VmRSS`` of
``/proc/self/status``), calls ``results_from_table(path)`` and records the peak (``VmHWM``).

* **peak MB**: the peak resident set during the read minus the resident set just before it.
* **x file**: that peak over the file's size (the old reader held ~19x).
* **seconds**: the read's wall-clock time.

A process that fails (``MemoryError``, killed) is reported with its last error line; ``--max-gb``
caps each process's address space (``RLIMIT_AS``), so a reader that would need more fails with a
``MemoryError`` instead of swapping the machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, sys, time
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
from corruptbench.results.score_table import results_from_table
before = status("VmRSS")
t0 = time.perf_counter()
res = results_from_table(sys.argv[1])
seconds = time.perf_counter() - t0
print(json.dumps({"peak": status("VmHWM") - before, "seconds": seconds, "mpc": res.mpc}))
"""


def write_table(path: Path, size: int) -> None:
    """A valid table of about ``size`` bytes (see the module docstring)."""
    sys.path.insert(0, str(REPO / "src"))
    from corruptbench.corruptions import BENCHMARK_CORRUPTIONS

    note = "n" * 2000
    with path.open("w", encoding="utf-8") as fh:
        fh.write("corruption,severity,score,note\n")
        fh.write(f"clean,0,0.4,{note}\n")
        for i, name in enumerate(BENCHMARK_CORRUPTIONS):
            for s in range(1, 6):
                fh.write(f"{name},{s},{0.35 - 0.05 * s + 0.001 * i:.4f},{note}\n")
        blank = ",,,\n"  # short rows: the per-row objects are what a list of rows costs
        fh.write(blank * max(0, (size - fh.tell()) // len(blank)))


def measure(src: Path, table: Path, max_gb: float) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    limit = int(max_gb * 2**30)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(table)],
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=cap,
        check=False,
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        return {"error": last[:100]}
    import json

    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes-mb", type=float, nargs="+", default=[2, 8])
    ap.add_argument("--src", type=Path, default=REPO / "src", help="the checkout measured")
    ap.add_argument("--baseline-src", type=Path, help="another checkout's src, measured alike")
    ap.add_argument("--max-gb", type=float, default=4.0, help="address-space cap per process")
    args = ap.parse_args()
    checkouts = [("this", args.src)] + (
        [("baseline", args.baseline_src)] if args.baseline_src else []
    )
    print(f"{'table MB':>9}  {'checkout':<9} {'peak MB':>9} {'x file':>7} {'seconds':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for mb in args.sizes_mb:
            table = Path(tmp) / "table.csv"
            write_table(table, int(mb * 2**20))
            size = table.stat().st_size
            for label, src in checkouts:
                r = measure(src, table, args.max_gb)
                if "error" in r:
                    print(f"{size / 2**20:9.1f}  {label:<9} failed: {r['error']}")
                    continue
                peak = float(r["peak"])  # type: ignore[arg-type]
                print(
                    f"{size / 2**20:9.1f}  {label:<9} {peak / 2**20:9.1f} {peak / size:7.2f} "
                    f"{float(r['seconds']):8.2f}"  # type: ignore[arg-type]
                )
            table.unlink()


if __name__ == "__main__":
    main()

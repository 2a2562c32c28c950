"""A CIFAR-C stream holds about one copy of the data it delivers, never more (issue 31 item 5):
``benchmarks/stream_memory.py`` iterates two ``continual`` streams over a 4-corruption x 10,000-row
folder (117 MB) in fresh processes, severity 5 (8,000 samples) and all five (40,000: every byte).
Measured: peak resident set 1.01-1.02x the data delivered (the memory-mapped pages read), private
memory 0.01-0.02x. With the arrays loaded whole (``np.load`` without ``mmap_mode``) the private
memory is 5.0x (severity 5) and 1.0x (all five): both fail here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(
    not os.access("/proc/self/clear_refs", os.W_OK), reason="needs Linux's /proc/self/clear_refs"
)
def test_a_stream_holds_no_more_than_one_copy_of_its_data(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), OMP_NUM_THREADS="1")
    script = REPO / "benchmarks" / "stream_memory.py"
    args = ["--corruptions", "4", "--rows", "2000", "--dir", str(tmp_path), "--json"]
    res = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, env=env, timeout=300
    )
    assert res.returncode == 0, res.stderr[-2000:]
    rows = [json.loads(line) for line in res.stdout.strip().splitlines()]
    assert [(r["severities"], r["samples"]) for r in rows] == [(1, 8000), (5, 40000)]
    for r in rows:
        where = f"{r['severities']} severities, {r['data'] / 2**20:.0f} MB delivered"
        assert r["peak_private"] < 0.5 * r["data"], f"{where}: private peak {r['peak_private']:,}"
        assert r["peak_rss"] < 1.25 * r["data"], f"{where}: resident peak {r['peak_rss']:,}"
    assert list(tmp_path.iterdir()) == []  # the folder is removed after

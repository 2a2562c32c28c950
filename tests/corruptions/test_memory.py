"""Peak memory of the corruptions that held the most (issue 22 item 12): a 2 MP image through
``corrupt`` in a fresh process, the resident set's growth during the call per pixel. Measured
with this test's child on the tree before the rework (706c5df): elastic_transform 71, defocus_blur
51, fog 33 B/px; after it 16, 20, 19 (``benchmarks/memory.py`` measures every corruption at
several sizes). The bound sits between, with room for allocator noise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BOUND = 28  # bytes per pixel of the 1600 x 1280 image (its own 3 B/px output included)

_CHILD = """
    import gc, json, re, sys
    from pathlib import Path
    import numpy as np
    import corruptbench

    def kib(field):
        return int(re.search(rf"^{field}:\\s+(\\d+) kB", Path("/proc/self/status").read_text(), re.M).group(1))

    name = sys.argv[1]
    image = np.random.default_rng(0).integers(0, 256, (1280, 1600, 3), dtype=np.uint8)
    corruptbench.corrupt(image[:640, :640].copy(), name, 5, rng=0)  # warm-up: kernels, tables
    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")  # the peak starts again from here
    before = kib("VmRSS")
    corruptbench.corrupt(image, name, 5, rng=0)
    print(json.dumps((kib("VmHWM") - before) * 1024 / image[..., 0].size))
"""


@pytest.mark.skipif(
    not os.access("/proc/self/clear_refs", os.W_OK), reason="needs Linux's /proc/self/clear_refs"
)
@pytest.mark.parametrize("name", ["elastic_transform", "defocus_blur", "fog"])
def test_peak_memory_per_pixel(name: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), OMP_NUM_THREADS="1")
    res = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_CHILD), name],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-2000:]
    per_pixel = json.loads(res.stdout.strip().splitlines()[-1])
    assert per_pixel < BOUND, f"{name}: {per_pixel:.1f} B/px at its peak (bound {BOUND})"

"""Send SIGINT / SIGTERM to ``corruptbench eval-c`` (2 loader workers) at random moments and
count the runs whose stderr holds a traceback (issue 33 item 25: a truncated-pickle
``UnpicklingError`` from a worker that was starting, an ``AttributeError`` from a half-built
data-loader iterator).

    python tools/interrupt_trials.py [TRIALS]      # default 12; prints one line per trial

On 953af39 8 of 14 trials printed a traceback (2-core machine, signals 4-14 s after the start);
with the fix, none of 12.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "c10"
        root.mkdir()
        n = 5 * 5000  # 5 severities of 5,000 images: every signal lands mid-run
        np.save(root / "labels.npy", np.tile(np.arange(10, dtype=np.uint8), n // 10))
        pixels = np.random.RandomState(0)
        for name in ("fog", "snow", "frost"):
            np.save(root / f"{name}.npy", pixels.randint(0, 256, (n, 32, 32, 3), dtype=np.uint8))
        net = Path(tmp) / "net.py"
        net.write_text(
            "import torch\n"
            "def make():\n"
            "    return torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),"
            " torch.nn.Linear(3, 10))\n"
        )
        bad = 0
        for trial in range(trials):
            delay = rng.uniform(4, 14)
            sig = rng.choice([signal.SIGTERM, signal.SIGINT])
            cmd = [sys.executable, "-m", "corruptbench", "eval-c", "--model", f"python:{net}:make"]
            cmd += ["--data", str(root), "--workers", "2", "--no-progress", "--overwrite"]
            cmd += ["--out", str(Path(tmp) / f"r{trial}.json")]
            proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
            time.sleep(delay)
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=300)
            traced = "Traceback" in err or "Exception ignored" in err
            bad += traced
            print(f"{trial} {sig.name} at {delay:.1f} s: exit {proc.returncode}, "
                  f"{'TRACEBACK' if traced else 'one line'}", flush=True)  # fmt: skip
        print(f"{bad} of {trials} interrupted runs printed a traceback")


if __name__ == "__main__":
    main()

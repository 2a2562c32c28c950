"""``corruptbench warmup``: compile everything into the cache, say where and how big, and whether
the ahead-of-time kernels are used."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from corruptbench.cli import main
from corruptbench.ops import aot
from corruptbench.tables.kernel_signatures import KERNEL_SIGNATURES
from support import REPO

USED = re.compile(r"ahead-of-time kernels: \d+ signatures for x86-64(-v3|-v4)? \(numba [\d.]+\)")


@pytest.mark.slow  # compiles every kernel when the cache is empty
def test_warmup_reports_the_cache(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["warmup", "--jit"]) == 0  # the JIT's cache even where the AOT kernels are used
    out = capsys.readouterr().out.splitlines()
    n = sum(len(sigs) for sigs in KERNEL_SIGNATURES.values())
    assert out[0].startswith(f"{n} kernel signatures ready in ")
    assert out[1].startswith("cache: ") and " MB" in out[1]
    # the AOT line: used (when this install built them) or why not; either way one line
    assert out[2] == aot.status()
    if aot.load() is not None:
        assert USED.fullmatch(out[2])
    else:
        assert out[2].startswith("ahead-of-time kernels: not used (")


@pytest.mark.slow  # a fresh process: loads (or compiles) every kernel
def test_warmup_says_when_the_jit_is_forced() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), CORRUPTBENCH_KERNELS="jit")
    res = subprocess.run(
        [sys.executable, "-m", "corruptbench", "warmup"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == 3
    assert lines[2] == "ahead-of-time kernels: not used (CORRUPTBENCH_KERNELS=jit)"


def test_warmup_compiles_nothing_the_ahead_of_time_kernels_cover(tmp_path: object) -> None:
    """warmup announced ~40 s and compiled all 38 kernels (352 s on a busy machine) although the
    ahead-of-time kernels were installed and used."""
    if aot.load() is None:
        pytest.skip(f"the ahead-of-time kernels are not usable here: {aot.status()}")
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), NUMBA_CACHE_DIR=str(tmp_path))
    res = subprocess.run(
        [sys.executable, "-m", "corruptbench", "warmup"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == aot.status() and USED.fullmatch(lines[0])
    assert lines[1].startswith("nothing to compile: corruptions, perturbations and JPEG writes")
    assert "warmup --jit" in lines[1]
    assert res.stderr == ""  # no "compiling kernels" notice
    assert not os.listdir(str(tmp_path))  # and nothing in numba's cache

"""``corruptbench warmup``: compile everything into the cache, say where and how big, and whether
the ahead-of-time kernels are used."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from corruptbench.ops import aot
from corruptbench.tables.kernel_signatures import KERNEL_SIGNATURES
from kernels import ColdRun
from support import REPO

USED = re.compile(r"ahead-of-time kernels: \d+ signatures for x86-64(-v3|-v4)? \(numba [\d.]+\)")


def _warmup(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``corruptbench warmup ARGS`` in a fresh process of this checkout."""
    full = {k: v for k, v in os.environ.items() if k != "CORRUPTBENCH_KERNELS"}
    full.update(PYTHONPATH=str(REPO / "src"), **env)
    return subprocess.run(
        [sys.executable, "-m", "corruptbench", "warmup", *args],
        capture_output=True,
        text=True,
        env=full,
        timeout=600,
    )


def _check_report(out: list[str], compiled: int | None = None) -> None:
    n = sum(len(sigs) for sigs in KERNEL_SIGNATURES.values())
    assert out[0].startswith(f"{n} kernel signatures ready in ")
    if compiled is not None:
        assert f"({compiled} compiled, {n - compiled} loaded from the cache)" in out[0]
    assert out[1].startswith("cache: ") and " MB" in out[1]
    # the AOT line: used (when this install built them) or why not; either way one line
    assert out[2] == aot.status()
    if aot.load() is not None:
        assert USED.fullmatch(out[2])
    else:
        assert out[2].startswith("ahead-of-time kernels: not used (")


@pytest.mark.slow  # the run's one cold compile (the session fixture cold_kernels)
def test_warmup_reports_the_cache(cold_kernels: ColdRun) -> None:
    # the JIT's cache even where the AOT kernels are used: every kernel compiled into an empty
    # cache, then (a fresh process on that cache) every kernel loaded
    assert cold_kernels.warmup_rc == 0 and len(cold_kernels.warmup_out) == 3
    n = sum(len(sigs) for sigs in KERNEL_SIGNATURES.values())
    _check_report(cold_kernels.warmup_out, compiled=n)
    res = _warmup("--jit", NUMBA_CACHE_DIR=str(cold_kernels.cache))
    assert res.returncode == 0, res.stderr
    _check_report(res.stdout.splitlines(), compiled=0)
    assert "compiling kernels" not in res.stderr  # nothing compiled: no notice


@pytest.mark.slow  # a fresh process: loads every kernel from the run's warm cache
def test_warmup_says_when_the_jit_is_forced(cold_kernels: ColdRun) -> None:
    res = _warmup(CORRUPTBENCH_KERNELS="jit", NUMBA_CACHE_DIR=str(cold_kernels.cache))
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

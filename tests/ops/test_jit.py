"""The compiled kernels: lazy numba, the signature table, the one-line notice, the warm-up."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from corruptbench.ops import jit
from corruptbench.tables.kernel_signatures import KERNEL_SIGNATURES
from kernels import ColdRun
from kernels import exercise as exercise  # re-exported: test_jit.exercise
from support import REPO

SRC = str(REPO / "src")


def _run(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    # the JIT path (an install may have the ahead-of-time kernels, which compile nothing)
    path = os.pathsep.join([SRC, str(REPO / "tests"), str(REPO / "tests" / "ops")])
    full = dict(os.environ, PYTHONPATH=path, CORRUPTBENCH_KERNELS="jit", **(env or {}))
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=full,
        timeout=900,
    )


@pytest.mark.slow  # the run's one cold compile (the session fixture cold_kernels)
def test_the_table_lists_every_signature_the_package_calls(cold_kernels: ColdRun) -> None:
    # audited in a fresh process: memoised tables (Poisson rates, frost's lookup table) filled by
    # earlier tests would otherwise hide their kernels' calls
    seen = {f"{name} ({sig})" for name, sig in cold_kernels.calls}
    listed = {f"{name} ({sig})" for name, sigs in KERNEL_SIGNATURES.items() for sig in sigs}
    assert sorted(seen - listed) == [], "called with signatures missing from the table"
    assert sorted(listed - seen) == [], "listed in the table but never called"
    # numba's compile event: nothing outside the table compiled (with a cold cache)
    compiled = cold_kernels.warmup_compiled + cold_kernels.exercise_compiled
    assert sorted({f"{n} ({s})" for n, s in compiled} - listed) == []


@pytest.mark.slow  # the run's one cold compile (the session fixture cold_kernels)
def test_after_warmup_nothing_compiles(cold_kernels: ColdRun) -> None:
    n = sum(len(s) for s in KERNEL_SIGNATURES.values())
    assert cold_kernels.warmup_rc == 0 and cold_kernels.signatures == n
    # an empty cache: everything compiled (the warm-up's own count, and numba's events)
    assert cold_kernels.warmup_out[0].startswith(f"{n} kernel signatures ready in ")
    assert f"({n} compiled, 0 loaded from the cache)" in cold_kernels.warmup_out[0]
    assert len(set(cold_kernels.warmup_compiled)) == n
    assert cold_kernels.exercise_compiled == []  # then nothing compiles, whatever runs
    assert cold_kernels.second_compiled == 0  # and a second warm-up only loads
    # NUMBA_CACHE_DIR respected
    assert cold_kernels.cache_bytes > 0 and cold_kernels.cache.is_dir()
    assert f"cache: {cold_kernels.cache}" in cold_kernels.warmup_out[1]


def test_import_does_not_import_numba():
    res = _run(
        """
        import sys
        import corruptbench
        print(sorted(m for m in ("numba", "llvmlite", "scipy.fft") if m in sys.modules))
        """
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


def test_notice_once_at_the_first_compile_and_silent_when_cached(tmp_path):
    code = """
        import numpy as np
        from corruptbench.ops import jit, weather_stages
        jit.announce(12.4)
        out = np.empty(65536, np.uint8)
        weather_stages.frost_table(0.5, 0.25, out)
        weather_stages.frost_table(0.75, 0.25, out)
        print(int(out[65535]))
        """
    env = {"NUMBA_CACHE_DIR": str(tmp_path)}
    first = _run(code, env)
    second = _run(code, env)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    notice = "corruptbench: compiling kernels, one time, ~12 s"
    assert first.stderr.count(notice) == 1
    assert notice not in second.stderr
    assert first.stdout == second.stdout


def test_kernels_are_lazy_and_look_like_dispatchers():
    from corruptbench.ops import weather_stages

    k = weather_stages.frost_table
    assert isinstance(k, jit.Kernel)
    assert k.name == "ops.weather_stages:frost_table"
    assert jit.get_kernel(k.name) is k
    assert k.dispatcher.py_func is k.py_func
    assert k._numba_type_ == k.dispatcher._numba_type_
    import pickle

    assert pickle.loads(pickle.dumps(k)) is k


def test_signature_notation_round_trips():
    import numba

    for text in KERNEL_SIGNATURES["ops.zoom:_zoom_one"] + ("float32[:, :], bool, float32[::1, :]",):
        types = jit.parse_signature(text)
        assert jit.signature_text(types) == text
    a = np.zeros((4, 5, 3), np.uint8)
    assert jit.signature_text([numba.typeof(a), numba.typeof(2), numba.typeof(True)]) == (
        "uint8[:, :, ::1], int64, bool"
    )
    ro = jit.readonly(a[:, ::2])
    assert ro.flags.c_contiguous and not ro.flags.writeable
    assert jit.signature_text([numba.typeof(ro)]) == "readonly uint8[:, :, ::1]"
    assert a.flags.writeable  # the caller's array is untouched

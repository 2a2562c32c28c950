"""The ahead-of-time kernels: used only when valid, identical to the JIT, releasing the GIL, and a
build step that never fails an install."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import corruptbench
from corruptbench.ops import aot, jit
from kernels import EXERCISE_PHOTO, PERTURB_PHOTO, ColdRun, exercise, perturb_and_jpeg
from support import REPO, load_photo

PACKAGE = REPO / "src" / "corruptbench"


def _built() -> Path | None:
    meta = PACKAGE / "_aot_kernels.json"
    return meta if meta.is_file() and list(PACKAGE.glob("_aot_kernels*.so")) else None


def need_aot() -> aot.AotModule:
    if _built() is None:
        pytest.skip("the ahead-of-time kernels are not built here (setup.py builds them)")
    mod = aot.load()
    if mod is None:
        pytest.skip(f"the ahead-of-time kernels are not usable here: {aot.status()}")
    return mod


def _run(code: str, pythonpath: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != "CORRUPTBENCH_KERNELS"}
    full.update(PYTHONPATH=pythonpath, **env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=full,
        timeout=600,
    )


@pytest.mark.slow
def test_aot_outputs_equal_the_jit_on_real_photos(request: pytest.FixtureRequest) -> None:
    mod = need_aot()
    # the JIT's outputs: the run's one cold compile ran exercise() on the JIT's dispatchers
    # (audited) in a fresh process and kept the digest of every corrupt() output, in order
    cold: ColdRun = request.getfixturevalue("cold_kernels")
    photo = np.asarray(load_photo(EXERCISE_PHOTO))
    outputs: list[str] = []
    original = corruptbench.corrupt

    def corrupt(*args, **kwargs):
        y = original(*args, **kwargs)
        outputs.append(hashlib.md5(y.tobytes()).hexdigest())
        return y

    fallbacks = dict(mod.fallbacks)
    try:
        jit.use("auto")
        corruptbench.corrupt = corrupt  # type: ignore[assignment]
        exercise(photo)
    finally:
        corruptbench.corrupt = original  # type: ignore[assignment]
    assert len(outputs) == len(cold.jit_outputs) > 500
    assert outputs == cold.jit_outputs
    assert mod.fallbacks == fallbacks  # every call found its export: the AOT path ran


@pytest.mark.slow  # the run's one cold compile (the session fixture cold_kernels)
def test_perturb_and_jpeg_equal_the_jit(request: pytest.FixtureRequest) -> None:
    need_aot()
    # the JIT's outputs: computed by the run's one cold-compile process (its kernels compiled
    # there), so this process compiles nothing
    cold: ColdRun = request.getfixturevalue("cold_kernels")
    jit.use("auto")
    got = perturb_and_jpeg(np.asarray(load_photo(PERTURB_PHOTO)))
    assert [hashlib.md5(b).hexdigest() for b in got] == cold.jit_perturb_and_jpeg


def test_a_changed_kernel_source_means_the_jit(tmp_path):
    need_aot()
    copy = tmp_path / "src"
    shutil.copytree(REPO / "src", copy, ignore=shutil.ignore_patterns("__pycache__"))
    code = """
        from corruptbench.ops import aot
        print(aot.status())
        """
    ok = _run(code, str(copy))
    assert ok.returncode == 0, ok.stderr
    assert "ahead-of-time kernels: 37 signatures" in ok.stdout or "signatures for" in ok.stdout
    src = copy / "corruptbench" / "ops" / "weather_stages.py"
    src.write_text(src.read_text() + "\n# an edit\n")
    stale = _run(code, str(copy))
    assert "not used (stale: ops/weather_stages.py changed since the build)" in stale.stdout
    meta = copy / "corruptbench" / "_aot_kernels.json"
    src.write_text(src.read_text().removesuffix("\n# an edit\n"))
    m = json.loads(meta.read_text())
    m["build_id"] += 1
    meta.write_text(json.dumps(m))
    other = _run(code, str(copy))
    assert "from different builds" in other.stdout
    if m.get("parts"):  # a part from another build is refused as well
        m["build_id"] -= 1
        part = next(iter(m["parts"]))
        m["parts"][part] += 1
        meta.write_text(json.dumps(m))
        assert "from different builds" in _run(code, str(copy)).stdout
    forced = _run(code, str(REPO / "src"), CORRUPTBENCH_KERNELS="jit")
    assert "not used (CORRUPTBENCH_KERNELS=jit)" in forced.stdout


def test_an_install_without_them_says_so_and_uses_the_jit(tmp_path):
    # runs whether or not this checkout built them: a copy of the sources without the module
    copy = tmp_path / "src"
    shutil.copytree(
        REPO / "src", copy, ignore=shutil.ignore_patterns("__pycache__", "_aot_kernels*")
    )
    code = """
        import numpy as np
        from corruptbench.ops import aot
        print(aot.status())
        """
    res = _run(code, str(copy))
    assert res.returncode == 0, res.stderr
    assert (
        res.stdout.strip() == "ahead-of-time kernels: not used (not built (no _aot_kernels.json))"
    )
    forced = _run(code, str(copy), CORRUPTBENCH_KERNELS="aot")
    assert forced.returncode != 0
    assert "RuntimeError: CORRUPTBENCH_KERNELS=aot: not built" in forced.stderr


def test_first_results_without_numba():
    need_aot()
    res = _run(
        """
        import sys
        import numpy as np
        import corruptbench
        img = np.full((64, 48, 3), 100, np.uint8)
        for name in corruptbench.ALL_CORRUPTIONS:
            corruptbench.corrupt(img, name, 3, rng=0)
        print("numba" in sys.modules)
        """,
        str(REPO / "src"),
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "False"


@pytest.mark.slow
def test_aot_kernels_release_the_gil():
    mod = need_aot()
    assert mod.meta["release_gil"] is True
    from corruptbench.ops.gaussian import gaussian_filter_nearest

    big = np.random.RandomState(0).random_sample((2000, 2000, 3))
    order: list[str] = []
    entering = threading.Event()

    def blur() -> None:
        entering.set()
        gaussian_filter_nearest(big, 6.0)  # one long kernel call (about a second)
        order.append("kernel")

    gaussian_filter_nearest(big[:8], 6.0)  # routes and tables ready
    t = threading.Thread(target=blur)
    t.start()
    entering.wait()
    time.sleep(0.05)  # the thread is in the kernel now; waking up needs the GIL
    total = sum(range(20000))  # Python work: done first only if the kernel released the GIL
    order.append("python")
    t.join()
    assert total > 0
    assert order == ["python", "kernel"]


def test_the_build_step_never_fails_an_install(tmp_path):
    fake = tmp_path / "fake"
    (fake / "numba").mkdir(parents=True)
    (fake / "numba" / "__init__.py").write_text("raise ImportError('no numba in this build')\n")
    out = tmp_path / "out"
    res = subprocess.run(
        [sys.executable, str(REPO / "tools" / "build_aot.py"), str(out)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(fake)),
        timeout=300,
    )
    assert res.returncode == 3
    assert (
        res.stderr.strip()
        .splitlines()[-1]
        .startswith("corruptbench AOT kernels: skipped (numba.pycc unavailable")
    )
    assert not list(out.glob("_aot_kernels*"))
    nocc = subprocess.run(
        [sys.executable, str(REPO / "tools" / "build_aot.py"), str(out)],
        capture_output=True,
        text=True,
        env=dict(os.environ, CC=str(tmp_path / "no-such-cc")),
        timeout=300,
    )
    assert nocc.returncode == 3, nocc.stderr
    assert nocc.stderr.strip() == "corruptbench AOT kernels: skipped (no working C compiler)"
    assert not list(out.glob("_aot_kernels*"))

    odd = subprocess.run(
        [sys.executable, str(REPO / "tools" / "build_aot.py"), str(out)],
        capture_output=True,
        text=True,
        env=dict(os.environ, CORRUPTBENCH_AOT_CPU="pentium"),
        timeout=300,
    )
    assert odd.returncode == 3
    assert odd.stderr.strip() == (
        "corruptbench AOT kernels: skipped (unknown target CPU 'pentium'"
        " (one of x86-64-v4, x86-64-v3, x86-64, auto))"
    )

    def build_ext(lib: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tmp_path / lib)],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=dict(os.environ, **env),
            timeout=300,
        )

    build = build_ext("lib", CORRUPTBENCH_AOT="0")
    assert build.returncode == 0, build.stderr
    assert "corruptbench AOT kernels: skipped (CORRUPTBENCH_AOT=0)" in build.stderr
    # setup.py itself, with no numba at build time: one line, and the build goes on without it
    bare = build_ext("lib2", PYTHONPATH=str(fake))
    assert bare.returncode == 0, bare.stderr
    said = [ln for ln in bare.stderr.splitlines() if ln.startswith("corruptbench AOT")]
    assert len(said) == 1
    assert said[0].startswith("corruptbench AOT kernels: skipped (numba.pycc unavailable")
    assert said[0].endswith("(the kernels compile on first use instead)")
    assert not list((tmp_path / "lib2").rglob("_aot_kernels*"))


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location("build_aot", REPO / "tools" / "build_aot.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def test_the_build_targets_the_highest_level_the_machine_has():
    tool = _tool()
    v3, v4 = set(tool.V3_FLAGS), set(tool.V4_FLAGS)
    assert tool.auto_cpu(v3 | v4 | {"sse2"}) == "x86-64-v4"
    assert tool.auto_cpu(v3 | {"avx512f"}) == "x86-64-v3"  # part of AVX-512 is not v4
    assert tool.auto_cpu({"sse2", "avx"}) == "x86-64"
    # the module needs exactly the flags of its level at run time
    assert tool.CPU_FLAGS["x86-64-v4"] == tool.V3_FLAGS + tool.V4_FLAGS


def test_the_build_splits_the_kernels_into_balanced_parts():
    tool = _tool()
    weights = {"a": 10, "b": 6, "c": 5, "d": 1, "e": 4}
    split = tool.part_of(weights, 2)
    assert set(split) == set(weights) and set(split.values()) == {0, 1}
    loads = [sum(w for k, w in weights.items() if split[k] == p) for p in (0, 1)]
    assert abs(loads[0] - loads[1]) <= max(weights.values())  # the heaviest first: 13 / 13
    assert set(tool.part_of(weights, 1).values()) == {0}
    assert [tool.module_name(k) for k in range(3)] == [
        "_aot_kernels",
        "_aot_kernels_1",
        "_aot_kernels_2",
    ]
    assert 1 <= tool.default_jobs() <= 4

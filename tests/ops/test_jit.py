"""The compiled kernels: lazy numba, the signature table, the one-line notice, the warm-up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from PIL import Image

import corruptbench
from corruptbench.ops import jit
from corruptbench.tables.kernel_signatures import KERNEL_SIGNATURES
from support import REPO, load_photo

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


def exercise(photo: np.ndarray) -> None:
    """Every way the package calls kernels: the 19 corruptions and the 30 of ImageNet-C-bar x 5
    severities at every profile, other sizes and input layouts, a Generator, every perturbation,
    a JPEG write."""
    from corruptbench.formats.jpeg import encode_jpeg
    from corruptbench.registry import corruption_specs

    pil = Image.fromarray(photo)
    sizes = {"imagenet": 224, "inception": 299, "tiny": 64, "cifar": 32}
    names = corruptbench.ALL_CORRUPTIONS + tuple(s.name for s in corruption_specs("cbar"))
    for profile, side in sizes.items():
        img = np.asarray(pil.resize((side, side), Image.BILINEAR))
        for name in names:
            for sev in range(1, 6):
                corruptbench.corrupt(img, name, sev, profile=profile, rng=sev)
    odd = np.asarray(pil.resize((300, 200), Image.BILINEAR))
    rgba = np.dstack([odd, odd[:, :, :1]])
    for name in names:
        for sev in (1, 5):
            for img in (odd, odd[:, :, 1], rgba, rgba[:, :, :3], odd[::-1], odd.copy()):
                corruptbench.corrupt(img, name, sev, rng=3)
            corruptbench.corrupt(odd, name, sev, rng=np.random.default_rng(sev))
    small = np.asarray(pil.resize((32, 32), Image.BILINEAR))
    for name in corruptbench.ALL_PERTURBATIONS:
        for profile in sizes:
            src = small if profile == "cifar" else photo  # cifar takes 32 x 32 as it is
            for d in (1, 2, 3) if "noise" in name else (1,):
                corruptbench.perturb(src, name, profile=profile, difficulty=d, rng=5)
    encode_jpeg(photo, 85)


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    return np.asarray(load_photo("n01440764_tench.JPEG"))


@pytest.mark.slow
def test_the_table_lists_every_signature_the_package_calls(tmp_path, photo):
    # a fresh process: memoised tables (Poisson rates, frost's lookup table) filled by earlier
    # tests would otherwise hide their kernels' calls
    np.save(tmp_path / "photo.npy", photo)
    res = _run(
        f"""
        import json
        import numpy as np
        from corruptbench.ops import jit
        from test_jit import exercise
        with jit.audit() as calls, jit.record_compiles() as compiled:
            exercise(np.load({str(tmp_path / "photo.npy")!r}))
        print(json.dumps([sorted(calls), compiled]))
        """
    )
    assert res.returncode == 0, res.stderr[-3000:]
    calls, compiled = json.loads(res.stdout.strip().splitlines()[-1])
    seen = {f"{name} ({sig})" for name, sig in calls}
    listed = {f"{name} ({sig})" for name, sigs in KERNEL_SIGNATURES.items() for sig in sigs}
    assert sorted(seen - listed) == [], "called with signatures missing from the table"
    assert sorted(listed - seen) == [], "listed in the table but never called"
    # numba's compile event: nothing outside the table compiled (with a cold cache)
    assert sorted({f"{n} ({s})" for n, s in compiled} - listed) == []


@pytest.mark.slow
def test_after_warmup_nothing_compiles(tmp_path, photo):
    np.save(tmp_path / "photo.npy", photo[:120, :160])
    res = _run(
        f"""
        import json
        import numpy as np
        import corruptbench
        from corruptbench.ops import jit
        from test_jit import exercise
        r = corruptbench.warmup()
        with jit.record_compiles() as compiled:
            exercise(np.load({str(tmp_path / "photo.npy")!r}))
        again = corruptbench.warmup()
        print(json.dumps([r.signatures, r.compiled, again.compiled, compiled, r.cache_bytes]))
        """,
        env={"NUMBA_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert res.returncode == 0, res.stderr[-3000:]
    n, first, second, compiled, size = json.loads(res.stdout.strip().splitlines()[-1])
    assert n == sum(len(s) for s in KERNEL_SIGNATURES.values())
    assert first == n  # an empty cache: everything compiled
    assert compiled == []  # then nothing compiles, whatever runs
    assert second == 0  # and a second warm-up only loads
    assert size > 0 and (tmp_path / "cache").is_dir()  # NUMBA_CACHE_DIR respected


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

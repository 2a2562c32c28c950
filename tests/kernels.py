"""One cold kernel compile for the whole run (the session fixture ``cold_kernels`` of
``tests/conftest.py``).

The tests that need an empty numba cache (the signature table, the warm-up, the ahead-of-time
kernels against the JIT) used to compile every kernel each, ~60-90 s apiece on the 2-core
machine. :func:`cold_run` does it once, in a fresh process (memoised tables filled by earlier
tests would hide their kernels' calls) with an empty ``NUMBA_CACHE_DIR``:

1. ``corruptbench warmup --jit`` (the CLI, its stdout kept) with every compile event recorded;
2. :func:`exercise` (every way the package calls kernels) under ``jit.audit()`` and
   ``record_compiles()``, the digest of every ``corrupt`` output kept (the JIT's outputs);
3. ``corruptbench.warmup()`` again;
4. :func:`perturb_and_jpeg` on the JIT's kernels, the digests kept.

It hands back what each test asserts on and the cache it left, warm, for tests that run a
command which would otherwise compile again (``NUMBA_CACHE_DIR=cold.cache``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parents[1]

#: the photo :func:`exercise` runs on in the cold run (and in the AOT-vs-JIT comparison)
EXERCISE_PHOTO = "n01440764_tench.JPEG"
#: the photo of :func:`perturb_and_jpeg`
PERTURB_PHOTO = "n01530575_brambling.JPEG"


def perturb_and_jpeg(photo: np.ndarray) -> list[bytes]:
    """Five perturbations of ``photo`` and its JPEG at quality 85 (the AOT-vs-JIT check of the
    perturbation and JPEG kernels)."""
    import corruptbench
    from corruptbench.formats.jpeg import encode_jpeg

    out = [
        corruptbench.perturb(photo, p, rng=2).tobytes()
        for p in ("shot_noise", "snow", "tilt", "spatter", "motion_blur")
    ]
    return [*out, bytes(encode_jpeg(photo, 85))]


def exercise(photo: np.ndarray) -> None:
    """Every way the package calls kernels: the 19 corruptions and the 30 of ImageNet-C-bar x 5
    severities at every profile, other sizes and input layouts, a Generator, every perturbation,
    a JPEG write."""
    import corruptbench
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


@dataclass(frozen=True)
class ColdRun:
    """What one fresh process did with an empty numba cache (see the module docstring)."""

    cache: Path  #: its NUMBA_CACHE_DIR, warm now: pass it to commands that should only load
    warmup_rc: int  #: exit status of ``corruptbench warmup --jit``
    warmup_out: list[str]  #: its stdout lines
    warmup_compiled: list[tuple[str, str]]  #: the compile events while it ran
    calls: list[tuple[str, str]]  #: ``(kernel, signature)`` of every kernel call of exercise()
    exercise_compiled: list[tuple[str, str]]  #: compile events while exercise() ran (after it)
    second_compiled: int  #: ``warmup().compiled`` once the cache is warm
    signatures: int  #: ``warmup().signatures``
    cache_bytes: int  #: ``warmup().cache_bytes``
    jit_outputs: list[str]  #: md5 of every ``corrupt`` output of exercise(), in call order
    jit_perturb_and_jpeg: list[str]  #: md5 of :func:`perturb_and_jpeg`'s outputs on the JIT


_SCRIPT = """
    import contextlib, hashlib, io, json, sys
    import numpy as np
    import corruptbench
    from corruptbench.cli import main
    from corruptbench.ops import jit
    from kernels import exercise, perturb_and_jpeg

    out = io.StringIO()
    with jit.record_compiles() as cold, contextlib.redirect_stdout(out):
        rc = main(["warmup", "--jit"])
    digests = []
    original = corruptbench.corrupt

    def corrupt(*args, **kwargs):
        y = original(*args, **kwargs)
        digests.append(hashlib.md5(y.tobytes()).hexdigest())
        return y

    corruptbench.corrupt = corrupt
    with jit.audit() as calls, jit.record_compiles() as compiled:
        exercise(np.load(sys.argv[1]))
    corruptbench.corrupt = original
    again = corruptbench.warmup()
    jit.use("jit")
    more = [hashlib.md5(b).hexdigest() for b in perturb_and_jpeg(np.load(sys.argv[2]))]
    print(json.dumps(dict(
        warmup_rc=rc, warmup_out=out.getvalue().splitlines(), warmup_compiled=cold,
        calls=sorted(calls), exercise_compiled=compiled, second_compiled=again.compiled,
        signatures=again.signatures, cache_bytes=again.cache_bytes, jit_outputs=digests,
        jit_perturb_and_jpeg=more,
    )))
    """


def cold_run(base: Path, photo: np.ndarray, perturb_photo: np.ndarray) -> ColdRun:
    """Run the cold process under ``base`` (its cache: ``base / "numba-cache"``)."""
    np.save(base / "photo.npy", photo)
    np.save(base / "perturb-photo.npy", perturb_photo)
    cache = base / "numba-cache"
    env = {k: v for k, v in os.environ.items() if k != "CORRUPTBENCH_KERNELS"}
    # the JIT's kernels whatever this install has: warmup --jit and audit() use the dispatchers
    env.update(
        PYTHONPATH=os.pathsep.join([str(REPO / "src"), str(REPO / "tests")]),
        NUMBA_CACHE_DIR=str(cache),
    )
    res = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(_SCRIPT),
            str(base / "photo.npy"),
            str(base / "perturb-photo.npy"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    if res.returncode != 0:
        raise AssertionError(f"the cold kernel run failed:\n{res.stderr[-3000:]}")
    data = json.loads(res.stdout.strip().splitlines()[-1])
    pairs = ("warmup_compiled", "calls", "exercise_compiled")
    for key in pairs:
        data[key] = [tuple(x) for x in data[key]]
    return ColdRun(cache=cache, **data)

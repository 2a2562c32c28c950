"""Compile the kernel signature table ahead of time into ``corruptbench/_aot_kernels`` (numba.pycc).

    python tools/build_aot.py OUTDIR [--cpu x86-64-v4|x86-64-v3|x86-64|auto] [--jobs N]

Run by ``setup.py``'s build step in a fresh process (never imported by the package). For every
entry of :data:`corruptbench.tables.kernel_signatures.KERNEL_SIGNATURES` it exports a thin
wrapper that calls the kernel's numba dispatcher with exactly those argument types, so each
kernel is compiled with its own options (``nogil``, ``error_model``, ``inline``) and the bytes it
computes are the JIT's. The wrappers release the GIL (a build-time patch of pycc's compile
flags: pycc would hold it, and the torch backend runs kernels in a thread pool).

Writes ``OUTDIR/_aot_kernels.<abi>.so`` and ``OUTDIR/_aot_kernels.json``: the exports of each
kernel, the SHA-256 of the source files that define kernels (at run time the module is used only
while the installed sources hash the same), the target CPU and the CPU flags it needs, and a build
id that the module returns from ``build_id()``. Exits 0 after writing both, 3 when it cannot run
here (no numba.pycc, no C compiler, not Linux x86-64), 1 on a failure; one line on stderr says why.

With ``--jobs N`` (default ``$CORRUPTBENCH_AOT_JOBS``, else the CPU count, at most 4) the
kernels are split into N parts compiled at once by N processes (numba compiles one function at a
time: on 2 cores the build takes about half the time); part 0 is ``_aot_kernels``, the others
``_aot_kernels_<k>`` beside it, each with its own build id, all listed in the one JSON file
(``parts``). The split balances the kernels' source lengths (a proxy for their compile time);
export names do not depend on it.

The target CPU (``--cpu``, default ``$CORRUPTBENCH_AOT_CPU`` or ``auto``): an ISA level, never the
host's own CPU model, so the module runs on any machine that has the recorded flags (elsewhere the
package uses the JIT). ``auto`` takes the highest level this machine has: ``x86-64-v4`` (AVX-512:
the JIT's kernels run up to 2.2x faster with it than at v3 on the development VM, 17 % over all
19 corruptions), else ``x86-64-v3`` (AVX2, FMA, BMI2), else the ``x86-64`` baseline. An image
built on one machine for others (a container, a wheel) sets ``CORRUPTBENCH_AOT_CPU=x86-64-v3``. Needs numba and NumPy only: the modules' other imports
(OpenCV, Pillow, simplejpeg) are not used by kernels and are stubbed when absent.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import inspect
import json
import os
import platform
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
MODULE = "_aot_kernels"
#: /proc/cpuinfo flags of LLVM's x86-64-v3 level (lzcnt is "abm" there)
V3_FLAGS = ("avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "abm", "xsave")
#: and those x86-64-v4 adds
V4_FLAGS = ("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl")
#: the flags each target needs at run time
CPU_FLAGS = {"x86-64-v4": V3_FLAGS + V4_FLAGS, "x86-64-v3": V3_FLAGS, "x86-64": ()}
#: third-party modules the kernel modules import for their Python wrappers only
STUBBED = ("cv2", "PIL", "simplejpeg", "scipy")


def cant(reason: str) -> None:
    print(f"corruptbench AOT kernels: skipped ({reason})", file=sys.stderr)
    raise SystemExit(3)


class _Anything:
    """What a stubbed module's attributes are (module-level constants such as
    ``Image.Resampling.BILINEAR`` only need to exist)."""

    def __getattr__(self, name: str) -> Any:
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec: Any) -> Any:
        mod = types.ModuleType(spec.name)
        mod.__path__ = []  # type: ignore[attr-defined]
        mod.__getattr__ = lambda attr: _Anything()  # type: ignore[method-assign]
        return mod

    def exec_module(self, module: Any) -> None:
        pass


def _stub_missing() -> list[str]:
    missing = []
    for name in STUBBED:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        for name in missing:
            sys.modules.pop(name, None)
        sys.meta_path.insert(0, _StubFinder())
    return missing


def host_flags() -> set[str]:
    # the same reading as corruptbench.ops.aot's: this tool runs before the package (and the
    # stubs its imports need) can be imported, in pip's isolated build environment
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def auto_cpu(have: set[str]) -> str:
    """The highest ISA level of :data:`CPU_FLAGS` whose flags are all in ``have``."""
    return next(cpu for cpu, flags in CPU_FLAGS.items() if set(flags) <= have)


def kernel_sources(kernels: dict[str, Any]) -> dict[str, str]:
    """``{path relative to src/corruptbench: sha256}`` of every module that defines a kernel."""
    out = {}
    for k in kernels.values():
        path = Path(sys.modules[k.py_func.__module__].__file__ or "")
        rel = path.relative_to(SRC / "corruptbench").as_posix()
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return dict(sorted(out.items()))


def part_of(kernels: dict[str, int], parts: int) -> dict[str, int]:
    """Kernel name -> part, the heaviest first onto the lightest part (weights: source lengths)."""
    load = [0] * parts
    out = {}
    for name in sorted(kernels, key=lambda k: (-kernels[k], k)):
        k = load.index(min(load))
        out[name] = k
        load[k] += kernels[name]
    return out


def module_name(part: int) -> str:
    return MODULE if part == 0 else f"{MODULE}_{part}"


def build(out_dir: Path, cpu: str, part: int = 0, parts: int = 1) -> None:
    if not (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")):
        cant(f"built only on Linux x86-64, this is {sys.platform} {platform.machine()}")
    try:
        import numba.pycc.compiler as pycc_compiler
        from numba.core import compiler as nb_compiler
        from numba.pycc import CC
    except Exception as exc:  # noqa: BLE001 - numba absent, or a numba without pycc
        cant(f"numba.pycc unavailable: {exc}")
    from numba.pycc.platform import external_compiler_works

    if not external_compiler_works():  # before the tens of seconds of compiling, not after
        cant("no working C compiler")
    missing = _stub_missing()
    sys.path.insert(0, str(SRC))
    import corruptbench.formats.jpeg_transcoder  # noqa: F401  (its kernels)
    from corruptbench.ops import jit
    from corruptbench.tables.kernel_signatures import KERNEL_SIGNATURES

    # pycc compiles exports with default flags, which hold the GIL: release it like nogil=True
    class Flags(nb_compiler.Flags):  # type: ignore[misc, name-defined]
        def __init__(self, *a: Any, **kw: Any) -> None:
            super().__init__(*a, **kw)
            self.release_gil = True

    if not hasattr(nb_compiler.Flags(), "release_gil") or not hasattr(pycc_compiler, "Flags"):
        cant("this numba's pycc has no release_gil flag")
    pycc_compiler.Flags = Flags

    t0, w0 = time.process_time(), time.perf_counter()
    weights = {
        name: len(inspect.getsource(jit.get_kernel(name).dispatcher.py_func))
        for name in KERNEL_SIGNATURES
    }
    mine = part_of(weights, parts)
    cc = CC(module_name(part))
    cc.output_dir = str(out_dir)
    cc.target_cpu = cpu
    cc.verbose = False
    build_id = secrets.randbits(62)
    ns: dict[str, Any] = {}
    exec(f"def build_id():\n    return {build_id}\n", ns)
    cc.export("build_id", "int64()")(ns["build_id"])
    exports: dict[str, dict[str, str]] = {}
    n = 0
    for name, sigs in KERNEL_SIGNATURES.items():
        disp = jit.get_kernel(name).dispatcher
        for sig in sigs:
            ename = f"k{n}"  # numbered over the whole table: the same in any split
            n += 1
            if mine[name] != part:
                continue
            argtypes = jit.parse_signature(sig)
            disp.compile(argtypes)
            ret = disp.overloads[argtypes].signature.return_type
            params = ", ".join(f"a{i}" for i in range(len(argtypes)))
            ns = {"_kernel": disp}
            exec(f"def {ename}({params}):\n    return _kernel({params})\n", ns)
            cc.export(ename, ret(*argtypes))(ns[ename])
            exports.setdefault(name, {})[sig] = ename
    jit_cpu = time.process_time() - t0
    cc.compile()
    meta = {
        "build_id": build_id,
        "numba": sys.modules["numba"].__version__,
        "numpy": sys.modules["numpy"].__version__,
        "python": platform.python_version(),
        "cpu": cpu,
        "cpu_flags": list(CPU_FLAGS[cpu]),
        "release_gil": True,
        "sources": kernel_sources(jit.kernels()),
        "exports": exports,
        "stubbed_at_build": missing,
    }
    name = f"{module_name(part)}.part" if parts > 1 else MODULE
    (out_dir / f"{name}.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    n = sum(len(v) for v in exports.values())
    print(
        f"corruptbench AOT kernels: {n} signatures of {len(exports)} kernels for {cpu} in "
        f"{time.perf_counter() - w0:.0f} s ({jit_cpu:.0f} + {time.process_time() - t0 - jit_cpu:.0f}"
        f" CPU s in this process, gcc not counted) -> {out_dir}",
        file=sys.stderr,
    )


def build_parts(out_dir: Path, cpu: str, jobs: int) -> None:
    """The ``jobs`` parts built at once (one process each, each with its own numba cache), then
    their JSON files merged into ``_aot_kernels.json`` (part 0's, with the others' exports and
    build ids under ``parts``)."""
    w0 = time.perf_counter()
    caches = [tempfile.mkdtemp(prefix="corruptbench-aot-") for _ in range(jobs)]
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, str(out_dir), "--cpu", cpu, "--part", f"{k}/{jobs}"],
            env=dict(os.environ, NUMBA_CPU_NAME=cpu, NUMBA_CPU_FEATURES="", NUMBA_CACHE_DIR=cache),
            stderr=subprocess.PIPE,
            text=True,
        )
        for k, cache in enumerate(caches)
    ]
    errors = [p.communicate()[1] for p in procs]
    for cache in caches:
        shutil.rmtree(cache, ignore_errors=True)
    for p, err in zip(procs, errors, strict=True):
        if p.returncode != 0:
            said = [ln for ln in err.splitlines() if ln.startswith("corruptbench AOT")]
            last = said[-1] if said else (err.strip().splitlines() or ["?"])[-1]
            print(last if said else f"corruptbench AOT kernels: failed ({last})", file=sys.stderr)
            raise SystemExit(p.returncode)
    partial = [out_dir / f"{module_name(k)}.part.json" for k in range(jobs)]
    metas = [json.loads(f.read_text()) for f in partial]
    merged = dict(metas[0], parts={module_name(k): m["build_id"] for k, m in enumerate(metas)})
    del merged["parts"][MODULE]
    merged["exports"] = {}
    for m in metas:
        merged["exports"].update(m["exports"])
    merged["exports"] = dict(sorted(merged["exports"].items()))
    (out_dir / f"{MODULE}.json").write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n")
    for f in partial:
        f.unlink()
    n = sum(len(v) for v in merged["exports"].values())
    print(
        f"corruptbench AOT kernels: {n} signatures of {len(merged['exports'])} kernels for {cpu} "
        f"in {time.perf_counter() - w0:.0f} s ({jobs} processes) -> {out_dir}",
        file=sys.stderr,
    )


def default_jobs() -> int:
    """``$CORRUPTBENCH_AOT_JOBS``, else this process's CPU count, at most 4."""
    env = os.environ.get("CORRUPTBENCH_AOT_JOBS", "").strip()
    if env:
        return max(1, int(env))
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out_dir", type=Path)
    ap.add_argument(
        "--cpu",
        default=os.environ.get("CORRUPTBENCH_AOT_CPU", "auto"),
        help="x86-64-v4 | x86-64-v3 | x86-64 | auto (default: $CORRUPTBENCH_AOT_CPU, else auto)",
    )
    ap.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="processes compiling at once (default: $CORRUPTBENCH_AOT_JOBS, else the CPUs, at most 4)",
    )
    ap.add_argument("--part", default=None, help=argparse.SUPPRESS)  # K/N: one process's share
    args = ap.parse_args()
    cpu = args.cpu
    if cpu == "auto":
        cpu = auto_cpu(host_flags())
    if cpu not in CPU_FLAGS:
        cant(f"unknown target CPU {cpu!r} (one of {', '.join(CPU_FLAGS)}, auto)")
    jobs = args.jobs if args.jobs is not None else default_jobs()
    if args.part is None and jobs > 1:
        args.out_dir.mkdir(parents=True, exist_ok=True)
        build_parts(args.out_dir, cpu, jobs)
        return
    if os.environ.get("NUMBA_CPU_NAME") != cpu or "NUMBA_CACHE_DIR" not in os.environ:
        # numba reads these at import: callees compiled through their dispatchers must target
        # the same CPU as the module, and nothing may come from (or go to) the user's cache
        env = dict(os.environ, NUMBA_CPU_NAME=cpu, NUMBA_CPU_FEATURES="")
        env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="corruptbench-aot-")
        again = [sys.executable, __file__, str(args.out_dir), "--cpu", cpu, "--jobs", "1"]
        os.execve(sys.executable, again, env)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    part, parts = (int(v) for v in args.part.split("/")) if args.part else (0, 1)
    try:
        build(args.out_dir, cpu, part, parts)
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - one line, and the caller goes on without AOT
        print(f"corruptbench AOT kernels: failed ({type(exc).__name__}: {exc})", file=sys.stderr)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()

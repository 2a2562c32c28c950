"""Compile the kernel signature table ahead of time into ``corruptbench/_aot_kernels`` (numba.pycc).

    python tools/build_aot.py OUTDIR [--cpu x86-64-v4|x86-64-v3|x86-64|auto]

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
import json
import os
import platform
import secrets
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


def build(out_dir: Path, cpu: str) -> None:
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
    cc = CC(MODULE)
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
            argtypes = jit.parse_signature(sig)
            disp.compile(argtypes)
            ret = disp.overloads[argtypes].signature.return_type
            ename = f"k{n}"
            n += 1
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
    (out_dir / f"{MODULE}.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    print(
        f"corruptbench AOT kernels: {n} signatures of {len(exports)} kernels for {cpu} in "
        f"{time.perf_counter() - w0:.0f} s ({jit_cpu:.0f} + {time.process_time() - t0 - jit_cpu:.0f}"
        f" CPU s in this process, gcc not counted) -> {out_dir}",
        file=sys.stderr,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out_dir", type=Path)
    ap.add_argument(
        "--cpu",
        default=os.environ.get("CORRUPTBENCH_AOT_CPU", "auto"),
        help="x86-64-v4 | x86-64-v3 | x86-64 | auto (default: $CORRUPTBENCH_AOT_CPU, else auto)",
    )
    args = ap.parse_args()
    cpu = args.cpu
    if cpu == "auto":
        cpu = auto_cpu(host_flags())
    if cpu not in CPU_FLAGS:
        cant(f"unknown target CPU {cpu!r} (one of {', '.join(CPU_FLAGS)}, auto)")
    if os.environ.get("NUMBA_CPU_NAME") != cpu or "NUMBA_CACHE_DIR" not in os.environ:
        # numba reads these at import: callees compiled through their dispatchers must target
        # the same CPU as the module, and nothing may come from (or go to) the user's cache
        env = dict(os.environ, NUMBA_CPU_NAME=cpu, NUMBA_CPU_FEATURES="")
        env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="corruptbench-aot-")
        os.execve(sys.executable, [sys.executable, __file__, str(args.out_dir), "--cpu", cpu], env)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    try:
        build(args.out_dir, cpu)
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - one line, and the caller goes on without AOT
        print(f"corruptbench AOT kernels: failed ({type(exc).__name__}: {exc})", file=sys.stderr)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()

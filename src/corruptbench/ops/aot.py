"""The ahead-of-time compiled kernels (``corruptbench._aot_kernels``), when the install built them.

``setup.py`` runs ``tools/build_aot.py`` when numba and a C compiler are there at build time (Linux
x86-64); it exports every signature of :mod:`corruptbench.tables.kernel_signatures` into one
extension module, or into parts compiled at once (``_aot_kernels``, ``_aot_kernels_1``, ...,
listed under ``parts``), with ``_aot_kernels.json`` beside it. A process then computes its first results
without compiling anything (and without importing numba). The module is used only when all of
these hold, else the kernels compile (or load from the cache) as usual:

* ``CORRUPTBENCH_KERNELS`` is not ``jit`` (``aot`` makes a missing module an error; default
  ``auto``), and :func:`corruptbench.ops.jit.use` did not choose the JIT;
* the module (and every part) imports, and its ``build_id()`` is the one of the JSON file;
* every source file that defined kernels at build time hashes (SHA-256) as recorded: an edited
  kernel (an editable install) falls back to the JIT, never to the stale machine code;
* this CPU has the flags the module was built for (``/proc/cpuinfo``).

A call goes to an export only when every argument has exactly the exported type (dtype, number
of dimensions, C-contiguous, writable or not, aligned; the scalar's type): pycc's wrappers check
less. Anything else goes to numba's dispatcher.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..tables.kernel_signatures import split_signature

__all__ = ["AotModule", "load", "status"]

_PACKAGE_DIR = Path(__file__).resolve().parents[1]
_MODULE = "corruptbench._aot_kernels"
_LOCK = threading.Lock()
_LOADED: list[AotModule | None] = []
_WHY: list[str] = []

#: Python scalar types -> the numba type ``numba.typeof`` gives them
_SCALARS: dict[type, str] = {
    int: "int64",
    float: "float64",
    bool: "bool",
    np.int64: "int64",
    np.float64: "float64",
    np.float32: "float32",
    np.bool_: "bool",
    np.uint64: "uint64",
    np.uint32: "uint32",
    np.int32: "int32",
}


def _arg_key(a: Any) -> Any:
    if type(a) is np.ndarray:
        f = a.flags
        return (a.dtype.str, a.ndim, f.c_contiguous, f.writeable, f.aligned)
    return _SCALARS.get(type(a))


def _sig_key(text: str) -> tuple[Any, ...]:
    out: list[Any] = []
    for part in split_signature(text):
        readonly = part.startswith("readonly ")
        part = part.removeprefix("readonly ")
        if "[" in part:
            name, dims = part[:-1].split("[")
            axes = [d.strip() for d in dims.split(",")]
            if axes[-1] != "::1":
                raise ValueError(f"only C-contiguous arrays are exported: {text}")
            out.append((np.dtype(name).str, len(axes), True, not readonly, True))
        else:
            out.append(part)
    return tuple(out)


class AotModule:
    """The loaded extension: ``router(name, fallback)`` per kernel."""

    def __init__(self, module: Any, meta: dict[str, Any], parts: tuple[Any, ...] = ()) -> None:
        self.module = module
        self.meta = meta
        #: calls that went to numba's dispatcher (arguments of a type not exported), per kernel
        self.fallbacks: dict[str, int] = {}
        where = {e: m for m in (module, *parts) for e in dir(m) if e.startswith("k")}
        self.tables = {
            name: {_sig_key(sig): getattr(where[ename], ename) for sig, ename in sigs.items()}
            for name, sigs in meta["exports"].items()
        }

    def router(self, name: str, fallback: Callable[[], Any]) -> Callable[..., Any] | None:
        """A callable for kernel ``name``: the export of the arguments' exact types, else
        ``fallback()`` (numba's dispatcher, made on the first such call). None when the module
        exports nothing for ``name``."""
        table = self.tables.get(name)
        if not table:
            return None
        key = _arg_key
        jit: list[Any] = []
        fallbacks = self.fallbacks

        def call(*args: Any) -> Any:
            f = table.get(tuple(key(a) for a in args))
            if f is not None:
                return f(*args)
            if not jit:
                jit.append(fallback())
            fallbacks[name] = fallbacks.get(name, 0) + 1
            return jit[0](*args)

        return call


def _sources_match(meta: dict[str, Any]) -> str | None:
    for rel, digest in meta["sources"].items():
        path = _PACKAGE_DIR / rel
        try:
            if hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                return f"{rel} changed since the build"
        except OSError:
            return f"{rel} missing"
    return None


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def _load() -> AotModule | None:
    meta_path = _PACKAGE_DIR / "_aot_kernels.json"
    if not meta_path.is_file():
        _WHY.append("not built (no _aot_kernels.json)")
        return None
    try:
        meta = json.loads(meta_path.read_text())
        mismatch = _sources_match(meta)
        if mismatch:
            _WHY.append(f"stale: {mismatch}")
            return None
        need = set(meta.get("cpu_flags", ()))
        if need and not need <= _cpu_flags():
            _WHY.append(f"this CPU lacks {sorted(need - _cpu_flags())}")
            return None
        module = importlib.import_module(_MODULE)
        parts = tuple(importlib.import_module(f"corruptbench.{p}") for p in meta.get("parts", {}))
        ids = [meta["build_id"], *meta.get("parts", {}).values()]
        if [m.build_id() for m in (module, *parts)] != ids:
            _WHY.append("module and _aot_kernels.json are from different builds")
            return None
        return AotModule(module, meta, parts)
    except Exception as exc:  # noqa: BLE001 - an unusable module means the JIT, never an error
        _WHY.append(f"unusable: {type(exc).__name__}: {exc}")
        return None


def load() -> AotModule | None:
    """The AOT module when it is usable here (see the module docstring), else None."""
    if not _LOADED:
        with _LOCK:
            if not _LOADED:
                mode = os.environ.get("CORRUPTBENCH_KERNELS", "auto").strip().lower()
                mod = None if mode == "jit" else _load()
                if mode == "jit":
                    _WHY.append("CORRUPTBENCH_KERNELS=jit")
                if mode == "aot" and mod is None:
                    raise RuntimeError(f"CORRUPTBENCH_KERNELS=aot: {'; '.join(_WHY)}")
                _LOADED.append(mod)
    return _LOADED[0]


def status() -> str:
    """One line: whether the AOT kernels are used, and why not."""
    mod = load()
    if mod is not None:
        m = mod.meta
        n = sum(len(s) for s in m["exports"].values())
        return f"ahead-of-time kernels: {n} signatures for {m['cpu']} (numba {m['numba']})"
    return f"ahead-of-time kernels: not used ({'; '.join(_WHY)})"

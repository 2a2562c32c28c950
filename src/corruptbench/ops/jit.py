"""Compiled kernels: numba's ``njit``, made on first use, and what is known about their types.

``@kernel`` replaces ``@numba.njit(cache=True, nogil=True)`` on every compiled function of the
package (options such as ``inline="always"`` pass through). A :class:`Kernel` is what the module
holds; it creates the numba dispatcher when it is first called or first compiled into another
kernel, so importing a module of kernels imports neither numba nor llvmlite (``import
corruptbench`` stays cheap). numba sees a kernel as its dispatcher (``_numba_type_``,
``targetoptions``, ``py_func``), so kernels call kernels as before, ``inline="always"`` included.

The argument types each kernel is called with from Python are listed once, as data, in
:mod:`corruptbench.tables.kernel_signatures`, written in numba's notation (``uint8[:, :, ::1]`` a
C-contiguous 3-D array, ``readonly`` in front of a read-only one, ``int64``, ``float64``,
``float32``, ``bool``). :func:`corruptbench.warmup` compiles exactly that list into numba's disk
cache; :func:`audit` and :func:`record_compiles` let the tests check that nothing outside it is
called or compiled. :func:`announce` prints one line at the first compilation of a process.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from ..tables.kernel_signatures import split_signature

__all__ = [
    "Kernel",
    "kernel",
    "kernels",
    "get_kernel",
    "announce",
    "audit",
    "record_compiles",
    "signature_text",
    "parse_signature",
    "readonly",
    "use",
]

_PACKAGE = __name__.rsplit(".", 2)[0]  # "corruptbench"
_DEFAULT_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True}
_KERNELS: dict[str, Kernel] = {}
_LOCK = threading.RLock()
_PREPARED: set[str] = set()


class Kernel:
    """A compiled function: ``numba.njit(**options)(py_func)``, created on first use.

    Calling it calls the dispatcher (numba's own type dispatch and disk cache). ``name`` is
    ``"module:qualname"`` without the package prefix, e.g. ``"ops.gaussian:_gauss_filter_u8"``.
    """

    def __init__(self, py_func: Callable[..., Any], options: dict[str, Any]) -> None:
        self.py_func = py_func
        self.options = {**_DEFAULT_OPTIONS, **options}
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__module__ = py_func.__module__
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func
        module = py_func.__module__
        if module.startswith(_PACKAGE + "."):
            module = module[len(_PACKAGE) + 1 :]
        self.name = f"{module}:{py_func.__qualname__}"
        self._dispatcher: Any = None
        self._call: Callable[..., Any] = self._first_call
        _KERNELS[self.name] = self

    @property
    def dispatcher(self) -> Any:
        """numba's dispatcher (imports numba and creates it the first time)."""
        if self._dispatcher is None:
            with _LOCK:
                if self._dispatcher is None:
                    numba = _numba()
                    _prepare_module(self.py_func.__module__)
                    try:
                        self._dispatcher = numba.njit(**self.options)(self.py_func)
                    except RuntimeError as e:  # no writable cache location anywhere
                        if "no locator available" not in str(e):
                            raise
                        _warn_no_cache(str(e))
                        options = {**self.options, "cache": False}
                        self._dispatcher = numba.njit(**options)(self.py_func)
        return self._dispatcher

    # numba resolves a global it calls through these three (a dispatcher's own attributes)
    @property
    def _numba_type_(self) -> Any:
        return self.dispatcher._numba_type_

    @property
    def targetoptions(self) -> Any:
        return self.dispatcher.targetoptions

    def __call__(self, *args: Any) -> Any:
        return self._call(*args)

    def _first_call(self, *args: Any) -> Any:
        self._call = _route(self)
        return self._call(*args)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled by reference, like a function
        return (get_kernel, (self.name,))

    def __repr__(self) -> str:
        return f"<kernel {self.name}>"


def readonly(a: Any) -> Any:
    """A read-only view of ``a`` (C-contiguous; a copy when ``a`` is not): the one array type a
    kernel gets for an input it does not write, whether the caller's array was writable or not
    (numba compiles each array type once more, and the signature table lists one)."""
    import numpy as np

    v = np.ascontiguousarray(a).view()
    v.flags.writeable = False
    return v


def _warn_no_cache(reason: str) -> None:
    if not _STATE.warned_no_cache:
        _STATE.warned_no_cache = True
        print(
            "corruptbench: numba has no writable cache directory, kernels compile in every "
            f"process (set NUMBA_CACHE_DIR to a writable directory): {reason}",
            file=sys.stderr,
        )


def kernel(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """Decorator: ``@kernel`` or ``@kernel(inline="always", ...)`` makes a :class:`Kernel`
    (``cache=True, nogil=True`` unless given)."""
    if func is not None:
        return Kernel(func, options)
    return lambda f: Kernel(f, options)


def kernels() -> dict[str, Kernel]:
    """Every kernel of the modules imported so far, by name."""
    return dict(_KERNELS)


def get_kernel(name: str) -> Kernel:
    """The kernel ``"module:qualname"`` (its module is imported)."""
    if name not in _KERNELS:
        importlib.import_module(f"{_PACKAGE}.{name.split(':')[0]}")
    return _KERNELS[name]


def _route(k: Kernel) -> Callable[..., Any]:
    # what a kernel's calls go to: the ahead-of-time export when there is one (ops/aot.py),
    # else numba's dispatcher; the auditing wrapper while audit() runs
    if _STATE.audit is not None:
        return _audited(k)
    if not _STATE.jit_only:
        from . import aot

        mod = aot.load()
        if mod is not None:
            call = mod.router(k.name, lambda: k.dispatcher)
            if call is not None:
                return call
    return k.dispatcher


def use(which: str) -> None:
    """``"jit"``: this process calls numba's dispatchers from now on (compiled for this CPU;
    for bulk work once the cache is warm); ``"auto"``: the ahead-of-time kernels where they are
    usable (:mod:`corruptbench.ops.aot`), else the dispatchers."""
    if which not in ("jit", "auto"):
        raise ValueError(f"which must be 'jit' or 'auto', got {which!r}")
    _STATE.jit_only = which == "jit"
    _reset_routes()


def _reset_routes() -> None:
    for k in _KERNELS.values():
        k._call = k._first_call


def _prepare_module(module: str) -> None:
    # A module whose kernels need numba objects at compile time (an intrinsic) builds them in
    # ``_numba_globals()``; they enter its globals before its first kernel is created.
    if module in _PREPARED:
        return
    mod = sys.modules.get(module)
    hook = getattr(mod, "_numba_globals", None)
    if hook is not None:
        vars(mod).update(hook())
    _PREPARED.add(module)


# --------------------------------------------------------------------------------------------
# numba, the compile listener, the announcement
# --------------------------------------------------------------------------------------------


class _State(threading.local):
    depth = 0


class _Shared:
    numba: Any = None
    notice: str | None = None  #: printed (stderr) at the next first compile, then cleared
    recorders: list[list[tuple[str, str]]] = []
    audit: dict[tuple[str, str], int] | None = None
    warned_no_cache = False
    jit_only = False


_STATE = _Shared()
_DEPTH = _State()


def _numba() -> Any:
    if _STATE.numba is None:
        import numba
        from numba.core import event

        event.register("numba:compile", _Listener(event))
        _STATE.numba = numba
    return _STATE.numba


def _Listener(event: Any) -> Any:
    class Listener(event.Listener):  # type: ignore[misc, name-defined]
        def on_start(self, ev: Any) -> None:
            top = _DEPTH.depth == 0
            _DEPTH.depth += 1
            if not top:
                return  # compiled into a caller: part of that compilation
            notice = _STATE.notice
            if notice is not None:
                _STATE.notice = None
                print(notice, file=sys.stderr, flush=True)
            if _STATE.recorders:
                f = ev.data["dispatcher"].py_func
                module = f.__module__
                if module.startswith(_PACKAGE + "."):
                    module = module[len(_PACKAGE) + 1 :]
                entry = (f"{module}:{f.__qualname__}", signature_text(ev.data["args"]))
                for rec in _STATE.recorders:
                    rec.append(entry)

        def on_end(self, ev: Any) -> None:
            _DEPTH.depth -= 1

    return Listener()


def announce(seconds: float | None) -> None:
    """Print ``corruptbench: compiling kernels, one time, ~N s of CPU ...`` to stderr when this process
    first compiles a kernel (nothing when every kernel loads from the cache). ``None`` cancels."""
    if seconds is None:
        _STATE.notice = None
        return
    n = max(1, round(seconds))
    # the figure is CPU seconds on one idle core: on a busy machine the wait is longer
    _STATE.notice = (
        f"corruptbench: compiling kernels, one time, ~{n} s of CPU "
        "(`corruptbench warmup` does this ahead of time)"
    )


@contextlib.contextmanager
def record_compiles() -> Iterator[list[tuple[str, str]]]:
    """Collect ``(kernel name, signature text)`` of every compilation started from Python (not
    those compiled into a caller) while the block runs; numba's ``numba:compile`` event."""
    _numba()
    rec: list[tuple[str, str]] = []
    _STATE.recorders.append(rec)
    try:
        yield rec
    finally:
        _STATE.recorders.remove(rec)


@contextlib.contextmanager
def audit() -> Iterator[dict[tuple[str, str], int]]:
    """Count ``(kernel name, signature text)`` of every call of a kernel from Python while the
    block runs (whether it compiles or not): what :mod:`~corruptbench.tables.kernel_signatures`
    must list. Slow (``numba.typeof`` per argument); for tests."""
    _numba()
    calls: dict[tuple[str, str], int] = {}
    _STATE.audit = calls
    _reset_routes()
    try:
        yield calls
    finally:
        _STATE.audit = None
        _reset_routes()


def _audited(k: Kernel) -> Callable[..., Any]:
    typeof = _numba().typeof
    disp = k.dispatcher

    def call(*args: Any) -> Any:
        calls = _STATE.audit
        if calls is not None:
            key = (k.name, signature_text(tuple(typeof(a) for a in args)))
            calls[key] = calls.get(key, 0) + 1
        return disp(*args)

    return call


# --------------------------------------------------------------------------------------------
# the signature notation
# --------------------------------------------------------------------------------------------


def _type_text(t: Any) -> str:
    from numba.core import types

    if isinstance(t, types.Array):
        dims = [":"] * t.ndim
        if t.layout == "C":
            dims[-1] = "::1"
        elif t.layout == "F":
            dims[0] = "::1"
        text = f"{t.dtype}[{', '.join(dims)}]"
        if not t.aligned:
            text = f"unaligned {text}"
        return f"readonly {text}" if not t.mutable else text
    return str(t)


def signature_text(argtypes: Any) -> str:
    """numba argument types as the notation of the signature table, e.g.
    ``"readonly uint8[:, ::1], int64, bool"``."""
    return ", ".join(_type_text(t) for t in argtypes)


def parse_signature(text: str) -> tuple[Any, ...]:
    """The numba argument types of a signature in the table's notation (imports numba)."""
    from numba.core import types

    out: list[Any] = []
    for part in split_signature(text):
        readonly = part.startswith("readonly ")
        if readonly:
            part = part[len("readonly ") :]
        if "[" in part:
            name, dims = part[:-1].split("[")
            axes = [d.strip() for d in dims.split(",")]
            layout: Any = "C" if axes[-1] == "::1" else "F" if axes[0] == "::1" else "A"
            out.append(types.Array(getattr(types, name), len(axes), layout, readonly=readonly))
        else:
            out.append(types.boolean if part == "bool" else getattr(types, part))
    return tuple(out)

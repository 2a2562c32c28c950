"""``corruptbench.warmup()``: compile every kernel into numba's disk cache ahead of time.

The kernels compile the first time a process needs them and are cached on disk, so this happens
once per installation, CPU model and numba version (tens of seconds on one core, see
:data:`~corruptbench.tables.kernel_signatures.COMPILE_SECONDS`); later processes load them in
about a second. Run it where that one-time cost should not land on a user or on every worker:
in a Dockerfile after ``pip install`` (``RUN corruptbench warmup``), once per node type of a
cluster, or before a benchmark. make-c / make-p call it in the driver before starting workers.

The cache goes where numba puts it: ``__pycache__`` next to the installed modules when that is
writable, else the user's cache (``~/.cache/numba``); ``NUMBA_CACHE_DIR`` overrides both (e.g. a
read-only install, or one cache shared by the nodes of a cluster with the same CPU model).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from .ops import jit
from .tables.kernel_signatures import COMPILE_SECONDS, KERNEL_SIGNATURES

__all__ = ["warmup", "WarmupResult", "compile_estimate", "cache_summary"]


@dataclass(frozen=True)
class WarmupResult:
    """What :func:`warmup` did."""

    signatures: int  #: kernel signatures of the table, all compiled or loaded now
    compiled: int  #: of those, compiled now (not found in the cache)
    cpu_seconds: float
    wall_seconds: float
    cache_dirs: tuple[str, ...] = field(default=())  #: where numba keeps them
    cache_bytes: int = 0  #: size of the package's cache files there
    writable: bool = True  #: whether every cache directory is writable

    def describe(self) -> str:
        """Two lines for a terminal."""
        loaded = self.signatures - self.compiled
        first = (
            f"{self.signatures} kernel signatures ready in {self.wall_seconds:.1f} s "
            f"({self.compiled} compiled, {loaded} loaded from the cache)"
        )
        where = "(no disk cache)"
        if len(self.cache_dirs) == 1:
            where = self.cache_dirs[0]
        elif self.cache_dirs:
            where = f"{os.path.commonpath(self.cache_dirs)} ({len(self.cache_dirs)} folders)"
        mode = "" if self.writable else " (not writable: set NUMBA_CACHE_DIR)"
        return f"{first}\ncache: {where}, {self.cache_bytes / 1e6:.1f} MB{mode}"


def warmup(*, quiet: bool = True) -> WarmupResult:
    """Compile (or load from numba's disk cache) every kernel signature the package calls.

    After it, corruptions, perturbations and JPEG writes of this installation compile nothing,
    in this process and in every later one on the same CPU model. Respects ``NUMBA_CACHE_DIR``.

    Args:
        quiet: when False, print the one-line notice at the first compilation (as the CLI does).

    Returns:
        A :class:`WarmupResult` (counts, time, cache location and size).
    """
    if not quiet:
        jit.announce(compile_estimate(everything=True))
    t0, w0 = time.process_time(), time.perf_counter()
    n = 0
    with jit.record_compiles() as compiled:
        for name, sigs in KERNEL_SIGNATURES.items():
            disp = jit.get_kernel(name).dispatcher
            for sig in sigs:
                disp.compile(jit.parse_signature(sig))
                n += 1
    jit.announce(None)
    dirs, size, writable = cache_summary()
    return WarmupResult(
        signatures=n,
        compiled=len(compiled),
        cpu_seconds=time.process_time() - t0,
        wall_seconds=time.perf_counter() - w0,
        cache_dirs=dirs,
        cache_bytes=size,
        writable=writable,
    )


def cache_summary() -> tuple[tuple[str, ...], int, bool]:
    """``(directories, bytes, writable)`` of the disk cache of the table's kernels."""
    dirs: dict[str, set[str]] = {}
    for name in KERNEL_SIGNATURES:
        disp = jit.get_kernel(name).dispatcher
        path = getattr(getattr(disp, "_cache", None), "_cache_path", None)
        if path:
            prefix = name.split(":")[0].rsplit(".", 1)[-1] + "."
            dirs.setdefault(path, set()).add(prefix)
    size = 0
    for path, prefixes in dirs.items():
        if not os.path.isdir(path):
            continue
        for entry in os.scandir(path):
            if entry.name.endswith((".nbi", ".nbc")) and entry.name.startswith(tuple(prefixes)):
                size += entry.stat().st_size
    writable = all(os.access(p, os.W_OK) for p in dirs if os.path.isdir(p))
    return tuple(sorted(dirs)), size, writable


def compile_estimate(
    corruptions: Iterable[str] = (),
    perturbations: Iterable[str] = (),
    *,
    jpeg: bool = False,
    everything: bool = False,
) -> float:
    """CPU seconds that compiling the kernels of these operations takes with an empty cache
    (measured figures; shared kernels make the sum an upper bound, capped at everything)."""
    total = COMPILE_SECONDS["all"]
    if everything:
        return total
    s = sum(COMPILE_SECONDS.get(f"corruption:{c}", 0.0) for c in corruptions)
    s += sum(COMPILE_SECONDS.get(f"perturbation:{p}", 0.0) for p in perturbations)
    if jpeg:
        s += COMPILE_SECONDS.get("jpeg", 0.0)
    return min(s, total)

"""Processes of this package: whether a process still runs, and worker processes that end with
the process that started them.

Worker processes (make-c's process pool, eval-c's data-loader workers) must not outlive their
driver: a driver killed with SIGKILL runs no clean-up, and a worker left behind holds memory
(~265 MB per loader worker), keeps ``multiprocessing``'s forkserver and resource tracker alive
(they wait for every process that holds their pipes) and may write into OUT after a re-run
started. :func:`end_with` ties the calling worker to its driver:

* ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (Linux, ``prctl(2)``) when the driver is the worker's
  parent: the kernel kills the worker when the parent dies, at once and with no thread. That is
  the case for ``spawn`` workers (make-c's pool) but not for ``forkserver`` ones (eval-c's
  loader): their parent is the forkserver, which itself lives as long as any worker holds its
  pipe, so the signal would never come;
* otherwise a daemon thread that waits on a pidfd of the driver (``pidfd_open(2)``, Linux 5.3;
  no polling) or, where there is none, checks every second whether the driver still runs, and
  ends the worker with ``os._exit`` when it does not.

:func:`bounded_map` is ``Executor.map`` with a bound on the results made ahead of their consumer;
:func:`chained_map` runs chains of calls that each need the last one's result (a CCC shard made
chunk by chunk: its generators' state passes from chunk to chunk), several chains at once, and
yields their outputs in order.

:func:`quiet_dropped_handoffs` keeps a worker from printing a traceback when its driver, stopped,
drops a hand-off of shared memory half-way; :func:`held_stop_signals` keeps the driver from being
stopped while it starts workers; :func:`sigint_blocked_while_starting` keeps a worker from
stopping, with a traceback, on the Ctrl-C that reaches its whole process group (its driver
stops it).

:func:`pid_alive` answers whether a process id still names the process that wrote a file (the
temporary-file sweep of a build): a process id reused by a process started after the file was
last written does not count.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any

__all__ = [
    "bounded_map",
    "chained_map",
    "end_with",
    "held_stop_signals",
    "pid_alive",
    "process_start_time",
    "quiet_dropped_handoffs",
    "sigint_blocked_while_starting",
]

#: seconds between two checks of the driver where no pidfd can be waited on
POLL_S = 1.0


def _set_pdeathsig() -> bool:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)``; whether the kernel took it."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        pr_set_pdeathsig = 1  # <linux/prctl.h>
        return (
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
            == 0
        )
    except (OSError, AttributeError):  # pragma: no cover - no libc prctl
        return False


def _watch(pid: int) -> None:
    """Wait until process ``pid`` ends, then end this process (run in a daemon thread)."""
    fd = None
    with contextlib.suppress(OSError, AttributeError):
        fd = os.pidfd_open(pid)  # type: ignore[attr-defined]
    if fd is not None:
        import select

        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while not poller.poll():  # readable once the process has exited
            pass
    else:
        while pid_alive(pid):
            time.sleep(POLL_S)
    os._exit(1)


def end_with(driver_pid: int) -> None:
    """End this process when process ``driver_pid`` ends (call it first thing in a worker).

    Exits at once when the driver is already gone (it may die before this runs). See the module
    docstring for how: the parent-death signal when the driver is the parent, else a thread.
    """
    if os.getppid() == driver_pid and _set_pdeathsig():
        if os.getppid() != driver_pid:  # died before the prctl took effect
            os._exit(1)
        return
    if not pid_alive(driver_pid):
        os._exit(1)
    threading.Thread(target=_watch, args=(driver_pid,), name="end-with-driver", daemon=True).start()


@lru_cache(maxsize=1)
def _boot_time() -> float | None:
    try:
        with open("/proc/stat") as fh:
            for line in fh:
                if line.startswith("btime "):
                    return float(line.split()[1])
    except OSError:  # pragma: no cover - not Linux
        pass
    return None


def process_start_time(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch), from ``/proc/<pid>/stat``
    (``proc(5)``: field 22, clock ticks since boot); None where that cannot be read."""
    boot = _boot_time()
    if boot is None:
        return None
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces: split after it
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (IndexError, ValueError, OSError):  # pragma: no cover - an unexpected format
        return None


def pid_alive(pid: int, *, since: float | None = None) -> bool:
    """Whether process ``pid`` runs on this machine (a zombie does not count). With ``since`` (a
    file's modification time): and started before it, so that a reused process id does not
    count as the process that wrote the file."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        pass
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as fh:
            if fh.read().rsplit(b")", 1)[-1].split()[:1] == [b"Z"]:
                return False
    except OSError:
        pass
    if since is not None:
        started = process_start_time(pid)
        # one second of slack: start times have clock-tick resolution, mtimes the filesystem's
        if started is not None and started > since + 1.0:
            return False
    return True


def bounded_map(
    pool: Any, fn: Callable[[Any], Any], items: Iterable[Any], ahead: int
) -> Iterator[Any]:
    """``pool.map(fn, items)``, in order, with at most ``ahead`` calls submitted and not yet
    consumed. ``Executor.map`` submits every call at once, so behind a slower consumer (a model on
    a stream of shards) finished results pile up without bound; here a call is submitted only when
    the consumer takes a result. Unstarted calls are cancelled when the consumer stops."""
    it = iter(items)
    pending = collections.deque(pool.submit(fn, x) for x in itertools.islice(it, max(1, ahead)))
    try:
        while pending:
            result = pending.popleft().result()
            for x in itertools.islice(it, 1):
                pending.append(pool.submit(fn, x))
            yield result
    finally:
        for f in pending:
            f.cancel()


def chained_map(
    pool: Any, fn: Callable[[Any], tuple[Any, Any]], chains: Iterable[Any], active: int
) -> Iterator[Any]:
    """The outputs of chains of calls in ``pool``, chain after chain, each chain's in order.

    A chain starts from an argument; ``fn(arg)`` returns ``(output, next_arg)``, and the chain goes
    on with ``fn(next_arg)`` until ``next_arg`` is None: its calls run one after another, while up
    to ``active`` chains run side by side (each with one call in flight). The outputs of chains
    ahead of the one being consumed are kept until their turn (memory ~ ``active`` chains'
    outputs); a chain starts when the consumer finishes one. Calls not yet started are cancelled
    when the consumer stops; a call's exception is raised to the consumer once it is seen.
    """
    from concurrent.futures import FIRST_COMPLETED, wait

    it = iter(chains)
    live: collections.deque[list[Any]] = collections.deque()  # [outputs, future or None]

    def start() -> None:
        for arg in itertools.islice(it, 1):
            live.append([collections.deque(), pool.submit(fn, arg)])

    for _ in range(max(1, active)):
        start()
    try:
        while live:
            head = live[0]
            while head[0]:
                yield head[0].popleft()
            if head[1] is None:  # finished and consumed
                live.popleft()
                start()
                continue
            running = {c[1]: c for c in live if c[1] is not None}
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for f in done:
                chain = running[f]
                out, nxt = f.result()
                chain[0].append(out)
                chain[1] = None if nxt is None else pool.submit(fn, nxt)
    finally:
        for chain in live:
            if chain[1] is not None:
                chain[1].cancel()


def worker_pool(
    workers: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple = (),
    context: str | None = None,
) -> Any:
    """A ``ProcessPoolExecutor`` of ``workers`` processes (``context``: a start method, default
    the platform's) that a Ctrl-C does not interrupt: the signal reaches the whole process group,
    and the driver alone handles it (its pool is shut down as its ``with`` block ends), so no
    worker prints a KeyboardInterrupt traceback under the driver's "interrupted" line. The
    workers start here with SIGINT blocked (:func:`sigint_blocked_while_starting`), and each
    ignores it from its initializer on (a worker started again later) and ends with the driver
    (:func:`end_with`). Unlike
    ``multiprocessing.Pool``, the executor notices a worker killed (SIGTERM to the group, the
    OOM killer): the calls fail with ``BrokenProcessPool`` instead of waiting forever."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context(context)
    pool = ProcessPoolExecutor(
        workers,
        mp_context=ctx,
        initializer=_worker_start,
        initargs=(os.getpid(), initializer, initargs),
    )
    try:
        with held_stop_signals(), sigint_blocked_while_starting():
            # one call per worker submitted at once: fork starts them all at the first, the
            # other start methods one per call while none is idle
            for f in [pool.submit(int) for _ in range(workers)]:
                f.result()
    except BaseException:  # a Ctrl-C held while they started: raised now that they are up
        pool.shutdown(cancel_futures=True)
        raise
    return pool


def _worker_start(driver: int, initializer: Callable[..., None] | None, initargs: tuple) -> None:
    """A :func:`worker_pool` worker's start: Ctrl-C left to the driver, the worker ended with
    it (:func:`end_with`: a driver killed with SIGKILL leaves no worker behind), then the
    caller's initializer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with(driver)
    if initializer is not None:
        initializer(*initargs)


def _from_resource_sharer(tb: Any) -> bool:
    """Whether a traceback passes through ``multiprocessing/resource_sharer.py``."""
    while tb is not None:
        if os.path.basename(tb.tb_frame.f_code.co_filename) == "resource_sharer.py":
            return True
        tb = tb.tb_next
    return False


def quiet_dropped_handoffs() -> None:
    """In this worker, no traceback for a descriptor hand-off that the driver dropped.

    A worker hands each result's shared memory to its driver from a listening thread
    (CPython ``Lib/multiprocessing/resource_sharer.py``, ``_ResourceSharer._serve``, lines
    133-150 in 3.11; PyTorch's data-loader workers do it for every batch): the driver connects and
    receives the file descriptor. A driver stopped by Ctrl-C or SIGTERM in the middle of that
    closes its end, and the thread reports the ``ConnectionResetError`` (or ``EOFError``) through
    ``sys.excepthook``: a traceback under the driver's one "interrupted" line, for nothing the
    driver does not already handle (it stops the worker next). Those errors, from that thread, are
    dropped; everything else reaches the hook that was there before.
    """
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
        if issubclass(kind, (ConnectionError, EOFError)) and _from_resource_sharer(tb):
            return
        previous(kind, value, tb)

    sys.excepthook = hook


#: what stops a command (Ctrl-C, ``kill``): held back while the driver starts its workers
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def held_stop_signals() -> Iterator[None]:
    """SIGINT / SIGTERM held back while the driver starts worker processes, then raised again
    through the handlers that were there: a driver stopped half-way through starting one left a
    worker reading half its pickled state, or a half-built pool, each with a traceback under the
    "interrupted" line. Held by a handler that notes the signal (blocking it in this thread would
    not do: the kernel hands it to another thread). Only the main thread can set handlers;
    elsewhere nothing is held.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []

    def hold(signum: int, _frame: object) -> None:
        held.append(signum)

    previous = {s: signal.signal(s, hold) for s in _STOP_SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
        if held:
            signal.raise_signal(held[0])


@contextlib.contextmanager
def sigint_blocked_while_starting() -> Iterator[None]:
    """SIGINT blocked in this thread while it starts ``spawn`` worker processes: they inherit
    the mask and keep it, so the Ctrl-C that reaches the whole process group stays pending in
    them, from their first instruction on, and never stops one with a KeyboardInterrupt
    traceback: their driver alone handles it, and stops them (SIGTERM). The pool's own threads,
    started here, keep the mask too, so a worker they start again inherits it as well. This
    process still hears the signal (the kernel hands it to another of its threads, or it waits
    until the block ends)."""
    from multiprocessing import resource_tracker

    # started first: starting it unblocks SIGINT in this thread (CPython's
    # resource_tracker.ensure_running), which would undo the block for the workers
    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)

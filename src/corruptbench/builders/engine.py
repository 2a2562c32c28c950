"""Where the shards of a build run: in this process, a local process pool or Ray tasks.

Every executor yields the :class:`~corruptbench.builders.spec.ItemResult` lists of finished shards as
they come. Pool workers start with the ``spawn`` method (children of this process, so on Linux
``PR_SET_PDEATHSIG`` ties them to it, and clean: no inherited locks or thread pools), one thread
each, and die with the driver; Ray tasks write to the same OUT path, which must then be shared.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import time
from collections.abc import Generator, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

import numpy as np

from ..errors import Arg
from ..kernel_cache import warmup
from ..ops import jit
from ..pipeline import SourceItem
from ..processes import end_with
from ..profiles import PROFILES
from .outputs import orphan_check, set_driver
from .spec import BuildError, BuildSpec, ItemResult, Shard

__all__ = [
    "run_shard",
    "init_worker",
    "warm_up",
    "iter_local",
    "iter_ray",
    "ray_init_kwargs",
    "kernel_choice",
    "BULK_ITEMS",
]

_THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")

#: From this many items on, a build runs numba's JIT kernels (compiled for this CPU model: 3 %
#: faster per image than the ahead-of-time ones for its ISA level on the 2-core development VM,
#: benchmarks/cold_start.py --runtime) after compiling them once in the driver (~40 CPU s: at
#: ~0.15 s per make-c image that pays off from ~9,000 images); a smaller build keeps the
#: ahead-of-time kernels when the install has them and compiles nothing.
BULK_ITEMS = 10_000


def kernel_choice(n_items: int) -> str:
    """``"jit"`` (compile once in the driver, workers load from the cache) or ``"auto"`` (the
    ahead-of-time kernels, when usable) for a build of ``n_items`` items."""
    from ..ops import aot

    return "jit" if n_items >= BULK_ITEMS or aot.load() is None else "auto"


def _prepare_kernels(choice: str) -> None:
    # Compile every kernel here, once, before workers start: they then load them from numba's
    # disk cache (~1 s) instead of each compiling the same kernels (tens of CPU seconds each
    # with an empty cache).
    if choice == "jit":
        warmup(quiet=False)


def _n_items(shards: Sequence[Shard]) -> int:
    return sum(len(items) for _, items in shards)


def run_shard(spec: BuildSpec, shard_id: int, items: Sequence[SourceItem]) -> list[ItemResult]:
    """Process one shard (the unit of work given to a worker process or a Ray task)."""
    t0 = time.process_time()
    res = spec.writer.run_shard(spec, shard_id, items)
    if res:
        res[0].cpu = time.process_time() - t0
    return res


def init_worker(
    die_with_parent: bool = False, warm: BuildSpec | None = None, driver_pid: int | None = None
) -> None:
    """Set up a worker: tie it to the driver (pool workers), one OpenCV thread, warm-up."""
    if die_with_parent:
        # A pool worker must not outlive a killed build (kill -9 of the driver): the kernel kills
        # it when the driver dies (processes.end_with), set up before the slow warm-up so the
        # window is tiny; orphan_check() repeats the check before every write. Ctrl-C reaches
        # the whole process group: the driver alone handles it (it stops the workers), so a
        # worker shows no KeyboardInterrupt traceback of its own.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        driver = driver_pid if driver_pid is not None else os.getppid()
        end_with(driver)
        set_driver(driver)
        orphan_check()
    try:
        import cv2

        cv2.setNumThreads(1)
    except Exception:  # pragma: no cover  # noqa: BLE001
        pass
    if warm is not None:
        warm_up(warm)


def warm_up(spec: BuildSpec) -> None:
    """Run each requested operation once on a small grey image: imports, numba cache loads and
    texture reads then happen at worker start (about 2 s of CPU), not inside the first shards."""
    side = PROFILES[spec.profile].size
    img = np.full((side, side, 3), 128, np.uint8)
    for name, level in dict.fromkeys((n, lv) for n, lv in spec.cells):
        try:
            spec.step.apply_item(img, name, level, "warm-up")
        except Exception:  # noqa: BLE001 - a real failure shows up on real items
            pass


def _cv2_threads(n: int | None) -> int | None:
    """Set OpenCV's thread count to ``n`` (None: leave it); the previous count (None: no cv2)."""
    try:
        import cv2
    except Exception:  # pragma: no cover  # noqa: BLE001
        return None
    before = int(cv2.getNumThreads())
    if n is not None:
        cv2.setNumThreads(int(n))
    return before


def _mp_context() -> mp.context.BaseContext:
    # spawn: workers are children of this process (so PR_SET_PDEATHSIG ties them to it) and
    # start clean (no inherited locks or thread pools)
    return mp.get_context("spawn")


def iter_local(
    spec: BuildSpec, shards: Sequence[Shard], workers: int
) -> Generator[list[ItemResult], None, None]:
    """Run ``shards`` in this process (``workers <= 1``) or in a local process pool."""
    choice = kernel_choice(_n_items(shards))
    if workers <= 1:
        jit.use(choice)
        # one worker, one core, as in a pool worker: OpenCV's thread pool (whose idle threads
        # spin-wait between calls) is held to one thread for the build, then restored
        threads = _cv2_threads(1)
        try:
            for sid, items in shards:
                yield run_shard(spec, sid, items)
        finally:
            _cv2_threads(threads)
            jit.use("auto")
        return
    _prepare_kernels(choice)
    env = {k: "1" for k in _THREAD_ENV}
    if choice == "jit":
        env["CORRUPTBENCH_KERNELS"] = "jit"  # the workers' kernels: the cache just filled
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with ProcessPoolExecutor(
            workers,
            mp_context=_mp_context(),
            initializer=init_worker,
            initargs=(True, spec, os.getpid()),
        ) as ex:
            pending: set[Future[list[ItemResult]]] = set()
            queue = iter(shards)
            try:
                for sid, items in queue:
                    with _sigint_blocked():  # a worker spawned here starts with it blocked
                        pending.add(ex.submit(run_shard, spec, sid, items))
                    if len(pending) >= 4 * workers:
                        done, pending = wait(pending, return_when=FIRST_COMPLETED)
                        for f in done:
                            yield f.result()
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in done:
                        yield f.result()
            except BaseException:
                # interrupted, failed or closed early: the shards still running are not waited
                # for (a webdataset block can take minutes); every output is atomic, so the
                # workers leave only temporary files, which the driver sweeps
                _stop_workers(ex)
                raise
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread for the block: a worker process started in it inherits the
    mask, so a Ctrl-C that reaches the process group while it imports (before its initializer
    ignores SIGINT) prints no traceback. This process still gets the signal (another thread
    receives it, and Python raises it here once the block ends)."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _stop_workers(ex: ProcessPoolExecutor) -> None:
    """End the pool's worker processes now (``ProcessPoolExecutor.terminate_workers`` from
    Python 3.14; before that, its process table). The pending futures then fail with
    ``BrokenProcessPool``, which nobody reads any more."""
    terminate = getattr(ex, "terminate_workers", None)
    if terminate is not None:  # pragma: no cover - Python >= 3.14
        terminate()
        return
    procs = getattr(ex, "_processes", None) or {}
    for proc in list(procs.values()):
        with contextlib.suppress(Exception):
            proc.terminate()


def _ray_shard(
    spec: BuildSpec, shard_id: int, items: Sequence[SourceItem], kernels: str = "auto"
) -> list[ItemResult]:
    init_worker()
    jit.use(kernels)
    return run_shard(spec, shard_id, items)


def _ray_warmup() -> int:
    warmup()
    return os.getpid()


def _warm_ray_nodes(ray: Any) -> None:
    # One warm-up task on every node before the shards of a bulk build: each node compiles into
    # its own disk cache once, and its workers only load (a warm node just loads, ~1 s).
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    task = ray.remote(num_cpus=1)(_ray_warmup)
    nodes = [n["NodeID"] for n in ray.nodes() if n.get("Alive")]
    refs = [
        task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n, soft=True)).remote()
        for n in nodes
    ]
    ray.get(refs)


def ray_init_kwargs(
    address: str,
    workers: int,
    init_kwargs: dict[str, Any] | None,
    environ: Mapping[str, str],
) -> dict[str, Any]:
    """``ray.init`` arguments for ``--ray ADDRESS``. ``"auto"`` is ``ray.init()``: it joins the
    cluster named by ``RAY_ADDRESS`` when that is set, else it starts Ray here with ``workers``
    CPUs (when > 1; Ray itself would still join the latest ``ray start`` cluster of this machine,
    and refuse the CPU count); ``"local"`` always starts Ray here; anything else is the address
    of a cluster to join. Ray refuses ``num_cpus`` when it joins a cluster."""
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    starts_here = address == "local" or (address == "auto" and not environ.get("RAY_ADDRESS"))
    if address == "local":
        kwargs["address"] = "local"
    elif address != "auto":
        kwargs["address"] = address
    if starts_here and workers > 1:
        kwargs["num_cpus"] = workers
    kwargs.update(init_kwargs or {})
    return kwargs


def iter_ray(
    spec: BuildSpec,
    shards: Sequence[Shard],
    address: str,
    workers: int,
    init_kwargs: dict[str, Any] | None,
) -> Generator[list[ItemResult], None, None]:
    """Run ``shards`` as Ray tasks: ``address`` ``"auto"``/``"local"`` (``ray.init()``, with
    ``workers`` CPUs when > 1) or a cluster address."""
    try:
        import ray
    except ImportError:  # pragma: no cover
        raise BuildError(
            Arg("ray"), " needs the 'ray' package: pip install 'corruptbench[ray]'"
        ) from None
    started = False
    if not ray.is_initialized():
        ray.init(**ray_init_kwargs(address, workers, init_kwargs, os.environ))
        started = True
    pending: list[Any] = []
    try:
        # the ahead-of-time kernels of the nodes' installs for a small build (a node without
        # them compiles lazily), the JIT compiled once per node for a bulk one
        kernels = "jit" if _n_items(shards) >= BULK_ITEMS else "auto"
        if kernels == "jit":
            _warm_ray_nodes(ray)
        remote = ray.remote(num_cpus=1)(_ray_shard)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        for sid, items in shards:
            pending.append(remote.remote(spec, sid, items, kernels))  # type: ignore[call-arg]
            if len(pending) >= 4 * cpus:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield ray.get(ref)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        if pending:  # interrupted, failed or closed early: the cluster must stop writing OUT
            _cancel(ray, pending)
        if started:
            ray.shutdown()


def _cancel(ray: Any, refs: Sequence[Any], wait_s: float = 10.0) -> None:
    """Cancel the build's tasks still queued or running on the cluster (``ray.cancel`` with
    ``force=True`` ends a running task's worker process: a shard half written is a temporary
    file the next run sweeps) and wait up to ``wait_s`` for them to end. Without it the tasks
    of an interrupted build go on writing into OUT after the driver has said "interrupted"."""
    pending = list(refs)
    with contextlib.suppress(Exception):
        # only the unfinished ones: cancelling a task as it completes can abort the driver on
        # Ray 2.x's check "Tried to complete task that was not pending"
        _, pending = ray.wait(pending, num_returns=len(pending), timeout=0)
    for ref in pending:
        with contextlib.suppress(Exception):  # finished meanwhile, or the cluster is gone
            ray.cancel(ref, force=True)
    with contextlib.suppress(Exception):
        ray.wait(list(refs), num_returns=len(refs), timeout=wait_s)

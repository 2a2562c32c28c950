"""Data loading for the evaluation: torch ``DataLoader`` workers feed batches to the model.

Decoding, corruption and the model's uint8 preprocessing run in ``torch.utils.data.DataLoader``
worker processes (one OpenCV/torch thread each); the model runs in the main process under
:func:`torch.inference_mode`, batches normalised on the model's device.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from ..errors import Arg
from ..models import LoadedModel, Preprocessing
from ..processes import end_with, held_stop_signals, quiet_dropped_handoffs
from .common import EvalError
from .readers import Reader

__all__ = [
    "LoadItem",
    "read_item",
    "plan_resources",
    "batches",
    "predict_batches",
    "device_prepare",
]


class LoadItem(NamedTuple):
    """One item to evaluate: how to read it, its cell (batches never span two), label, payload."""

    reader: Reader
    cell: int
    label: int
    payload: Any


def read_item(item: LoadItem, prep: Preprocessing) -> tuple[np.ndarray | None, str]:
    """What a loader worker computes for one item: uint8 ``(3, S, S)`` (``(T, 3, S, S)`` for a
    sequence) after the model's uint8 preprocessing, or ``(None, reason)`` for an input that
    cannot be read (counted as skipped, not as an error of the model). Raw items
    (:attr:`~corruptbench.evaluation.readers.Reader.raw`) skip the preprocessing: the model's
    device does it."""
    try:
        arr = item.reader.read(item.payload)
        if item.reader.raw:  # corrupted later on the model's device, then resized there
            return np.ascontiguousarray(arr.transpose(2, 0, 1)), ""
        if item.reader.frames:
            return np.stack([_chw(f, prep) for f in arr]), ""
        return _chw(arr, prep), ""
    except Exception as exc:  # noqa: BLE001 - bad input is reported, not fatal
        from ..formats.imagenet import ImageLoadError

        if not isinstance(exc, (ImageLoadError, OSError, ValueError)):
            raise
        return None, f"{type(exc).__name__}: {exc}"


class _ItemDataset:
    """``torch`` map-style dataset over :class:`LoadItem` s: ``(pixels | None, label, cell,
    reason)`` per item (:func:`read_item`)."""

    def __init__(self, items: Sequence[LoadItem], prep: Preprocessing) -> None:
        self.items = items
        self.prep = prep

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> tuple[Any, int, int, str]:
        item = self.items[i]
        x, reason = read_item(item, self.prep)
        return x, item.label, item.cell, reason


def _chw(img: np.ndarray, prep: Preprocessing) -> np.ndarray:
    return np.ascontiguousarray(prep.prepare(img).transpose(2, 0, 1))


def _collate(batch: list[tuple[Any, int, int, str]]) -> tuple[Any, Any, Any, list[tuple[int, str]]]:
    import torch

    good = [b for b in batch if b[0] is not None]
    bad = [(b[2], b[3]) for b in batch if b[0] is None]
    if not good:
        return None, None, None, bad
    x = torch.from_numpy(np.stack([b[0] for b in good]))
    y = torch.tensor([b[1] for b in good], dtype=torch.int64)
    c = torch.tensor([b[2] for b in good], dtype=torch.int64)
    return x, y, c, bad


def _mp_context() -> str:
    import multiprocessing as mp

    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


@contextlib.contextmanager
def _starting_workers(loader: Any) -> Iterator[None]:
    """SIGINT / SIGTERM held back while ``loader`` starts its worker processes (``iter``): a
    signal in the middle of it stopped the main process while it wrote a worker's pickled state
    to the forkserver; the new worker read half of it and printed an ``UnpicklingError``
    traceback under the "interrupted" line, and the half-built iterator another from its
    ``__del__`` (:func:`~corruptbench.processes.held_stop_signals`)."""
    if not getattr(loader, "num_workers", 0):
        yield
        return
    with held_stop_signals():
        yield


def _worker_init(_: int, driver: int | None = None) -> None:
    # A loader worker ends with the evaluating process, even when that one is SIGKILLed: its
    # parent is the forkserver, which outlives it, so a thread waits on the driver instead
    # (processes.end_with).
    if driver is not None:
        end_with(driver)
    quiet_dropped_handoffs()  # a stopped driver: one "interrupted" line, no worker traceback
    try:
        import cv2

        cv2.setNumThreads(1)
    except Exception:  # noqa: BLE001  # pragma: no cover
        pass


def batches(cell_of: Sequence[int], batch_size: int) -> list[list[int]]:
    """Contiguous index batches of at most ``batch_size`` that never span two cells."""
    out: list[list[int]] = []
    cur: list[int] = []
    for i, c in enumerate(cell_of):
        if cur and (len(cur) >= batch_size or cell_of[cur[-1]] != c):
            out.append(cur)
            cur = []
        cur.append(i)
    if cur:
        out.append(cur)
    return out


def plan_resources(
    device: str,
    *,
    corrupts_in_loader: bool,
    workers: int | None = None,
    threads: int | None = None,
) -> tuple[int, int | None]:
    """Data-loader workers and model threads that do not oversubscribe the CPU.

    On CPU the model's intra-op threads and the loader processes share the cores, and an
    OpenMP model slows down badly when a thread is preempted, so ``workers + threads <= CPUs``:
    decoding stored images is cheap next to the model (``workers = CPUs // 4``; 0 on a 2-core
    machine), corrupting on the fly is not (``workers = CPUs // 2``); the model gets the rest. On a
    GPU the loader gets up to 8 processes and torch keeps its own thread setting (``None``).
    Explicit ``workers`` / ``threads`` are kept.
    """
    n = os.cpu_count() or 1
    if device.startswith("cuda"):
        return (min(8, n) if workers is None else int(workers)), threads
    w = (n // 2 if corrupts_in_loader else n // 4) if workers is None else int(workers)
    t = max(1, n - w) if threads is None else int(threads)
    return w, t


class _Threads:
    """Context manager: ``torch.set_num_threads(n)`` for the duration, restored afterwards."""

    def __init__(self, n: int | None) -> None:
        self.n = n
        self.old: int | None = None

    def __enter__(self) -> _Threads:
        if self.n is not None:
            import torch

            self.old = torch.get_num_threads()
            torch.set_num_threads(self.n)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.old is not None:
            import torch

            torch.set_num_threads(self.old)


def device_prepare(x: Any, prep: Preprocessing) -> Any:
    """The model's resize step on a uint8 device batch (CLAHE needs the CPU path)."""
    import torch

    s = prep.input_size
    if x.shape[-1] == s and x.shape[-2] == s:
        return x
    y = torch.nn.functional.interpolate(
        x.float(), size=(s, s), mode=prep.interpolation, align_corners=False
    )
    return y.round_().clamp_(0, 255).to(torch.uint8)


def _explained(loader: Iterable[Any]) -> Generator[Any, None, None]:
    """The loader's batches; a worker that died while the caller is a script gets the usual cause
    named (the workers import the script again, so unguarded code runs again in each)."""
    with _starting_workers(loader):
        it = iter(loader)
    try:
        while True:
            try:
                batch = next(it)
            except StopIteration:
                return
            except RuntimeError as exc:
                err = _worker_exited(exc)
                if err is exc:
                    raise
                raise err from exc
            yield batch
    except BaseException:
        _stop_loader(it)
        raise


def _worker_exited(exc: RuntimeError) -> Exception:
    """The error to raise for a loader error: the usual cause named when a worker of a script
    exited, else ``exc`` itself."""
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    if "exited unexpectedly" not in str(exc) or not main or "corruptbench" in str(main):
        return exc
    return EvalError(
        f"a data-loader worker exited. The workers are new processes that import {main} "
        'again: in a script, call the evaluation under `if __name__ == "__main__":`, or '
        "load in this process with ",
        Arg("workers", python="run=RunOptions(workers=0)"),
        f" ({exc})",
    )


def _stop_loader(it: Any) -> None:
    """Stop the loader's workers now (an interrupt, an error, a consumer that stopped early),
    while this process and the queues are intact. torch does it when the iterator is collected,
    which a traceback can delay to interpreter exit, where it skips it: the workers then print
    EOFError tracebacks as their queues close."""
    shutdown = getattr(it, "_shutdown_workers", None)  # torch's _MultiProcessingDataLoaderIter
    if shutdown is not None:
        shutdown()


def predict_batches(
    model: LoadedModel,
    items: Sequence[LoadItem],
    *,
    batch_size: int,
    workers: int,
    threads: int | None = None,
    on_device: Callable[[Any, int], Any] | None = None,
) -> Iterable[tuple[Any, Any, Any, list[tuple[int, str]]]]:
    """Yield ``(logits or None, labels, cells, bad)`` per batch, the model run in this process.

    Batches hold at most ``batch_size`` items of one cell, in order. ``logits`` is a CPU tensor
    ``(N, classes)``, or ``(N, T, classes)`` for sequences; ``bad`` lists ``(cell, reason)`` of
    the unreadable items. ``on_device(batch, cell)`` transforms a raw uint8 batch on the model's
    device before its resize and normalisation (on-device corruption).
    """
    import torch
    from torch.utils.data import DataLoader

    ds = _ItemDataset(items, model.preprocessing)
    loader: Any = DataLoader(
        ds,  # type: ignore[arg-type]
        batch_sampler=batches([it.cell for it in items], batch_size),
        num_workers=workers,
        collate_fn=_collate,
        worker_init_fn=functools.partial(_worker_init, driver=os.getpid()) if workers else None,
        pin_memory=model.device.startswith("cuda"),
        prefetch_factor=4 if workers else None,
        persistent_workers=False,
        # Never fork this process: it holds torch/OpenMP/numba thread pools, and a forked worker
        # can deadlock on their locks (seen as workers hanging in worker_init).
        multiprocessing_context=_mp_context() if workers else None,
    )
    dev = torch.device(model.device)
    with contextlib.closing(_explained(loader)) as it:
        for x, y, c, bad in it:
            if x is None:
                yield None, None, None, bad
                continue
            # the grad mode and the thread count are set per batch, never across a yield: a
            # suspended generator would hold them for its caller (no grad for a TENT step), and
            # one left unfinished would restore them whenever it is collected, in other work
            with _Threads(threads), torch.inference_mode():
                logits = _predict(model, dev, x, int(c[0]), on_device)
            yield logits, y, c, bad


def _predict(
    model: LoadedModel,
    dev: Any,
    x: Any,
    cell: int,
    on_device: Callable[[Any, int], Any] | None,
) -> Any:
    """The model's CPU logits of one collated batch (``(N, T, classes)`` for sequences)."""
    frames = x.shape[1] if x.ndim == 5 else None
    xb = (x.reshape(-1, *x.shape[-3:]) if frames else x).to(dev, non_blocking=True)
    if on_device is not None:  # corrupt on the device, then the model's resize there
        xb = device_prepare(on_device(xb, cell), model.preprocessing)
    logits = model.predict(model.preprocessing.normalize(xb))
    return logits.reshape(x.shape[0], frames, -1) if frames else logits

"""The CPU library inside the torch backend: whole images through :mod:`corruptbench.corruptions`'s
compiled kernels, shared among ``torch.get_num_threads()`` threads."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np
import torch

from ..profiles import Profile
from ..registry import get_corruption

__all__ = ["library_per_image", "per_image", "map_images", "thread_pool"]


def library_per_image(
    x: torch.Tensor,
    name: str,
    severity: int,
    profile: Profile,
    seeds: Sequence[int] | None,
) -> torch.Tensor:
    """The CPU library's corruption of every image of a uint8 CPU batch ``(N, 3, H, W)``, one image
    at a time: ``out[i] = corruptbench.corrupt(x[i] as H x W x 3, name, severity, rng=seeds[i])``
    (``seeds`` ``None`` for the corruptions without randomness).

    The images are shared among ``torch.get_num_threads()`` threads (the library's kernels release
    the GIL and keep their scratch buffers per thread; each image has its own seed, so the result
    does not depend on the thread count). The layout changes go through OpenCV's ``merge`` /
    ``split``, about 10x cheaper than a strided permute of uint8 data."""
    spec = get_corruption(name)

    def fn(img: np.ndarray, rng: np.random.RandomState | None) -> np.ndarray:
        return np.asarray(spec.func(img, severity, profile=profile, rng=rng))

    # JPEG: Pillow's encoder and the Python around it hold the GIL for much of the round trip, so
    # threads only add contention there (measured): one thread
    return per_image(x, fn, seeds, threads=name != "jpeg_compression")


def per_image(
    x: torch.Tensor,
    fn: Callable[[np.ndarray, np.random.RandomState | None], np.ndarray],
    seeds: Sequence[int] | None,
    *,
    threads: bool = True,
) -> torch.Tensor:
    """``out[i] = fn(x[i] as read-only H x W x 3 uint8, RandomState(seeds[i]))`` for a uint8 CPU
    batch (``rng`` None when ``seeds`` is), over ``torch.get_num_threads()`` threads when
    ``threads`` (each image has its own seed: the result does not depend on the thread count);
    results truncated to uint8 as ``np.uint8``."""
    src = x.contiguous().numpy()
    out = torch.empty(tuple(x.shape), dtype=torch.uint8)
    dst = out.numpy()
    n = int(src.shape[0])

    def work(lo: int, hi: int) -> None:
        rs = np.random.RandomState() if seeds is not None else None
        for k in range(lo, hi):
            img = cv2.merge(list(src[k]))  # (H, W, 3) uint8
            img.flags.writeable = False  # the array type corrupt() gives the kernels
            if rs is not None and seeds is not None:
                rs.seed(int(seeds[k]))  # the stream of RandomState(seed), without building one
            y = np.asarray(fn(img, rs))
            if y.dtype != np.uint8:
                y = y.astype(np.uint8)  # np.uint8(...) as corruptbench.corrupt
            cv2.split(y, list(dst[k]))  # writes the three planes in place

    workers = min(n, torch.get_num_threads()) if threads else 1
    if workers <= 1:
        work(0, n)
        return out
    bounds = [n * i // workers for i in range(workers + 1)]
    pool = thread_pool(workers)
    for f in [pool.submit(work, lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:])]:
        f.result()  # re-raises a worker's exception
    return out


def map_images(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    """``[fn(item) for item in items]`` over ``torch.get_num_threads()`` threads (for host-side
    steps that release the GIL, such as OpenCV calls)."""
    workers = min(len(items), torch.get_num_threads())
    if workers <= 1:
        return [fn(item) for item in items]
    return list(thread_pool(workers).map(fn, items))


_POOL: dict[str, Any] = {"pool": None, "key": None}


def thread_pool(workers: int) -> Any:
    """A process-wide pool of ``workers`` threads, re-made when the count changes or in a forked
    child (DataLoader workers: a pool's threads do not survive ``fork``)."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    key = (workers, os.getpid())
    if _POOL["key"] != key:
        if _POOL["pool"] is not None and _POOL["key"][1] == key[1]:
            _POOL["pool"].shutdown(wait=False)
        _POOL["pool"] = ThreadPoolExecutor(workers, thread_name_prefix="corruptbench")
        _POOL["key"] = key
    return _POOL["pool"]

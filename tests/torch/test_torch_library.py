"""The CPU library inside the torch backend (corruptbench.torch.library): per-image corruption of a
uint8 batch equal to ``corruptbench.corrupt`` image by image, whatever the thread count; the
thread map and the process-wide pool."""

from __future__ import annotations

import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import corruptbench  # noqa: E402
from corruptbench.profiles import PROFILES  # noqa: E402
from corruptbench.torch.library import library_per_image, map_images, thread_pool  # noqa: E402
from support import pattern_image  # noqa: E402

IMAGES = [pattern_image(36, 44, seed=s) for s in range(5)]  # H x W x 3, non-square
BATCH = torch.from_numpy(np.stack(IMAGES)).permute(0, 3, 1, 2).contiguous()  # (N, 3, H, W)


@pytest.fixture
def threads():
    """Set torch's thread count for the test, and restore it."""
    before = torch.get_num_threads()
    yield torch.set_num_threads
    torch.set_num_threads(before)


def as_images(out: torch.Tensor) -> list[np.ndarray]:
    return list(out.permute(0, 2, 3, 1).numpy())


@pytest.mark.parametrize("name", ["gaussian_noise", "glass_blur", "frost", "elastic_transform"])
def test_each_image_is_corrupt_with_its_own_seed(name: str, threads) -> None:
    seeds = [11, 12, 13, 14, 2**32 - 1]
    want = [
        corruptbench.corrupt(im, name, 3, profile="imagenet", rng=s) for im, s in zip(IMAGES, seeds)
    ]
    for n in (1, 3):  # the result does not depend on how the images are shared among threads
        threads(n)
        out = library_per_image(BATCH, name, 3, PROFILES["imagenet"], seeds)
        assert out.dtype == torch.uint8 and tuple(out.shape) == tuple(BATCH.shape)
        for got, exp in zip(as_images(out), want):
            np.testing.assert_array_equal(got, exp)


@pytest.mark.parametrize("name", ["contrast", "jpeg_compression", "defocus_blur"])
def test_deterministic_corruptions_without_seeds(name: str, threads) -> None:
    threads(2)
    out = library_per_image(BATCH, name, 5, PROFILES["tiny"], None)
    for got, im in zip(as_images(out), IMAGES):
        np.testing.assert_array_equal(got, corruptbench.corrupt(im, name, 5, profile="tiny"))


def test_input_batch_untouched_and_strided_input(threads) -> None:
    threads(2)
    before = BATCH.clone()
    strided = BATCH.permute(0, 1, 3, 2)  # not contiguous: a transposed view
    out = library_per_image(strided, "brightness", 2, PROFILES["imagenet"], None)
    assert torch.equal(BATCH, before)
    want = [
        corruptbench.corrupt(
            np.ascontiguousarray(im.transpose(1, 0, 2)), "brightness", 2, profile="imagenet"
        )
        for im in IMAGES
    ]
    for got, exp in zip(as_images(out), want):
        np.testing.assert_array_equal(got, exp)


def test_a_worker_error_is_raised(threads) -> None:
    threads(2)
    with pytest.raises(ValueError, match=r"Seed must be between 0 and 2\*\*32 - 1"):
        # the seed of the 4th image is out of range (NumPy's message): raised from its thread
        library_per_image(BATCH, "gaussian_noise", 1, PROFILES["imagenet"], [1, 2, 3, -1, 5])


def test_map_images_keeps_the_order_and_uses_the_threads(threads) -> None:
    threads(3)
    seen: set[str] = set()

    def square(i: int) -> int:
        seen.add(threading.current_thread().name)
        return i * i

    assert map_images(square, list(range(40))) == [i * i for i in range(40)]
    assert all(n.startswith("corruptbench") for n in seen)
    threads(1)
    seen.clear()
    assert map_images(square, [3, 4]) == [9, 16]
    assert seen == {threading.current_thread().name}  # one thread: no pool, the caller's thread
    assert map_images(square, []) == []


def test_thread_pool_is_kept_per_count() -> None:
    a = thread_pool(2)
    assert thread_pool(2) is a
    b = thread_pool(3)
    assert b is not a and b._max_workers == 3
    assert thread_pool(3) is b

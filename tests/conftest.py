"""Session fixtures: real photos, CIFAR test images, a synthetic image and the reference client;
the collection record (``collection_guard.py``) and the run's last line (``run_summary.py``).

Helpers shared by test modules live in ``support.py`` (``from support import ...``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Before anything imports ray: a local ray.init() (make-c --ray auto) and a driver joining a
# loopback cluster then stay on 127.0.0.1 instead of the interface address (Ray reads this once,
# at import; with it "127.0.0.1" is not rewritten to the route-table IP).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

import numpy as np
import pytest
from PIL import Image

# tests/ on sys.path: ``support`` and ``reference`` import from every sub-directory
sys.path.insert(0, str(Path(__file__).resolve().parent))

import collection_guard  # noqa: E402
import run_summary  # noqa: E402
from support import CIFAR_TEST, PHOTO_NAMES, SHARED, load_photo  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    # record the collected modules: tests/test_collection.py compares them with the files on disk
    collection_guard.install(config)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> object:
    """After pytest's own summary (the outermost wrapper): one line naming what was not checked,
    by cause (no reference environment, no ../shared, optional packages, deselected)."""
    result = yield
    if not config.option.collectonly:
        terminalreporter.write_line(run_summary.line_of(terminalreporter.stats, shared=str(SHARED)))
    return result


@pytest.fixture(scope="session")
def photos224() -> list[np.ndarray]:
    """Two real ImageNet photos, Resize(256) + CenterCrop(224) as make-c does."""
    from corruptbench.ops.preprocess import profile_preprocess

    return [profile_preprocess(load_photo(n), "imagenet") for n in PHOTO_NAMES]


@pytest.fixture(scope="session")
def photo224(photos224: list[np.ndarray]) -> np.ndarray:
    return photos224[0]


@pytest.fixture(scope="session")
def cifar_images() -> list[np.ndarray]:
    if not CIFAR_TEST.is_dir():
        pytest.skip(f"CIFAR-10 test images not available: {CIFAR_TEST} is absent")
    out = []
    for cls in ("airplane", "cat"):
        f = sorted((CIFAR_TEST / cls).iterdir())[0]
        with Image.open(f) as im:
            out.append(np.asarray(im.convert("RGB")))
    return out


@pytest.fixture
def synthetic_image() -> np.ndarray:
    """A deterministic 224 x 224 colour image with edges and gradients (no shared data needed)."""
    yy, xx = np.mgrid[0:224, 0:224]
    img = np.stack([(xx * 255 // 223), (yy * 255 // 223), ((xx + yy) % 256)], axis=2).astype(
        np.uint8
    )
    img[60:160, 60:160] = (200, 40, 90)
    return img


@pytest.fixture(scope="session")
def reference():
    """The reference implementation client (tests/reference.py).

    Skips when the reference environment (tools/reference/setup_refenv.sh) is absent — except in
    CI (CI=true), where .ci/run builds it, so its absence is a failure.
    """
    import os

    import reference as ref  # tests/reference.py

    if not ref.reference_available():
        msg = "reference environment not built (run: bash tools/reference/setup_refenv.sh)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg + " — CI must build it")
        pytest.skip(msg)
    return ref

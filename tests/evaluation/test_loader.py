"""The loader: resources, batches that never span two cells, what a worker computes per item."""

from __future__ import annotations

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

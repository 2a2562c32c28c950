"""CCCStream(backend="torch"): the NumPy stream's samples (picks, crops, pairs, severities) with
the corruptions on torch: equal images where both severities are 0, close ones for deterministic
corruptions, the same statistics for random ones; identity and refusals."""

from __future__ import annotations

import numpy as np
import pytest

from ccc.test_generate import MATRICES, RUN
from corruptbench.ccc.generate import scan_source
from corruptbench.ccc.plan import RunPlan, Step, group_shards
from corruptbench.ccc.runs import CCCStream
from corruptbench.errors import ArgumentError
from support import IMAGENET_SAMPLE, need_shared, psnr

torch = pytest.importorskip("torch")


def _stream(steps, backend: str) -> CCCStream:
    speed = 3
    plan = RunPlan(20.0, speed, 44, speed * len(steps), speed, ("fog",),
                   group_shards(steps, speed, speed))  # fmt: skip
    return CCCStream(plan, scan_source(IMAGENET_SAMPLE), backend=backend)


def _images(stream: CCCStream) -> tuple[np.ndarray, list]:
    batches = list(stream.batches(batch_size=4))
    assert [len(b.labels) for b in batches] == [4, 4, 1]
    return np.concatenate([b.images for b in batches]), [s for b in batches for s in b.samples]


@pytest.fixture(scope="module")
def made():
    need_shared()
    steps = [
        Step(0, "fog", "contrast", 0.0, 0.0),
        Step(1, "contrast", "pixelate", 1.75, 2.5),
        Step(2, "gaussian_noise", "shot_noise", 2.5, 1.25),
    ]
    clean = [Step(s.index, s.n1, s.n2, 0.0, 0.0) for s in steps]
    return {
        "numpy": _images(_stream(steps, "numpy")),
        "torch": _images(_stream(steps, "torch")),
        "clean": _images(_stream(clean, "numpy"))[0],
    }


def test_same_samples_shapes_and_labels(made):
    (a, sa), (b, sb) = made["numpy"], made["torch"]
    assert b.shape == a.shape == (9, 224, 224, 3) and b.dtype == np.uint8
    assert sa == sb  # index, domain, severity, id, label


def test_severity_zero_steps_equal_the_numpy_stream(made):
    assert np.array_equal(made["torch"][0][:3], made["numpy"][0][:3])
    assert np.array_equal(made["torch"][0][:3], made["clean"][:3])


def test_deterministic_corruptions_close_to_numpy(made):
    a, b = made["numpy"][0][3:6], made["torch"][0][3:6]
    assert not np.array_equal(a, made["clean"][3:6])
    assert psnr(a, b) >= 40.0


def test_random_corruptions_same_statistics(made):
    clean = made["clean"][6:].astype(float)
    change = {k: made[k][0][6:].astype(float) - clean for k in ("numpy", "torch")}
    assert not np.array_equal(made["numpy"][0][6:], made["torch"][0][6:])  # other draws
    ratio = change["torch"].std() / change["numpy"].std()
    assert 0.95 < ratio < 1.05, ratio


def test_identity_and_refusals():
    need_shared()
    st = CCCStream.create(IMAGENET_SAMPLE, MATRICES, **RUN, backend="torch")
    plain = CCCStream.create(IMAGENET_SAMPLE, MATRICES, **RUN)
    assert st.identity == {**plain.identity, "backend": "torch", "device": "cpu"}
    assert "corruptions on torch (cpu)" in repr(st)
    with pytest.raises(ArgumentError, match="backend must be one of numpy, torch"):
        CCCStream.create(IMAGENET_SAMPLE, MATRICES, **RUN, backend="jax")
    with pytest.raises(ArgumentError, match="device 'nowhere' is not usable here"):
        CCCStream.create(IMAGENET_SAMPLE, MATRICES, **RUN, backend="torch", device="nowhere")
    with pytest.raises(ArgumentError, match="device applies to backend='torch'"):
        CCCStream.create(IMAGENET_SAMPLE, MATRICES, **RUN, device="cuda")


@pytest.mark.slow
def test_workers_make_the_same_images(made):
    steps = [Step(0, "contrast", "gaussian_noise", 1.75, 2.5), Step(1, "fog", "frost", 0.5, 3.0)]
    stream = _stream(steps, "torch")
    one = np.concatenate([b.images for b in stream.batches(batch_size=4)])
    two = np.concatenate([b.images for b in stream.batches(batch_size=4, workers=2)])
    assert np.array_equal(one, two)


@pytest.mark.slow
def test_workers_make_the_same_images_across_chunks_and_shards(monkeypatch):
    # shards of two steps of 5 images, chunks of 2: steps cut into 2 + 2 + 1, shards crossed
    from corruptbench.ccc import stream_torch

    need_shared()
    monkeypatch.setattr(stream_torch, "CHUNK", 2)
    speed = 5
    steps = [Step(k, "gaussian_noise", "fog", 1.0 + k / 4, 2.0) for k in range(4)]
    plan = RunPlan(20.0, speed, 44, 20, 10, ("fog",), group_shards(steps, speed, 10))
    stream = CCCStream(plan, scan_source(IMAGENET_SAMPLE), backend="torch")
    one = list(stream.batches(batch_size=6))
    two = list(stream.batches(batch_size=6, workers=2))
    assert [b.samples for b in one] == [b.samples for b in two] and len(plan.shards) == 2
    assert all(np.array_equal(a.images, b.images) for a, b in zip(one, two))

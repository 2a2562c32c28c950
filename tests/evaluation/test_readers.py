"""Item readers: files, npy rows (not shipped to the workers as memory maps), videos, steps."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
from PIL import Image

from corruptbench.evaluation.readers import (
    ArrayReader,
    ImageFileReader,
    NpyRowReader,
    PreparedReader,
    StepReader,
)
from corruptbench.pipeline import CorruptStep, PerturbStep, arrays_source


def test_file_and_npy_readers(tmp_path: Path) -> None:
    img = np.random.RandomState(0).randint(0, 256, (12, 10, 3), dtype=np.uint8)
    Image.fromarray(img).save(tmp_path / "a.png")
    np.testing.assert_array_equal(ImageFileReader().read(str(tmp_path / "a.png")), img)
    np.save(tmp_path / "x.npy", np.stack([img, img + 1]))
    r = NpyRowReader()
    np.testing.assert_array_equal(r.read((str(tmp_path / "x.npy"), 1)), img + 1)
    clone = pickle.loads(pickle.dumps(r))
    assert clone._arrays == {} and not clone.frames  # noqa: SLF001 - the cache stays behind
    assert (
        NpyRowReader(frames=True).frames and pickle.loads(pickle.dumps(NpyRowReader(True))).frames
    )
    assert ArrayReader().read(img) is not None and not ArrayReader().raw


def test_step_readers() -> None:
    item = arrays_source([np.full((32, 32, 3), 100, np.uint8)], names=["c/0.png"]).items[0]
    step = CorruptStep("cifar", 3)
    np.testing.assert_array_equal(PreparedReader(step).read(item), np.full((32, 32, 3), 100))
    got = StepReader(step).read((item, "fog", 2))
    np.testing.assert_array_equal(got, step.apply_item(step.prepare(item), "fog", 2, "c/0.png"))
    assert not StepReader(step).frames and StepReader(PerturbStep("cifar")).frames

"""A shard made with ``draws="reference"`` equals what the original's own ``ApplyTransforms`` and
``write_dataset`` loop make (generate.py, run here from ../shared with three stand-ins).

The stand-ins, for what this venv cannot import: torchvision's ``Compose([RandomHorizontalFlip(),
RandomResizedCrop(224)])`` is :func:`random_resized_crop` on PyTorch's global generator (our
transcription of torchvision's calls); ``noise_dict()`` maps each name to our corruption drawing
from NumPy's global stream (equal to the original's: tests/ccc/test_functions.py); ``os.walk``
lists in sorted order (the original's is the file system's). The rest is the original's code:
the seeding, every step's ``np.random.shuffle`` before any image, the label, the corruption order
and ``np.uint8`` between, the JPEG (quality 85, optimize) and the ``info`` string.
"""

from __future__ import annotations

import io
import os
import types

import numpy as np
import pytest
from PIL import Image

from ccc_reference import CCC_DIR, CCC_MISSING, ccc_available, load_functions
from corruptbench.ccc.functions import FUNCTIONS
from corruptbench.ccc.generate import random_resized_crop, scan_source, shard_samples
from corruptbench.ccc.plan import Shard, Step
from corruptbench.formats.imagenet import wnid_to_index
from support import IMAGENET_SAMPLE, need_shared

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not ccc_available(), reason=CCC_MISSING)


def _sorted_walk(root):
    for path, dirs, files in os.walk(root):
        dirs.sort()
        yield path, dirs, sorted(files)


def _original():
    class Compose:
        def __init__(self, transforms):
            pass

        def __call__(self, img):
            return random_resized_crop(img, None)  # PyTorch's global generator

    trn = types.SimpleNamespace(
        Compose=Compose, RandomHorizontalFlip=lambda: None, RandomResizedCrop=lambda size: None
    )

    def noise_dict():
        return {
            n: (lambda img, s, f=f: f(np.asarray(img), s, np.random.mtrand._rand))
            for n, f in FUNCTIONS.items()
        }

    shim_os = types.SimpleNamespace(walk=_sorted_walk, path=os.path, listdir=os.listdir)
    return load_functions(
        CCC_DIR / "generate.py",
        ["ApplyTransforms", "pil_loader"],
        {
            "np": np,
            "os": shim_os,
            "io": io,
            "Image": Image,
            "trn": trn,
            "data": types.SimpleNamespace(Dataset=object),
            "noise_dict": noise_dict,
        },
    )["ApplyTransforms"]


@pytest.fixture(scope="module")
def class_tree(tmp_path_factory):
    need_shared()
    root = tmp_path_factory.mktemp("val")
    for name in sorted(os.listdir(IMAGENET_SAMPLE))[:24]:
        (root / name[:9]).mkdir(exist_ok=True)
        (root / name[:9] / name).symlink_to(IMAGENET_SAMPLE / name)
    return root


@pytest.mark.slow
def test_reference_draws_equal_the_originals_loop(class_tree):
    ApplyTransforms = _original()
    steps = (Step(0, "fog", "shot_noise", 1.25, 0.0), Step(1, "fog", "shot_noise", 1.0, 0.25))
    speed, seed = 3, 44
    # generate.py: torch.manual_seed / np.random.seed, every step's dataset, then the shard
    torch.manual_seed(seed)
    np.random.seed(seed)  # noqa: NPY002 - the original seeds the global stream
    datasets = [ApplyTransforms(str(class_tree), s.n1, s.n2, s.s1, s.s2, speed) for s in steps]
    theirs = [d[k] for d in datasets for k in range(len(d))]
    classes = sorted(os.listdir(class_tree))

    source = scan_source(class_tree)
    shard = Shard(0, steps, 0, speed)
    ours = list(shard_samples(shard, source, seed, draws="reference"))
    assert len(ours) == len(theirs) == 6
    for (rec, jpeg), (their_jpeg, target, info) in zip(ours, theirs):
        assert rec.info == info
        assert rec.label == wnid_to_index(classes[target])
        assert jpeg == their_jpeg

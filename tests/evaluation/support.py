"""Helpers of the evaluation tests: a fast deterministic model, synthetic ImageNet-C folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from corruptbench import corrupt
from corruptbench.evaluation import RunOptions
from corruptbench.formats.imagenet import imagenet_wnids
from corruptbench.models import LoadedModel, Preprocessing
from corruptbench.ops.preprocess import profile_preprocess
from corruptbench.pipeline import item_seed
from support import SHARED

RESNET20 = SHARED / "models" / "resnet20-12fca82f.th"
CIFAR_CLASSES = (
    "airplane",
    "automobile",
    "bird",
    "cat",
    "deer",
    "dog",
    "frog",
    "horse",
    "ship",
    "truck",
)
WNIDS = [imagenet_wnids()[i] for i in (0, 1, 500, 999)]

#: the C-bar corruptions of the cbar_data builds (ImageNet-C-bar's; one compiled noise, one
#: Python-loop pattern, one with large draws)
CBAR_NAMES = ["blue_noise_sample", "checkerboard_cutout", "sparkles"]
#: the two classes of the cbar_data source (4 photos each)
CBAR_WNIDS = ("n01440764", "n01443537")
E2E_CELLS = [("gaussian_noise", 1), ("gaussian_noise", 5), ("defocus_blur", 1), ("defocus_blur", 5)]


class Counting:
    """A fast deterministic 'model': logits from 4x4 average-pooled pixels; counts images seen
    and, among them, flat ones (every channel one value, e.g. robustbench_tree's grey)."""

    def __init__(self, classes: int = 1000, fail_after: int | None = None) -> None:
        import torch

        g = torch.Generator().manual_seed(0)
        self.w = torch.randn(48, classes, generator=g)
        self.seen = 0
        self.flat = 0
        self.fail_after = fail_after

    def __call__(self, x: Any) -> Any:
        import torch

        if self.fail_after is not None and self.seen >= self.fail_after:
            raise KeyboardInterrupt
        self.seen += x.shape[0]
        self.flat += int((x.flatten(2).std(-1).amax(-1) < 1e-4).sum())
        return torch.nn.functional.adaptive_avg_pool2d(x, 4).flatten(1) @ self.w


def fast_model(
    classes: int = 1000, size: int = 224, fail_after: int | None = None, name: str = "counting"
) -> LoadedModel:
    return LoadedModel(
        id=name,
        source=f"test:{name}",
        preprocessing=Preprocessing(size),
        forward=Counting(classes, fail_after),
        num_classes=classes,
    )


def quiet(**kw: Any) -> RunOptions:
    """Run options without log lines (the default; kept for the tests' readability)."""
    return RunOptions(**{"log": None, **kw})


def save_jpeg(arr: np.ndarray, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(arr).save(path, quality=85, optimize=True)


def synthetic_imagenet_c(
    root: Path, cells: list[tuple[str, int]], wnids: list[str], per_class: int = 2
) -> None:
    rng = np.random.RandomState(0)
    for c, s in cells:
        for w in wnids:
            for k in range(per_class):
                save_jpeg(
                    rng.randint(0, 256, (224, 224, 3), dtype=np.uint8),
                    root / c / str(s) / w / f"{w}_{k}.JPEG",
                )


def build_imagenet_c(root: Path, sources: list[Path], cells: list[tuple[str, int]]) -> None:
    """What make-c writes: Resize(256)+CenterCrop(224), corrupt with item_seed, JPEG q85."""
    for src in sources:
        wnid = src.name.split("_")[0]
        img = profile_preprocess(Image.open(src), "imagenet")
        rel = f"{wnid}/{src.name}"
        for c, s in cells:
            out = corrupt(img, c, s, profile="imagenet", rng=item_seed(0, "c", c, s, rel))
            save_jpeg(out, root / c / str(s) / rel)


#: ILSVRC2012 validation file names that RobustBench does not list (checked in robustbench_tree)
UNLISTED_VAL = ("ILSVRC2012_val_00000001.JPEG", "ILSVRC2012_val_00000002.JPEG")
#: the grey of the images robustbench_tree adds that RobustBench does not list
UNLISTED_GREY = 128


def robustbench_tree(
    base: Path, cells: list[tuple[str, int]], photos: list[Path]
) -> tuple[Path, Path, list[str]]:
    """An ImageNet-C-style tree ``base/inc`` and a clean folder ``base/val`` whose file names ARE
    RobustBench's 5,000 listed ids, plus images it does not list.

    None of the shared photos is named like a listed id (they are ``n01440764_tench.JPEG``, the
    ids ``ILSVRC2012_val_*``), so every id is a hard link to one of ``photos``: the photo of the
    id's class when there is one, else one chosen by the id's position. Each photo is prepared
    and corrupted once per cell as make-c does (Resize(256) + CenterCrop(224), item_seed, JPEG
    q85); the clean folder links the photos as they are. Not listed, in every cell and in val,
    and flat grey (:data:`UNLISTED_GREY`, so a model can tell it sees one): the photos' own names
    and :data:`UNLISTED_VAL` in the first photo's class.

    Returns:
        (tree, val, the unlisted ``<wnid>/<file>`` keys).
    """
    import os
    import shutil

    from corruptbench.formats.robustbench import robustbench_image_ids

    ids = robustbench_image_ids()
    pool = base / "pool"
    (pool / "clean").mkdir(parents=True)
    save_jpeg(np.full((224, 224, 3), UNLISTED_GREY, np.uint8), pool / "grey.JPEG")
    by_wnid = {p.name.split("_")[0]: p.name for p in photos}
    for src in photos:
        shutil.copyfile(src, pool / "clean" / src.name)
        img = profile_preprocess(Image.open(src), "imagenet")
        for c, s in cells:
            rng = item_seed(0, "c", c, s, src.name)
            save_jpeg(corrupt(img, c, s, profile="imagenet", rng=rng), pool / c / str(s) / src.name)
    first = photos[0].name.split("_")[0]
    unlisted = [f"{p.name.split('_')[0]}/{p.name}" for p in photos]
    unlisted += [f"{first}/{name}" for name in UNLISTED_VAL]
    assert not set(unlisted) & set(ids)
    for folder, cell_pool in [(base / "val", pool / "clean")] + [
        (base / "inc" / c / str(s), pool / c / str(s)) for c, s in cells
    ]:
        for i, key in enumerate(ids):
            name = by_wnid.get(key.split("/")[0], photos[i % len(photos)].name)
            (folder / key).parent.mkdir(parents=True, exist_ok=True)
            os.link(cell_pool / name, folder / key)
        for key in unlisted:
            (folder / key).parent.mkdir(parents=True, exist_ok=True)
            os.link(pool / "grey.JPEG", folder / key)
    return base / "inc", base / "val", unlisted

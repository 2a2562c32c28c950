"""Fixtures of the evaluation tests: small synthetic and real ImageNet-C / CIFAR-C folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench import corrupt
from evaluation.support import (
    CBAR_NAMES,
    CBAR_WNIDS,
    CIFAR_CLASSES,
    E2E_CELLS,
    WNIDS,
    build_imagenet_c,
    robustbench_tree,
    synthetic_imagenet_c,
)
from support import CIFAR_TEST, IMAGENET_SAMPLE


@pytest.fixture
def small_c(tmp_path: Path) -> Path:
    """gaussian_noise at 5 severities and fog 2, 8 random images each (4 classes)."""
    root = tmp_path / "inc"
    synthetic_imagenet_c(
        root, [("gaussian_noise", s) for s in (1, 2, 3, 4, 5)] + [("fog", 2)], WNIDS
    )
    return root


@pytest.fixture(scope="module")
def real_imagenet_c(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    if not IMAGENET_SAMPLE.is_dir():
        pytest.skip(f"{IMAGENET_SAMPLE} absent")
    files = sorted(IMAGENET_SAMPLE.iterdir())[::16][:32]  # 32 photos spread over the classes
    root = tmp_path_factory.mktemp("inc")
    build_imagenet_c(root, files, E2E_CELLS)
    return root, files


@pytest.fixture(scope="module")
def cifar_c(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if not CIFAR_TEST.is_dir():
        pytest.skip(f"{CIFAR_TEST} absent")
    base = tmp_path_factory.mktemp("cifar")
    clean_dir = base / "clean"
    imgs, labels = [], []
    for ci, cls in enumerate(CIFAR_CLASSES):
        for f in sorted((CIFAR_TEST / cls).iterdir())[:20]:
            with Image.open(f) as im:
                arr = np.asarray(im.convert("RGB"))
            imgs.append(arr)
            labels.append(ci)
            (clean_dir / cls).mkdir(parents=True, exist_ok=True)
            (clean_dir / cls / f.name).symlink_to(f)
    root = base / "CIFAR-10-C"
    root.mkdir()
    np.save(root / "labels.npy", np.tile(np.asarray(labels, np.uint8), 5))
    arr = np.concatenate(
        [
            np.stack(
                [
                    corrupt(im, "gaussian_noise", s, profile="cifar", rng=i)
                    for i, im in enumerate(imgs)
                ]
            )
            for s in range(1, 6)
        ]
    )
    np.save(root / "gaussian_noise.npy", arr)
    return root, clean_dir


#: the cells of the robustbench_data tree
RB_CELLS = [("fog", 3), ("gaussian_noise", 1)]


@pytest.fixture(scope="session")
def robustbench_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    """RobustBench's 5,000 listed ids as an ImageNet-C-style tree of :data:`RB_CELLS` and a clean
    folder, plus unlisted grey images (:func:`evaluation.support.robustbench_tree`, 20 shared
    photos): (tree, val, unlisted keys)."""
    if not IMAGENET_SAMPLE.is_dir():
        pytest.skip(f"{IMAGENET_SAMPLE} absent")
    photos = sorted(IMAGENET_SAMPLE.iterdir())[::25]
    return robustbench_tree(tmp_path_factory.mktemp("robustbench"), RB_CELLS, photos)


@pytest.fixture(scope="module")
def cbar_data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """ImageNet-C-bar builds (make-c --suite cbar, :data:`CBAR_NAMES` x 5 levels) of 8 shared
    photos in two class folders: ``value`` (level folders named as make_imagenet_c_bar.py,
    ``2.35``), ``severity`` (the same files under ``1``..``5``, the release's naming), ``shards``
    (--format webdataset) and the clean ``src``."""
    if not IMAGENET_SAMPLE.is_dir():
        pytest.skip(f"{IMAGENET_SAMPLE} absent")
    from corruptbench.builders import build
    from corruptbench.layouts.imagenet_c import level_folders

    base = tmp_path_factory.mktemp("cbar")
    for i, photo in enumerate(sorted(IMAGENET_SAMPLE.iterdir())[::40][:8]):
        folder = base / "src" / CBAR_WNIDS[i % 2]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"ILSVRC2012_val_{i + 1:08d}.JPEG").write_bytes(photo.read_bytes())
    kw = dict(profile="imagenet", names=CBAR_NAMES, levels=[1, 2, 3, 4, 5], suite="cbar")
    build("c", base / "src", base / "value", fmt="jpeg", level_names="value", progress=False, **kw)
    build("c", base / "src", base / "shards", fmt="webdataset", progress=False, **kw)
    for name in CBAR_NAMES:
        for sev, folder in level_folders(base / "value", name).items():
            shutil.copytree(base / "value" / name / folder, base / "severity" / name / str(sev))
    return {k: base / k for k in ("src", "value", "severity", "shards")}

"""Run the reference's own stream code (mariodoebler/test-time-adaptation, ../shared/reference)
in this process, without torchvision.

What runs is the reference's code, unchanged: ``datasets/corruptions_datasets.py`` and
``robustbench/{data,loaders}.py`` are imported from their files; ``get_test_loader``,
``sort_by_dirichlet`` and ``get_transform`` (``datasets/data_loading.py``),
``complete_data_dir_path`` and ``get_num_classes`` (``conf.py``) and ``evaluate``
(``test_time.py``) are taken from the files with :mod:`ast` and executed, since their modules
import packages that are not here (torchvision, yacs, webdataset) or files not in the copy.

Stubs: torchvision's names are :class:`Tripwire` objects that can be built (robustbench/data.py
builds its transforms at import) but count every use; ``evaluate``'s model, registry and
``get_accuracy`` are recorders. The sequence functions never touch a stub:
:data:`TRIPWIRE_CALLS` stays 0 (the tests assert it), so the stubs change no sequence.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import logging
import os
import random
import sys
import time
import types
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from support import SHARED

REF = SHARED / "reference" / "test-time-adaptation" / "classification"

#: uses of a torchvision stub (calls of a built transform, dataset downloads, ...)
TRIPWIRE_CALLS: list[str] = []


def need_reference() -> None:
    if not (REF / "datasets" / "data_loading.py").is_file():
        pytest.skip(f"reference code not available: {REF} is absent (only in the dev/CI checkout)")


class Tripwire:
    """A torchvision object: building one is free, using one is counted."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        TRIPWIRE_CALLS.append(type(self).__name__)
        raise RuntimeError("a torchvision stub was used")


class _VisionDataset:
    def __init__(self, root: Any, *args: Any, **kwargs: Any) -> None:
        self.root = root


def _torchvision() -> dict[str, types.ModuleType]:
    tv = types.ModuleType("torchvision")
    transforms = types.ModuleType("torchvision.transforms")
    for name in ("Compose", "ToTensor", "Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop"):
        setattr(transforms, name, type(name, (Tripwire,), {}))
    datasets = types.ModuleType("torchvision.datasets")
    for name in ("CIFAR10", "CIFAR100", "ImageNet", "ImageFolder"):
        setattr(datasets, name, type(name, (Tripwire,), {}))
    vision = types.ModuleType("torchvision.datasets.vision")
    vision.VisionDataset = _VisionDataset  # type: ignore[attr-defined]
    datasets.vision = vision  # type: ignore[attr-defined]
    tv.transforms, tv.datasets = transforms, datasets  # type: ignore[attr-defined]
    return {
        "torchvision": tv,
        "torchvision.transforms": transforms,
        "torchvision.datasets": datasets,
        "torchvision.datasets.vision": vision,
    }


def _package(name: str, path: Path) -> types.ModuleType:
    """A package whose ``__init__`` is not run (robustbench's imports files not in the copy)."""
    mod = types.ModuleType(name)
    mod.__path__ = [str(path)]  # type: ignore[attr-defined]
    return mod


def _load(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@contextlib.contextmanager
def _modules(extra: dict[str, types.ModuleType]) -> Iterator[None]:
    """``extra`` in sys.modules while the reference modules import, then gone again with the
    reference's own modules (other packages they import stay imported)."""
    sys.modules.update(extra)
    try:
        yield
    finally:
        for name in list(sys.modules):
            if name in extra or name.startswith(("robustbench", "tta_ref_", "torchvision")):
                del sys.modules[name]


def _functions(path: Path, names: set[str], namespace: dict[str, Any]) -> dict[str, Any]:
    """Execute the named top-level functions of ``path`` in ``namespace``."""
    tree = ast.parse(path.read_text("utf-8"))
    body = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
    assert {n.name for n in body} == names, f"{path}: missing {names - {n.name for n in body}}"
    code = compile(ast.Module(body=body, type_ignores=[]), str(path), "exec")
    exec(code, namespace)  # noqa: S102 - the reference's own functions, on purpose
    return namespace


@lru_cache(maxsize=1)
def reference() -> dict[str, Any]:
    """The reference's functions, ready to call (see the module docstring)."""
    import torch

    stubs = {
        **_torchvision(),
        "robustbench": _package("robustbench", REF / "robustbench"),
        "robustbench.model_zoo": _package(
            "robustbench.model_zoo", REF / "robustbench" / "model_zoo"
        ),
    }
    with _modules(stubs):
        _load("robustbench.model_zoo.enums", REF / "robustbench" / "model_zoo" / "enums.py")
        _load("robustbench.zenodo_download", REF / "robustbench" / "zenodo_download.py")
        _load("robustbench.loaders", REF / "robustbench" / "loaders.py")
        _load("robustbench.data", REF / "robustbench" / "data.py")
        cds = _load("tta_ref_corruptions_datasets", REF / "datasets" / "corruptions_datasets.py")
    ns: dict[str, Any] = {
        "os": os,
        "logging": logging,
        "random": random,
        "np": np,
        "time": time,
        "torch": torch,
        "torchvision": stubs["torchvision"],
        "transforms": stubs["torchvision.transforms"],
        "logger": logging.getLogger("tta_reference"),
        "Union": Any,
        "create_cifarc_dataset": cds.create_cifarc_dataset,
        "create_imagenetc_dataset": cds.create_imagenetc_dataset,
        "generalization_dataset_names": [],
    }
    _functions(REF / "conf.py", {"complete_data_dir_path", "get_num_classes"}, ns)
    _functions(
        REF / "datasets" / "data_loading.py",
        {"get_test_loader", "sort_by_dirichlet", "get_transform", "get_source_loader"},
        ns,
    )
    return ns


class _Recorder:
    """test_time.py's model, its registry and get_accuracy in one: records what it is fed."""

    def __init__(self) -> None:
        self.samples: list[tuple[str, int, str, int]] = []
        self.resets: list[int] = []
        self.batches: list[tuple[int, int]] = []

    def reset(self) -> None:
        self.resets.append(len(self.samples))

    def accuracy(self, model: Any, data_loader: Any, **kwargs: Any) -> tuple[float, dict, int]:
        start = len(self.samples)
        entries = [_entry(s, data_loader.severity) for s in data_loader.dataset.samples]
        self.samples.extend(entries)
        size = data_loader.batch_size
        self.batches.extend(
            (b, min(b + size, len(self.samples))) for b in range(start, len(self.samples), size)
        )
        return 1.0, kwargs["domain_dict"], len(entries)


def _entry(sample: Any, severity: int) -> tuple[str, int, str, int]:
    """(domain, severity, id, label) of one reference sample: CIFAR ``[x, y, domain]`` with the
    row id in the pixel (see :func:`write_cifar_c`), ImageNet ``(path, label)``."""
    if len(sample) == 3:
        x, y, domain = sample
        px = np.rint(np.asarray(x, dtype=np.float64).reshape(-1)[:3] * 255).astype(int)
        assert px[2] == severity, "the reference read another severity's rows"
        return str(domain), severity, str(px[0] * 256 + px[1]), int(y)
    path, label = sample
    parts = path.rstrip("\r\n").split(os.sep)
    return parts[-4], int(parts[-3]), f"{parts[-2]}/{parts[-1]}", int(label)


def run_reference(
    *,
    dataset: str,
    setting: str,
    order: list[str],
    severities: list[int],
    num_examples: int,
    delta: float,
    seed: int,
    batch_size: int,
    data_dir: Path,
) -> _Recorder:
    """test_time.py's ``evaluate`` with this configuration: what its model is fed, in order."""
    ns = reference()
    rec = _Recorder()
    cfg = types.SimpleNamespace(
        SETTING=setting,
        DATA_DIR=str(data_dir),
        RNG_SEED=seed,
        PRINT_EVERY=-1,
        CORRUPTION=types.SimpleNamespace(
            DATASET=dataset, TYPE=list(order), SEVERITY=list(severities), NUM_EX=num_examples
        ),
        MODEL=types.SimpleNamespace(ADAPTATION="source", USE_CLIP=False, CKPT_PATH=""),
        TEST=types.SimpleNamespace(
            N_AUGMENTATIONS=32,
            DELTA_DIRICHLET=delta,
            BATCH_SIZE=batch_size,
            NUM_WORKERS=0,
            DEBUG=False,
        ),
    )

    def get_test_loader(**kwargs: Any) -> Any:
        loader = ns["get_test_loader"](**kwargs)
        loader.severity = kwargs["severity"]  # what get_accuracy is not told
        return loader

    registry = types.SimpleNamespace(
        registered_names=lambda: ["source"], get=lambda name: lambda cfg, model, num_classes: model
    )
    env = {
        **ns,
        "cfg": cfg,
        "load_cfg_from_args": lambda description: None,
        "get_model": lambda cfg, num_classes, device: (rec, None),
        "ADAPTATION_REGISTRY": registry,
        "get_test_loader": get_test_loader,
        "get_accuracy": rec.accuracy,
        "eval_domain_dict": lambda domain_dict, domain_seq: None,
        "print_memory_info": lambda: None,
        "ckpt_path_to_domain_seq": lambda ckpt_path: [],
    }
    _functions(REF / "test_time.py", {"evaluate"}, env)
    cwd = os.getcwd()
    os.chdir(REF)  # the reference opens its id lists by relative paths
    try:
        env["evaluate"]("reference")
    finally:
        os.chdir(cwd)
    return rec


def write_cifar_c(root: Path, names: list[str], labels: np.ndarray) -> Path:
    """A CIFAR-10-C shaped folder at 1 x 1 px: ``<name>.npy`` (50,000 rows) whose pixel is
    (row // 256, row % 256, severity), and ``labels.npy``; returns ``root`` (what
    ``<root>/CIFAR-10-C`` or ``CIFAR-100-C`` is)."""
    root.mkdir(parents=True, exist_ok=True)
    n = len(labels)
    rows = np.arange(n)
    arr = np.zeros((5 * n, 1, 1, 3), dtype=np.uint8)
    for s in range(1, 6):
        block = arr[(s - 1) * n : s * n, 0, 0]
        block[:, 0], block[:, 1], block[:, 2] = rows // 256, rows % 256, s
    for name in names:
        np.save(root / f"{name}.npy", arr)
    np.save(root / "labels.npy", np.tile(labels.astype(np.uint8), 5))
    return root

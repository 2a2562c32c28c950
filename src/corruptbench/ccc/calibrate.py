"""``ccc calibrate``: a model's accuracy on each corruption pair at each severity pair.

For every ordered pair ``(a, b)`` of the chosen corruptions and every cell ``(i, j)`` of the
severity grid (``s1 = i / 4``, ``s2 = j / 4``), each calibration image (224 x 224, make-c's
Resize(256) + CenterCrop(224)) is corrupted by ``a`` at ``s1`` then ``b`` at ``s2``
(:func:`corruptbench.ccc.functions.corrupt_pair`) and classified; the cell holds the share
correct, in percent: the matrix :func:`corruptbench.ccc.find_walk` reads.

Reproducible under any schedule: image ``k`` of cell ``(a, b, i, j)`` draws from its own
``RandomState`` (:func:`cell_seed`), every batch is one cell's images in order, and each process
runs PyTorch on one thread, so the counts are the same for any number of workers. Resumable: a
finished pair is written to ``OUT/pairs/<key>.npy`` atomically and skipped when the run is
started again with the same settings (``OUT/calibration.json``).

The original's matrices came from a ResNet-50 on its own calibration images (not published).
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import Arg, ArgumentError
from ..fileio import write_bytes, write_text
from ..processes import worker_pool
from .functions import corrupt_pair
from .matrices import pair_key, save_matrices
from .params import check_ccc_name
from .plan import check_seed
from .walk import GRID

__all__ = [
    "CalibrationSettings",
    "calibrate",
    "cell_seed",
    "classifier",
    "pair_correct",
    "pair_counts",
    "counts_to_matrix",
    "calibration_images",
]

#: the file that holds a run's settings in OUT (checked on resume)
SETTINGS_FILE = "calibration.json"
MATRIX_FILE = "ccc_accuracy_matrix.npz"


@dataclass(frozen=True)
class CalibrationSettings:
    """What a calibration computes: its corruptions, grid levels (indices 0..20), seed and model,
    and the ids of its images (what a resumed run must match)."""

    corruptions: tuple[str, ...]
    levels: tuple[int, ...]
    seed: int
    model: str
    images: tuple[str, ...]


def cell_seed(seed: int, a: str, b: str, i: int, j: int, k: int) -> int:
    """The seed of image ``k`` in cell ``(i, j)`` of pair ``(a, b)``: a SeedSequence of them."""
    words = [seed, *a.encode(), 0, *b.encode(), 0, i, j, k]
    return int(np.random.SeedSequence(words).generate_state(1)[0])


def calibration_images(
    folder: str | os.PathLike[str], n: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``n`` labelled images of an ImageNet folder (class folders, or wnid-named files), chosen
    by a seeded permutation of the sorted list, as make-c's 224 x 224 crops: (images, labels,
    ids)."""
    from ..formats.imagenet import scan_image_folder, wnid_to_index
    from ..formats.images import load_image
    from ..ops.preprocess import profile_preprocess

    check_seed(seed)
    items = [it for it in scan_image_folder(folder).items if it.label is not None]
    if not items:
        raise ArgumentError(
            Arg("data"),
            f" {folder} has no labelled images (class sub-folders, or files named <wnid>_...)",
        )
    if n < 1 or n > len(items):
        raise ArgumentError(
            Arg("images"), f" must be in 1..{len(items)} (labelled images in {folder}), got {n}"
        )
    order = np.random.RandomState(seed).permutation(len(items))[:n]
    chosen = [items[k] for k in sorted(order)]
    images = np.stack([profile_preprocess(load_image(it.path), "imagenet") for it in chosen])
    labels = np.array([wnid_to_index(str(it.label)) for it in chosen], dtype=np.int64)
    return images, labels, [it.rel for it in chosen]


def pair_correct(
    images: np.ndarray,
    labels: np.ndarray,
    a: str,
    b: str,
    levels: Sequence[int],
    seed: int,
    classify: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """Per image, whether the model is right, per cell of pair ``(a, b)`` (bool 21 x 21 x N;
    False where a level is not computed)."""
    right = np.zeros((GRID, GRID, len(images)), dtype=bool)
    for i in levels:
        for j in levels:
            batch = np.stack(
                [
                    corrupt_pair(
                        img,
                        a,
                        i / 4,
                        b,
                        j / 4,
                        np.random.RandomState(cell_seed(seed, a, b, i, j, k)),
                    )
                    for k, img in enumerate(images)
                ]
            )
            right[i, j] = classify(batch) == labels
    return right


def pair_counts(
    images: np.ndarray,
    labels: np.ndarray,
    a: str,
    b: str,
    levels: Sequence[int],
    seed: int,
    classify: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """Correct predictions per cell of pair ``(a, b)`` (int 21 x 21; -1 where not computed)."""
    counts = pair_correct(images, labels, a, b, levels, seed, classify).sum(axis=2)
    mask = np.zeros((GRID, GRID), dtype=bool)
    mask[np.ix_(list(levels), list(levels))] = True
    return np.where(mask, counts, -1).astype(np.int64)


def counts_to_matrix(counts: np.ndarray, n: int, levels: Sequence[int]) -> np.ndarray:
    """Accuracies in percent on the full 21 x 21 grid: computed cells as they are, the others
    linearly interpolated between the computed levels (rows, then columns)."""
    lv = np.asarray(sorted(levels))
    acc = counts[np.ix_(lv, lv)] * (100.0 / n)
    grid = np.arange(GRID)
    rows = np.stack([np.interp(grid, lv, acc[:, c]) for c in range(len(lv))], axis=1)
    return np.stack([np.interp(grid, lv, rows[r]) for r in range(GRID)])


_WORKER: dict[str, Any] = {}


def classifier(model_spec: str, device: str = "cpu") -> Callable[[np.ndarray], np.ndarray]:
    """Top-1 classes of a uint8 N x 224 x 224 x 3 batch by the model (loaded once per process,
    PyTorch on one thread: the same numbers in every process)."""
    key = f"{model_spec}@{device}"
    if key not in _WORKER:
        import torch

        from ..models import load_model

        torch.set_num_threads(1)
        model = load_model(model_spec, device=device, probe=False)
        if model.module is not None:
            model.module.eval()

        def classify(batch: np.ndarray) -> np.ndarray:
            x = torch.from_numpy(np.ascontiguousarray(batch.transpose(0, 3, 1, 2))).to(device)
            with torch.inference_mode():
                return model.predict(model.preprocessing.normalize(x)).argmax(1).numpy()

        _WORKER[key] = classify
    return _WORKER[key]


def _run_pair(args: tuple) -> tuple[str, np.ndarray]:
    images, labels, a, b, levels, seed, model_spec, device, out = args
    counts = pair_counts(images, labels, a, b, levels, seed, classifier(model_spec, device))
    buf = io.BytesIO()
    np.save(buf, counts)
    write_bytes(Path(out) / "pairs" / f"{pair_key(a, b)}.npy", buf.getvalue(), make_parents=True)
    return pair_key(a, b), counts


def _check_settings(out: Path, settings: CalibrationSettings) -> bool:
    """Whether ``out`` holds this calibration already; one line if it holds another."""
    path = out / SETTINGS_FILE
    mine = json.loads(json.dumps(asdict(settings)))
    if not path.is_file():
        return False
    try:
        theirs = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ArgumentError(Arg("out"), f" {path}: not readable ({exc})") from None
    if theirs != mine:
        diff = sorted(k for k in mine if not isinstance(theirs, dict) or mine[k] != theirs.get(k))
        raise ArgumentError(
            Arg("out"),
            f" {out} holds a calibration with other settings ({', '.join(diff)}); "
            "use another folder or the same settings to resume",
        )
    return True


def _write_settings(out: Path, settings: CalibrationSettings) -> None:
    text = json.dumps(json.loads(json.dumps(asdict(settings))), indent=1) + "\n"
    write_text(out / SETTINGS_FILE, text, make_parents=True)


def _load_pair(path: Path, n_images: int, levels: Sequence[int]) -> np.ndarray:
    """A finished pair's counts (:func:`pair_counts`), checked: a damaged file is named, not read
    as numbers."""
    try:
        counts = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        counts = exc
    ok = isinstance(counts, np.ndarray) and counts.shape == (GRID, GRID)
    if ok and counts.dtype.kind in "iu":
        computed = np.zeros((GRID, GRID), dtype=bool)
        computed[np.ix_(list(levels), list(levels))] = True
        cells = counts[computed]
        ok = bool(
            (cells >= 0).all() and (cells <= n_images).all() and (counts[~computed] == -1).all()
        )
    else:
        ok = False
    if not ok:
        raise ArgumentError(
            Arg("out"),
            f" {path} is damaged (not {GRID} x {GRID} counts of 0..{n_images} correct images): "
            "delete it and run again to compute that pair anew",
        )
    return counts


def calibrate(
    images: np.ndarray,
    labels: np.ndarray,
    ids: Sequence[str],
    corruptions: Sequence[str],
    out: str | os.PathLike[str],
    *,
    model: str = "efficientnet_lite0",
    device: str = "cpu",
    levels: Sequence[int] | None = None,
    seed: int = 0,
    workers: int = 0,
    progress: Callable[[str], None] | None = None,
) -> dict[str, np.ndarray]:
    """Accuracy matrices of ``model`` for every ordered pair of ``corruptions``, written to
    ``OUT/ccc_accuracy_matrix.npz`` and returned (key -> 21 x 21, percent).

    Args:
        images, labels, ids: the calibration set (:func:`calibration_images`).
        corruptions: CCC names (at least two).
        out: a folder: settings, one file per finished pair, the matrices.
        model: a model source string (``corruptbench eval-c --model``).
        device: where the model runs (``"cpu"``, ``"cuda"``); the corruptions run on the CPU.
        levels: the grid indices computed (default all 21); the others are interpolated
            (:func:`counts_to_matrix`).
        seed: the draws' seed (:func:`cell_seed`).
        workers: processes (0: this one); the numbers do not depend on it.
        progress: called with each finished pair's key.
    """
    names = tuple(check_ccc_name(n) for n in corruptions)
    if len(set(names)) < 2:
        raise ArgumentError(
            Arg("corruptions"), f" must name at least two corruptions, got {list(corruptions)}"
        )
    lv = tuple(sorted(set(range(GRID) if levels is None else levels)))
    if lv[0] != 0 or lv[-1] != GRID - 1 or any(not 0 <= v < GRID for v in lv):
        raise ArgumentError(
            Arg("levels"), f" must be grid indices in 0..20 including 0 and 20, got {list(lv)}"
        )
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ArgumentError(Arg("corruptions"), f" names {', '.join(twice)} more than once")
    out = Path(out)
    settings = CalibrationSettings(names, lv, int(seed), model, tuple(ids))
    resumed = _check_settings(out, settings)
    counts: dict[str, np.ndarray] = {}
    todo = []
    for a in names:
        for b in names:
            if a == b:
                continue
            done = out / "pairs" / f"{pair_key(a, b)}.npy"
            if done.is_file():
                counts[pair_key(a, b)] = _load_pair(done, len(images), lv)
            else:
                todo.append((images, labels, a, b, lv, int(seed), model, device, str(out)))
    if todo:
        classifier(model, device)  # a model or device that cannot load: refused before any write
    if not resumed:
        _write_settings(out, settings)
    if workers > 0 and len(todo) > 1:
        with worker_pool(workers) as pool:
            for key, c in pool.map(_run_pair, todo):
                counts[key] = c
                if progress:
                    progress(key)
    else:
        for job in todo:
            key, c = _run_pair(job)
            counts[key] = c
            if progress:
                progress(key)
    matrices = {k: counts_to_matrix(c, len(images), lv) for k, c in sorted(counts.items())}
    save_matrices(out / MATRIX_FILE, matrices)
    return matrices

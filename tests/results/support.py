"""Results objects for the report and results tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from corruptbench.corruptions import EXTRA_CORRUPTIONS
from corruptbench.metrics import summarize_c
from corruptbench.tables.alexnet import ALEXNET_C_ERRORS

EVIL = "<script>alert(1)</script>"


def make_results(
    model_id: str, scale: float, clean: float, *, seed: int = 0, p: bool = False
) -> dict:
    """A plausible results object: AlexNet's errors scaled by ``scale`` with a little noise."""
    rng = np.random.default_rng(seed)
    # whole numbers of the 50,000 images wrong, as an evaluation gives them
    errors = {
        k: [round(min(1.0, v * scale * rng.uniform(0.95, 1.05)) * 50000) / 50000 for v in vals]
        for k, vals in ALEXNET_C_ERRORS.items()
    }
    s = summarize_c(errors, clean_error=clean)
    data = {
        "schema": "corruptbench.results/1",
        "kind": "c",
        "model": {
            "id": model_id,
            "source": "test",
            "preprocessing": "none",
            "input_size": 224,
            "num_classes": 1000,
        },
        "dataset": {
            "path": "/data/ImageNet-C",
            "layout": "imagenet-c",
            "protocol": "full",
            "profile": "imagenet",
            "fingerprint": "f",
            "num_images": 50000,
            "notes": [],
        },
        "versions": {"corruptbench": "0.1.0"},
        "time_s": 1.0,
        "created": "2026-01-01T00:00:00Z",
        "errors": errors,
        "counts": {k: [50000] * 5 for k in errors},
        "clean_error": clean,
        "clean_count": 50000,
        "baseline": "alexnet",
        "ce": s.ce,
        "relative_ce": s.relative_ce,
        "mce": s.mce,
        "relative_mce": s.relative_mce,
        "mean_error": s.mean_error,
        "extra_mean_error": s.extra_mean_error,
        "extra_ce": {k: s.ce[k] for k in EXTRA_CORRUPTIONS if k in errors},
        "partial": s.partial,
        "missing": s.missing,
    }
    if p:
        fp = {k: float(rng.uniform(0.01, 0.1)) for k in ("gaussian_noise", "rotate", "brightness")}
        data["kind"] = "demo"
        data["p"] = {
            "difficulty": 1,
            "flip_probability": fp,
            "top5_distance": {k: 1.5 for k in fp},
            "zipf_distance": {k: 0.1 for k in fp},
            "num_sequences": {k: 10 for k in fp},
            "baseline": None,
            "flip_rate": None,
            "t5d_ratio": None,
            "mfr": None,
            "mt5d": None,
            "notes": ["no baseline"],
        }
    return data


def write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def make_score_results(
    model_id: str,
    clean: float,
    *,
    seed: int = 0,
    metric: str = "box AP",
    names: tuple[str, ...] | None = None,
    fingerprint: str | None = None,
) -> dict:
    """A task-score results object: a clean score and scores falling with severity."""
    from corruptbench.corruptions import ALL_CORRUPTIONS
    from corruptbench.results import DatasetInfo, Results, make_score_part

    rng = np.random.default_rng(seed)
    grid = {
        n: sorted((clean * rng.uniform(0.1, 0.95, 5)).tolist(), reverse=True)
        for n in (names or ALL_CORRUPTIONS)
    }
    partial = names is not None
    res = Results(
        kind="score",
        model={"id": model_id, "source": "test"},
        dataset=DatasetInfo(path="/data/coco-c", layout="tree", fingerprint=fingerprint),
        score=make_score_part(grid, clean, metric=metric, partial=partial),
        versions={"corruptbench": "0.1.0"},
        created="2026-01-01T00:00:00Z",
    )
    return res.to_dict()


#: the cells of :func:`make_calibrated`: two benchmark corruptions and an extra one
CAL_NAMES = ("gaussian_noise", "fog", "speckle_noise")
CAL_SEVERITIES = (1, 3, 5)


def calibration_batches(
    *,
    names: tuple[str, ...] = CAL_NAMES,
    severities: tuple[int, ...] = CAL_SEVERITIES,
    n: int = 60,
    classes: int = 10,
    seed: int = 0,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Cell key -> (logits, labels) of a model that is accurate and over-confident on clean
    images and less accurate, yet as confident, at higher severities."""
    rng = np.random.default_rng(seed)
    out = {}
    cells = [("clean", 0)] + [(c, s) for c in names for s in severities]
    for name, sev in cells:
        labels = rng.integers(0, classes, n)
        logits = rng.normal(0, 1, (n, classes))
        hit = rng.random(n) < 0.85 - 0.12 * sev
        logits[np.arange(n), np.where(hit, labels, (labels + 1) % classes)] += 6.0
        out["clean" if sev == 0 else f"{name}/{sev}"] = (logits.astype(np.float32), labels)
    return out


def make_calibrated(
    model_id: str = "calibrated",
    *,
    ece_bins: int = 15,
    seed: int = 0,
    batches: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> dict:
    """An eval-c results object whose errors, counts and calibration all come from
    :func:`calibration_batches` (so the file is consistent and every number is known)."""
    from corruptbench.metrics.calibration import CalibrationStats, stored_bins
    from corruptbench.results import make_calibration_part

    batches = batches or calibration_batches(seed=seed)
    stats = {
        key: CalibrationStats(stored_bins(ece_bins)).update(logits, labels)
        for key, (logits, labels) in batches.items()
    }
    errors: dict[str, list] = {}
    counts: dict[str, list] = {}
    for key, s in stats.items():
        if key == "clean":
            continue
        name, sev = key.split("/")
        errors.setdefault(name, [None] * 5)[int(sev) - 1] = s.top1_error
        counts.setdefault(name, [None] * 5)[int(sev) - 1] = s.n
    data = make_results(model_id, 1.0, stats["clean"].top1_error or 0.0)
    derived = ("ce", "relative_ce", "mce", "relative_mce", "mean_error", "extra_mean_error")
    for key in (*derived, "extra_ce", "partial", "missing", "partial_mce", "partial_relative_mce"):
        data.pop(key, None)  # computed from the errors when the file is read
    data.update(errors=errors, counts=counts, clean_count=stats["clean"].n, baseline="uniform")
    data["dataset"]["num_images"] = stats["clean"].n
    data["calibration"] = make_calibration_part(stats, ece_bins).to_dict()
    from corruptbench.results import Results

    return Results.from_dict(data, "calibrated.json").to_dict()


def make_partial(model_id: str, n: int, clean: float = 0.25) -> dict:
    """A results object of ``n`` of the 15 benchmark corruptions (errors 20..60 %), written as
    corruptbench writes it (``mce`` null, the mean over the ``n`` in ``partial_mce``)."""
    from corruptbench.corruptions import BENCHMARK_CORRUPTIONS
    from corruptbench.results import Results

    data = make_results(model_id, 1.0, clean)
    errors = {k: [0.2, 0.3, 0.4, 0.5, 0.6] for k in BENCHMARK_CORRUPTIONS[:n]}
    keep = {k: v for k, v in data.items() if k in ("schema", "kind", "model", "dataset")}
    return Results.from_dict({**keep, "errors": errors, "clean_error": clean}).to_dict()


def make_cbar(
    model_id: str,
    scale: float = 1.0,
    *,
    benchmark: str = "imagenet_c_bar",
    n: int = 10,
    clean: float | None = 0.25,
    with_c: bool = False,
    seed: int = 0,
) -> dict:
    """An eval-c results object with a C-bar part: the first ``n`` of ``benchmark``'s ten
    corruptions, errors rising with the level (whole numbers of 400 images), written as
    corruptbench writes it; ``with_c``: an ImageNet-C part too (:func:`make_results`, the same
    clean error)."""
    from corruptbench.grid import subsets
    from corruptbench.results import CBarResults, Results

    rng = np.random.default_rng(seed)
    names = subsets("c", "cbar")[benchmark][:n]
    errors = {
        name: [round(min(1.0, scale * (0.2 + 0.1 * s) * rng.uniform(0.9, 1.1)) * 400) / 400
               for s in range(5)]
        for name in names
    }  # fmt: skip
    part = CBarResults(benchmark, errors, {k: [400] * 5 for k in errors}, clean, 400)
    if with_c:
        data = make_results(model_id, scale, clean or 0.0, seed=seed)
        data["clean_count"] = 400  # one clean cell: the parts agree
        data["clean_error"] = clean
    else:
        data = make_results(model_id, scale, 0.0, seed=seed)
        data = {k: v for k, v in data.items() if k in ("schema", "kind", "model", "dataset")}
    data["cbar"] = part.to_dict()
    return Results.from_dict(data, "cbar.json").to_dict()


def make_cbar_calibrated(model_id: str = "cbar-cal", *, n: int = 10, seed: int = 0) -> dict:
    """A C-bar-only eval-c results object (the first ``n`` of ImageNet-C-bar's ten corruptions
    at its five levels) whose errors, counts and calibration all come from
    :func:`calibration_batches`."""
    from corruptbench.grid import subsets
    from corruptbench.metrics.calibration import CalibrationStats, stored_bins
    from corruptbench.results import CBarResults, Results, make_calibration_part

    names = subsets("c", "cbar")["imagenet_c_bar"][:n]
    batches = calibration_batches(names=names, severities=(1, 2, 3, 4, 5), seed=seed)
    stats = {
        key: CalibrationStats(stored_bins(15)).update(logits, labels)
        for key, (logits, labels) in batches.items()
    }
    errors: dict[str, list] = {name: [None] * 5 for name in names}
    for key, s in stats.items():
        if key != "clean":
            name, sev = key.split("/")
            errors[name][int(sev) - 1] = s.top1_error
    clean = stats["clean"]
    counts = {name: [clean.n] * 5 for name in names}
    part = CBarResults("imagenet_c_bar", errors, counts, clean.top1_error, clean.n)
    data = make_results(model_id, 1.0, 0.0, seed=seed)
    data = {k: v for k, v in data.items() if k in ("schema", "kind", "model", "dataset")}
    data["dataset"]["num_images"] = clean.n
    data["cbar"] = part.to_dict()
    data["calibration"] = make_calibration_part(stats, 15).to_dict()
    return Results.from_dict(data, "cbar-cal.json").to_dict()

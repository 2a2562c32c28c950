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


def make_partial(model_id: str, n: int, clean: float = 0.25) -> dict:
    """A results object of ``n`` of the 15 benchmark corruptions (errors 20..60 %), written as
    corruptbench writes it (``mce`` null, the mean over the ``n`` in ``partial_mce``)."""
    from corruptbench.corruptions import BENCHMARK_CORRUPTIONS
    from corruptbench.results import Results

    data = make_results(model_id, 1.0, clean)
    errors = {k: [0.2, 0.3, 0.4, 0.5, 0.6] for k in BENCHMARK_CORRUPTIONS[:n]}
    keep = {k: v for k, v in data.items() if k in ("schema", "kind", "model", "dataset")}
    return Results.from_dict({**keep, "errors": errors, "clean_error": clean}).to_dict()

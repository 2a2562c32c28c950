"""Stream results made from counts alone (no model, no data): what the stream part's, its
views' and the report's tests read."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np

from corruptbench.streams.results import Counts, StreamResults

ORDER = ["gaussian_noise", "fog", "contrast"]


def one_decimal(error: float) -> str:
    """A stream table's cell, worked out here: the summary's two-decimal error % (the
    reference's ``:.2%``) rounded half up to one decimal (56.25% -> 56.3)."""
    return str(Decimal(f"{error:.2%}"[:-1]).quantize(Decimal("0.1"), ROUND_HALF_UP))


def make_stream_results(
    adapt: str = "source",
    model: str = "tiny",
    *,
    order: list[str] | None = None,
    seed: int = 0,
    n: int = 20,
    batch: int = 8,
    setting: str = "continual",
    adapt_options: dict | None = None,
) -> StreamResults:
    """A continual stream of ``order`` at severity 5, ``n`` samples a domain in batches of
    ``batch`` (the last smaller), random errors per batch (``seed``); ``adapt_options`` None:
    not recorded, as in files written before they were."""
    order = list(order or ORDER)
    rng = np.random.RandomState(seed)
    blocks, cells, batches, start = [], [], [], 0
    for d in order:
        errors = 0
        for size in [batch] * (n // batch) + ([n % batch] if n % batch else []):
            e = int(rng.randint(0, size + 1))
            batches.append([start, size, e])
            start += size
            errors += e
        blocks.append(Counts(d, n, errors, 5))
        cells.append(Counts(d, n, errors, 5))
    domains = [
        Counts(b.name, b.n, b.errors, None, {"n": n, "nll": 1.0 + k, "brier": 0.5, "ece": 0.1})
        for k, b in enumerate(blocks)
    ]
    for d in domains:
        assert d.calibration is not None
        d.calibration["top1_error"] = d.errors / n if n else 0.0
    return StreamResults(
        adapt=adapt,
        adapt_options=adapt_options,
        settings={
            "dataset": "cifar10_c",
            "setting": setting,
            "order_name": "custom",
            "order": order,
            "severities": [5],
            "seed": 1,
            "batch_size": batch,
        },
        sequence_sha256=f"{seed:064x}",
        blocks=blocks,
        domains=domains,
        cells=cells,
        batches=batches,
        model={"id": model},
        created="2026-12-07T00:00:00+00:00",
        versions={"corruptbench": "test"},
    )


def write_stream(tmp_path: Path, name: str, res: StreamResults) -> Path:
    path = tmp_path / name
    res.save(path)
    return path

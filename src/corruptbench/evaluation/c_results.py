"""eval-c's results from its tally: per-severity errors and counts, the ImageNet-C part (CE, mCE
against the baseline) and the C-bar part, the notes on what the data lacked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..corruptions import BENCHMARK_CORRUPTIONS
from ..grid import CLEAN, SEVERITIES, Cell, reference_order, suite_of
from ..models import LoadedModel
from ..results import (
    Baseline,
    CalibrationResults,
    CBarResults,
    CResults,
    Results,
    library_versions,
    now,
)
from ..tables.cbar import table_key
from .layouts import Layout

__all__ = ["Tally", "grid_rows", "missing_notes", "c_results", "c_part"]

Tally = dict[Cell, list[int]]  #: cell -> [correct, counted, skipped]


def grid_rows(
    names: Sequence[str], tally: Tally
) -> tuple[dict[str, list[float | None]], dict[str, list[int | None]]]:
    """Per-severity errors and image counts of each corruption (None where not evaluated)."""
    errors: dict[str, list[float | None]] = {}
    counts: dict[str, list[int | None]] = {}
    for c in names:
        cells = [tally.get(Cell(c, s)) for s in SEVERITIES]
        errors[c] = [1.0 - t[0] / t[1] if t and t[1] > 0 else None for t in cells]
        counts[c] = [t[1] if t and t[1] > 0 else None for t in cells]
    return errors, counts


def missing_notes(names: Sequence[str], tally: Tally) -> list[str]:
    """Notes on requested corruptions absent from the data, or present at some severities only."""
    done = {k for k, v in tally.items() if v[1] > 0}
    done_names = {c for c, _ in done}
    by: dict[str, list[int]] = {}
    for c in names:
        for s in SEVERITIES:
            if (c, s) not in done:
                by.setdefault(c, []).append(s)
    absent = [c for c, v in by.items() if len(v) == len(SEVERITIES) or c not in done_names]
    partial_rows = [
        f"{c} (severity {','.join(map(str, sorted(v)))})" for c, v in by.items() if c not in absent
    ]
    notes = []
    if absent:
        notes.append(f"not evaluated (absent from the data): {', '.join(absent)}")
    if partial_rows:
        notes.append(f"missing severities: {'; '.join(partial_rows)}")
    return notes


def c_results(
    model: LoadedModel,
    layout: Layout,
    names: Sequence[str],
    baseline: Baseline,
    protocol: str,
    tally: Tally,
    elapsed: float,
    extra_notes: list[str],
    run: dict[str, Any],
    calibration: CalibrationResults | None = None,
) -> Results:
    """The results of a run: ``layout`` holds the data, ``names`` the corruptions asked for,
    ``tally`` the cells counted so far, ``protocol`` the protocol's name."""
    names = list(reference_order(names))
    inc = [n for n in names if suite_of(n) != "cbar"]
    bar = [n for n in names if suite_of(n) == "cbar"]
    clean = tally.get(CLEAN)
    clean_error = 1.0 - clean[0] / clean[1] if clean and clean[1] else None
    clean_count = clean[1] if clean and clean[1] else None
    notes = list(layout.notes) + list(extra_notes) + missing_notes(names, tally)
    c = c_part(baseline, inc, tally, clean_error, clean_count, notes) if inc else None
    cbar = None
    if bar:
        errors, counts = grid_rows(bar, tally)
        benchmark = table_key(layout.profile)
        cbar = CBarResults(benchmark, errors, counts, clean_error, clean_count)
    return Results(
        kind="c",
        model=model.info(),
        dataset=layout.dataset_info(notes, protocol),
        c=c,
        cbar=cbar,
        calibration=calibration,
        versions=library_versions(),
        time_s=round(elapsed, 3),
        created=now(),
        run=run,
    )


def c_part(
    baseline: Baseline,
    names: list[str],
    tally: Tally,
    clean_error: float | None,
    clean_count: int | None,
    notes: list[str],
) -> CResults:
    """The ImageNet-C part: errors, CE and mCE against ``baseline`` (a note when the
    mCE is partial)."""
    errors, counts = grid_rows(names, tally)
    summary = baseline.summarize_c(errors, clean_error)
    if summary.partial:
        n_ce = sum(1 for n in BENCHMARK_CORRUPTIONS if summary.ce.get(n) is not None)
        notes.append(f"partial: mCE over {n_ce} of the 15 benchmark corruptions")
    return CResults(
        errors=errors,
        clean_error=clean_error,
        ce={c: summary.ce.get(c) for c in names},
        relative_ce={c: summary.relative_ce.get(c) for c in names},
        mce=summary.mce,
        relative_mce=summary.relative_mce,
        mean_error=summary.mean_error,
        extra_mean_error=summary.extra_mean_error,
        baseline=baseline.name,
        partial=bool(summary.partial),
        missing=list(summary.missing),
        counts=counts,
        clean_count=clean_count,
    )

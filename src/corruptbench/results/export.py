"""CSV export of one results object (``eval-c --csv`` / ``eval-p --csv``)."""

from __future__ import annotations

import csv
import io
import math
import os
from typing import Any

from ..fileio import write_text
from ..grid import SEVERITIES
from ..safe_text import csv_cell
from .core import Results

__all__ = ["to_csv"]


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.6f}"
    return str(v)


class _SafeWriter:
    """A :func:`csv.writer` whose text cells cannot run as spreadsheet formulas
    (:func:`~corruptbench.safe_text.csv_cell`; numbers stay numbers). The names written here are
    registered names today; the guard keeps it so for whatever text a row may carry later."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer

    def writerow(self, row: list[Any]) -> None:
        self.writer.writerow([csv_cell(v) for v in row])


def _largest(counts: list[int | None] | None) -> int | str:
    """The largest image count of a row (``""`` when none)."""
    present = [n for n in counts or [] if n]
    return max(present) if present else ""


def _c_rows(w: Any, results: Results) -> None:
    """eval-c's table: the ImageNet-C rows, the C-bar rows (no CE), ``clean``, ``mCE`` and the
    C-bar mean (see :func:`to_csv`)."""
    c, cb = results.c, results.cbar
    w.writerow(["corruption", "e1", "e2", "e3", "e4", "e5", "mean_error", "ce", "relative_ce", "n"])
    if c is not None:
        for name, errs in c.errors.items():
            present = [e for e in errs if e is not None]
            mean = sum(present) / len(SEVERITIES) if len(present) == len(SEVERITIES) else None
            w.writerow(
                [
                    name,
                    *map(_fmt, errs),
                    _fmt(mean),
                    _fmt(c.ce.get(name)),
                    _fmt(c.relative_ce.get(name)),
                    _largest(c.counts.get(name)),
                ]
            )
    if cb is not None:
        means = cb.corruption_errors()
        for name, errs in cb.errors.items():
            row = [name, *map(_fmt, errs), _fmt(means.get(name))]
            w.writerow([*row, "", "", _largest(cb.counts.get(name))])
    part = c if c is not None else cb
    assert part is not None
    w.writerow(
        ["clean", "", "", "", "", "", _fmt(part.clean_error), "", "", part.clean_count or ""]
    )
    if c is not None:
        # a mean over fewer than the 15 benchmark corruptions is not the mCE: its row says so
        label = f"partial mCE ({c.covered} of 15)" if c.partial else "mCE"
        mce, rel = (c.partial_mce, c.partial_relative_mce) if c.partial else (c.mce, c.relative_mce)
        w.writerow([label, "", "", "", "", "", _fmt(c.mean_error), _fmt(mce), _fmt(rel), ""])
    if cb is not None:
        n = len(cb.corruptions)
        label = (
            f"partial {cb.benchmark} mean ({cb.covered} of {n})"
            if cb.partial
            else f"{cb.benchmark} mean"
        )
        w.writerow([label, "", "", "", "", "", _fmt(cb.mean_error), "", "", ""])


def to_csv(results: Results, path: str | os.PathLike[str] | None = None) -> str:
    """CSV export; returns the text and writes it to ``path`` when given.

    eval-c: one row per corruption ``corruption,e1..e5,mean_error,ce,relative_ce,n``, then rows
    ``clean`` (clean error in ``mean_error``) and ``mCE`` (mCE in ``ce``, relative mCE in
    ``relative_ce``; ``partial mCE (2 of 15)`` with the means over the corruptions evaluated when
    fewer than the 15 benchmark ones were); C-bar corruptions have rows of their own (their
    mean over the levels evaluated in ``mean_error``, no CE), and the C-bar mean (test_c_bar.py's
    over the benchmark's cells) a row ``imagenet_c_bar mean`` (``cifar10_c_bar mean``; ``partial
    ... (7 of 10)``). eval-p: ``perturbation,fp,t5d,zipf,num_sequences,flip_rate,t5d_ratio`` - the
    format :func:`corruptbench.metrics.load_p_baseline` reads. A task-score grid:
    ``corruption,severity,score`` rows (severity 0 = clean), the table ``corruptbench score``
    reads back. Text cells that a spreadsheet would run as a formula are written as text
    (a leading ``'``, :func:`corruptbench.safe_text.csv_cell`).
    """
    buf = io.StringIO()
    w = _SafeWriter(csv.writer(buf, lineterminator="\n"))
    if results.kind == "score":
        s = results.score
        assert s is not None
        w.writerow(["corruption", "severity", "score"])
        w.writerow(["clean", 0, "" if s.clean is None else repr(s.clean)])
        for name, values in s.scores.items():
            for sev, v in enumerate(values, 1):
                w.writerow([name, sev, "" if v is None else repr(v)])
    elif results.kind == "p":
        p = results.p
        assert p is not None
        w.writerow(["perturbation", "fp", "t5d", "zipf", "num_sequences", "flip_rate", "t5d_ratio"])
        fr, t5r = p.flip_rate or {}, p.t5d_ratio or {}
        for name, v in p.flip_probability.items():
            w.writerow(
                [
                    name,
                    _fmt(v),
                    _fmt(p.top5_distance.get(name)),
                    _fmt(p.zipf_distance.get(name)),
                    p.num_sequences.get(name),
                    _fmt(fr.get(name)),
                    _fmt(t5r.get(name)),
                ]
            )
    else:
        _c_rows(w, results)
    text = buf.getvalue()
    if path is not None:
        write_text(path, text)
    return text

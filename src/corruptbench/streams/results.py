"""What an online evaluation of a stream found (:class:`StreamResults`) and its views: a
terminal summary, the Markdown table TTA papers print (one row per method, one column per
domain in stream order, then the mean), a report section, the error along the stream as a
figure, and JSON.

Numbers, as mariodoebler/test-time-adaptation commit 8b2ed63 ``test_time.py`` and
``utils/eval_utils.py`` print them:

* ``mean``: the mean of the blocks' errors (``np.mean(errs)``: per domain in continual
  settings; per domain and severity in gradual ones; the one mixed block in mixed settings);
* ``mean_at_5``: the mean over blocks at severity 5 (printed when a block has severity 5);
* ``domain_mean``: the average of the per-domain errors (``eval_domain_dict``'s "Average error
  across all domains", which splits mixed blocks by domain);
* ``overall``: errors over all samples ("Error over all samples").
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from ..fileio import write_text
from ..version import __version__

__all__ = ["StreamResults", "Counts", "markdown_table", "error_along_stream_figure", "short_name"]

RESULTS_FORMAT = "corruptbench-stream-results"

#: above this many blocks (a 7.5M-image CCC run has 7,500 walk steps) the summary prints none
MAX_BLOCK_LINES = 1000


@dataclass
class Counts:
    """Errors among samples of a part of the stream (a block, a domain, a cell)."""

    name: str
    n: int = 0
    errors: int = 0
    severity: int | str | None = None  #: a CCC step's ``"s1+s2"``
    calibration: dict[str, Any] | None = None  #: CalibrationStats.summary() of the part

    @property
    def error(self) -> float:
        return self.errors / self.n if self.n else float("nan")


@dataclass
class StreamResults:
    """An evaluation's numbers (module docstring). ``batches``: ``[start, n, errors]`` of each
    batch, in stream order."""

    model: dict[str, Any]
    adapt: str
    settings: dict[str, Any]
    sequence_sha256: str
    blocks: list[Counts] = field(default_factory=list)
    domains: list[Counts] = field(default_factory=list)
    cells: list[Counts] = field(default_factory=list)
    batches: list[list[int]] = field(default_factory=list)
    ece_bins: int = 15
    version: str = __version__

    @property
    def samples(self) -> int:
        return sum(b.n for b in self.blocks)

    @property
    def mean(self) -> float:
        errs = [b.error for b in self.blocks]
        return sum(errs) / len(errs) if errs else float("nan")

    @property
    def mean_at_5(self) -> float | None:
        errs = [b.error for b in self.blocks if b.severity == 5]
        return sum(errs) / len(errs) if errs else None

    @property
    def domain_mean(self) -> float:
        errs = [d.error for d in self.domains]
        return sum(errs) / len(errs) if errs else float("nan")

    @property
    def overall(self) -> float:
        n = sum(b.n for b in self.blocks)
        return sum(b.errors for b in self.blocks) / n if n else float("nan")

    def to_dict(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["format"] = RESULTS_FORMAT
        doc["mean"], doc["mean_at_5"] = self.mean, self.mean_at_5
        doc["domain_mean"], doc["overall"] = self.domain_mean, self.overall
        return doc

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> StreamResults:
        """Read back, the derived numbers checked against the counts."""
        if doc.get("format") != RESULTS_FORMAT:
            raise ValueError("not a corruptbench stream results file")
        keys = {f for f in cls.__dataclass_fields__}
        args = {k: v for k, v in doc.items() if k in keys}
        for part in ("blocks", "domains", "cells"):
            args[part] = [Counts(**c) for c in doc.get(part, [])]
        out = cls(**args)
        for name in ("mean", "domain_mean", "overall"):
            stored, computed = doc.get(name), getattr(out, name)
            if stored is not None and computed == computed and abs(stored - computed) > 1e-12:
                raise ValueError(f"stored {name} {stored} is not the counts' {computed}")
        return out

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the JSON atomically."""
        write_text(path, json.dumps(self.to_dict(), indent=1, allow_nan=True) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> StreamResults:
        with open(path, encoding="utf-8") as fh:
            return cls.from_dict(json.load(fh))

    def summary(self) -> str:
        """The terminal summary: each block's error as the reference logs it, then the means."""
        lines = [
            f"{self.title}, {self.adapt}, model {self.model.get('id')}: {self.samples:,} samples"
        ]
        if len(self.blocks) > MAX_BLOCK_LINES:
            lines.append(f"  ({len(self.blocks):,} blocks: their errors are in the results JSON)")
        for b in self.blocks if len(self.blocks) <= MAX_BLOCK_LINES else []:
            sev = (
                ""
                if b.severity is None
                else f"{'@' if isinstance(b.severity, str) else ''}{b.severity}"
            )
            lines.append(f"  error % [{b.name}{sev}][#samples={b.n}]: {b.error:.2%}")
        tail = f"mean error: {self.mean:.2%}"
        if self.mean_at_5 is not None and any(b.severity != 5 for b in self.blocks):
            tail += f", mean error at 5: {self.mean_at_5:.2%}"
        lines.append(tail)
        if len(self.domains) > 1 and any(b.name == "mixed" for b in self.blocks):
            lines += [f"  {d.name:<20} error: {d.error:.2%}" for d in self.domains]
            lines.append(f"Average error across all domains: {self.domain_mean:.2%}")
        lines.append(f"Error over all samples: {self.overall:.2%}")
        return "\n".join(lines)

    @property
    def title(self) -> str:
        """What was evaluated, in a few words: the dataset and setting of a TTA stream, else
        the settings' ``name`` (a CCC run's)."""
        s = self.settings
        if "setting" in s:
            return (
                f"{s.get('dataset')} {s.get('setting')} (order {s.get('order_name')}, seed "
                f"{s.get('seed')}, batch {s.get('batch_size')})"
            )
        return f"{s.get('name', 'stream')} (seed {s.get('seed')})"

    def calibration_rows(self) -> list[tuple[str, float, float | None, float | None, float | None]]:
        """``(domain, error, NLL, ECE, Brier)`` per domain."""
        out = []
        for d in self.domains:
            c = d.calibration or {}
            out.append((d.name, d.error, c.get("nll"), c.get("ece"), c.get("brier")))
        return out

    def report_section(self) -> str:
        """A Markdown section: the table, the means, calibration per domain."""
        s = self.settings
        tta = "setting" in s  # else a CCC run, named by its title
        how = (
            f"order {s.get('order_name')}, severities {s.get('severities')}, seed "
            f"{s.get('seed')}, batch size {s.get('batch_size')}; "
            if tta
            else ""
        )
        lines = [
            f"## Test-time adaptation: {s.get('dataset')}, {s.get('setting')}"
            if tta
            else f"## Test-time adaptation: {self.title}",
            "",
            f"Model {self.model.get('id')}, adaptation {self.adapt}; {how}{self.samples:,} "
            f"samples (sequence SHA-256 {self.sequence_sha256[:16]}).",
            "",
            markdown_table([self]),
            "",
            f"Mean of the blocks' errors {self.mean:.2%}"
            + (f", at severity 5 {self.mean_at_5:.2%}" if self.mean_at_5 is not None else "")
            + f"; average over domains {self.domain_mean:.2%}; over all samples {self.overall:.2%}.",
            "",
            f"| domain | error % | NLL | ECE ({self.ece_bins} bins) | Brier |",
            "|---|---:|---:|---:|---:|",
        ]
        for name, err, nll, ece, brier in self.calibration_rows():
            lines.append(
                f"| {name} | {100 * err:.1f} | {_num(nll)} | {_num(ece)} | {_num(brier)} |"
            )
        return "\n".join(lines) + "\n"


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def short_name(domain: str) -> str:
    """A table column's label: the first word of the name (``gaussian_noise`` -> ``gaussian``),
    as TTA papers shorten them."""
    return domain.split("_")[0]


def markdown_table(results: list[StreamResults], *, label: str = "adapt") -> str:
    """One row per result (``label``: ``adapt`` or ``model``), a column per domain in the first
    result's order, then the mean (error %, one decimal), as TENT / CoTTA print their tables."""
    if not results:
        return ""
    names = [d.name for d in results[0].domains]
    head = "| method | " + " | ".join(short_name(n) for n in names) + " | mean |"
    rule = "|---|" + "---:|" * (len(names) + 1)
    rows = [head, rule]
    for r in results:
        err = {d.name: d.error for d in r.domains}
        who = r.adapt if label == "adapt" else str(r.model.get("id"))
        cells = [f"{100 * err[n]:.1f}" if n in err else "-" for n in names]
        rows.append(f"| {who} | " + " | ".join(cells) + f" | {100 * r.mean:.1f} |")
    return "\n".join(rows)


def error_along_stream_figure(results: list[StreamResults], *, window: int = 1) -> Any:
    """The error of each batch along the stream (moving average over ``window`` batches), one
    line per result, the blocks' boundaries marked and named: a matplotlib Figure."""
    from ..extras import require

    require("matplotlib", "the error-along-stream figure")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(10, 3.2))
    for r in results:
        b = np.asarray(r.batches, dtype=np.float64).reshape(-1, 3)
        if not len(b):
            continue
        err = b[:, 2] / np.maximum(b[:, 1], 1)
        if window > 1:
            err = np.convolve(err, np.ones(window) / window, mode="same")
        ax.plot(b[:, 0] + b[:, 1] / 2, 100 * err, lw=1, label=f"{r.adapt} ({100 * r.mean:.1f})")
    first = results[0]
    starts = np.cumsum([0] + [blk.n for blk in first.blocks])
    for x0, blk in zip(starts[:-1], first.blocks):
        ax.axvline(x0, color="0.8", lw=0.6)
        if len(first.blocks) <= 30:
            ax.text(x0, 101, short_name(blk.name), fontsize=6, rotation=45, ha="left", va="bottom")
    ax.set_xlabel("sample")
    ax.set_ylabel("error % per batch")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig

"""The one CSV format of results: long format, one number per row,
``model,file,metric,name,severity,value`` (:func:`render_csv`), for one result
(:func:`to_csv`: ``eval-c --csv`` / ``eval-p --csv``) or several (``report --format csv``).

Why this one: every part of a results file fits it (ImageNet-C, C-bar, ImageNet-P, task scores,
calibration) with every row naming its model, its file and its metric, so pandas or a
spreadsheet pivots it to any table; a wide table fits one part of one file. Text cells that a
spreadsheet would run as a formula are written as text (a leading ``'``,
:func:`corruptbench.safe_text.csv_cell`); numbers as Python writes them (``repr``), rates as
fractions. :func:`corruptbench.metrics.load_p_baseline` reads an ``eval-p --csv`` file back as
an ImageNet-P baseline.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Sequence

from ..fileio import write_text
from ..grid import SEVERITIES, parse_cell_key
from ..safe_text import csv_cell
from .parts import CALIBRATION_METRICS, CalibrationResults, CBarResults, ResultsLike
from .stream_part import StreamPart

__all__ = ["CSV_COLUMNS", "render_csv", "to_csv"]


def to_csv(results: ResultsLike, path: str | os.PathLike[str] | None = None) -> str:
    """The CSV of one result (:func:`render_csv` of it); returns the text and writes it to
    ``path`` when given."""
    text = render_csv([results])
    if path is not None:
        write_text(path, text)
    return text


#: the columns of the CSV
CSV_COLUMNS = ("model", "file", "metric", "name", "severity", "value")


def render_csv(results: Sequence[ResultsLike]) -> str:
    """Long-format CSV, one number per row: ``model,file,metric,name,severity,value``.

    ``metric`` is one of ``clean_error, mce, relative_mce, mean_error, extra_mean_error, error, ce,
    relative_ce, mfr, mt5d, flip_probability, top5_distance, zipf_distance, flip_rate, t5d_ratio``
    (and for a result over fewer than the 15 benchmark corruptions, whose ``mce`` is empty,
    ``partial_mce`` and ``partial_relative_mce``: the means over those evaluated), for a protocol
    with a leaderboard ``clean_acc`` and ``corruptions_acc`` (``name``: the protocol, e.g.
    ``robustbench``),
    for C-bar results ``cbar_mean_error`` and ``cbar_extra_mean_error`` (``name``: the benchmark,
    ``imagenet_c_bar`` or ``cifar10_c_bar``), ``cbar_error`` and ``cbar_level`` (the level's value)
    per corruption and severity 1..5, ``cbar_corruption_error`` (a corruption's mean over its
    levels) and, without an ImageNet-C part, ``clean_error``,
    or for task-score grids ``clean_score`` (P), ``mpc``, ``rpc``, ``score`` (a cell),
    ``score_mean`` and ``relative_score`` (mean / P of a corruption); ``name`` is the corruption /
    perturbation (empty for model-level numbers); ``severity`` is 1..5 for ``error`` and ``score``
    rows, empty otherwise. Calibration (results that have it): ``ece_bins``; per cell ``nll``,
    ``brier``, ``ece``, ``top1_error``, ``top5_error``, ``mean_confidence`` with ``name`` the
    corruption and ``severity`` 1..5, or ``name`` ``clean`` and ``severity`` 0 (eval-p: ``name``
    a perturbation and ``severity`` 0 for its clean frames, ``clean`` for them pooled); per
    severity the means ``<number>_severity_mean`` with ``name`` ``benchmark`` (over the 15) or
    ``all`` (over the 19) and ``corruptions_measured`` (how many the mean covers). Test-time
    adaptation streams (``eval-stream``): ``stream_mean`` (the mean of the blocks' errors, as the
    reference prints it), ``stream_mean_at_5``, ``stream_domain_mean``, ``stream_overall``,
    ``stream_samples``, ``stream_ece_bins``; ``stream_error`` per domain (``name``, in stream
    order), ``stream_cell_error`` per domain and severity, ``stream_nll`` / ``stream_brier`` /
    ``stream_ece`` per domain. Rates are
    fractions (not percentages), scores as measured; missing values are empty.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)

    def row(r: ResultsLike, metric: str, name: str, sev: object, value: float | None) -> None:
        w.writerow(
            [
                csv_cell(r.label),  # a model id like =HYPERLINK(...) stays text in a spreadsheet
                csv_cell(r.source),
                metric,
                csv_cell(name),
                "" if sev is None else sev,
                "" if value is None else repr(float(value)),
            ]
        )

    for r in results:
        c, p = r.c, r.p
        if c is not None:
            for metric in ("clean_error", "mce", "relative_mce", "mean_error", "extra_mean_error"):
                row(r, metric, "", None, getattr(c, metric))
            if c.partial:  # the means over fewer than the 15: never in the mce rows
                row(r, "partial_mce", "", None, c.partial_mce)
                row(r, "partial_relative_mce", "", None, c.partial_relative_mce)
            lb = r.leaderboard or {}
            for metric in ("clean_acc", "corruptions_acc"):
                if metric in lb:
                    row(r, metric, str(lb["protocol"]), None, lb[metric])
            for name, values in c.errors.items():
                for s, v in enumerate(values, 1):
                    row(r, "error", name, s, v)
                row(r, "ce", name, None, c.ce.get(name))
                row(r, "relative_ce", name, None, c.relative_ce.get(name))
        if p is not None:
            row(r, "mfr", "", None, p.mfr)
            row(r, "mt5d", "", None, p.mt5d)
            for metric, table in (
                ("flip_probability", p.flip_probability),
                ("top5_distance", p.top5_distance),
                ("zipf_distance", p.zipf_distance),
                ("flip_rate", p.flip_rate or {}),
                ("t5d_ratio", p.t5d_ratio or {}),
            ):
                for name, v in table.items():
                    row(r, metric, name, None, v)
        if r.cbar is not None:
            _cbar_csv(r.cbar, lambda *a, r=r: row(r, *a), clean=c is None)
        g = r.score
        if g is not None:
            row(r, "clean_score", "", None, g.clean)
            row(r, "mpc", "", None, g.mpc)
            row(r, "rpc", "", None, g.rpc)
            means = g.corruption_means()
            relative = g.summary.relative if g.summary is not None else {}
            for name, values in g.scores.items():
                for sev, v in zip(SEVERITIES, values):
                    row(r, "score", name, sev, v)
                row(r, "score_mean", name, None, means.get(name))
                row(r, "relative_score", name, None, relative.get(name))
        if r.calibration is not None:
            _calibration_csv(r.calibration, lambda *a, r=r: row(r, *a))
        if r.stream is not None:
            _stream_csv(r.stream, lambda *a, r=r: row(r, *a))
    return buf.getvalue()


def _cbar_csv(cb: CBarResults, row: Callable[..., None], clean: bool) -> None:
    """The C-bar rows of one result (see :func:`render_csv`); ``clean``: with its clean error
    (when no ImageNet-C part gave it)."""
    if clean:
        row("clean_error", "", None, cb.clean_error)
    row("cbar_mean_error", cb.benchmark, None, cb.mean_error)
    row("cbar_extra_mean_error", cb.benchmark, None, cb.extra_mean_error)
    means, levels = cb.corruption_errors(), cb.levels
    for name, values in cb.errors.items():
        for s, v in zip(SEVERITIES, values):
            row("cbar_error", name, s, v)
            row("cbar_level", name, s, levels[name][s - 1])
        row("cbar_corruption_error", name, None, means.get(name))


def _stream_csv(part: StreamPart, row: Callable[..., None]) -> None:
    """The rows of a test-time-adaptation stream (see :func:`render_csv`)."""
    for metric in ("mean", "mean_at_5", "domain_mean", "overall", "samples"):
        value = getattr(part, metric)
        row(f"stream_{metric}", "", None, None if value != value else value)  # NaN: empty
    row("stream_ece_bins", "", None, part.ece_bins)
    errors = part.domain_errors()
    for name, err in errors.items():
        row("stream_error", name, None, err)
    for cell in part.cells:
        if cell.n:
            row("stream_cell_error", cell.name, cell.severity, cell.error)
    for d in part.domains:
        for metric in ("nll", "brier", "ece"):
            if d.calibration is not None and d.calibration.get(metric) is not None:
                row(f"stream_{metric}", d.name, None, d.calibration[metric])


def _calibration_csv(cal: CalibrationResults, row: Callable[..., None]) -> None:
    """The calibration rows of one result (see :func:`render_csv`)."""
    row("ece_bins", "", None, cal.ece_bins)
    for key, m in cal.cells().items():
        cell = parse_cell_key(key)
        for metric in CALIBRATION_METRICS[1:]:
            row(metric, cell.name, cell.level, m[metric])
    if cal.has_severities:
        for group in cal.groups():
            means = cal.severity_means(group)
            for i, sev in enumerate(SEVERITIES):
                row("corruptions_measured", group, sev, means["corruptions"][i])
                for metric in CALIBRATION_METRICS[1:]:
                    row(f"{metric}_severity_mean", group, sev, means[metric][i])

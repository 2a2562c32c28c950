"""Markdown (for papers / READMEs) and CSV (long format, for pandas / spreadsheets) exports."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from ..perturbations import ALL_PERTURBATIONS
from ..results import Results
from ..results.format import (
    ALL_CORRUPTIONS,
    EXTRA_CORRUPTIONS,
    num,
    pct,
    pretty,
    score_num,
    summary_cells,
)
from ..safe_text import csv_cell

__all__ = ["render_markdown", "render_csv"]


def _md_cell(value: object) -> str:
    """Text safe inside a Markdown table cell (pipes, newlines, HTML)."""
    text = str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _table(
    header: Sequence[str], rows: Sequence[Sequence[str]], align_first_left: bool = True
) -> str:
    out = ["| " + " | ".join(header) + " |"]
    out.append(
        "|"
        + "|".join(":---" if i == 0 and align_first_left else "---:" for i in range(len(header)))
        + "|"
    )
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def _c_p_summary(rows: Sequence[Results], has_p: bool) -> list[str]:
    """The ImageNet-C / -P headline table (one row per model), then the CE baselines."""
    header = [
        "Model",
        "Clean error",
        "mCE",
        "Relative mCE",
        "Mean error (15)",
        "Mean error (4 extra)",
    ]
    if has_p:
        header += ["mFR", "mT5D"]
    table = []
    for r in rows:
        c = r.c
        row = [_md_cell(r.label) + (" (partial)" if c is not None and c.partial else "")]
        row += summary_cells(r, has_p)
        table.append(row)
    parts = [_table(header, table), ""]
    baselines = sorted({r.c.baseline for r in rows if r.c})
    if baselines:
        parts += [
            f"CE normalised by: {_md_cell(', '.join(baselines))}. mCE = mean CE over the 15 benchmark corruptions.",
            "",
        ]
    return parts


def _score_sections(rows: Sequence[Results]) -> list[str]:
    """Task-score grids: P / mPC / rPC per model, the mean / P of each corruption per model, and
    each model's score at every severity."""
    parts = ["### Task scores (P, mPC, rPC)", ""]
    table = []
    for r in rows:
        s = r.score
        assert s is not None
        flag = " (partial)" if s.partial else (" (incomplete)" if not s.complete else "")
        table.append(
            [_md_cell(r.label) + flag, _md_cell(s.metric)]
            + [score_num(s.clean), score_num(s.mpc), pct(s.rpc)]
        )
    parts += [_table(["Model", "Metric", "P (clean)", "mPC", "rPC"], table), ""]
    parts += [
        "mPC = mean score over the 15 benchmark corruptions x 5 severities; rPC = mPC / P.",
        "",
    ]
    names = [n for n in ALL_CORRUPTIONS if any(r.score and n in r.score.scores for r in rows)]
    table = []
    for n in names:
        cells = []
        for r in rows:
            s = r.score
            assert s is not None
            cells.append(pct(s.summary.relative.get(n)) if s.summary is not None else pct(None))
        table.append([pretty(n) + (" (extra)" if n in EXTRA_CORRUPTIONS else ""), *cells])
    parts += ["### Mean score / P per corruption", ""]
    parts += [_table(["Corruption", *(_md_cell(r.label) for r in rows)], table), ""]
    for r in rows:
        s = r.score
        assert s is not None
        parts += [f"### {_md_cell(s.metric)} by severity: {_md_cell(r.label)}", ""]
        means = s.corruption_means()
        table = [
            [pretty(n) + (" (extra)" if n in EXTRA_CORRUPTIONS else ""), score_num(s.clean)]
            + [score_num(v) for v in vals]
            + [score_num(means.get(n))]
            for n, vals in s.scores.items()
        ]
        parts += [_table(["Corruption", "clean", "1", "2", "3", "4", "5", "mean"], table), ""]
    return parts


def render_markdown(results: Sequence[Results], warnings: Sequence[str] = ()) -> str:
    """Markdown tables: headline comparison (sorted by mCE), CE per corruption, error by severity,
    ImageNet-P, task scores (P, mPC, rPC). Percentages with one decimal (flip probabilities with
    two), task scores as measured. ``warnings`` (e.g. results from different datasets) are quoted
    under the heading."""
    from ..results.format import sort_by_mce  # not .html: Markdown needs no matplotlib

    ordered = sort_by_mce(results)
    c_rows = [r for r in ordered if r.c is not None]
    p_rows = [r for r in ordered if r.p is not None]
    s_rows = [r for r in ordered if r.score is not None]
    parts = ["## Robustness summary", ""]
    for text in warnings:
        parts += [f"> **Warning:** {_md_cell(text)}", ""]
    if c_rows or p_rows:
        parts += _c_p_summary(
            [r for r in ordered if r.c is not None or r.p is not None], has_p=bool(p_rows)
        )

    if c_rows:
        parts += ["### Corruption error (CE / relative CE) per corruption", ""]
        names = [n for n in ALL_CORRUPTIONS if any(n in r.c.errors for r in c_rows if r.c)]
        header = (
            ["Corruption"]
            + [f"{_md_cell(r.label)} CE" for r in c_rows]
            + [f"{_md_cell(r.label)} rel. CE" for r in c_rows]
        )
        rows = []
        for n in names:
            label = pretty(n) + (" (extra)" if n in EXTRA_CORRUPTIONS else "")
            rows.append(
                [label]
                + [pct(r.c.ce.get(n)) for r in c_rows if r.c]
                + [pct(r.c.relative_ce.get(n)) for r in c_rows if r.c]
            )
        parts += [_table(header, rows), ""]
        for r in c_rows:
            c = r.c
            assert c is not None
            parts += [f"### Top-1 error by severity: {_md_cell(r.label)}", ""]
            means = c.mean_errors()
            rows = [
                [pretty(n) + (" (extra)" if n in EXTRA_CORRUPTIONS else ""), pct(c.clean_error)]
                + [pct(v) for v in vals]
                + [pct(means.get(n))]
                for n, vals in c.errors.items()
            ]
            parts += [_table(["Corruption", "clean", "1", "2", "3", "4", "5", "mean"], rows), ""]
    if p_rows:
        parts += ["### ImageNet-P", ""]
        names = [
            n for n in ALL_PERTURBATIONS if any(r.p and n in r.p.flip_probability for r in p_rows)
        ]
        header = ["Perturbation"]
        for r in p_rows:
            header += [f"{_md_cell(r.label)} FP", f"{_md_cell(r.label)} T5D"]
        rows = []
        for n in names:
            row = [pretty(n)]
            for r in p_rows:
                assert r.p is not None
                row += [pct(r.p.flip_probability.get(n), 2), num(r.p.top5_distance.get(n), 3)]
            rows.append(row)
        parts += [_table(header, rows), ""]
    if s_rows:
        parts += _score_sections(s_rows)
    return "\n".join(parts).rstrip() + "\n"


CSV_COLUMNS = ("model", "file", "metric", "name", "severity", "value")


def render_csv(results: Sequence[Results]) -> str:
    """Long-format CSV, one number per row: ``model,file,metric,name,severity,value``.

    ``metric`` is one of ``clean_error, mce, relative_mce, mean_error, extra_mean_error, error, ce,
    relative_ce, mfr, mt5d, flip_probability, top5_distance, zipf_distance, flip_rate, t5d_ratio``,
    or for task-score grids ``clean_score`` (P), ``mpc``, ``rpc``, ``score`` (a cell),
    ``score_mean`` and ``relative_score`` (mean / P of a corruption); ``name`` is the corruption /
    perturbation (empty for model-level numbers); ``severity`` is 1..5 for ``error`` and ``score``
    rows, empty otherwise. Rates are fractions (not percentages), scores as measured; missing
    values are empty.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)

    def row(r: Results, metric: str, name: str, sev: object, value: float | None) -> None:
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
        g = r.score
        if g is not None:
            row(r, "clean_score", "", None, g.clean)
            row(r, "mpc", "", None, g.mpc)
            row(r, "rpc", "", None, g.rpc)
            means = g.corruption_means()
            relative = g.summary.relative if g.summary is not None else {}
            for name, values in g.scores.items():
                for sev, v in enumerate(values, 1):
                    row(r, "score", name, sev, v)
                row(r, "score_mean", name, None, means.get(name))
                row(r, "relative_score", name, None, relative.get(name))
    return buf.getvalue()

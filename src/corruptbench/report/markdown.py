"""Markdown (for papers / READMEs) and CSV (long format, for pandas / spreadsheets) exports."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from ..perturbations import ALL_PERTURBATIONS
from ..results import Results
from ..results.format import ALL_CORRUPTIONS, EXTRA_CORRUPTIONS, num, pct, pretty, summary_cells

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


def render_markdown(results: Sequence[Results], warnings: Sequence[str] = ()) -> str:
    """Markdown tables: headline comparison (sorted by mCE), CE per corruption, error by severity,
    ImageNet-P. Percentages with one decimal (flip probabilities with two). ``warnings`` (e.g.
    results from different datasets) are quoted under the heading."""
    from ..results.format import sort_by_mce  # not .html: Markdown needs no matplotlib

    ordered = sort_by_mce(results)
    c_rows = [r for r in ordered if r.c is not None]
    p_rows = [r for r in ordered if r.p is not None]
    parts = ["## Robustness summary", ""]
    for text in warnings:
        parts += [f"> **Warning:** {_md_cell(text)}", ""]
    parts += _summary_table(ordered, has_p=bool(p_rows))
    if c_rows:
        parts += _ce_table(c_rows)
        for r in c_rows:
            parts += _severity_table(r)
    if p_rows:
        parts += _p_table(p_rows)
    return "\n".join(parts).rstrip() + "\n"


def _summary_table(ordered: Sequence[Results], *, has_p: bool) -> list[str]:
    """One row per result (clean error, mCE, relative mCE, mean errors; mFR and mT5D when any
    result has ImageNet-P numbers), then which baselines normalised the CE."""
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
    rows = []
    for r in ordered:
        c = r.c
        row = [_md_cell(r.label) + (" (partial)" if c is not None and c.partial else "")]
        row += summary_cells(r, has_p)
        rows.append(row)
    parts = [_table(header, rows), ""]
    baselines = sorted({r.c.baseline for r in ordered if r.c})
    if baselines:
        parts += [
            f"CE normalised by: {_md_cell(', '.join(baselines))}. mCE = mean CE over the 15 benchmark corruptions.",
            "",
        ]
    return parts


def _ce_table(c_rows: Sequence[Results]) -> list[str]:
    """CE and relative CE per corruption, the ImageNet-C results side by side."""
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
    return ["### Corruption error (CE / relative CE) per corruption", "", _table(header, rows), ""]


def _severity_table(r: Results) -> list[str]:
    """One result's top-1 error per corruption: clean, severities 1..5, mean."""
    c = r.c
    assert c is not None
    means = c.mean_errors()
    rows = [
        [pretty(n) + (" (extra)" if n in EXTRA_CORRUPTIONS else ""), pct(c.clean_error)]
        + [pct(v) for v in vals]
        + [pct(means.get(n))]
        for n, vals in c.errors.items()
    ]
    header = ["Corruption", "clean", "1", "2", "3", "4", "5", "mean"]
    return [f"### Top-1 error by severity: {_md_cell(r.label)}", "", _table(header, rows), ""]


def _p_table(p_rows: Sequence[Results]) -> list[str]:
    """Flip probability and top-5 distance per perturbation, the ImageNet-P results side by side."""
    names = [n for n in ALL_PERTURBATIONS if any(r.p and n in r.p.flip_probability for r in p_rows)]
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
    return ["### ImageNet-P", "", _table(header, rows), ""]


CSV_COLUMNS = ("model", "file", "metric", "name", "severity", "value")


def render_csv(results: Sequence[Results]) -> str:
    """Long-format CSV, one number per row: ``model,file,metric,name,severity,value``.

    ``metric`` is one of ``clean_error, mce, relative_mce, mean_error, extra_mean_error, error, ce,
    relative_ce, mfr, mt5d, flip_probability, top5_distance, zipf_distance, flip_rate, t5d_ratio``;
    ``name`` is the corruption / perturbation (empty for model-level numbers); ``severity`` is 1..5 for
    ``error`` rows, empty otherwise. Values are fractions (not percentages); missing values are empty.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)

    def row(r: Results, metric: str, name: str, sev: object, value: float | None) -> None:
        w.writerow(
            [
                r.label,
                r.source,
                metric,
                name,
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
    return buf.getvalue()

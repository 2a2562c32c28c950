"""The Markdown report of one or more results (for papers and READMEs): their tables, as
:func:`corruptbench.report.render_report` writes them to ``.md``. The one CSV format is
:mod:`corruptbench.results.export`'s."""

from __future__ import annotations

from collections.abc import Sequence

from ..grid import SEVERITIES, reference_order
from ..perturbations import ALL_PERTURBATIONS
from .format import (
    ALL_CORRUPTIONS,
    EXTRA_CORRUPTIONS,
    cbar_mean_cell,
    cbar_title,
    leaderboard_rows,
    num,
    pct,
    pretty,
    score_num,
    sort_by_mce,
    summary_cells,
)
from .parts import CalibrationResults, ResultsLike
from .text import calibration_cell_rows, calibration_rows

__all__ = ["render_markdown"]


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


def _score_sections(rows: Sequence[ResultsLike]) -> list[str]:
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
        parts += [_table(["Corruption", "clean", *map(str, SEVERITIES), "mean"], table), ""]
    return parts


def render_markdown(results: Sequence[ResultsLike], warnings: Sequence[str] = ()) -> str:
    """Markdown tables: headline comparison (sorted by mCE), CE per corruption, error by severity,
    ImageNet-C-bar / CIFAR-10-C-bar (test_c_bar.py's errors and means), ImageNet-P, task scores
    (P, mPC, rPC). Percentages with one decimal (flip probabilities with
    two), task scores as measured. ``warnings`` (e.g. results from different datasets) are quoted
    under the heading."""
    ordered = sort_by_mce(results)
    c_rows = [r for r in ordered if r.c is not None]
    p_rows = [r for r in ordered if r.p is not None]
    s_rows = [r for r in ordered if r.score is not None]
    parts = ["## Robustness summary", ""]
    for text in warnings:
        parts += [f"> **Warning:** {_md_cell(text)}", ""]
    parts += _notes(ordered)
    if c_rows or p_rows:
        cp_rows = [r for r in ordered if r.c is not None or r.p is not None]
        parts += _summary_table(cp_rows, has_p=bool(p_rows))
    if c_rows:
        parts += _ce_table(c_rows)
        for r in c_rows:
            parts += _severity_table(r)
    cbar_rows = [r for r in ordered if r.cbar is not None]
    if cbar_rows:
        parts += _cbar_sections(cbar_rows)
    if p_rows:
        parts += _p_table(p_rows)
    if s_rows:
        parts += _score_sections(s_rows)
    for r in ordered:
        if r.calibration is not None:
            parts += _calibration_sections(r.label, r.calibration)
    return "\n".join(parts).rstrip() + "\n"


def _notes(ordered: Sequence[ResultsLike]) -> list[str]:
    """Each result's dataset notes (a baseline of other data, a partial run, skipped inputs), as
    the terminal summary and the HTML page show them: a number is never shown without them."""
    notes = [(r.label, n) for r in ordered for n in r.dataset.notes]
    if not notes:
        return []
    return ["**Notes**", "", *(f"- {_md_cell(who)}: {_md_cell(n)}" for who, n in notes), ""]


def _summary_table(ordered: Sequence[ResultsLike], *, has_p: bool) -> list[str]:
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
            f"CE normalised by: {_md_cell(', '.join(baselines))}. "
            "mCE = mean CE over the 15 benchmark corruptions.",
            "",
        ]
    protocols = sorted({str(r.dataset.protocol) for r in ordered if r.c and r.dataset.protocol})
    if protocols:
        parts += [f"Protocol: {_md_cell(', '.join(protocols))}.", ""]
    return parts + _leaderboard_table(ordered)


def _leaderboard_table(rows: Sequence[ResultsLike]) -> list[str]:
    """The figures of the protocol's leaderboard (RobustBench's accuracies), one row per model
    whose protocol has them."""
    boards = [(r, leaderboard_rows(r)) for r in rows if r.leaderboard is not None]
    if not boards:
        return []
    header = ["Model", "Protocol", *(label for label, _ in boards[0][1])]
    table = [
        [_md_cell(r.label), _md_cell(r.dataset.protocol), *(v for _, v in cells)]
        for r, cells in boards
    ]
    return [_table(header, table), ""]


def _ce_table(c_rows: Sequence[ResultsLike]) -> list[str]:
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


def _severity_table(r: ResultsLike) -> list[str]:
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


def _cbar_sections(rows: Sequence[ResultsLike]) -> list[str]:
    """C-bar results: one row per model (benchmark, clean error, mean error, each corruption's
    mean over its levels), then each model's error per corruption and level."""
    names = list(reference_order([n for r in rows if r.cbar for n in r.cbar.errors]))
    table = []
    for r in rows:
        cb = r.cbar
        assert cb is not None
        means = cb.corruption_errors()
        table.append(
            [_md_cell(r.label), cbar_title(cb), pct(cb.clean_error), cbar_mean_cell(cb)]
            + [pct(means.get(n)) for n in names]
        )
    header = ["Model", "Benchmark", "Clean error", "Mean error", *(pretty(n) for n in names)]
    parts = ["### ImageNet-C-bar / CIFAR-10-C-bar (top-1 error)", "", _table(header, table), ""]
    parts += [
        "Mean error = test_c_bar.py's mean over the benchmark's ten corruptions x five levels; "
        "per corruption, the mean over its levels. No baseline, no normalisation.",
        "",
    ]
    for r in rows:
        cb = r.cbar
        assert cb is not None
        means, levels, inside = cb.corruption_errors(), cb.levels, set(cb.corruptions)
        body = [
            [pretty(n) + ("" if n in inside else " (not in the mean)")]
            + [" ".join(f"{v:g}" for v in levels[n])]
            + [pct(v) for v in values]
            + [pct(means.get(n))]
            for n, values in cb.errors.items()
        ]
        body.append([f"**mean of {cbar_title(cb)}**", "", *[""] * 5, cbar_mean_cell(cb)])
        header = ["Corruption", "levels", "1", "2", "3", "4", "5", "mean"]
        parts += [f"### {cbar_title(cb)} by level: {_md_cell(r.label)}", ""]
        parts += [_table(header, body), ""]
    return parts


def _p_table(p_rows: Sequence[ResultsLike]) -> list[str]:
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


def _calibration_sections(label: str, cal: CalibrationResults) -> list[str]:
    """A model's calibration: by severity (clean, then each severity's mean over the corruptions
    measured), then the ECE and NLL of every cell."""
    parts = [f"### Calibration: {_md_cell(label)}", ""]
    table = [
        [
            name,
            covered,
            num(m["nll"], 3),
            num(m["brier"], 3),
            pct(m["ece"]),
            pct(m["top1_error"]),
            pct(m["top5_error"]),
            pct(m["mean_confidence"]),
        ]
        for name, covered, m in calibration_rows(cal)
    ]
    header = ["", "corruptions", "NLL", "Brier", f"ECE ({cal.ece_bins} bins)", "top-1 error"]
    parts += [_table([*header, "top-5 error", "mean confidence"], table), ""]
    if cal.has_severities:
        table = []
        for n, cells in calibration_cell_rows(cal):
            table.append(
                [pretty(n) + (" (extra)" if n in EXTRA_CORRUPTIONS else "")]
                + [pct(c.get("ece")) for c in cells]
                + [num(c.get("nll"), 3) for c in cells]
            )
        header = [
            "Corruption",
            *(f"ECE {s}" for s in SEVERITIES),
            *(f"NLL {s}" for s in SEVERITIES),
        ]
        parts += [_table(header, table), ""]
    return parts

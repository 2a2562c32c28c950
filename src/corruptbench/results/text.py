"""The terminal summary of one result (rich tables): what eval-c / eval-p / demo print at the end
(:func:`~corruptbench.report.print_summary`) and what ``Results.summary()`` returns as text."""

from __future__ import annotations

import io
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..grid import SEVERITIES, parse_cell_key, reference_order
from ..safe_text import printable
from .format import (
    BENCHMARK_CORRUPTIONS,
    DASH,
    EXTRA_CORRUPTIONS,
    cbar_partial_tag,
    cbar_title,
    layout_label,
    leaderboard_rows,
    missing_text,
    num,
    pct,
    pretty,
    score_num,
)
from .parts import (
    CALIBRATION_GROUPS,
    CalibrationResults,
    CBarResults,
    CResults,
    ResultsLike,
    ScoreResults,
)

__all__ = [
    "write_summary",
    "summary_text",
    "headline_rows",
    "score_headline",
    "cbar_headline",
    "calibration_headline",
    "calibration_rows",
    "calibration_cell_rows",
]


def headline_rows(res: ResultsLike) -> list[tuple[str, str]]:
    """(label, value) pairs of the headline numbers present in ``res`` (display strings)."""
    rows: list[tuple[str, str]] = []
    c, p = res.c, res.p
    if c is not None:
        rows += _c_headline(c)
        rows += leaderboard_rows(res)
    if res.cbar is not None:
        rows += cbar_headline(res.cbar, with_clean=c is None)
    if p is not None:
        if p.mfr is not None:
            rows.append(("mFR", pct(p.mfr)))
        if p.mt5d is not None:
            rows.append(("mT5D", pct(p.mt5d)))
        fps = list(p.flip_probability.values())
        if fps:
            rows.append(("Mean flip probability (unnormalised)", pct(sum(fps) / len(fps), 2)))
        if p.top5_distance:
            t5 = list(p.top5_distance.values())
            rows.append(("Mean top-5 distance (unnormalised)", num(sum(t5) / len(t5), 3)))
    if res.score is not None:
        rows += score_headline(res.score)
    if res.calibration is not None:
        rows += calibration_headline(res.calibration)
    return rows


def _partial(count: int, group: str) -> str:
    """``" [partial: 3/15]"`` when the mean covers fewer than ImageNet-C's group; C-bar's means
    are over the C-bar corruptions measured (no fixed set of 30 is a benchmark)."""
    size = len(CALIBRATION_GROUPS[group])
    return "" if count == size or group == "cbar" else f" [partial: {count}/{size}]"


def _covered(count: int, group: str) -> str:
    """How many corruptions a severity mean covers: ``"3 of 15"``; C-bar's: ``"10 C-bar"``."""
    return f"{count} C-bar" if group == "cbar" else f"{count} of {len(CALIBRATION_GROUPS[group])}"


#: the severity columns of the terminal tables
_SEVERITY_COLUMNS = tuple(f"sev{s}" for s in SEVERITIES)

#: what the severity means of each group are over, for titles
_GROUP_TITLES = {
    "benchmark": "15 benchmark corruptions",
    "all": "19 corruptions",
    "cbar": "C-bar corruptions",
}


def calibration_headline(cal: CalibrationResults) -> list[tuple[str, str]]:
    """(label, value) pairs of the calibration: ECE and NLL of the clean images, and at the worst
    severity measured (the mean over the benchmark corruptions there, labelled partial when
    fewer than 15 were measured)."""
    rows: list[tuple[str, str]] = []
    clean = cal.clean
    if clean is not None:
        rows.append(
            (
                f"Clean ECE ({cal.ece_bins} bins) / NLL",
                f"{pct(clean['ece'])} / {num(clean['nll'], 3)}",
            )
        )
    worst = cal.worst_severity
    if worst is not None:
        group = cal.main_group()
        means = cal.severity_means(group)
        i = SEVERITIES.index(worst)
        rows.append(
            (
                f"ECE / NLL at severity {worst}{_partial(means['corruptions'][i], group)}",
                f"{pct(means['ece'][i])} / {num(means['nll'][i], 3)}",
            )
        )
    return rows


def calibration_rows(cal: CalibrationResults) -> list[tuple[str, str, dict]]:
    """The calibration by severity: ``("clean", "—", numbers)`` then ``("severity s", "3 of 15",
    means)`` for each severity measured (the means over the 15 benchmark corruptions measured,
    or over the 19 for results without any: how many of them); the numbers as in
    :data:`~corruptbench.results.parts.CALIBRATION_METRICS`."""
    out: list[tuple[str, str, dict]] = []
    if cal.clean is not None:
        out.append(("clean", DASH, cal.clean))
    if cal.has_severities:
        group = cal.main_group()
        means = cal.severity_means(group)
        for i, sev in enumerate(SEVERITIES):
            count = means["corruptions"][i]
            if count:
                covered = _covered(count, group)
                out.append((f"severity {sev}", covered, {k: v[i] for k, v in means.items()}))
    return out


def _table(
    title: str,
    label: str,
    numbers: Sequence[str],
    *,
    caption: str | None = None,
    bold: str | None = None,
    text: str | None = None,
) -> Table:
    """The scaffold of every table here: a ``label`` column, the ``numbers`` columns (right
    aligned; ``bold``: the one in bold) and an optional ``text`` column (left). The label and
    text columns wrap when the console is narrow; a number column never wraps nor is cut, so
    every number stays whole at 80 columns and in a log file (rich's width there: 80)."""
    t = Table(
        title=escape(title),
        title_justify="left",
        caption=caption,
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    t.add_column(label, overflow="fold")
    for col in numbers:
        t.add_column(col, justify="right", no_wrap=True, style="bold" if col == bold else None)
    if text is not None:
        t.add_column(text, justify="left", overflow="fold")
    return t


def _footnote(text: str, rows: Iterable[str], marked: Collection[str]) -> str | None:
    """``text``, the footnote of the rows marked ``*``, when any of ``rows`` is ``marked``."""
    return text if any(name in marked for name in rows) else None


def calibration_cell_rows(cal: CalibrationResults) -> list[tuple[str, list[dict[str, Any]]]]:
    """The per-cell calibration by corruption: ``(name, [numbers at severity 1..5])`` for every
    corruption measured at a severity, ImageNet-C's then C-bar's, each in reference order
    (``{}`` at a severity not measured); empty for eval-p results (clean frames only)."""
    measured = [parse_cell_key(k) for k in cal.stats]
    names = reference_order([c.name for c in measured if c.level in SEVERITIES])
    return [(n, [cal.cell(n, s) or {} for s in SEVERITIES]) for n in names]


def _calibration_table(cal: CalibrationResults) -> Table:
    """Clean and per severity, narrow enough for an 80-column terminal."""
    title = (
        f"Calibration (ECE: {cal.ece_bins} bins; top-1 / top-5: errors; conf.: mean "
        f"confidence); severities: mean over the {_GROUP_TITLES[cal.main_group()]} measured "
        "(how many: n)"
    )
    t = _table(title, "", ("n", "NLL", "Brier", "ECE", "top-1", "top-5", "conf."))
    for label, covered, m in calibration_rows(cal):
        t.add_row(
            label.replace("severity ", "sev "),
            covered.replace(" of ", "/").replace(" C-bar", ""),
            num(m["nll"], 3),
            num(m["brier"], 3),
            pct(m["ece"]),
            pct(m["top1_error"]),
            pct(m["top5_error"]),
            pct(m["mean_confidence"]),
        )
    return t


def _c_headline(c: CResults) -> list[tuple[str, str]]:
    """Clean error, mCE, relative mCE and the mean errors; a partial mean is named so (over
    fewer than the 15 benchmark corruptions it is not the mCE)."""
    base = "" if c.baseline == "alexnet" else f" (baseline: {c.baseline})"
    rows = [("Clean error", pct(c.clean_error))]
    if not c.partial:
        return rows + [
            (f"mCE{base}", pct(c.mce)),
            ("Relative mCE", pct(c.relative_mce)),
            ("Mean error, 15 corruptions", pct(c.mean_error)),
            ("Mean error, 4 extra corruptions", pct(c.extra_mean_error)),
        ]
    of = f"{c.covered} of {len(BENCHMARK_CORRUPTIONS)} corruptions"
    return rows + [
        (f"Partial mCE{base} [{of}; not the mCE]", pct(c.partial_mce)),
        (f"Partial relative mCE [{of}]", pct(c.partial_relative_mce)),
        (f"Mean error, {of}", pct(c.mean_error)),
        ("Mean error, 4 extra corruptions", pct(c.extra_mean_error)),
    ]


def cbar_headline(cbar: CBarResults, with_clean: bool = True) -> list[tuple[str, str]]:
    """(label, value) pairs of a C-bar part: the clean error (``with_clean``: when no ImageNet-C
    part shows it), test_c_bar.py's mean error over the benchmark's cells (named partial over
    fewer than its ten corruptions at five levels) and the mean over other C-bar corruptions."""
    title = cbar_title(cbar)
    rows = [("Clean error", pct(cbar.clean_error))] if with_clean else []
    tag = cbar_partial_tag(cbar)
    label = f"{title} mean error" + (f" [{tag} corruptions; not the benchmark's]" if tag else "")
    rows.append((label, pct(cbar.mean_error)))
    if cbar.extra_mean_error is not None:
        rows.append((f"Mean error, C-bar corruptions outside {title}", pct(cbar.extra_mean_error)))
    return rows


def score_headline(s: ScoreResults) -> list[tuple[str, str]]:
    """(label, value) pairs of a task-score grid: the metric, P, mPC, rPC (cells done while
    incomplete)."""
    mpc = "mPC" + (f" [partial: {15 - len(s.missing)}/15]" if s.partial else "")
    rows = [
        ("Metric", s.metric),
        ("P (clean)", score_num(s.clean)),
        (mpc, score_num(s.mpc)),
        ("rPC = mPC / P", pct(s.rpc)),
    ]
    if not s.complete:
        total = 1 + 5 * len(s.scores)
        rows.append(("Cells scored", f"{total - len(s.missing_cells())} of {total}"))
    return rows


def _p(value: float | None) -> str:
    return pct(value).rstrip("%")


def _c_table(res: ResultsLike) -> Table:
    c = res.c
    assert c is not None
    t = _table(
        f"ImageNet-C, all numbers in % (CE baseline: {c.baseline})",
        "Corruption",
        (*_SEVERITY_COLUMNS, "mean", "CE", "rel.CE"),
        caption=_footnote("* extra corruption, not part of mCE", c.errors, EXTRA_CORRUPTIONS),
        bold="CE",
    )
    means = c.mean_errors()
    sectioned = False
    for name, values in c.errors.items():
        if name in EXTRA_CORRUPTIONS and not sectioned:
            sectioned = True
            if t.row_count:
                t.add_section()
        label = pretty(name) + (" *" if name in EXTRA_CORRUPTIONS else "")
        t.add_row(
            label,
            *[_p(v) for v in values],
            _p(means.get(name)),
            _p(c.ce.get(name)),
            _p(c.relative_ce.get(name)),
        )
    return t


def _cbar_table(cbar: CBarResults) -> Table:
    """Top-1 error per corruption and level, its mean, the level values; then the mean."""
    title = cbar_title(cbar)
    t = _table(
        f"{title}, top-1 error in % (test_c_bar.py's metric: no normalisation)",
        "Corruption",
        (*_SEVERITY_COLUMNS, "mean"),
        caption=_footnote(
            f"* not one of {title}'s ten corruptions, not in its mean",
            cbar.errors,
            set(cbar.errors) - set(cbar.corruptions),
        ),
        bold="mean",
        text="levels",
    )
    means, levels = cbar.corruption_errors(), cbar.levels
    inside = set(cbar.corruptions)
    for name, values in cbar.errors.items():
        t.add_row(
            pretty(name) + ("" if name in inside else " *"),
            *[_p(v) for v in values],
            _p(means.get(name)),
            " ".join(f"{v:g}" for v in levels[name]),
        )
    t.add_section()
    tag = cbar_partial_tag(cbar)
    t.add_row(f"mean ({tag})" if tag else "mean", *[""] * 5, _p(cbar.mean_error), "", style="bold")
    return t


def _p_table(res: ResultsLike) -> Table:
    p = res.p
    assert p is not None
    t = _table(
        f"ImageNet-P (difficulty {p.difficulty})",
        "Perturbation",
        ("Flip prob.", "Top-5 dist.", "FR", "sequences"),
    )
    for name, fp in p.flip_probability.items():
        fr = (p.flip_rate or {}).get(name)
        t.add_row(
            pretty(name),
            pct(fp, 2),
            num(p.top5_distance.get(name), 3),
            pct(fr) if fr is not None else DASH,
            str(p.num_sequences.get(name, DASH)),
        )
    return t


def _score_table(res: ResultsLike) -> Table:
    s = res.score
    assert s is not None
    t = _table(
        f"{s.metric} per corruption and severity (rel. = mean / P)",
        "Corruption",
        (*_SEVERITY_COLUMNS, "mean", "rel."),
        caption=_footnote("* extra corruption, not part of mPC", s.scores, EXTRA_CORRUPTIONS),
        bold="mean",
    )
    means = s.corruption_means()
    relative = s.summary.relative if s.summary is not None else {}
    sectioned = False
    for name, values in s.scores.items():
        if name in EXTRA_CORRUPTIONS and not sectioned:
            sectioned = True
            _mean_row(t, s)
        t.add_row(
            pretty(name) + (" *" if name in EXTRA_CORRUPTIONS else ""),
            *[score_num(v) for v in values],
            score_num(means.get(name)),
            pct(relative.get(name)),
        )
    if not sectioned:
        _mean_row(t, s)
    return t


def _mean_row(t: Table, s: ScoreResults) -> None:
    """The mPC row: per-severity means over the mPC corruptions, mPC and rPC."""
    if s.summary is None:
        return
    t.add_section()
    t.add_row(
        f"mean of {len(s.summary.mpc_corruptions)}",
        *[score_num(v) for v in s.summary.severity_means],
        score_num(s.mpc),
        pct(s.rpc),
        style="bold",
    )
    t.add_section()


def write_summary(res: ResultsLike, console: Console) -> None:
    """Print the headline numbers and per-corruption / per-perturbation tables of one result.

    Args:
        res: One result.
        console: The ``rich`` console to print on.
    """
    ds = res.dataset
    head = Table(
        title=escape(printable(res.model_id)),
        title_justify="left",
        show_header=False,
        box=box.SIMPLE,
        pad_edge=False,
    )
    head.add_column("metric")
    head.add_column("value", justify="right", style="bold")
    for label, value in headline_rows(res):
        # escaped: '[partial: 2/15]' or a model id in brackets is text, not rich markup
        head.add_row(escape(label), value)
    console.print()
    console.print(head)
    bits = [str(v) for v in (layout_label(res), ds.profile) if v]
    if ds.protocol is not None:
        bits.append(f"protocol {ds.protocol}")
    if ds.num_images is not None:
        bits.append(f"{ds.num_images} images")
    if ds.path:
        bits.append(str(ds.path))
    if bits:
        console.print(printable("data: " + ", ".join(bits)), markup=False, highlight=False)
    if res.c is not None:
        console.print(_c_table(res))
    if res.cbar is not None:
        console.print(_cbar_table(res.cbar))
    if res.p is not None:
        console.print(_p_table(res))
    if res.score is not None:
        console.print(_score_table(res))
    if res.calibration is not None:
        console.print(_calibration_table(res.calibration))
    notes: list[str] = []
    if res.c is not None and res.c.partial and res.c.missing:
        notes.append("mCE is partial; " + missing_text(res.c))
    if res.cbar is not None and res.cbar.partial:
        notes.append(f"the {cbar_title(res.cbar)} mean is partial; " + missing_text(res.cbar))
    if res.p is not None:
        notes.extend(res.p.notes)
    if res.score is not None and res.score.partial:
        notes.append("mPC is partial; missing: " + ", ".join(res.score.missing))
    notes.extend(ds.notes)
    for note in notes:
        console.print(printable(f"note: {note}"), markup=False, highlight=False, style="dim")


def summary_text(results: ResultsLike, *, width: int = 100) -> str:
    """What :func:`write_summary` prints, as plain text (no colours, no terminal codes).

    Args:
        results: One result.
        width: Line width of the tables.

    Returns:
        The text, ending with a newline.
    """
    console = Console(
        file=io.StringIO(),
        width=width,
        color_system=None,
        force_terminal=False,
        force_jupyter=False,
    )
    write_summary(results, console)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    return str(out).lstrip("\n")

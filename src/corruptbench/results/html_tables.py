"""The tables of the HTML page (:mod:`corruptbench.results.page`), one function per table, each
built on one scaffold (:func:`table`: a scrolling box, the header rows, the body rows).

Every string that comes from a results file is passed through :func:`~.card.e`
(:func:`html.escape`) before it reaches the page.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..grid import SEVERITIES, parse_cell_key, reference_order
from ..perturbations import ALL_PERTURBATIONS
from .card import e
from .format import (
    ALL_CORRUPTIONS,
    BENCHMARK_CORRUPTIONS,
    DASH,
    EXTRA_CORRUPTIONS,
    cbar_mean_cell,
    cbar_title,
    layout_label,
    mce_cell,
    missing_text,
    num,
    pct,
    pretty,
    score_num,
    sort_by_mce,
    summary_cells,
)
from .parts import ResultsLike
from .text import calibration_cell_rows, calibration_rows

__all__ = [
    "table",
    "comparison_table",
    "ce_table",
    "severity_table",
    "p_table",
    "score_comparison_table",
    "score_severity_table",
    "cbar_comparison_table",
    "cbar_table",
    "calibration_severity_table",
    "calibration_cells_table",
    "demo_photos_table",
    "provenance_list",
]

#: the header cell of a row label that reads left (a model)
_LEFT = '<th style="text-align:left">'
#: after the name of an extra corruption (not in mCE / mPC)
_EXTRA = ' <span class="muted small">(extra)</span>'
#: the severity header cells
_SEVERITY_HEADS = "".join(f"<th>sev {s}</th>" for s in SEVERITIES)


def table(head: str, rows: Iterable[str], cls: str = "") -> str:
    """The one scaffold of the page's tables: ``head`` (the header rows) and ``rows`` (the body
    rows), each already HTML, in a box that scrolls sideways; ``cls``: the table's class."""
    attr = f' class="{cls}"' if cls else ""
    return f'<div class="scroll"><table{attr}>{head}{"".join(rows)}</table></div>'


def _heat(value: float | None) -> str:
    """Inline background for an error cell: white (0 %) -> light red (100 %)."""
    if value is None:
        return ""
    v = max(0.0, min(1.0, value))
    return f' style="background: hsl({int(120 - 120 * v)}, 70%, {int(96 - 14 * v)}%)"'


def _corruption(name: str) -> str:
    """A corruption's name for a row label, ``(extra)`` after the 4 that never enter mCE."""
    return e(pretty(name)) + (_EXTRA if name in EXTRA_CORRUPTIONS else "")


def _sep(name: str, first: str | None) -> str:
    """The class of the row that starts a group (a line above it), for ``name == first``."""
    return ' class="sep"' if name == first else ""


def _counts(counts: Sequence[int | None] | None) -> str:
    """The distinct image counts of a row's cells, escaped (``—`` when none)."""
    present = sorted({x for x in counts or [] if x is not None})
    return e(", ".join(map(str, present)) or DASH)


def comparison_table(results: Sequence[ResultsLike]) -> str:
    """One row per result, best mCE first: clean error, mCE, relative mCE, mean errors (and
    mFR / mT5D when any result has ImageNet-P numbers)."""
    rows = sort_by_mce(results)
    has_p = any(r.p is not None for r in rows)
    head = (
        f"<tr><th>#</th>{_LEFT}Model</th><th>Clean error</th><th>mCE</th><th>Relative mCE</th>"
        "<th>Mean error</th><th>Extra mean error</th>"
        + ("<th>mFR</th><th>mT5D</th>" if has_p else "")
        + "</tr>"
    )
    body = []
    for i, r in enumerate(rows, 1):
        partial = r.c is not None and r.c.partial
        cells = [str(i), e(r.label) + ('<span class="badge">partial</span>' if partial else "")]
        cells += summary_cells(r, has_p)
        tds = (
            f'<td class="name">{x}</td>' if j == 1 else f"<td>{x}</td>" for j, x in enumerate(cells)
        )
        body.append("<tr>" + "".join(tds) + "</tr>")
    return table(head, body)


def ce_table(results: Sequence[ResultsLike]) -> str:
    """CE and relative CE per corruption, the ImageNet-C results side by side, with the mean of
    the 15 (mCE / relative mCE) after the benchmark corruptions."""
    cs = [r.c for r in results if r.c is not None]
    labels = [r.label for r in results if r.c is not None]
    names = [n for n in ALL_CORRUPTIONS if any(n in c.errors for c in cs)]
    head = (
        "<tr><th rowspan=2>Corruption</th>"
        + "".join(f'<th colspan=2 class="name">{e(label)}</th>' for label in labels)
        + "</tr><tr>"
        + "<th>CE</th><th>rel. CE</th>" * len(cs)
        + "</tr>"
    )
    first_extra = next((n for n in names if n in EXTRA_CORRUPTIONS), None)
    body = [
        f"<tr{_sep(name, first_extra)}><td>{_corruption(name)}</td>"
        + "".join(
            f"<td>{pct(c.ce.get(name))}</td><td>{pct(c.relative_ce.get(name))}</td>" for c in cs
        )
        + "</tr>"
        for name in names
    ]
    means = "".join(f"<td>{mce_cell(c)}</td><td>{mce_cell(c, relative=True)}</td>" for c in cs)
    body.insert(
        sum(1 for n in names if n in BENCHMARK_CORRUPTIONS),
        f'<tr class="mean"><td>Mean of the 15 (mCE / rel. mCE)</td>{means}</tr>',
    )
    return table(head, body)


def severity_table(res: ResultsLike) -> str:
    """One result's top-1 error per corruption: clean, each severity, the mean, the image
    counts."""
    c = res.c
    assert c is not None
    head = (
        f"<tr><th>Corruption</th><th>clean</th>{_SEVERITY_HEADS}"
        "<th>mean</th><th>images / severity</th></tr>"
    )
    means = c.mean_errors()
    first_extra = next((n for n in c.errors if n in EXTRA_CORRUPTIONS), None)
    body = [
        f"<tr{_sep(name, first_extra)}><td>{_corruption(name)}</td>"
        f"<td{_heat(c.clean_error)}>{pct(c.clean_error)}</td>"
        + "".join(f"<td{_heat(v)}>{pct(v)}</td>" for v in values)
        + f"<td><b>{pct(means.get(name))}</b></td><td>{_counts(c.counts.get(name))}</td></tr>"
        for name, values in c.errors.items()
    ]
    return f"<h3>{e(res.label)}</h3>" + table(head, body)


def p_table(results: Sequence[ResultsLike]) -> str:
    """Flip probability, top-5 distance and flip rate per perturbation, the ImageNet-P results
    side by side."""
    ps = [r.p for r in results if r.p is not None]
    labels = [r.label for r in results if r.p is not None]
    names = [n for n in ALL_PERTURBATIONS if any(n in p.flip_probability for p in ps)]
    head = (
        "<tr><th rowspan=2>Perturbation</th>"
        + "".join(f'<th colspan=3 class="name">{e(label)}</th>' for label in labels)
        + "</tr><tr>"
        + "<th>flip prob.</th><th>top-5 dist.</th><th>FR</th>" * len(ps)
        + "</tr>"
    )
    body = [
        f"<tr><td>{e(pretty(name))}</td>"
        + "".join(
            f"<td>{pct(p.flip_probability.get(name), 2)}</td>"
            f"<td>{num(p.top5_distance.get(name), 3)}</td>"
            f"<td>{pct((p.flip_rate or {}).get(name))}</td>"
            for p in ps
        )
        + "</tr>"
        for name in names
    ]
    return table(head, body)


def score_comparison_table(results: Sequence[ResultsLike]) -> str:
    """One row per task-score grid (best mPC first): metric, P, mPC, rPC."""
    rows = [r for r in sort_by_mce(results) if r.score is not None]
    head = (
        f"<tr><th>#</th>{_LEFT}Model</th><th>Metric</th><th>P (clean)</th>"
        "<th>mPC</th><th>rPC</th></tr>"
    )
    body = []
    for i, r in enumerate(rows, 1):
        s = r.score
        assert s is not None
        badge = (
            f'<span class="badge">partial: {15 - len(s.missing)}/15</span>'
            if s.partial
            else ('<span class="badge">incomplete</span>' if not s.complete else "")
        )
        body.append(
            f'<tr><td>{i}</td><td class="name">{e(r.label)}{badge}</td><td>{e(s.metric)}</td>'
            f"<td>{score_num(s.clean)}</td><td>{score_num(s.mpc)}</td><td>{pct(s.rpc)}</td></tr>"
        )
    return table(head, body)


def score_severity_table(res: ResultsLike) -> str:
    """A task-score grid: the score at each severity, its mean and the mean / P, with the mean of
    the mPC corruptions after them."""
    s = res.score
    assert s is not None
    head = (
        f"<tr><th>Corruption</th><th>clean</th>{_SEVERITY_HEADS}<th>mean</th><th>mean / P</th></tr>"
    )
    means = s.corruption_means()
    relative = s.summary.relative if s.summary is not None else {}
    first_extra = next((n for n in s.scores if n in EXTRA_CORRUPTIONS), None)
    body = [
        f"<tr{_sep(name, first_extra)}><td>{_corruption(name)}</td><td>{score_num(s.clean)}</td>"
        + "".join(f"<td>{score_num(v)}</td>" for v in values)
        + f"<td><b>{score_num(means.get(name))}</b></td><td>{pct(relative.get(name))}</td></tr>"
        for name, values in s.scores.items()
    ]
    if s.summary is not None:
        sev = "".join(f"<td>{score_num(v)}</td>" for v in s.summary.severity_means)
        body.insert(
            sum(1 for n in s.scores if n in BENCHMARK_CORRUPTIONS),
            f'<tr class="mean"><td>Mean of the {len(s.summary.mpc_corruptions)} (mPC / rPC)</td>'
            f"<td>{score_num(s.clean)}</td>{sev}"
            f"<td>{score_num(s.mpc)}</td><td>{pct(s.rpc)}</td></tr>",
        )
    return f"<h3>{e(res.label)}: {e(s.metric)}</h3>" + table(head, body)


def cbar_comparison_table(rows: Sequence[ResultsLike]) -> str:
    """One row per C-bar result: its benchmark, clean error, mean error (test_c_bar.py's
    ``overall-avg``) and each corruption's mean over its levels (``<name>-avg``)."""
    names = list(reference_order([n for r in rows if r.cbar for n in r.cbar.errors]))
    head = (
        f"<tr>{_LEFT}Model</th><th>benchmark</th><th>clean</th><th>mean</th>"
        + "".join(f'<th class="name">{e(pretty(n))}</th>' for n in names)
        + "</tr>"
    )
    body = []
    for r in rows:
        cb = r.cbar
        assert cb is not None
        means = cb.corruption_errors()
        body.append(
            f'<tr><td class="name">{e(r.label)}</td><td>{e(cbar_title(cb))}</td>'
            f"<td>{pct(cb.clean_error)}</td><td><b>{e(cbar_mean_cell(cb))}</b></td>"
            + "".join(f"<td{_heat(means.get(n))}>{pct(means.get(n))}</td>" for n in names)
            + "</tr>"
        )
    return table(head, body)


def cbar_table(res: ResultsLike) -> str:
    """One C-bar result: the top-1 error of each corruption at each level (the level's value
    under it), the corruption's mean, then the mean over the benchmark's cells."""
    cb = res.cbar
    assert cb is not None
    head = (
        f"<tr><th>Corruption</th><th>levels</th>{_SEVERITY_HEADS}"
        "<th>mean</th><th>images / level</th></tr>"
    )
    means, levels, inside = cb.corruption_errors(), cb.levels, set(cb.corruptions)
    first_out = next((n for n in cb.errors if n not in inside), None)
    outside = ' <span class="muted small">(not in the mean)</span>'
    body = [
        f"<tr{_sep(name, first_out)}><td>{e(pretty(name))}{'' if name in inside else outside}</td>"
        f"<td>{e(', '.join(f'{v:g}' for v in levels[name]))}</td>"
        + "".join(f"<td{_heat(v)}>{pct(v)}</td>" for v in values)
        + f"<td><b>{pct(means.get(name))}</b></td><td>{_counts(cb.counts.get(name))}</td></tr>"
        for name, values in cb.errors.items()
    ]
    body.insert(
        sum(1 for n in cb.errors if n in inside),
        f'<tr class="mean"><td>Mean of {e(cbar_title(cb))}</td><td></td>'
        + "<td></td>" * len(SEVERITIES)
        + f"<td>{e(cbar_mean_cell(cb))}</td><td></td></tr>",
    )
    return f"<h3>{e(res.label)}: {e(cbar_title(cb))}</h3>" + table(head, body)


def calibration_severity_table(res: ResultsLike) -> str:
    """Clean, then each severity's mean over the corruptions measured: NLL, Brier, ECE, top-1 /
    top-5 error, mean confidence."""
    cal = res.calibration
    assert cal is not None
    head = (
        "<tr><th></th><th>corruptions</th><th>NLL</th><th>Brier</th>"
        f"<th>ECE ({cal.ece_bins} bins)</th><th>top-1 error</th><th>top-5 error</th>"
        "<th>mean confidence</th></tr>"
    )
    body = [
        f"<tr><td>{e(label)}</td><td>{covered}</td>"
        f"<td>{num(m['nll'], 3)}</td><td>{num(m['brier'], 3)}</td><td>{pct(m['ece'])}</td>"
        f"<td>{pct(m['top1_error'])}</td><td>{pct(m['top5_error'])}</td>"
        f"<td>{pct(m['mean_confidence'])}</td></tr>"
        for label, covered, m in calibration_rows(cal)
    ]
    return table(head, body)


def calibration_cells_table(res: ResultsLike) -> str:
    """ECE and NLL of every cell: one row per corruption, severities 1..5 (eval-p: one row per
    perturbation's clean frames)."""
    cal = res.calibration
    assert cal is not None
    if not cal.has_severities:
        head = "<tr><th>Clean frames of</th><th>sequences</th><th>ECE</th><th>NLL</th></tr>"
        return table(
            head,
            (
                f"<tr><td>{e(pretty(parse_cell_key(k).name))}</td><td>{m['n']}</td>"
                f"<td>{pct(m['ece'])}</td><td>{num(m['nll'], 3)}</td></tr>"
                for k, m in cal.cells().items()
                if k != "clean"
            ),
        )
    head = (
        "<tr><th rowspan=2>Corruption</th><th colspan=5>ECE</th><th colspan=5>NLL</th></tr>"
        f"<tr>{_SEVERITY_HEADS * 2}</tr>"
    )
    body = [
        f"<tr><td>{_corruption(name)}</td>"
        + "".join(f"<td{_heat(c.get('ece'))}>{pct(c.get('ece'))}</td>" for c in cells)
        + "".join(f"<td>{num(c.get('nll'), 3)}</td>" for c in cells)
        + "</tr>"
        for name, cells in calibration_cell_rows(cal)
    ]
    return table(head, body)


def demo_photos_table(res: ResultsLike) -> str:
    """The demo's photo table: per photo (the ``demo.photos`` entries the demo writes) its name
    and description, source, accepted classes (``accepted``), clean prediction
    (``clean_prediction_label``), whether it is correct, and the share of its corrupted versions
    whose prediction changed (``changed_prediction``). Empty for results without photos."""
    photos = res.demo.get("photos") if res.demo is not None else None
    if not isinstance(photos, list) or not photos:
        return ""
    head = (
        "<tr><th>Photo</th><th>Source</th><th>Accepted ImageNet classes</th>"
        "<th>Clean prediction</th><th>correct?</th><th>prediction changed by corruption</th></tr>"
    )
    return table(head, (_photo_row(ph) for ph in photos if isinstance(ph, dict)), "photos")


def _photo_row(ph: dict[str, Any]) -> str:
    """One photo of :func:`demo_photos_table`."""
    accepted = ph.get("accepted") or []
    accepted_text = ", ".join(map(str, accepted)) if isinstance(accepted, list) else str(accepted)
    changed = ph.get("changed_prediction")
    return (
        "<tr>"
        f'<td class="name">{e(ph.get("name"))}<br>'
        f'<span class="muted small">{e(ph.get("description"))}</span></td>'
        f'<td class="name small">{e(ph.get("source"))}</td>'
        f'<td class="name small">{e(accepted_text)}</td>'
        f'<td class="name small">{e(ph.get("clean_prediction_label"))}</td>'
        f"<td>{'yes' if ph.get('clean_correct') else 'no'}</td>"
        f"<td>{pct(changed) if isinstance(changed, (int, float)) else DASH}</td>"
        "</tr>"
    )


def provenance_list(res: ResultsLike) -> str:
    """One result's provenance: file, kind, model, dataset, suites, baselines, the parts'
    metadata, versions and time as a definition list, then the notes."""
    kv = "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in _provenance_pairs(res))
    notes = list(res.dataset.notes) + (res.p.notes if res.p is not None else [])
    notes_html = "".join(f"<li>{e(n)}</li>" for n in notes)
    return f'<h3>{e(res.label)}</h3><dl class="kv">{kv}</dl>' + (
        f'<ul class="notes small">{notes_html}</ul>' if notes_html else ""
    )


def _provenance_pairs(res: ResultsLike) -> list[tuple[str, Any]]:
    """The (key, value) pairs of :func:`provenance_list`, in page order."""
    m, ds = res.model, res.dataset
    pairs: list[tuple[str, Any]] = [("results file", res.source), ("kind", res.kind)]
    for key in ("id", "source", "preprocessing", "input_size", "num_classes"):
        if m.get(key) is not None:
            pairs.append((f"model {key}", m.get(key)))
    for key in ("path", "layout", "protocol", "profile", "fingerprint", "num_images"):
        value = layout_label(res) if key == "layout" else getattr(ds, key)
        if value is not None:
            pairs.append((f"dataset {key}", value))
    pairs.append(("suites", ", ".join(res.suites) or DASH))
    if res.c is not None:
        pairs.append(("ImageNet-C baseline", res.c.baseline))
        if res.c.missing:
            pairs.append(("missing from mCE", missing_text(res.c)))
    if res.cbar is not None:
        pairs.append(("C-bar levels", f"{res.cbar.benchmark}.csv ({cbar_title(res.cbar)})"))
        if res.cbar.missing:
            pairs.append(("missing from the C-bar mean", missing_text(res.cbar)))
    if res.score is not None:
        pairs.append(("task metric", res.score.metric))
        if res.score.partial:
            pairs.append(("missing from mPC", ", ".join(res.score.missing)))
    if res.p is not None:
        pairs.append(("ImageNet-P difficulty", res.p.difficulty))
        pairs.append(("ImageNet-P baseline", res.p.baseline or "none"))
    if res.versions:
        pairs.append(("versions", ", ".join(f"{k} {v}" for k, v in res.versions.items())))
    for key in ("time_s", "created"):
        if getattr(res, key) is not None:
            pairs.append((key.replace("_s", " (s)"), getattr(res, key)))
    return pairs

"""The HTML page of results: one self-contained file, inline CSS, figures as data URIs, no scripts,
no network. :meth:`corruptbench.results.Results.to_html` renders one result's page;
:func:`corruptbench.report.render_report` adds the comparison of several files and the contact
sheets (the examples are passed in as JPEG bytes: this module corrupts nothing).

Every string that comes from a results file (model ids, paths, notes, version strings ...) is passed
through :func:`html.escape` before it reaches the page. The stylesheet, the summary cards and the
figures are the result's own views (:mod:`corruptbench.results.card`, :mod:`corruptbench.results.plots`).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Sequence
from typing import Any

from ..grid import SEVERITIES, parse_cell_key, reference_order
from ..perturbations import ALL_PERTURBATIONS
from .card import CSS, e, figure, render_fragment, summary_card
from .format import (
    ALL_CORRUPTIONS,
    BENCHMARK_CORRUPTIONS,
    CBAR_TITLES,
    DASH,
    EXTRA_CORRUPTIONS,
    cbar_mean_cell,
    cbar_title,
    mce_cell,
    num,
    pct,
    pretty,
    score_num,
    sort_by_mce,
    summary_cells,
)
from .parts import ResultsLike
from .plots import (
    calibration_curves,
    cbar_curves,
    ce_bars,
    flip_bars,
    headline_scatter,
    reliability_diagram,
    rpc_bars,
    score_curves,
    severity_curves,
)
from .text import calibration_cell_rows, calibration_rows

__all__ = ["render_html", "render_fragment", "sort_by_mce"]


def _code_spans(escaped: str) -> str:
    """Turn `backticked` spans of already-escaped text into <code> elements."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)


def _heat(value: float | None) -> str:
    """Inline background for an error cell: white (0 %) -> light red (100 %)."""
    if value is None:
        return ""
    v = max(0.0, min(1.0, value))
    return f' style="background: hsl({int(120 - 120 * v)}, 70%, {int(96 - 14 * v)}%)"'


def _comparison(results: Sequence[ResultsLike]) -> str:
    rows = sort_by_mce(results)
    has_p = any(r.p is not None for r in rows)
    head = '<tr><th>#</th><th style="text-align:left">Model</th><th>Clean error</th><th>mCE</th><th>Relative mCE</th><th>Mean error</th><th>Extra mean error</th>'
    head += "<th>mFR</th><th>mT5D</th>" if has_p else ""
    head += "</tr>"
    body = []
    for i, r in enumerate(rows, 1):
        c = r.c
        cells = [
            str(i),
            e(r.label)
            + ('<span class="badge">partial</span>' if c is not None and c.partial else ""),
        ]
        cells += summary_cells(r, has_p)
        body.append(
            "<tr>"
            + "".join(
                f'<td class="name">{x}</td>' if j == 1 else f"<td>{x}</td>"
                for j, x in enumerate(cells)
            )
            + "</tr>"
        )
    return f'<div class="scroll"><table>{head}{"".join(body)}</table></div>'


def _ce_table(results: Sequence[ResultsLike]) -> str:
    rows = [r for r in results if r.c is not None]
    names = [n for n in ALL_CORRUPTIONS if any(n in r.c.errors for r in rows if r.c)]
    head = (
        "<tr><th rowspan=2>Corruption</th>"
        + "".join(f'<th colspan=2 class="name">{e(r.label)}</th>' for r in rows)
        + "</tr>"
    )
    head += "<tr>" + "<th>CE</th><th>rel. CE</th>" * len(rows) + "</tr>"
    body = []
    for name in names:
        cls = (
            ' class="sep"'
            if name == next((n for n in names if n in EXTRA_CORRUPTIONS), None)
            else ""
        )
        label = e(pretty(name)) + (
            ' <span class="muted small">(extra)</span>' if name in EXTRA_CORRUPTIONS else ""
        )
        cells = "".join(
            f"<td>{pct(r.c.ce.get(name))}</td><td>{pct(r.c.relative_ce.get(name))}</td>"
            for r in rows
            if r.c
        )
        body.append(f"<tr{cls}><td>{label}</td>{cells}</tr>")
    mean_cells = "".join(
        f"<td>{mce_cell(r.c)}</td><td>{mce_cell(r.c, relative=True)}</td>" for r in rows if r.c
    )
    body.insert(
        sum(1 for n in names if n in BENCHMARK_CORRUPTIONS),
        f'<tr class="mean"><td>Mean of the 15 (mCE / rel. mCE)</td>{mean_cells}</tr>',
    )
    return f'<div class="scroll"><table>{head}{"".join(body)}</table></div>'


def _severity_table(res: ResultsLike) -> str:
    c = res.c
    assert c is not None
    head = (
        "<tr><th>Corruption</th><th>clean</th>"
        + "".join(f"<th>sev {s}</th>" for s in SEVERITIES)
        + "<th>mean</th><th>images / severity</th></tr>"
    )
    means = c.mean_errors()
    body = []
    first_extra = next((n for n in c.errors if n in EXTRA_CORRUPTIONS), None)
    for name, values in c.errors.items():
        cls = ' class="sep"' if name == first_extra else ""
        counts = c.counts.get(name)
        count_txt = DASH
        if counts:
            present = sorted({x for x in counts if x is not None})
            count_txt = ", ".join(map(str, present)) if present else DASH
        cells = f"<td{_heat(c.clean_error)}>{pct(c.clean_error)}</td>"
        cells += "".join(f"<td{_heat(v)}>{pct(v)}</td>" for v in values)
        cells += f"<td><b>{pct(means.get(name))}</b></td><td>{e(count_txt)}</td>"
        label = e(pretty(name)) + (
            ' <span class="muted small">(extra)</span>' if name in EXTRA_CORRUPTIONS else ""
        )
        body.append(f"<tr{cls}><td>{label}</td>{cells}</tr>")
    return f'<h3>{e(res.label)}</h3><div class="scroll"><table>{head}{"".join(body)}</table></div>'


def _p_table(results: Sequence[ResultsLike]) -> str:
    rows = [r for r in results if r.p is not None]
    names = [n for n in ALL_PERTURBATIONS if any(r.p and n in r.p.flip_probability for r in rows)]
    head = (
        "<tr><th rowspan=2>Perturbation</th>"
        + "".join(f'<th colspan=3 class="name">{e(r.label)}</th>' for r in rows)
        + "</tr>"
    )
    head += "<tr>" + "<th>flip prob.</th><th>top-5 dist.</th><th>FR</th>" * len(rows) + "</tr>"
    body = []
    for name in names:
        cells = ""
        for r in rows:
            p = r.p
            assert p is not None
            fr = (p.flip_rate or {}).get(name)
            cells += f"<td>{pct(p.flip_probability.get(name), 2)}</td><td>{num(p.top5_distance.get(name), 3)}</td><td>{pct(fr)}</td>"
        body.append(f"<tr><td>{e(pretty(name))}</td>{cells}</tr>")
    return f'<div class="scroll"><table>{head}{"".join(body)}</table></div>'


def _score_comparison(results: Sequence[ResultsLike]) -> str:
    """One row per task-score grid (best mPC first): metric, P, mPC, rPC."""
    rows = [r for r in sort_by_mce(results) if r.score is not None]
    head = (
        '<tr><th>#</th><th style="text-align:left">Model</th><th>Metric</th><th>P (clean)</th>'
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
    return f'<div class="scroll"><table>{head}{"".join(body)}</table></div>'


def _score_severity_table(res: ResultsLike) -> str:
    """A task-score grid: the score at each severity, its mean and the mean / P."""
    s = res.score
    assert s is not None
    head = (
        "<tr><th>Corruption</th><th>clean</th>"
        + "".join(f"<th>sev {k}</th>" for k in SEVERITIES)
        + "<th>mean</th><th>mean / P</th></tr>"
    )
    means = s.corruption_means()
    relative = s.summary.relative if s.summary is not None else {}
    first_extra = next((n for n in s.scores if n in EXTRA_CORRUPTIONS), None)
    body = []
    for name, values in s.scores.items():
        cls = ' class="sep"' if name == first_extra else ""
        label = e(pretty(name)) + (
            ' <span class="muted small">(extra)</span>' if name in EXTRA_CORRUPTIONS else ""
        )
        cells = f"<td>{score_num(s.clean)}</td>" + "".join(
            f"<td>{score_num(v)}</td>" for v in values
        )
        cells += f"<td><b>{score_num(means.get(name))}</b></td><td>{pct(relative.get(name))}</td>"
        body.append(f"<tr{cls}><td>{label}</td>{cells}</tr>")
    if s.summary is not None:
        sev = "".join(f"<td>{score_num(v)}</td>" for v in s.summary.severity_means)
        body.insert(
            sum(1 for n in s.scores if n in BENCHMARK_CORRUPTIONS),
            f'<tr class="mean"><td>Mean of the {len(s.summary.mpc_corruptions)} (mPC / rPC)</td>'
            f"<td>{score_num(s.clean)}</td>{sev}<td>{score_num(s.mpc)}</td><td>{pct(s.rpc)}</td></tr>",
        )
    return (
        f"<h3>{e(res.label)}: {e(s.metric)}</h3>"
        f'<div class="scroll"><table>{head}{"".join(body)}</table></div>'
    )


def _cbar_comparison(rows: Sequence[ResultsLike]) -> str:
    """One row per C-bar result: its benchmark, clean error, mean error (test_c_bar.py's
    ``overall-avg``) and each corruption's mean over its levels (``<name>-avg``)."""
    names = list(reference_order([n for r in rows if r.cbar for n in r.cbar.errors]))
    head = (
        '<tr><th style="text-align:left">Model</th><th>benchmark</th><th>clean</th><th>mean</th>'
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
    return f'<div class="scroll"><table>{head}{"".join(body)}</table></div>'


def _cbar_table(res: ResultsLike) -> str:
    """One C-bar result: the top-1 error of each corruption at each level (the level's value
    under it), the corruption's mean, then the mean over the benchmark's cells."""
    cb = res.cbar
    assert cb is not None
    head = (
        "<tr><th>Corruption</th><th>levels</th>"
        + "".join(f"<th>sev {s}</th>" for s in SEVERITIES)
        + "<th>mean</th><th>images / level</th></tr>"
    )
    means, levels, inside = cb.corruption_errors(), cb.levels, set(cb.corruptions)
    first_out = next((n for n in cb.errors if n not in inside), None)
    body = []
    for name, values in cb.errors.items():
        cls = ' class="sep"' if name == first_out else ""
        label = e(pretty(name)) + (
            "" if name in inside else ' <span class="muted small">(not in the mean)</span>'
        )
        counts = sorted({x for x in cb.counts.get(name) or [] if x is not None})
        cells = f"<td>{e(', '.join(f'{v:g}' for v in levels[name]))}</td>"
        cells += "".join(f"<td{_heat(v)}>{pct(v)}</td>" for v in values)
        cells += f"<td><b>{pct(means.get(name))}</b></td>"
        cells += f"<td>{e(', '.join(map(str, counts)) or DASH)}</td>"
        body.append(f"<tr{cls}><td>{label}</td>{cells}</tr>")
    n_in = sum(1 for n in cb.errors if n in inside)
    body.insert(
        n_in,
        f'<tr class="mean"><td>Mean of {e(cbar_title(cb))}</td><td></td>'
        + "<td></td>" * len(SEVERITIES)
        + f"<td>{e(cbar_mean_cell(cb))}</td><td></td></tr>",
    )
    return (
        f"<h3>{e(res.label)}: {e(cbar_title(cb))}</h3>"
        f'<div class="scroll"><table>{head}{"".join(body)}</table></div>'
    )


def _cbar_section(ordered: Sequence[ResultsLike]) -> list[str]:
    """ImageNet-C-bar / CIFAR-10-C-bar results: the comparison, the error-against-level figure
    (a panel per corruption) and each result's errors per corruption and level."""
    rows = [r for r in ordered if r.cbar is not None]
    if not rows:
        return []
    titles = " and ".join(dict.fromkeys(cbar_title(r.cbar) for r in rows if r.cbar))
    return [
        f'<section id="cbar"><h2>{e(titles)}: top-1 error per corruption and level</h2>',
        '<p class="muted">The metric of test_c_bar.py (Mintun, Kirillov &amp; Xie 2021): top-1 '
        "error of each corruption at each of its five levels, the mean per corruption and the "
        "mean over the benchmark's ten corruptions x five levels; no baseline, no "
        "normalisation. Not comparable with ImageNet-C's mCE.</p>",
        _cbar_comparison(rows),
        figure(
            cbar_curves(rows),
            "C-bar error against level",
            "Top-1 error against level, one panel per corruption (each tick: the severity and "
            "the level's value; clean = the clean error where measured); dashed: a corruption "
            "outside the result's benchmark.",
        ),
        *(_cbar_table(r) for r in rows),
        "</section>",
    ]


def _demo_photos(res: ResultsLike) -> str:
    """The demo's photo table (only for demo results that list their photos)."""
    photos = res.demo.get("photos") if res.demo is not None else None
    if not isinstance(photos, list) or not photos:
        return ""
    head = "<tr><th>Photo</th><th>Source</th><th>Accepted ImageNet classes</th><th>Clean prediction</th><th>correct?</th><th>prediction changed by corruption</th></tr>"
    body = []
    for ph in photos:
        if not isinstance(ph, dict):
            continue
        accepted = ph.get("accepted") or ph.get("accepted_wnids") or []
        accepted_text = (
            ", ".join(map(str, accepted)) if isinstance(accepted, list) else str(accepted)
        )
        changed = ph.get("changed_prediction")
        body.append(
            "<tr>"
            f'<td class="name">{e(ph.get("name"))}<br><span class="muted small">{e(ph.get("description"))}</span></td>'
            f'<td class="name small">{e(ph.get("source"))}</td>'
            f'<td class="name small">{e(accepted_text)}</td>'
            f'<td class="name small">{e(ph.get("clean_prediction_label") or ph.get("clean_prediction"))}</td>'
            f"<td>{'yes' if ph.get('clean_correct') else 'no'}</td>"
            f"<td>{pct(changed) if isinstance(changed, (int, float)) else DASH}</td>"
            "</tr>"
        )
    return (
        '<section id="photos"><h2>The photos</h2><p class="muted">An image counts as correct when the '
        "top-1 class is any of the photo's accepted classes. The last column is the share of the photo's "
        "corrupted versions (all corruptions and severities) whose top-1 class differs from the clean one.</p>"
        f'<div class="scroll"><table class="photos">{head}{"".join(body)}</table></div></section>'
    )


def _provenance(res: ResultsLike) -> str:
    m, ds = res.model, res.dataset
    pairs: list[tuple[str, Any]] = [("results file", res.source), ("kind", res.kind)]
    for key in ("id", "source", "preprocessing", "input_size", "num_classes"):
        if m.get(key) is not None:
            pairs.append((f"model {key}", m.get(key)))
    for key in ("path", "layout", "protocol", "profile", "fingerprint", "num_images"):
        if getattr(ds, key) is not None:
            pairs.append((f"dataset {key}", getattr(ds, key)))
    pairs.append(("suites", ", ".join(res.suites) or DASH))
    if res.c is not None:
        pairs.append(("ImageNet-C baseline", res.c.baseline))
        if res.c.missing:
            pairs.append(("missing from mCE", ", ".join(res.c.missing)))
    if res.cbar is not None:
        pairs.append(("C-bar levels", f"{res.cbar.benchmark}.csv ({cbar_title(res.cbar)})"))
        if res.cbar.missing:
            pairs.append(("missing from the C-bar mean", ", ".join(res.cbar.missing)))
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
    kv = "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in pairs)
    notes = list(ds.notes)
    if res.p is not None:
        notes += res.p.notes
    notes_html = "".join(f"<li>{e(n)}</li>" for n in notes)
    return f'<h3>{e(res.label)}</h3><dl class="kv">{kv}</dl>' + (
        f'<ul class="notes small">{notes_html}</ul>' if notes_html else ""
    )


_HOW_TO_READ = """
<ul>
<li><b>Clean error</b>: top-1 error on the uncorrupted images.</li>
<li><b>CE</b> (corruption error) of a corruption: the model's top-1 error summed over the 5 severities,
divided by the same sum for the baseline (AlexNet unless stated). 100% = as fragile as AlexNet; lower is better.</li>
<li><b>mCE</b>: mean CE over the 15 benchmark corruptions (the paper's headline number). The 4 extra corruptions
(speckle noise, Gaussian blur, spatter, saturate) are shown separately and never enter mCE.</li>
<li><b>Relative CE / mCE</b>: the same ratio after subtracting each model's clean error, i.e. how much
<em>more</em> error corruption causes. A model can have a lower mCE simply by being more accurate; relative mCE
separates robustness from accuracy.</li>
<li><b>Flip probability</b> (ImageNet-P): how often the top-1 prediction changes between consecutive frames
(noise: between each noisy frame and the clean one). <b>Top-5 distance</b>: how much the top-5 ranking moves.
<b>mFR / mT5D</b> divide these by a baseline's and average over the 10 test perturbations; they are shown only
when a baseline was given.</li>
<li><b>P, mPC, rPC</b> (task scores, Michaelis et al. 2019): any higher-is-better score (box AP, mIoU, ...)
measured on the clean data (<b>P</b>) and on every corruption and severity; <b>mPC</b> is its mean over the 15
benchmark corruptions and 5 severities, <b>rPC = mPC / P</b> the share of the clean performance kept under
corruption. Scores are shown as measured, rPC as a percentage.</li>
<li><b>Calibration</b> (Guo et al. 2017; Ovadia et al. 2019): how far the softmax confidence is from
the accuracy. <b>NLL</b>: mean negative log-likelihood of the true class (nats). <b>Brier</b>: mean
squared distance of the probability vector from the one-hot label (0 to 2). <b>ECE</b>: the accuracy
minus the mean confidence within equal-width confidence bins, weighted by the bins' shares (bins as
stated; a results file also gives 30). Per severity, the mean over the corruptions measured, every
corruption weighted alike: the one severity ECE of every table, figure and legend (the reliability
diagram's curve pools the cells of the worst severity; its legend gives that mean). eval-p
measures the sequences' clean frames only.</li>
<li><b>ImageNet-C-bar / CIFAR-10-C-bar</b> (Mintun, Kirillov &amp; Xie 2021): 10 other corruptions
at 5 levels each (each level is a value of the original code's level scale, shown with it); the numbers
are the top-1 error per corruption and level, its mean per corruption and the mean over the ten
corruptions' cells, as the original test_c_bar.py computes them (no baseline). Corruptions outside the
benchmark are shown apart and never enter its mean.</li>
<li>All rates are fractions in the results files and percentages here.</li>
</ul>
"""


def render_html(
    results: Sequence[ResultsLike],
    *,
    title: str = "corruptbench robustness report",
    contact_sheet: bytes | None = None,
    perturbation_strip: bytes | None = None,
    sample_name: str = "",
    intro: str = "",
    warnings: Sequence[str] = (),
    cbar_sheet: bytes | None = None,
) -> str:
    """Render the report for one or more validated results as a single HTML document.

    Args:
        results: Validated results (labels made unique by :func:`~corruptbench.report.baseline.unique_labels`).
        title: Page title (escaped).
        contact_sheet: JPEG bytes of :func:`~corruptbench.report.contact.contact_sheet`, or ``None``.
        perturbation_strip: JPEG bytes of :func:`~corruptbench.report.contact.perturbation_strip`.
        sample_name: Description of the contact-sheet photo (escaped).
        intro: Extra paragraph shown under the title (escaped), e.g. the demo's disclaimer.
        warnings: Shown prominently under the title (e.g. results from different datasets).
        cbar_sheet: JPEG bytes of the contact sheet of the C-bar corruptions of the results
            (:func:`~corruptbench.report.contact.contact_sheet` of their benchmark's ten).
    """
    results = list(results)
    ordered = sort_by_mce(results)
    examples = bool(contact_sheet or perturbation_strip or cbar_sheet)
    parts = _header(results, title=title, intro=intro, warnings=warnings, examples=examples)
    parts += _summary_section(ordered)
    parts += _comparison_section(results)
    parts += _figures_section(ordered)
    parts += _c_sections(ordered)
    parts += _cbar_section(ordered)
    parts += _p_section(ordered)
    parts += _score_section(ordered)
    parts += _calibration_section(ordered)
    parts += [_demo_photos(r) for r in ordered]
    if examples:
        parts += _examples_section(contact_sheet, perturbation_strip, sample_name, cbar_sheet)
    parts.append('<section id="provenance"><h2>Provenance</h2>')
    parts += [_provenance(r) for r in ordered]
    parts.append("</section>")
    parts.append(
        f'<section id="how-to-read"><h2>How to read this report</h2>{_HOW_TO_READ}</section>'
    )
    parts.append("</main></body></html>")
    return "\n".join(p for p in parts if p)


def _header(
    results: Sequence[ResultsLike],
    *,
    title: str,
    intro: str,
    warnings: Sequence[str],
    examples: bool,
) -> list[str]:
    """The document head, the title, the intro, the warnings and the navigation bar."""
    from ..version import __version__

    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">",
        f"<title>{e(title)}</title><style>{CSS}</style></head><body><main>",
        f"<header><h1>{e(title)}</h1>",
        f'<p class="sub">{len(results)} result file{"s" if len(results) != 1 else ""} &middot; generated {e(now)} by corruptbench {e(__version__)}</p>',
    ]
    if intro:
        parts.append(f"<p>{_code_spans(e(intro))}</p>")
    for text in warnings:
        parts.append(f'<p class="warn"><strong>Warning:</strong> {e(text)}</p>')
    nav = "".join(f'<a href="#{a}">{t}</a>' for a, t in _nav(results, examples=examples))
    parts.append(f"<nav>{nav}</nav></header>")
    return parts


def _nav(results: Sequence[ResultsLike], *, examples: bool) -> list[tuple[str, str]]:
    """(anchor, title) of the sections the page has, in page order."""
    c_rows = [r for r in results if r.c is not None]
    nav = [("summary", "Summary")]
    if len(c_rows) > 1:
        nav.append(("comparison", "Comparison"))
    nav.append(("figures", "Figures"))
    if c_rows:
        nav += [("ce", "CE per corruption"), ("severity", "Error by severity")]
    cbar = list(dict.fromkeys(CBAR_TITLES[r.cbar.benchmark] for r in results if r.cbar))
    if cbar:
        nav.append(("cbar", " / ".join(cbar)))
    if any(r.p is not None for r in results):
        nav.append(("imagenet-p", "ImageNet-P"))
    if any(r.score is not None for r in results):
        nav.append(("scores", "Task scores"))
    if any(r.calibration is not None for r in results):
        nav.append(("calibration", "Calibration"))
    if any(r.kind == "demo" and r.demo is not None for r in results):
        nav.append(("photos", "Photos"))
    if examples:
        nav.append(("examples", "What the corruptions look like"))
    nav += [("provenance", "Provenance"), ("how-to-read", "How to read this")]
    return nav


def _summary_section(ordered: Sequence[ResultsLike]) -> list[str]:
    """One summary card per result, best mCE first."""
    return [
        '<section id="summary"><h2>Summary</h2><div class="cards">',
        *(summary_card(r) for r in ordered),
        "</div></section>",
    ]


def _comparison_section(results: Sequence[ResultsLike]) -> list[str]:
    """The comparison table, when there are two ImageNet-C results or more."""
    if sum(1 for r in results if r.c is not None) < 2:
        return []
    return [
        '<section id="comparison"><h2>Comparison (sorted by mCE, best first)</h2>',
        _comparison(results),
        "</section>",
    ]


def _figures_section(ordered: Sequence[ResultsLike]) -> list[str]:
    """The headline scatter (two ImageNet-C results or more), a warning when the CE baselines
    differ, CE bars, severity curves and (with ImageNet-P results) flip-probability bars."""
    c_rows = [r for r in ordered if r.c is not None]
    parts = ['<section id="figures"><h2>Figures</h2>']
    if len(c_rows) > 1:
        parts.append(
            figure(
                headline_scatter(ordered),
                "mCE and relative mCE against clean error",
                "mCE and relative mCE against clean error, one point per model. In the paper, mCE falls as accuracy rises while relative mCE stays flat: accuracy gains carried most of the robustness gains.",
            )
        )
    bases = sorted({r.c.baseline for r in c_rows if r.c is not None})
    if len(bases) > 1:
        parts.append(
            '<p class="badge">These results use different CE baselines ('
            + e(", ".join(bases))
            + "): their CE / mCE are not comparable. Put them on one footing with <code>--baseline</code> "
            "(alexnet for ImageNet results, uniform for CIFAR).</p>"
        )
    parts.append(
        figure(
            ce_bars(ordered),
            "CE per corruption",
            "Corruption error (CE) per corruption; the dashed line is the baseline (100%). Right of the vertical line: the 4 extra corruptions, not part of mCE.",
        )
    )
    parts.append(
        figure(
            severity_curves(ordered),
            "Error vs severity",
            "Top-1 error against severity per corruption family of the paper's Figure 1, and for the 4 extra corruptions, which belong to no family (severity 0 = clean error).",
        )
    )
    if any(r.score is not None for r in ordered):
        parts += _score_figures(ordered)
    if any(r.p is not None for r in ordered):
        parts.append(
            figure(
                flip_bars(ordered),
                "Flip probability",
                "ImageNet-P flip probability per perturbation (lower = more stable predictions).",
            )
        )
    parts.append("</section>")
    return parts


def _c_sections(ordered: Sequence[ResultsLike]) -> list[str]:
    """CE per corruption (all ImageNet-C results side by side), then errors by severity."""
    if not any(r.c is not None for r in ordered):
        return []
    return [
        '<section id="ce"><h2>CE and relative CE per corruption</h2>',
        _ce_table(ordered),
        "</section>",
        '<section id="severity"><h2>Top-1 error by severity</h2>',
        *(_severity_table(r) for r in ordered if r.c is not None),
        "</section>",
    ]


def _p_section(ordered: Sequence[ResultsLike]) -> list[str]:
    """Flip probability and top-5 distance per perturbation (ImageNet-P results only)."""
    if not any(r.p is not None for r in ordered):
        return []
    return [
        '<section id="imagenet-p"><h2>ImageNet-P: flip probability and top-5 distance</h2>',
        _p_table(ordered),
        "</section>",
    ]


def _score_figures(ordered: Sequence[ResultsLike]) -> list[str]:
    """Task score against severity per family, and the mean score / P per corruption."""
    return [
        figure(
            score_curves(ordered),
            "Score vs severity",
            "Task score against severity per corruption family (severity 0 = the clean score "
            "P), and for the 4 extra corruptions, which belong to no family.",
        ),
        figure(
            rpc_bars(ordered),
            "Relative performance per corruption",
            "Mean score over the 5 severities divided by P, per corruption; the dashed lines "
            "are each model's rPC = mPC / P. Right of the vertical line: the extra corruptions, "
            "not part of mPC.",
        ),
    ]


def _score_section(ordered: Sequence[ResultsLike]) -> list[str]:
    """P, mPC, rPC of every task-score grid, then each grid by severity."""
    if not any(r.score is not None for r in ordered):
        return []
    return [
        '<section id="scores"><h2>Task scores: P, mPC, rPC</h2>',
        _score_comparison(ordered),
        *(_score_severity_table(r) for r in ordered if r.score is not None),
        "</section>",
    ]


def _examples_section(
    contact_sheet: bytes | None,
    perturbation_strip: bytes | None,
    sample_name: str,
    cbar_sheet: bytes | None = None,
) -> list[str]:
    """The contact sheet, the ImageNet-P frames and the C-bar contact sheet of the sample photo."""
    who = f" ({e(sample_name)})" if sample_name else ""
    return [
        '<section id="examples"><h2>What the corruptions look like</h2>',
        figure(
            contact_sheet,
            "Contact sheet",
            f"One photo{who} under every corruption and severity, at the network's 224&times;224 input resolution (Resize(256) + CenterCrop(224)). Stored as JPEG (quality 90, no chroma subsampling) to keep this file small.",
            mime="image/jpeg",
            cls="sheet",
        ),
        figure(
            perturbation_strip,
            "ImageNet-P frames",
            f"Evenly spaced frames of ImageNet-P sequences of the same photo{who}; flip probability counts how often the prediction changes along such a sequence.",
            mime="image/jpeg",
            cls="sheet",
        ),
        figure(
            cbar_sheet,
            "C-bar contact sheet",
            f"The same photo{who} under the C-bar corruptions of the results at each of their "
            "five levels (row labels give the level values), at 224&times;224 "
            "(Resize(256) + CenterCrop(224)).",
            mime="image/jpeg",
            cls="sheet",
        ),
        "</section>",
    ]


def _calibration_by_severity(res: ResultsLike) -> str:
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
    return f'<div class="scroll"><table>{head}{"".join(body)}</table></div>'


def _calibration_cells(res: ResultsLike) -> str:
    """ECE and NLL of every cell: one row per corruption, severities 1..5 (eval-p: one row per
    perturbation's clean frames)."""
    cal = res.calibration
    assert cal is not None
    if not cal.has_severities:
        rows = [
            f"<tr><td>{e(pretty(parse_cell_key(k).name))}</td><td>{m['n']}</td><td>{pct(m['ece'])}</td>"
            f"<td>{num(m['nll'], 3)}</td></tr>"
            for k, m in cal.cells().items()
            if k != "clean"
        ]
        head = "<tr><th>Clean frames of</th><th>sequences</th><th>ECE</th><th>NLL</th></tr>"
        return f'<div class="scroll"><table>{head}{"".join(rows)}</table></div>'
    head = (
        "<tr><th rowspan=2>Corruption</th><th colspan=5>ECE</th><th colspan=5>NLL</th></tr><tr>"
        + "".join(f"<th>sev {s}</th>" for s in SEVERITIES) * 2
        + "</tr>"
    )
    body = []
    for name, cells in calibration_cell_rows(cal):
        label = e(pretty(name)) + (
            ' <span class="muted small">(extra)</span>' if name in EXTRA_CORRUPTIONS else ""
        )
        body.append(
            f"<tr><td>{label}</td>"
            + "".join(f"<td{_heat(c.get('ece'))}>{pct(c.get('ece'))}</td>" for c in cells)
            + "".join(f"<td>{num(c.get('nll'), 3)}</td>" for c in cells)
            + "</tr>"
        )
    return f'<div class="scroll"><table>{head}{"".join(body)}</table></div>'


def _calibration_section(ordered: Sequence[ResultsLike]) -> list[str]:
    """ECE and NLL against severity, reliability diagrams (clean vs the worst severity), and per
    model the numbers by severity and per cell."""
    rows = [r for r in ordered if r.calibration is not None]
    if not rows:
        return []
    parts = [
        '<section id="calibration"><h2>Calibration under corruption</h2>',
        figure(
            calibration_curves(rows),
            "ECE and NLL against severity",
            "Expected calibration error and negative log-likelihood against severity (0 = "
            "clean): per severity, the mean over the benchmark corruptions measured (the legend "
            "says how many).",
        ),
        figure(
            reliability_diagram(rows),
            "Reliability diagrams",
            "Accuracy against mean confidence per confidence bin, for the clean images and for "
            "the worst severity measured (its corrupted cells pooled); on the dashed diagonal "
            "the model is calibrated, below it over-confident.",
        ),
    ]
    for r in rows:
        parts += [
            f"<h3>{e(r.label)}</h3>",
            _calibration_by_severity(r),
            _calibration_cells(r),
        ]
    parts.append("</section>")
    return parts

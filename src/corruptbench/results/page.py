"""The HTML page of results: one self-contained file, inline CSS, figures as data URIs, no scripts,
no network. :meth:`corruptbench.results.Results.to_html` renders one result's page;
:func:`corruptbench.report.render_report` adds the comparison of several files and the contact
sheets (the examples are passed in as JPEG bytes: this module corrupts nothing).

Every string that comes from a results file (model ids, paths, notes, version strings ...) is passed
through :func:`html.escape` before it reaches the page. The stylesheet, the summary cards, the
tables and the figures are the result's own views (:mod:`corruptbench.results.card`,
:mod:`corruptbench.results.html_tables`, :mod:`corruptbench.results.plots`).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping, Sequence

from .card import CSS, e, figure, render_fragment, summary_card
from .format import CBAR_TITLES, cbar_title, sort_by_mce
from .html_tables import (
    calibration_cells_table,
    calibration_severity_table,
    cbar_comparison_table,
    cbar_table,
    ce_table,
    comparison_table,
    demo_photos_table,
    p_table,
    provenance_list,
    score_comparison_table,
    score_severity_table,
    severity_table,
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

__all__ = ["render_html", "render_fragment", "sort_by_mce"]


def _code_spans(escaped: str) -> str:
    """Turn `backticked` spans of already-escaped text into <code> elements."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)


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
        cbar_comparison_table(rows),
        figure(
            cbar_curves(rows),
            "C-bar error against level",
            "Top-1 error against level, one panel per corruption (each tick: the severity and "
            "the level's value; clean = the clean error where measured); dashed: a corruption "
            "outside the result's benchmark.",
        ),
        *(cbar_table(r) for r in rows),
        "</section>",
    ]


def _photos_section(res: ResultsLike) -> str:
    """The demo's photos (only for demo results that list them)."""
    photos = demo_photos_table(res)
    if not photos:
        return ""
    return (
        '<section id="photos"><h2>The photos</h2><p class="muted">An image counts as correct '
        "when the top-1 class is any of the photo's accepted classes. The last column is the "
        "share of the photo's corrupted versions (all corruptions and severities) whose top-1 "
        f"class differs from the clean one.</p>{photos}</section>"
    )


#: the glossary of "How to read this report": (the part a result must have for the entry to
#: show, the entry); ``""``: always shown (:func:`_glossary`)
_GLOSSARY: tuple[tuple[str, str], ...] = (
    ("clean", "<b>Clean error</b>: top-1 error on the uncorrupted images."),
    (
        "c",
        "<b>CE</b> (corruption error) of a corruption: the model's top-1 error summed over the 5 "
        "severities, divided by the same sum for the baseline (AlexNet unless stated). 100% = as "
        "fragile as AlexNet; lower is better.",
    ),
    (
        "c",
        "<b>mCE</b>: mean CE over the 15 benchmark corruptions (the paper's headline number). The "
        "4 extra corruptions (speckle noise, Gaussian blur, spatter, saturate) are shown "
        "separately and never enter mCE.",
    ),
    (
        "c",
        "<b>Relative CE / mCE</b>: the same ratio after subtracting each model's clean error, "
        "i.e. how much <em>more</em> error corruption causes. A model can have a lower mCE simply "
        "by being more accurate; relative mCE separates robustness from accuracy.",
    ),
    (
        "p",
        "<b>Flip probability</b> (ImageNet-P): how often the top-1 prediction changes between "
        "consecutive frames (noise: between each noisy frame and the clean one). <b>Top-5 "
        "distance</b>: how much the top-5 ranking moves. <b>mFR / mT5D</b> divide these by a "
        "baseline's and average over the 10 test perturbations; they are shown only when a "
        "baseline was given.",
    ),
    (
        "score",
        "<b>P, mPC, rPC</b> (task scores, Michaelis et al. 2019): any higher-is-better score "
        "(box AP, mIoU, ...) measured on the clean data (<b>P</b>) and on every corruption and "
        "severity; <b>mPC</b> is its mean over the 15 benchmark corruptions and 5 severities, "
        "<b>rPC = mPC / P</b> the share of the clean performance kept under corruption. Scores "
        "are shown as measured, rPC as a percentage.",
    ),
    (
        "calibration",
        "<b>Calibration</b> (Guo et al. 2017; Ovadia et al. 2019): how far the softmax "
        "confidence is from the accuracy. <b>NLL</b>: mean negative log-likelihood of the true "
        "class (nats). <b>Brier</b>: mean squared distance of the probability vector from the "
        "one-hot label (0 to 2). <b>ECE</b>: the accuracy minus the mean confidence within "
        "equal-width confidence bins, weighted by the bins' shares (bins as stated; a results "
        "file also gives 30). Per severity, the mean over the corruptions measured, every "
        "corruption weighted alike: the one severity ECE of every table, figure and legend (the "
        "reliability diagram's curve pools the cells of the worst severity; its legend gives "
        "that mean). eval-p measures the sequences' clean frames only.",
    ),
    (
        "cbar",
        "<b>ImageNet-C-bar / CIFAR-10-C-bar</b> (Mintun, Kirillov &amp; Xie 2021): 10 other "
        "corruptions at 5 levels each (each level is a value of the original code's level scale, "
        "shown with it); the numbers are the top-1 error per corruption and level, its mean per "
        "corruption and the mean over the ten corruptions' cells, as the original test_c_bar.py "
        "computes them (no baseline). Corruptions outside the benchmark are shown apart and "
        "never enter its mean.",
    ),
    ("", "All rates are fractions in the results files and percentages here."),
)


def _glossary(results: Sequence[ResultsLike]) -> str:
    """The entries of :data:`_GLOSSARY` for the parts the results have (a C-bar report explains
    no mCE), as a list."""
    shown = {""}
    for r in results:
        shown |= {part for part in ("c", "p", "score", "calibration", "cbar") if getattr(r, part)}
    if shown & {"c", "cbar"}:
        shown.add("clean")
    items = "".join(f"\n<li>{text}</li>" for part, text in _GLOSSARY if part in shown)
    return f"\n<ul>{items}\n</ul>\n"


def render_html(
    results: Sequence[ResultsLike],
    *,
    title: str = "corruptbench robustness report",
    contact_sheet: bytes | None = None,
    perturbation_strip: bytes | None = None,
    sample_name: str = "",
    intro: str = "",
    warnings: Sequence[str] = (),
    cbar_sheets: Mapping[str, bytes] | None = None,
) -> str:
    """Render the report for one or more validated results as a single HTML document.

    Args:
        results: Validated results (labels made unique by
            :func:`~corruptbench.report.baseline.unique_labels`).
        title: Page title (escaped).
        contact_sheet: JPEG bytes of :func:`~corruptbench.report.contact.contact_sheet`, or
            ``None``.
        perturbation_strip: JPEG bytes of :func:`~corruptbench.report.contact.perturbation_strip`.
        sample_name: Description of the contact-sheet photo (escaped).
        intro: Extra paragraph shown under the title (escaped), e.g. the demo's disclaimer.
        warnings: Shown prominently under the title (e.g. results from different datasets).
        cbar_sheets: C-bar benchmark (``imagenet_c_bar``, ``cifar10_c_bar``) -> JPEG bytes of
            the contact sheet of its ten corruptions, for each benchmark of the results
            (:func:`~corruptbench.report.contact.contact_sheet` of their benchmark's ten).
    """
    results = list(results)
    ordered = sort_by_mce(results)
    examples = bool(contact_sheet or perturbation_strip or cbar_sheets)
    parts = _header(results, title=title, intro=intro, warnings=warnings, examples=examples)
    parts += _summary_section(ordered)
    parts += _comparison_section(results)
    parts += _figures_section(ordered)
    parts += _c_sections(ordered)
    parts += _cbar_section(ordered)
    parts += _p_section(ordered)
    parts += _score_section(ordered)
    parts += _calibration_section(ordered)
    parts += [_photos_section(r) for r in ordered]
    if examples:
        parts += _examples_section(contact_sheet, perturbation_strip, sample_name, cbar_sheets)
    parts.append('<section id="provenance"><h2>Provenance</h2>')
    parts += [provenance_list(r) for r in ordered]
    parts.append("</section>")
    parts.append(
        f'<section id="how-to-read"><h2>How to read this report</h2>{_glossary(results)}</section>'
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
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "img-src data:; style-src 'unsafe-inline'\">",
        f"<title>{e(title)}</title><style>{CSS}</style></head><body><main>",
        f"<header><h1>{e(title)}</h1>",
        f'<p class="sub">{len(results)} result file{"s" if len(results) != 1 else ""} &middot; '
        f"generated {e(now)} by corruptbench {e(__version__)}</p>",
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
    if _has_figures(results):
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
        comparison_table(results),
        "</section>",
    ]


def _has_figures(results: Sequence[ResultsLike]) -> bool:
    """Whether the Figures section has any: ImageNet-C, ImageNet-P or task-score results."""
    return any(r.c is not None or r.p is not None or r.score is not None for r in results)


def _figures_section(ordered: Sequence[ResultsLike]) -> list[str]:
    """The headline scatter (two ImageNet-C results or more), a warning when the CE baselines
    differ, CE bars, severity curves and (with ImageNet-P results) flip-probability bars."""
    if not _has_figures(ordered):
        return []  # C-bar results have their figure in their section
    c_rows = [r for r in ordered if r.c is not None]
    parts = ['<section id="figures"><h2>Figures</h2>']
    if len(c_rows) > 1:
        parts.append(
            figure(
                headline_scatter(ordered),
                "mCE and relative mCE against clean error",
                "mCE and relative mCE against clean error, one point per model. In the paper, mCE "
                "falls as accuracy rises while relative mCE stays flat: accuracy gains carried "
                "most of the robustness gains.",
            )
        )
    bases = sorted({r.c.baseline for r in c_rows if r.c is not None})
    if len(bases) > 1:
        parts.append(
            '<p class="badge">These results use different CE baselines ('
            + e(", ".join(bases))
            + "): their CE / mCE are not comparable. Put them on one footing with "
            "<code>--baseline</code> (alexnet for ImageNet results, uniform for CIFAR).</p>"
        )
    parts.append(
        figure(
            ce_bars(ordered),
            "CE per corruption",
            "Corruption error (CE) per corruption; the dashed line is the baseline (100%). "
            "Right of the vertical line: the 4 extra corruptions, not part of mCE.",
        )
    )
    parts.append(
        figure(
            severity_curves(ordered),
            "Error vs severity",
            "Top-1 error against severity per corruption family of the paper's Figure 1, and "
            "for the 4 extra corruptions, which belong to no family (severity 0 = clean error).",
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
        ce_table(ordered),
        "</section>",
        '<section id="severity"><h2>Top-1 error by severity</h2>',
        *(severity_table(r) for r in ordered if r.c is not None),
        "</section>",
    ]


def _p_section(ordered: Sequence[ResultsLike]) -> list[str]:
    """Flip probability and top-5 distance per perturbation (ImageNet-P results only)."""
    if not any(r.p is not None for r in ordered):
        return []
    return [
        '<section id="imagenet-p"><h2>ImageNet-P: flip probability and top-5 distance</h2>',
        p_table(ordered),
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
        score_comparison_table(ordered),
        *(score_severity_table(r) for r in ordered if r.score is not None),
        "</section>",
    ]


#: the size each C-bar benchmark's contact sheet shows its images at
_CBAR_SIZES = {
    "imagenet_c_bar": "224&times;224 (Resize(256) + CenterCrop(224))",
    "cifar10_c_bar": "32&times;32, CIFAR-10's size (that crop shrunk; shown enlarged)",
}


def _examples_section(
    contact_sheet: bytes | None,
    perturbation_strip: bytes | None,
    sample_name: str,
    cbar_sheets: Mapping[str, bytes] | None = None,
) -> list[str]:
    """The contact sheet, the ImageNet-P frames and the C-bar contact sheets (one per benchmark)
    of the sample photo."""
    who = f" ({e(sample_name)})" if sample_name else ""
    return [
        '<section id="examples"><h2>What the corruptions look like</h2>',
        figure(
            contact_sheet,
            "Contact sheet",
            f"One photo{who} under every corruption and severity, at the network's 224&times;224 "
            "input resolution (Resize(256) + CenterCrop(224)). Stored as JPEG (quality 90, no "
            "chroma subsampling) to keep this file small.",
            mime="image/jpeg",
            cls="sheet",
        ),
        figure(
            perturbation_strip,
            "ImageNet-P frames",
            f"Evenly spaced frames of ImageNet-P sequences of the same photo{who}; flip "
            "probability counts how often the prediction changes along such a sequence.",
            mime="image/jpeg",
            cls="sheet",
        ),
        *(_cbar_sheet(bench, sheet, who) for bench, sheet in (cbar_sheets or {}).items()),
        "</section>",
    ]


def _cbar_sheet(benchmark: str, sheet: bytes, who: str) -> str:
    """The figure of one C-bar benchmark's contact sheet (``who``: the photo, escaped)."""
    title = CBAR_TITLES[benchmark]
    return figure(
        sheet,
        "C-bar contact sheet" + ("" if benchmark == "imagenet_c_bar" else f": {title}"),
        f"The same photo{who} under the {title} corruptions of the results at each of their "
        f"five levels (row labels give the level values), at {_CBAR_SIZES[benchmark]}.",
        mime="image/jpeg",
        cls="sheet",
    )


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
            calibration_severity_table(r),
            calibration_cells_table(r),
        ]
    parts.append("</section>")
    return parts

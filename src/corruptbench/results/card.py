"""A result's summary card and notebook fragment, and the stylesheet of the HTML report they share.

What ``Results._repr_html_`` shows (:func:`render_fragment`); the report's page
(:mod:`corruptbench.results.page`) uses the same card, figures and :data:`CSS`. Every string that
comes from a results file is passed through :func:`e` (:func:`html.escape`).
"""

from __future__ import annotations

import html as _html
import re
from collections.abc import Sequence
from typing import Any

from .format import (
    DASH,
    cbar_partial_tag,
    layout_label,
    leaderboard_rows,
    partial_tag,
    pct,
    sort_by_mce,
)
from .parts import ResultsLike
from .plots import (
    cbar_curves,
    ce_bars,
    flip_bars,
    png_data_uri,
    rpc_bars,
    score_curves,
    severity_curves,
)
from .text import calibration_headline, cbar_headline, score_headline

__all__ = ["CSS", "e", "figure", "summary_card", "render_fragment"]


def e(value: Any) -> str:
    """HTML-escape any value (quotes too)."""
    return _html.escape("" if value is None else str(value), quote=True)


#: the report page's stylesheet; a notebook fragment keeps a scoped part of it (:func:`_scoped_css`)
CSS = """
:root { --fg:#1d2330; --muted:#5b6475; --line:#e3e6ec; --bg:#ffffff; --soft:#f5f7fa; --accent:#2f5fb3; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg);
  font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "DejaVu Sans", sans-serif; }
main { max-width: 1320px; margin: 0 auto; padding: 24px 28px 60px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 36px 0 10px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 8px; }
p, li { max-width: 980px; }
.sub, .muted { color: var(--muted); }
.small { font-size: 12px; }
nav { margin: 12px 0 0; font-size: 13px; }
nav a { color: var(--accent); text-decoration: none; margin-right: 14px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(290px, 1fr)); gap: 14px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; background: var(--soft); }
.card h3 { margin: 0 0 8px; overflow-wrap: anywhere; }
.card dl { display: grid; grid-template-columns: 1fr auto; gap: 3px 12px; margin: 0; }
.card dt { color: var(--muted); }
.card dd { margin: 0; text-align: right; font-variant-numeric: tabular-nums; font-weight: 600; }
.badge { display:inline-block; font-size: 11px; padding: 1px 7px; border-radius: 9px; background:#fde8c8;
  color:#7a4a00; margin-left: 6px; vertical-align: middle; font-weight: 600; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 6px 0 14px; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th { background: var(--soft); font-weight: 600; position: sticky; top: 0; }
th:first-child, td:first-child { text-align: left; }
td.name, th.name { overflow-wrap: anywhere; white-space: normal; max-width: 360px; text-align: left; }
th.name { text-align: center; }
table.photos th, table.photos td { text-align: left; vertical-align: top; }
tr.sep td { border-top: 2px solid #c9ced8; }
tr.mean td { font-weight: 600; background: #fafbfc; }
figure { margin: 14px 0 22px; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; }
figcaption { color: var(--muted); font-size: 12.5px; margin-top: 4px; max-width: 980px; }
.sheet img { width: 100%; max-width: 1530px; }
code { background: var(--soft); padding: 1px 4px; border-radius: 4px; font-size: 12.5px; }
.notes li { color: var(--muted); }
.warn { background: #fde8c8; color: #5a3700; border-radius: 6px; padding: 8px 12px; }
dl.kv { display: grid; grid-template-columns: 170px 1fr; gap: 2px 14px; margin: 4px 0 14px; font-size: 13px; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; overflow-wrap: anywhere; }
"""


#: what a notebook fragment keeps of the page's style: the colours, cards, badges and figures
_FRAGMENT_SELECTORS = (
    ":root",
    ".cards",
    ".card",
    ".badge",
    ".muted",
    ".small",
    "figure",
    "figcaption",
)


def _scoped_css(scope: str) -> str:
    """The page's rules for :data:`_FRAGMENT_SELECTORS`, each selector prefixed with ``scope`` (so
    a fragment inside a notebook styles only itself); ``:root`` becomes ``scope``."""
    rules = [f"{scope} {{ color: var(--fg); background: var(--bg); padding: 6px 0; }}"]
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", CSS):
        kept = [
            scope if sel == ":root" else f"{scope} {sel}"
            for sel in (x.strip() for x in selectors.split(","))
            if sel.split()[0] in _FRAGMENT_SELECTORS
        ]
        if kept:
            rules.append(", ".join(kept) + " {" + body + "}")
    return "\n".join(rules)


def figure(
    png: bytes | None, alt: str, caption: str, mime: str = "image/png", cls: str = ""
) -> str:
    """``png`` (image bytes of type ``mime``) as a ``<figure>`` with its data URI, escaped ``alt``
    text and ``caption`` (HTML, not escaped); ``""`` for no image."""
    if not png:
        return ""
    c = f' class="{cls}"' if cls else ""
    return (
        f'<figure{c}><img src="{png_data_uri(png, mime)}" alt="{e(alt)}">'
        f"<figcaption>{caption}</figcaption></figure>"
    )


def summary_card(res: ResultsLike) -> str:
    """The result's card: its label, dataset, and headline numbers (``.card`` of :data:`CSS`)."""
    items: list[tuple[str, str]] = []
    c, p = res.c, res.p
    badge = ""
    if c is not None:
        vs = "" if c.baseline == "alexnet" else f" (vs {c.baseline})"
        part = f"Partial mCE, {c.covered} of 15" if c.partial else "mCE"
        items += [
            ("Clean error", pct(c.clean_error)),
            (part + vs, pct(c.partial_mce if c.partial else c.mce)),
            (
                "Partial relative mCE" if c.partial else "Relative mCE",
                pct(c.partial_relative_mce if c.partial else c.relative_mce),
            ),
            (f"Mean error, {c.covered if c.partial else 15} corruptions", pct(c.mean_error)),
            ("Mean error, 4 extra", pct(c.extra_mean_error)),
        ]
        items += leaderboard_rows(res)
        if c.partial:
            badge = f'<span class="badge">{partial_tag(c)}</span>'
    if res.cbar is not None:
        items += [(k, e(v)) for k, v in cbar_headline(res.cbar, with_clean=c is None)]
        if res.cbar.partial and not badge:
            badge = f'<span class="badge">{e(cbar_partial_tag(res.cbar))}</span>'
    if p is not None:
        items += [("mFR", pct(p.mfr)), ("mT5D", pct(p.mt5d))]
        fps = list(p.flip_probability.values())
        items.append(("Mean flip probability", pct(sum(fps) / len(fps), 2) if fps else DASH))
    if res.score is not None:
        items += [(k, e(v)) for k, v in score_headline(res.score)]
        if res.score.partial:
            badge = f'<span class="badge">partial: {15 - len(res.score.missing)}/15</span>'
        elif not res.score.complete:
            badge = '<span class="badge">incomplete</span>'
    if res.calibration is not None:
        items += [(k, e(v)) for k, v in calibration_headline(res.calibration)]
    ds = res.dataset
    sub = ", ".join(e(v) for v in (layout_label(res), ds.profile) if v)
    if ds.protocol is not None:
        sub += f", protocol {e(ds.protocol)}"
    if ds.num_images is not None:
        sub += f", {e(ds.num_images)} images"
    rows = "".join(f"<dt>{e(k)}</dt><dd>{v}</dd>" for k, v in items)
    return f'<div class="card"><h3>{e(res.label)}{badge}</h3><p class="muted small">{sub}</p><dl>{rows}</dl></div>'


def render_fragment(results: Sequence[ResultsLike]) -> str:
    """The report's summary cards and main figure as an HTML fragment, for a notebook cell.

    What ``Results._repr_html_`` shows: the page's summary card of each result, then the
    CE-per-corruption figure (or, when no corruption has all five severities and so no CE, the
    error-against-severity figure), the C-bar error-against-level figure of C-bar results and
    the flip-probability figure of ImageNet-P results.
    Figures are inline PNG data URIs; no script, no network.

    Args:
        results: Validated results.

    Returns:
        A ``<div>`` with its own scoped ``<style>``.
    """
    ordered = sort_by_mce(list(results))
    c_rows = [r for r in ordered if r.c is not None]
    parts = [
        f'<div class="corruptbench-results"><style>{_scoped_css(".corruptbench-results")}</style>',
        '<div class="cards">' + "".join(summary_card(r) for r in ordered) + "</div>",
    ]
    ce = ce_bars(ordered)
    if ce is not None:
        parts.append(
            figure(
                ce,
                "CE per corruption",
                "Corruption error (CE) per corruption; the dashed line is the baseline (100%).",
            )
        )
    elif c_rows:
        parts.append(
            '<p class="muted small">No CE: it needs all five severities of a corruption.</p>'
            + figure(
                severity_curves(ordered),
                "Error vs severity",
                "Top-1 error against severity (severity 0 = clean error).",
            )
        )
    if any(r.cbar is not None for r in ordered):
        parts.append(
            figure(
                cbar_curves(ordered),
                "C-bar error vs level",
                "ImageNet-C-bar / CIFAR-10-C-bar: top-1 error against level, one panel per "
                "corruption (the level's value under its number).",
            )
        )
    if any(r.score is not None for r in ordered):
        rel = rpc_bars(ordered)
        parts.append(
            figure(
                rel,
                "Relative performance per corruption",
                "Mean score over the 5 severities divided by the clean score P, per corruption "
                "(100% = as good as on clean data).",
            )
            if rel is not None
            else figure(
                score_curves(ordered),
                "Score vs severity",
                "Score against severity (severity 0 = the clean score P); cells not scored yet "
                "are left out.",
            )
        )
    if any(r.p is not None for r in ordered):
        parts.append(
            figure(
                flip_bars(ordered),
                "Flip probability",
                "ImageNet-P flip probability per perturbation (lower = more stable predictions).",
            )
        )
    parts.append("</div>")
    return "".join(parts)

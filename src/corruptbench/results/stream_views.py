"""What a test-time-adaptation stream result (:mod:`~corruptbench.results.stream_part`) shows:
the terminal summary as the reference logs it, the table TTA papers print (one row per result,
one column per domain in stream order, then the mean: TENT, Wang et al. ICLR 2021, table 2;
CoTTA, Wang et al. CVPR 2022, tables 1-3), a Markdown section, the error along the stream as a
figure, and the Markdown and HTML reports of several stream results.

Several results share one table only when their domains come in the same order
(:func:`check_domain_orders`); other settings that differ, and the options of one method that
differ among its results (tent's ``lr``), are named in a warning (:func:`stream_mismatches`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from .parts import ResultsLike
from .stream_part import StreamPart

__all__ = [
    "short_name",
    "row_names",
    "check_domain_orders",
    "stream_mismatches",
    "table_rows",
    "markdown_table",
    "text_table",
    "stream_summary",
    "report_section",
    "error_along_stream_figure",
    "render_stream_markdown",
    "render_stream_html",
    "html_fragment",
]

#: the settings that, when they differ between results of one table, are named in a warning
_COMPARED = ("dataset", "setting", "severities", "num_examples", "image_list", "seed", "batch_size")


def _part(r: ResultsLike) -> StreamPart:
    if r.stream is None:
        raise ValueError(f"{r.source or r.label}: not a stream result (kind {r.kind!r})")
    return r.stream


def _logged(v: float) -> str:
    """An error as the reference logs it (``62.75%``): the one rounding of every view here."""
    return f"{v:.2%}"


def _pct(v: float | None) -> str:
    """A table's error % to one decimal: :func:`_logged`'s number rounded half up, so a table
    never disagrees with the summary (``62.75%`` -> 62.8; ``100 * 0.6275`` alone is 62.7499...,
    which gave 62.7)."""
    if v is None or math.isnan(v):
        return "-"
    return str(Decimal(_logged(v)[:-1]).quantize(Decimal("0.1"), ROUND_HALF_UP))


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def short_name(domain: str) -> str:
    """A table column's label: the first word of the name (``gaussian_noise`` -> ``gaussian``),
    as TTA papers shorten them; of each name in a CCC pair (``gaussian_noise+motion_blur`` ->
    ``gaussian+motion``), so that two pairs never share a label."""
    return "+".join(part.split("_")[0] for part in domain.split("+"))


def row_names(results: Sequence[ResultsLike], label: str | None = None) -> list[str]:
    """Each result's row name: its method when all are of one model, its model when all share
    one method, else ``method (model)``; ``label`` (``"adapt"`` / ``"model"``) forces one. A
    name given twice gets the file's name."""
    adapts = [_part(r).adapt for r in results]
    models = [r.model_id for r in results]
    if label is None:
        label = "adapt" if len(set(models)) == 1 else "model" if len(set(adapts)) == 1 else ""
    names = {"adapt": adapts, "model": models}.get(label)
    if names is None:
        names = [f"{a} ({m})" for a, m in zip(adapts, models)]
    out = []
    for name, r in zip(names, results):
        if names.count(name) > 1 and r.source:
            name = f"{name} ({Path(r.source).name})"
        while name in out:
            name += "'"
        out.append(name)
    return out


def _order_text(part: StreamPart) -> str:
    name = part.settings.get("order_name")
    head = ", ".join(part.order[:3]) + (", ..." if len(part.order) > 3 else "")
    return f"order {name} ({head})" if name else f"order ({head})"


def check_domain_orders(results: Sequence[ResultsLike]) -> list[str]:
    """The domains in stream order that every result shares.

    Raises:
        ValueError: the results come in different orders (one line naming both).
    """
    first = results[0]
    order = _part(first).order
    for r in results[1:]:
        other = _part(r).order
        if other != order:
            raise ValueError(
                f"stream results of different domain orders cannot share one table: "
                f"{first.source or first.label} has {_order_text(_part(first))}, "
                f"{r.source or r.label} has {_order_text(_part(r))}; report them apart"
            )
    return order


def _differ(what: str, values: Sequence[tuple[ResultsLike, Any]]) -> list[str]:
    """``the {what} (who: value; ...)`` when the results' values are not all one, else none;
    each result named by its label, and its file where labels repeat (one model, two runs)."""
    labels = [r.label for r, _ in values]
    seen: dict[str, list[str]] = {}
    for r, value in values:
        who = r.label
        if labels.count(who) > 1 and r.source:
            who = f"{who} ({Path(r.source).name})"
        seen.setdefault(str(value), []).append(repr(who))
    if len(seen) < 2:
        return []
    shown = "; ".join(f"{', '.join(who)}: {v}" for v, who in seen.items())
    return [f"the {what} ({shown})"]


def stream_mismatches(results: Sequence[ResultsLike]) -> list[str]:
    """One warning per setting (dataset, setting, severities, ...) that differs among results
    sharing a table, and per option of a method (tent's lr, ...) that differs among its results
    (those that record their options)."""
    out = []
    for key in _COMPARED:
        out += _differ(
            f"stream results differ in {key}", [(r, _part(r).settings.get(key)) for r in results]
        )
    by_method: dict[str, list[ResultsLike]] = {}
    for r in results:
        if _part(r).adapt_options is not None:
            by_method.setdefault(_part(r).adapt, []).append(r)
    for method, group in by_method.items():
        for key in dict.fromkeys(k for r in group for k in _options(r)):
            values = [(r, _options(r).get(key)) for r in group]
            out += _differ(f"{method} results differ in {key}", values)
    return out


def _options(r: ResultsLike) -> dict[str, Any]:
    return _part(r).adapt_options or {}


def table_rows(
    results: Sequence[ResultsLike], label: str | None = None
) -> tuple[list[str], list[list[str]]]:
    """The TTA table as text cells: header (``method``, the domains' short names, ``mean``) and
    one row per result (error %, one decimal; ``-`` for a domain it did not see)."""
    order = check_domain_orders(results)
    labels = [short_name(d) for d in order]
    labels = labels if len(set(labels)) == len(labels) else list(order)  # never two alike
    head = ["method", *labels, "mean"]
    rows = []
    for name, r in zip(row_names(results, label), results):
        part = _part(r)
        err = part.domain_errors()
        rows.append([name, *(_pct(err.get(d)) for d in order), _pct(part.mean)])
    return head, rows


def markdown_table(results: Sequence[ResultsLike], label: str | None = None) -> str:
    """The TTA table in Markdown (:func:`table_rows`)."""
    if not results:
        return ""
    head, rows = table_rows(results, label)
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(results: Sequence[ResultsLike], label: str | None = None) -> str:
    """The TTA table as aligned plain text, for a terminal."""
    head, rows = table_rows(results, label)
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    fmt = [
        (lambda s, w=w: s.ljust(w)) if i == 0 else (lambda s, w=w: s.rjust(w))
        for i, w in enumerate(widths)
    ]
    return "\n".join("  ".join(f(c) for f, c in zip(fmt, row)) for row in [head, *rows])


def stream_summary(res: ResultsLike) -> str:
    """The terminal summary: each block's error as the reference logs it, then the means."""
    part = _part(res)
    lines = [f"{stream_title(part)}, {part.adapt}, model {res.model_id}: {part.samples:,} samples"]
    if len(part.blocks) > MAX_BLOCK_LINES:
        lines.append(f"  ({len(part.blocks):,} blocks: their errors are in the results JSON)")
    for b in part.blocks if len(part.blocks) <= MAX_BLOCK_LINES else []:
        sev = "" if b.severity is None else f"{'@' * isinstance(b.severity, str)}{b.severity}"
        lines.append(f"  error % [{b.name}{sev}][#samples={b.n}]: {_logged(b.error)}")
    tail = f"mean error: {_logged(part.mean)}"
    if part.mean_at_5 is not None and any(b.severity != 5 for b in part.blocks):
        tail += f", mean error at 5: {_logged(part.mean_at_5)}"
    lines.append(tail)
    if len(part.domains) > 1 and any(b.name == "mixed" for b in part.blocks):
        lines += [f"  {d.name:<20} error: {_logged(d.error)}" for d in part.domains]
        lines.append(f"Average error across all domains: {_logged(part.domain_mean)}")
    lines.append(f"Error over all samples: {_logged(part.overall)}")
    return "\n".join(lines)


#: above this many blocks (a 7.5M-image CCC run has 7,500 walk steps) the summary lists none
MAX_BLOCK_LINES = 1000


def stream_title(part: StreamPart) -> str:
    """What was evaluated, in a few words: a TTA stream's dataset and setting, else the
    settings' ``name`` (a CCC run's)."""
    s = part.settings
    if "setting" in s:
        return (
            f"{s.get('dataset')} {s.get('setting')} (order {s.get('order_name')}, seed "
            f"{s.get('seed')}, batch {s.get('batch_size')})"
        )
    return f"{s.get('name', 'stream')} (seed {s.get('seed')})"


def _means_line(part: StreamPart) -> str:
    at5 = f", at severity 5 {_logged(part.mean_at_5)}" if part.mean_at_5 is not None else ""
    return (
        f"Mean of the blocks' errors {_logged(part.mean)}{at5}; average over domains "
        f"{_logged(part.domain_mean)}; over all samples {_logged(part.overall)}."
    )


def _setup_line(res: ResultsLike) -> str:
    part = _part(res)
    s = part.settings
    how = (
        f"order {s.get('order_name')}, severities {s.get('severities')}, seed {s.get('seed')}, "
        f"batch size {s.get('batch_size')}; "
        if "setting" in s  # else a CCC run, named by its title
        else ""
    )
    options = ", ".join(f"{k} {v}" for k, v in (part.adapt_options or {}).items())
    return (
        f"Model {res.model_id}, adaptation {part.adapt}{f' ({options})' if options else ''}; "
        f"{how}{part.samples:,} samples (sequence SHA-256 {part.sequence_sha256[:16]})."
    )


def calibration_rows(part: StreamPart) -> list[tuple[str, float, Any, Any, Any]]:
    """``(domain, error, NLL, ECE, Brier)`` per domain."""
    out = []
    for d in part.domains:
        c = d.calibration or {}
        out.append((d.name, d.error, c.get("nll"), c.get("ece"), c.get("brier")))
    return out


def _calibration_table(part: StreamPart) -> list[str]:
    lines = [
        f"| domain | error % | NLL | ECE ({part.ece_bins} bins) | Brier |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, err, nll, ece, brier in calibration_rows(part):
        lines.append(f"| {name} | {_pct(err)} | {_num(nll)} | {_num(ece)} | {_num(brier)} |")
    return lines


def report_section(res: ResultsLike) -> str:
    """One result's Markdown section: the table, the means, calibration per domain."""
    s = _part(res).settings
    what = f"{s.get('dataset')}, {s.get('setting')}" if "setting" in s else stream_title(_part(res))
    lines = [
        f"## Test-time adaptation: {what}",
        "",
        _setup_line(res),
        "",
        markdown_table([res]),
        "",
        _means_line(_part(res)),
        "",
        *_calibration_table(_part(res)),
    ]
    return "\n".join(lines) + "\n"


def render_stream_markdown(results: Sequence[ResultsLike], warnings: Sequence[str] = ()) -> str:
    """The Markdown report of stream results: the TTA table of all, then each result's setup,
    means and calibration per domain."""
    part = _part(results[0])
    s = part.settings
    lines = [
        "# corruptbench test-time adaptation report",
        "",
        *(f"> **Warning:** {w}" for w in warnings),
        *([""] if warnings else []),
        f"## Error % per domain: {s.get('dataset')}, {s.get('setting')}, {_order_text(part)}",
        "",
        markdown_table(results),
        "",
        'Mean: the mean of the blocks\' errors, as the reference prints its "mean error".',
    ]
    for name, r in zip(row_names(results), results):
        lines += ["", f"### {name}", "", _setup_line(r), "", _means_line(_part(r)), ""]
        lines += _calibration_table(_part(r))
    return "\n".join(lines) + "\n"


def error_along_stream_figure(
    results: Sequence[ResultsLike], *, window: int = 1, names: Sequence[str] | None = None
) -> Any:
    """The error of each batch along the stream (moving average over ``window`` batches), one
    line per result, the blocks' boundaries marked and named: a matplotlib Figure."""
    from ..extras import require

    require("matplotlib", "the error-along-stream figure")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    names = list(names) if names is not None else row_names(results)
    fig, ax = plt.subplots(figsize=(10, 3.2))
    for name, r in zip(names, results):
        part = _part(r)
        b = np.asarray(part.batches, dtype=np.float64).reshape(-1, 3)
        if not len(b):
            continue
        err = b[:, 2] / np.maximum(b[:, 1], 1)
        if window > 1:
            err = np.convolve(err, np.ones(window) / window, mode="same")
        ax.plot(b[:, 0] + b[:, 1] / 2, 100 * err, lw=1, label=f"{name} ({_pct(part.mean)})")
    first = _part(results[0])
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


def _html_table(head: list[str], rows: list[list[str]]) -> str:
    from .card import e

    th = "".join(f"<th>{e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def html_fragment(results: Sequence[ResultsLike]) -> str:
    """The TTA table as an HTML fragment (a notebook cell's view of a stream result)."""
    head, rows = table_rows(results)
    return f'<div class="corruptbench-stream">{_html_table(head, rows)}</div>'


def render_stream_html(
    results: Sequence[ResultsLike],
    *,
    title: str = "corruptbench test-time adaptation report",
    warnings: Sequence[str] = (),
) -> str:
    """The HTML report of stream results as one self-contained document: the TTA table, the
    error along the stream, each result's means and calibration per domain, provenance."""
    import io

    import matplotlib.pyplot as plt

    from ..version import __version__
    from .card import CSS, e, figure
    from .html_tables import provenance_list

    head, rows = table_rows(results)
    fig = error_along_stream_figure(results, window=1)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    part = _part(results[0])
    s = part.settings
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "img-src data:; style-src 'unsafe-inline'\">",
        f"<title>{e(title)}</title><style>{CSS}</style></head><body><main>",
        f'<header><h1>{e(title)}</h1><p class="sub">{len(results)} stream result file'
        f"{'s' if len(results) != 1 else ''} &middot; corruptbench {e(__version__)}</p>",
        *(f'<p class="warn"><strong>Warning:</strong> {e(w)}</p>' for w in warnings),
        "</header>",
        f'<section id="stream"><h2>Error % per domain: {e(s.get("dataset"))}, '
        f"{e(s.get('setting'))}, {e(_order_text(part))}</h2>",
        _html_table(head, rows),
        '<p class="small">Mean: the mean of the blocks\' errors, as the reference prints its '
        "&ldquo;mean error&rdquo;.</p>",
        figure(
            buf.getvalue(),
            "error along the stream",
            "Error of each batch along the stream; grey lines mark the blocks.",
        ),
        "</section>",
    ]
    for name, r in zip(row_names(results), results):
        p = _part(r)
        cal = [
            [d, _pct(err), _num(nll), _num(ece), _num(brier)]
            for d, err, nll, ece, brier in calibration_rows(p)
        ]
        parts += [
            f"<section><h3>{e(name)}</h3><p>{e(_setup_line(r))}</p><p>{e(_means_line(p))}</p>",
            _html_table(["domain", "error %", "NLL", f"ECE ({p.ece_bins} bins)", "Brier"], cal),
            "</section>",
        ]
    parts.append('<section id="provenance"><h2>Provenance</h2>')
    parts += [provenance_list(r) for r in results]
    parts.append("</section></main></body></html>")
    return "\n".join(x for x in parts if x)

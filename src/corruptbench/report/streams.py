"""The report of test-time-adaptation stream results (``eval-stream --out`` files): the table TTA
papers print, one row per file, in Markdown, CSV (the one long CSV format) or HTML (with the
error along the stream); the views are the results' own (:mod:`corruptbench.results.stream_views`).

A report holds stream results only (an eval-c file measures something else), and they share one
table only when their domains come in the same order; other settings that differ (the setting,
severities, ...) are written as warnings.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..results import Results

__all__ = ["check_stream_report", "render_stream_report"]


def _name(res: Results) -> str:
    return Path(res.source).name if res.source else res.label


def check_stream_report(results: Sequence[Results]) -> list[str]:
    """The warnings of a report of ``results``, all stream results in the same domain order.

    Raises:
        ValueError: stream results beside others, or in different domain orders (one line).
    """
    from ..results.stream_views import check_domain_orders, stream_mismatches

    others = [r for r in results if r.stream is None]
    if others:
        stream = next(r for r in results if r.stream is not None)
        raise ValueError(
            f"stream results ({_name(stream)}) cannot share a report with {others[0].kind!r} "
            f"results ({_name(others[0])}); report them apart"
        )
    check_domain_orders(results)
    return stream_mismatches(results)


def render_stream_report(results: Sequence[Results], fmt: str, *, title: str = "") -> str:
    """``results`` (stream results, labels made unique) as ``html``, ``md`` or ``csv`` text."""
    from ..results.stream_views import render_stream_html, render_stream_markdown

    warnings = check_stream_report(results)
    if fmt == "csv":
        from ..results.export import render_csv

        return render_csv(results)
    if fmt == "md":
        return render_stream_markdown(results, warnings)
    from ..extras import require

    require("matplotlib", "the HTML report")
    return render_stream_html(results, warnings=warnings, **({"title": title} if title else {}))

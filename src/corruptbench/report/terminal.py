"""Terminal summary of one results object (rich tables), printed at the end of eval-c/eval-p/demo.

The tables themselves are a view of the result (:mod:`corruptbench.results.text`); this module
takes a result as it comes (a results object or its JSON dict) and prints them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console

from ..results import Results
from ..results.text import headline_rows, summary_text, write_summary

__all__ = ["print_summary", "summary_text", "headline_rows"]


def print_summary(results: Mapping[str, Any] | Results, *, console: Console | None = None) -> None:
    """Print the headline numbers and per-corruption / per-perturbation tables of one result.

    Args:
        results: A results object as written to ``results.json`` (``corruptbench.results/1``), or a
            :class:`~corruptbench.results.Results`. A malformed object is reported in one line
            instead of raising, so an evaluation that already wrote its file still finishes.
        console: A ``rich`` console (default: a new one on stdout).
    """
    console = console or Console()
    if isinstance(results, Results):
        res = results
    else:
        try:
            res = Results.from_dict(dict(results), "results")
        except (ValueError, TypeError) as exc:
            console.print(f"[yellow]cannot summarise the results: {exc}[/yellow]")
            return
    if res.stream is not None:  # a test-time adaptation stream: as the reference logs it
        console.print(res.summary(), markup=False, highlight=False)
        return
    write_summary(res, console)

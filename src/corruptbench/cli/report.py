"""``corruptbench report``: HTML / Markdown / CSV report of one or more results files."""

from __future__ import annotations

import argparse
import os
import sys

from ..report import FORMATS
from ..safe_text import printable
from .options import check_output


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="write a report (HTML, Markdown or CSV) of results files",
        description=(
            "Write one self-contained HTML file (or Markdown / CSV tables) summarising eval-c / eval-p "
            "/ demo results files, or the table TTA papers print for eval-stream results; with "
            "several files, models are compared side by side, sorted by mCE."
        ),
    )
    p.add_argument(
        "results",
        nargs="+",
        metavar="RESULTS.json",
        help="results files written by eval-c, eval-p or demo, or by eval-stream (one row each)",
    )
    p.add_argument(
        "--out",
        "-o",
        default=None,
        help="output file: .html, .md or .csv (default: report.html, or report.<--format>)",
    )
    p.add_argument(
        "--format",
        "-f",
        choices=FORMATS,
        default=None,
        help="output format (default: the one --out's suffix names; another suffix needs it)",
    )
    p.add_argument(
        "--baseline",
        default=None,
        metavar="NAME",
        help="re-normalise CE/mCE: 'alexnet' (published errors), 'uniform' (unnormalised), the model id "
        "of one of the results, or another results file (also gives mFR/mT5D when it has ImageNet-P numbers). "
        "Default: the numbers stored in the files",
    )
    p.add_argument(
        "--sample",
        metavar="IMAGE",
        default=None,
        help="photo for the contact sheet (default: scikit-image's chelsea)",
    )
    p.add_argument(
        "--no-contact-sheet",
        action="store_true",
        help="leave out the contact sheet (faster, smaller file)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..report import build_report

    fmt = args.format
    out = args.out
    if out is None:
        out = f"report.{fmt or 'html'}"
    reads = [("the results file", r) for r in args.results]
    for flag in ("baseline", "sample"):  # --baseline may name a model instead of a file
        if getattr(args, flag) and os.path.isfile(getattr(args, flag)):
            reads.append((f"--{flag}", getattr(args, flag)))
    check_output(out, "--out", writes="report", inputs=reads)
    path = build_report(
        args.results,
        out,
        fmt,
        baseline=args.baseline,
        sample=args.sample,
        contact_sheet=not args.no_contact_sheet,
        on_warning=lambda text: print(
            f"corruptbench report: warning: {printable(text)}", file=sys.stderr
        ),
    )
    _print_stream_table(args.results)
    print(f"wrote {printable(path)}", file=sys.stdout)
    return 0


def _print_stream_table(paths: list[str]) -> None:
    """Stream results (eval-stream): the TTA table on the terminal too."""
    from ..report.baseline import unique_labels
    from ..results import Results
    from ..results.stream_views import text_table

    results = [Results.from_json(p) for p in paths]  # read and checked already: small files
    if results and all(r.stream is not None for r in results):
        print(printable(text_table(unique_labels(results)), keep_newlines=True))

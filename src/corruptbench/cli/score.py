"""``corruptbench score TABLE.csv [...]``: P, mPC and rPC (Michaelis et al. 2019) of the per-cell
scores a toolkit already wrote (mmdetection, detectron2, a spreadsheet), one table per model;
results files and a report. See :mod:`corruptbench.results.score_table` for the table."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from ..errors import Arg, ArgumentError
from ..safe_text import printable
from .options import check_output

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="P, mPC, rPC of task-score tables (detection, segmentation, any score)",
        description=(
            "Read one table per model with the columns corruption, severity, score (severity 0 = "
            "the clean score; any higher-is-better score: box AP, mask AP, mIoU, accuracy) and "
            "print P (clean score), mPC (mean over the 15 benchmark corruptions x 5 severities) "
            "and rPC = mPC / P of Michaelis et al. (2019). Every table is checked first (a NaN "
            "or -1 score - COCOeval's 'undefined' -, a missing cell, a severity outside 0..5, a "
            "cell given twice, a clean score of 0, scores off their scale or on two scales are "
            "one error line each); then the results files and the report are written."
        ),
    )
    p.add_argument(
        "tables",
        nargs="+",
        metavar="TABLE.csv",
        help="CSV (or tab / semicolon separated) with a header corruption,severity,score; "
        "one file per model",
    )
    p.add_argument(
        "--names",
        nargs="+",
        default=None,
        metavar="NAME",
        help="model names, one per table (default: the file names without extension)",
    )
    p.add_argument(
        "--metric", default="score", help="what the score is, for display (e.g. 'box AP')"
    )
    p.add_argument(
        "--column",
        default="score",
        metavar="HEADER",
        help="the header of the score column (default score; other columns are ignored)",
    )
    p.add_argument(
        "--scale",
        choices=("fraction", "percent"),
        default=None,
        help="the tables' scores are fractions (0..1) or percentages (0..100); default: "
        "detected per table (fractions when no score is above 1), and a table mixing the two "
        "is refused",
    )
    p.add_argument(
        "--partial",
        action="store_true",
        help="allow benchmark corruptions to be absent: mPC over those given (flagged partial)",
    )
    p.add_argument(
        "--out-dir",
        default=None,
        metavar="DIR",
        help="write one results file per table, DIR/<name>.json (for corruptbench report)",
    )
    p.add_argument(
        "--report",
        default=None,
        metavar="FILE",
        help="write a report comparing the models: .html, .md or .csv",
    )
    p.set_defaults(func=run)


def _file_name(model_id: str) -> str:
    """A results file name for a model id (characters other than letters, digits, ``._-``
    become ``_``)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", model_id).strip(".") or "model"


def _table_lines(results: list) -> list[str]:
    from ..results.format import pct, score_num

    rows = [("model", "metric", "P", "mPC", "rPC")]
    for r in results:
        s = r.score
        label = r.label + (f" (partial: {15 - len(s.missing)}/15)" if s.partial else "")
        rows.append((label, s.metric, score_num(s.clean), score_num(s.mpc), pct(s.rpc)))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    return [
        "  ".join(v.ljust(w) if i < 2 else v.rjust(w) for i, (v, w) in enumerate(zip(row, widths)))
        for row in rows
    ]


def run(args: argparse.Namespace) -> int:
    from ..fileio import write_text
    from ..report import render_report, report_format
    from ..report.baseline import unique_labels
    from ..results.score_table import results_from_table

    names = args.names or [None] * len(args.tables)
    if len(names) != len(args.tables):
        raise ArgumentError(
            Arg("names"), f" gives {len(names)} names for {len(args.tables)} tables"
        )
    fmt = report_format(args.report) if args.report else None
    results = unique_labels(
        [
            results_from_table(
                table,
                name=name,
                metric=args.metric,
                column=args.column,
                partial=args.partial,
                scale=args.scale,
            )
            for table, name in zip(args.tables, names)
        ]
    )
    files: dict[Path, str] = {}
    tables = [("the input table", t) for t in args.tables]
    if args.out_dir is not None:
        for res in results:
            path = Path(args.out_dir) / f"{_file_name(res.label)}.json"
            if path in files:
                raise ArgumentError(
                    f"two tables would both be written to {path}; give distinct ", Arg("names")
                )
            check_output(path, "--out-dir's", writes="results:score", inputs=tables)
            files[path] = res.to_text()
    if args.report:
        written = [("the results file", p) for p in files]
        check_output(args.report, "--report", writes="report", inputs=[*tables, *written])
        # rendered before anything is written: a report that fails leaves no results files
        files[Path(args.report)] = render_report(results, fmt or "html", contact_sheet=False)
    for line in _table_lines(results):
        print(printable(line))
    for res in results:
        if res.score is not None and res.score.partial:
            missing = ", ".join(res.score.missing)
            print(printable(f"note: {res.label}: mPC leaves out {missing}"))
    for path, text in files.items():
        write_text(path, text, make_parents=True)
        print(f"wrote {printable(path)}")
    return 0

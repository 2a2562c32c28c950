"""Reports of results files: terminal summary, self-contained HTML, Markdown and CSV.

Examples:
    >>> from corruptbench.report import build_report          # doctest: +SKIP
    >>> build_report(["resnet50.json", "effnet.json"], "report.html")  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..results import Results
from .baseline import apply_baseline, unique_labels
from .terminal import print_summary

__all__ = [
    "print_summary",
    "build_report",
    "render_report",
    "FORMATS",
]

FORMATS = ("html", "md", "csv")


def render_report(
    results: Sequence[Results],
    fmt: str = "html",
    *,
    baseline: str | None = None,
    sample: np.ndarray | None = None,
    sample_name: str = "",
    contact_sheet: bool = True,
    grid: tuple[np.ndarray, dict] | None = None,
    sequences: dict | None = None,
    title: str = "corruptbench robustness report",
    intro: str = "",
) -> str:
    """Render validated results as ``html``, ``md`` or ``csv`` text.

    For HTML with ``contact_sheet=True`` the sheet shows ``grid`` (``(clean, {corruption: images})``,
    as the demo passes it) or, without it, ``sample`` (default: scikit-image's chelsea) corrupted here.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    results = apply_baseline(unique_labels(results), baseline)
    if fmt == "md":
        from .markdown import render_markdown

        return render_markdown(results)
    if fmt == "csv":
        from .markdown import render_csv

        return render_csv(results)
    from ..extras import require

    require("matplotlib", "the HTML report")
    from . import contact
    from .html import render_html

    sheet = strip = None
    if contact_sheet:
        if grid is None:
            image = contact.sample_image() if sample is None else sample
            if not sample_name:
                sample_name = "scikit-image 'chelsea'" if sample is None else "sample image"
            grid = contact.corruption_grid(image)
            if sequences is None:
                sequences = contact.perturbation_sequences(
                    image, ("gaussian_noise", "rotate", "brightness", "translate")
                )
        sheet = contact.contact_sheet(*grid)
        strip = contact.perturbation_strip(sequences or {})
    return render_html(
        results,
        title=title,
        contact_sheet=sheet,
        perturbation_strip=strip,
        sample_name=sample_name,
        intro=intro,
    )


def build_report(
    paths: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    fmt: str | None = None,
    *,
    baseline: str | None = None,
    sample: str | None = None,
    contact_sheet: bool = True,
) -> Path:
    """Load ``paths`` (results JSON files), validate them and write the report to ``out``.

    ``fmt`` defaults to the suffix of ``out`` (``.md`` -> Markdown, ``.csv`` -> CSV, else HTML).

    Raises:
        ValueError: a malformed or incompatible results file (message names the file), bad options.
    """
    if not paths:
        raise ValueError("give at least one results file")
    out_path = Path(out)
    if fmt is None:
        fmt = {".md": "md", ".markdown": "md", ".csv": "csv"}.get(out_path.suffix.lower(), "html")
    results = [Results.from_json(p) for p in paths]
    image = None
    name = ""
    if sample is not None and contact_sheet and fmt == "html":
        from .contact import sample_image

        image = sample_image(sample)
        name = Path(sample).name
    text = render_report(
        results, fmt, baseline=baseline, sample=image, sample_name=name, contact_sheet=contact_sheet
    )
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(text, encoding="utf-8")
    return out_path

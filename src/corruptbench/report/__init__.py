"""Reports of results files: terminal summary, self-contained HTML, Markdown and CSV.

This package reads the files, makes their labels unique, applies a common baseline, merges the C
and P results of one model and draws the contact sheets; the tables, figures and formats are
the results' own views (:mod:`corruptbench.results`: page, markdown, export).

Examples:
    >>> from corruptbench.report import build_report          # doctest: +SKIP
    >>> build_report(["resnet50.json", "effnet.json"], "report.html")  # doctest: +SKIP
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..errors import Arg, ArgumentError
from ..fileio import write_text
from ..results import Results
from .baseline import apply_baseline, dataset_mismatches, merge_models, unique_labels
from .terminal import print_summary

__all__ = [
    "print_summary",
    "build_report",
    "render_report",
    "report_format",
    "FORMATS",
    "SUFFIXES",
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
    cbar_grids: dict[str, tuple[np.ndarray, dict]] | None = None,
) -> str:
    """Render validated results as ``html``, ``md`` or ``csv`` text.

    For HTML with ``contact_sheet=True`` the sheet shows ``grid`` (``(clean, {corruption:
    images})``, as the demo passes it) or, without it, ``sample`` (default: scikit-image's
    chelsea) corrupted here, with the ImageNet-P frames of ``sequences``; neither when every
    result holds C-bar numbers only. Test-time-adaptation stream results (``eval-stream``) make a report
    of their own (:mod:`.streams`: the TTA table, the error along the stream; no baseline). Each C-bar benchmark of the results gets a sheet of the
    corruptions they measured: ``cbar_grids[benchmark]`` (``(clean, {corruption: images})``),
    else ``sample`` corrupted here.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if any(r.stream is not None for r in results):  # test-time adaptation: its own table
        from .streams import render_stream_report

        if baseline is not None:
            raise ArgumentError(Arg("baseline"), " applies to CE / mCE, not to stream results")
        return render_stream_report(unique_labels(results), fmt)
    results = apply_baseline(unique_labels(results), baseline)
    mismatches = dataset_mismatches(results)
    if fmt == "csv":  # one number per line, each with the file it comes from
        from ..results.export import render_csv

        return render_csv(results)
    results = merge_models(results)  # the C and P results of one model: one row
    if fmt == "md":
        from ..results.markdown import render_markdown

        return render_markdown(results, warnings=mismatches)
    from ..extras import require

    require("matplotlib", "the HTML report")
    from ..results.page import render_html
    from . import contact

    sheet = strip = None
    cbar_sheets: dict[str, bytes] = {}
    if contact_sheet:
        image = sample
        if grid is None:
            image = contact.sample_image() if sample is None else sample
            if not sample_name:
                sample_name = "scikit-image 'chelsea'" if sample is None else "sample image"
        if not all(_cbar_only(r) for r in results):  # C-bar results: no ImageNet-C / -P grids
            if grid is None:
                assert image is not None  # set above whenever no grid is given
                grid = contact.corruption_grid(image)
                if sequences is None:
                    sequences = contact.perturbation_sequences(
                        image, ("gaussian_noise", "rotate", "brightness", "translate")
                    )
            sheet = contact.contact_sheet(*grid)
            strip = contact.perturbation_strip(sequences or {})
        cbar_sheets = _cbar_sheets(results, image, cbar_grids or {})
    return render_html(
        results,
        title=title,
        contact_sheet=sheet,
        perturbation_strip=strip,
        sample_name=sample_name,
        intro=intro,
        warnings=mismatches,
        cbar_sheets=cbar_sheets,
    )


def _cbar_only(res: Results) -> bool:
    """Whether ``res`` holds C-bar numbers only (no ImageNet-C, ImageNet-P or task scores)."""
    return res.cbar is not None and res.c is None and res.p is None and res.score is None


def _cbar_sheets(
    results: Sequence[Results],
    image: np.ndarray | None,
    given: dict[str, tuple[np.ndarray, dict]],
) -> dict[str, bytes]:
    """Benchmark -> the contact sheet of the C-bar corruptions the results measured with it, for
    every C-bar benchmark among ``results`` (ImageNet-C-bar's at 224 px, CIFAR-10-C-bar's at
    32 px shown at 96): the ``given`` grid of a benchmark (the demo's), else ``image`` (default:
    scikit-image's chelsea) corrupted here."""
    from . import contact

    benchmarks: dict[str, dict[str, None]] = {}
    for r in results:
        if r.cbar is not None:
            benchmarks.setdefault(r.cbar.benchmark, {}).update(dict.fromkeys(r.cbar.errors))
    sheets = {}
    for benchmark, names in benchmarks.items():
        if benchmark in given:
            clean, grid = given[benchmark]
        else:
            photo = contact.sample_image() if image is None else image
            clean, grid = contact.cbar_grid(photo, benchmark, corruptions=list(names))
        cell = 224 if clean.shape[0] > 32 else 96
        sheets[benchmark] = contact.cbar_contact_sheet(clean, grid, benchmark, cell=cell)
    return sheets


#: output file suffix -> report format
SUFFIXES = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".csv": "csv"}


def report_format(out: str | os.PathLike[str], fmt: str | None = None) -> str:
    """The format of a report written to ``out``: ``fmt``, else the one its suffix names.

    Raises:
        ArgumentError: no ``fmt`` and a suffix that names no format (``x.pdf``), an unknown
            ``fmt``, or a ``fmt`` that contradicts the suffix (``--format md`` into ``x.html``).
    """
    suffix = Path(out).suffix.lower()
    by_suffix = SUFFIXES.get(suffix)
    if fmt is None:
        if by_suffix is None:
            raise ArgumentError(
                f"cannot tell the report format from {os.fspath(out)!r}: name a .html, .md or "
                ".csv file, or give ",
                Arg("fmt", "html|md|csv"),
            )
        return by_suffix
    if fmt not in FORMATS:
        raise ArgumentError(Arg("fmt"), f" must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if by_suffix is not None and by_suffix != fmt:
        raise ArgumentError(
            Arg("fmt"), f" {fmt} does not match the file name {os.fspath(out)!r} ({by_suffix})"
        )
    return fmt


def _warnings(results: Sequence[Results]) -> list[str]:
    """What :func:`build_report` warns of: other datasets; for stream results, other settings."""
    texts = dataset_mismatches(results)
    if results and all(r.stream is not None for r in results):
        from ..results.stream_views import stream_mismatches

        texts += stream_mismatches(results)
    return texts


def build_report(
    paths: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    fmt: str | None = None,
    *,
    baseline: str | None = None,
    sample: str | None = None,
    contact_sheet: bool = True,
    on_warning: Callable[[str], None] | None = None,
) -> Path:
    """Load ``paths`` (results JSON files), validate them and write the report to ``out``.

    ``fmt`` defaults to the format the suffix of ``out`` names (:func:`report_format`: ``.html``,
    ``.md``, ``.csv``; any other suffix needs ``fmt``). Warnings (results from different datasets,
    :func:`~corruptbench.report.baseline.dataset_mismatches`; stream results of other settings,
    :func:`~corruptbench.results.stream_views.stream_mismatches`) are written into the report
    (HTML, Markdown) and passed to ``on_warning`` (default: :func:`warnings.warn`).

    Raises:
        ValueError: a malformed or incompatible results file (message names the file), bad options.
    """
    if not paths:
        raise ValueError("give at least one results file")
    out_path = Path(out)
    fmt = report_format(out_path, fmt)
    results = [Results.from_json(p) for p in paths]
    for text in _warnings(unique_labels(results)):
        if on_warning is None:
            warnings.warn(text, stacklevel=2)
        else:
            on_warning(text)
    image = None
    name = ""
    if sample is not None and contact_sheet and fmt == "html":
        from .contact import sample_image

        image = sample_image(sample)
        name = Path(sample).name
    text = render_report(
        results, fmt, baseline=baseline, sample=image, sample_name=name, contact_sheet=contact_sheet
    )
    write_text(out_path, text, make_parents=True)
    return out_path

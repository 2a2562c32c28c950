"""The views of stream results: the table TTA papers print (rows, columns in stream order, the
mean as the reference prints it), row names, the domain-order refusal, the summary, the figure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from corruptbench.results import Results
from corruptbench.results.stream_views import (
    check_domain_orders,
    error_along_stream_figure,
    markdown_table,
    report_section,
    row_names,
    stream_mismatches,
    text_table,
)
from results.stream_support import ORDER, make_stream_results, one_decimal, write_stream


def _read(tmp_path: Path, *made) -> list[Results]:
    return [
        Results.from_json(write_stream(tmp_path, f"{i}-{r.adapt}.json", r))
        for i, r in enumerate(made)
    ]


def _expected_row(res: Results) -> list[str]:
    """The row computed from the counts here: error % per domain in order, then the mean of the
    blocks' errors (np.mean, as test_time.py prints "mean error"), each as one_decimal."""
    assert res.stream is not None
    err = {d.name: d.errors / d.n for d in res.stream.domains}
    mean = np.mean([b.errors / b.n for b in res.stream.blocks])
    return [one_decimal(err[d]) for d in ORDER] + [one_decimal(float(mean))]


def test_the_table_has_a_row_per_method_and_a_column_per_domain_in_order(tmp_path: Path) -> None:
    results = _read(
        tmp_path,
        *(make_stream_results(a, seed=k) for k, a in enumerate(("source", "norm", "tent"))),
    )
    lines = markdown_table(results).splitlines()
    assert lines[0] == "| method | gaussian | fog | contrast | mean |"
    assert lines[1] == "|---|---:|---:|---:|---:|"
    for line, res, name in zip(lines[2:], results, ("source", "norm", "tent")):
        assert line == "| " + " | ".join([name, *_expected_row(res)]) + " |"
    text = text_table(results).splitlines()
    assert text[0].split() == ["method", "gaussian", "fog", "contrast", "mean"]
    assert text[3].split() == ["tent", *_expected_row(results[2])]


def test_rows_are_named_by_what_differs(tmp_path: Path) -> None:
    models = _read(tmp_path, make_stream_results("tent", "a"), make_stream_results("tent", "b"))
    assert row_names(models) == ["a", "b"]
    mixed = _read(tmp_path, make_stream_results("tent", "a"), make_stream_results("norm", "b"))
    assert row_names(mixed) == ["tent (a)", "norm (b)"]
    twice = _read(tmp_path, make_stream_results("tent"), make_stream_results("tent", seed=1))
    assert row_names(twice) == ["tent (0-tent.json)", "tent (1-tent.json)"]
    assert row_names(mixed, "adapt") == ["tent", "norm"]


def test_different_domain_orders_cannot_share_a_table(tmp_path: Path) -> None:
    other = ["fog", "gaussian_noise", "contrast"]
    results = _read(
        tmp_path, make_stream_results("source"), make_stream_results("tent", order=other)
    )
    with pytest.raises(ValueError, match="different domain orders") as info:
        check_domain_orders(results)
    text = str(info.value)
    assert "0-source.json has order custom (gaussian_noise, fog, contrast)" in text
    assert "1-tent.json has order custom (fog, gaussian_noise, contrast)" in text
    assert "\n" not in text
    with pytest.raises(ValueError, match="different domain orders"):
        markdown_table(results)


def test_other_settings_that_differ_are_named(tmp_path: Path) -> None:
    results = _read(
        tmp_path, make_stream_results("source"), make_stream_results("tent", setting="gradual")
    )
    assert check_domain_orders(results) == ORDER
    (line,) = stream_mismatches(results)
    assert line.startswith("the stream results differ in setting (")
    assert "continual" in line and "gradual" in line


def test_options_that_differ_among_one_methods_results_are_named(tmp_path: Path) -> None:
    tent = {"method": "adam", "lr": 1e-3, "steps": 1}
    results = _read(
        tmp_path,
        make_stream_results("source", adapt_options={}),
        make_stream_results("norm", adapt_options={"eps": 1e-5, "momentum": 0.1}),
        make_stream_results("tent", adapt_options=tent),
        make_stream_results("tent", adapt_options={**tent, "lr": 0.01}),
        make_stream_results("tent"),  # an older file: its options unknown, not compared
    )
    assert stream_mismatches(results) == [
        "the tent results differ in lr ('tiny (2-tent.json)': 0.001; 'tiny (3-tent.json)': 0.01)"
    ]
    assert stream_mismatches(results[:3]) == []  # other methods' options: not a difference


def test_the_summary_logs_each_block_as_the_reference(tmp_path: Path) -> None:
    (res,) = _read(tmp_path, make_stream_results("norm"))
    assert res.stream is not None
    text = res.summary()
    b = res.stream.blocks[1]
    assert f"error % [fog5][#samples=20]: {b.errors / b.n:.2%}" in text
    assert text.splitlines()[-1] == f"Error over all samples: {res.stream.overall:.2%}"


def test_the_figure_draws_a_line_per_result(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    results = _read(tmp_path, make_stream_results("source"), make_stream_results("tent", seed=4))
    fig = error_along_stream_figure(results)
    ax = fig.axes[0]
    assert len(ax.lines) == 2 + len(ORDER)  # two results, then a boundary per block
    y = ax.lines[1].get_ydata()
    assert results[1].stream is not None
    batches = np.asarray(results[1].stream.batches)
    assert np.allclose(y, 100 * batches[:, 2] / batches[:, 1])


def test_a_stream_result_shows_its_table_in_a_notebook_and_its_page(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    (res,) = _read(tmp_path, make_stream_results("norm"))
    cells = "".join(f"<td>{c}</td>" for c in ["norm", *_expected_row(res)])
    assert cells in res._repr_html_()
    page = res.to_html(tmp_path / "norm.html")
    assert cells in page and (tmp_path / "norm.html").read_text() == page
    assert "<title>corruptbench: tiny</title>" in page


def test_short_names_of_ccc_pairs_keep_both_corruptions() -> None:
    from corruptbench.results.stream_views import short_name

    assert short_name("gaussian_noise") == "gaussian"
    pairs = ["gaussian_noise+contrast", "gaussian_noise+fog", "contrast+gaussian_noise"]
    assert [short_name(p) for p in pairs] == [
        "gaussian+contrast",
        "gaussian+fog",
        "contrast+gaussian",
    ]


def test_the_table_rounds_the_number_the_summary_shows(tmp_path: Path) -> None:
    """251 / 400 = 0.6275: the summary said "mean error: 62.75%" and the table 62.7 (100 x 0.6275
    is 62.7499... in floating point); the table's one decimal is now the summary's number
    rounded half up, in every view."""
    made = make_stream_results(order=["fog"], n=400, batch=400)
    for part in (*made.blocks, *made.domains, *made.cells):
        part.errors = 251
    made.batches[0][2] = 251
    assert made.domains[0].calibration is not None
    made.domains[0].calibration["top1_error"] = 0.6275
    (res,) = _read(tmp_path, made)
    assert "mean error: 62.75%" in res.summary()
    assert markdown_table([res]).splitlines()[-1] == "| source | 62.8 | 62.8 |"
    assert text_table([res]).splitlines()[-1].split() == ["source", "62.8", "62.8"]
    assert "\n| fog | 62.8 | " in report_section(res)  # the calibration table's error %

"""``corruptbench report`` on eval-stream results: the TTA table (one row per file) in Markdown,
CSV and HTML; refusals of stream results beside others or in different domain orders."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
import torch

import corruptbench.streams as S
from corruptbench.cli import main
from corruptbench.models import Preprocessing
from corruptbench.report import build_report
from corruptbench.results import Results
from corruptbench.results.export import CSV_COLUMNS
from corruptbench.results.stream_views import markdown_table
from results.stream_support import ORDER, make_stream_results, one_decimal, write_stream
from results.support import make_results, write
from streams.conftest import NAMES, tiny_cifar  # noqa: F401 - a fixture

METHODS = ("source", "norm", "tent")


@pytest.fixture
def three_methods(tmp_path: Path) -> list[Path]:
    return [
        write_stream(tmp_path, f"{a}.json", make_stream_results(a, seed=k))
        for k, a in enumerate(METHODS)
    ]


def test_markdown_report_is_the_table_of_the_files(
    three_methods: list[Path], tmp_path: Path
) -> None:
    out = build_report(three_methods, tmp_path / "t.md")
    text = out.read_text()
    table = markdown_table([Results.from_json(p) for p in three_methods])
    assert table in text
    assert [line.split(" | ")[0] for line in table.splitlines()[2:]] == [f"| {a}" for a in METHODS]
    assert text.count("| domain | error % | NLL |") == 3


def test_csv_report_is_the_long_format_with_the_stream_numbers(
    three_methods: list[Path], tmp_path: Path
) -> None:
    out = build_report(three_methods, tmp_path / "t.csv")
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert tuple(rows[0]) == CSV_COLUMNS
    for path in three_methods:
        res = Results.from_json(path)
        assert res.stream is not None
        mine = [r for r in rows if r["file"] == str(path)]
        errors = [(r["name"], float(r["value"])) for r in mine if r["metric"] == "stream_error"]
        assert errors == [(d.name, d.errors / d.n) for d in res.stream.domains]
        (mean,) = [float(r["value"]) for r in mine if r["metric"] == "stream_mean"]
        assert mean == pytest.approx(np.mean([b.errors / b.n for b in res.stream.blocks]))
        cells = {(r["name"], r["severity"]) for r in mine if r["metric"] == "stream_cell_error"}
        assert cells == {(d, "5") for d in ORDER}


def test_html_report_has_the_table_and_the_error_along_the_stream(
    three_methods: list[Path], tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    text = build_report(three_methods, tmp_path / "t.html").read_text()
    assert "<th>method</th><th>gaussian</th><th>fog</th><th>contrast</th><th>mean</th>" in text
    assert text.count('<img src="data:image/png;base64,') == 1
    assert all(f"<td>{a}</td>" in text for a in METHODS)
    assert text.rstrip().endswith("</html>")


def test_stream_results_beside_eval_c_results_are_refused(
    three_methods: list[Path], tmp_path: Path
) -> None:
    c = write(tmp_path, "r50.json", make_results("resnet50", 0.85, 0.2385, seed=1))
    out = tmp_path / "t.md"
    with pytest.raises(ValueError, match=r"stream results \(source.json\) cannot share a report"):
        build_report([three_methods[0], c], out)
    assert not out.exists()


def test_different_domain_orders_are_refused_naming_both(
    three_methods: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = write_stream(tmp_path, "other.json", make_stream_results(order=ORDER[::-1]))
    out = tmp_path / "t.md"
    rc = main(["report", str(three_methods[0]), str(other), "-o", str(out)])
    err = capsys.readouterr().err
    assert rc != 0 and not out.exists()
    assert "source.json has order custom (gaussian_noise, fog, contrast)" in err
    assert "other.json has order custom (contrast, fog, gaussian_noise)" in err


def test_a_baseline_is_refused_for_stream_results(
    three_methods: list[Path], tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="baseline"):
        build_report(three_methods, tmp_path / "t.md", baseline="alexnet")


RAW = Preprocessing(input_size=1, mean=(0.0, 0.0, 0.0), std=(1.0, 1.0, 1.0))


def test_data_stream_adapt_table_report_end_to_end(
    tiny_cifar: Path,  # noqa: F811 - the fixture
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 1),
        torch.nn.BatchNorm2d(4),
        torch.nn.Flatten(),
        torch.nn.Linear(4, 10),
    )
    st = S.stream(tiny_cifar, "cifar10_c", order=NAMES, batch_size=100)
    paths, results = [], []
    for adapt in ("source", "norm"):
        res = S.evaluate_stream(net, st, adapt, preprocessing=RAW)
        res.save(tmp_path / f"{adapt}.json")
        paths.append(str(tmp_path / f"{adapt}.json"))
        results.append(res)
    assert main(["report", *paths, "-o", str(tmp_path / "t.md")]) == 0
    terminal = capsys.readouterr().out.splitlines()  # the table on the terminal too
    assert terminal[0].split() == ["method", "gaussian", "fog", "contrast", "mean"]
    for line, res in zip(terminal[1:3], results):
        cells = [one_decimal(d.error) for d in res.domains]
        assert line.split() == [res.adapt, *cells, one_decimal(res.mean)]
    lines = (tmp_path / "t.md").read_text().splitlines()
    for res in results:
        cells = [one_decimal(d.error) for d in res.domains]
        assert f"| {res.adapt} | " + " | ".join(cells) + f" | {one_decimal(res.mean)} |" in lines
    assert S.markdown_table(results) in "\n".join(lines)


def test_print_summary_of_a_stream_result_logs_its_blocks(three_methods: list[Path]) -> None:
    from rich.console import Console

    from corruptbench.report import print_summary

    console = Console(record=True, width=120)
    res = Results.from_json(three_methods[1])
    print_summary(res, console=console)
    assert console.export_text().rstrip("\n") == res.summary()

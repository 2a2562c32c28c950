"""The stream part of a results file (kind "stream"): written by eval-stream, read back by
``Results.from_json`` with every count and derived number checked; first-format files read."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from corruptbench.results import SCHEMA, Results
from corruptbench.results.stream_part import LEGACY_FORMAT
from corruptbench.streams.results import StreamResults
from results.stream_support import ORDER, make_stream_results, write_stream


def test_a_stream_file_is_a_results_file_read_back_byte_identical(tmp_path: Path) -> None:
    res = make_stream_results("tent", seed=3)
    path = write_stream(tmp_path, "tent.json", res)
    doc = json.loads(path.read_text())
    assert (doc["schema"], doc["kind"], doc["model"]["id"]) == (SCHEMA, "stream", "tiny")
    back = Results.from_json(path)
    assert back.stream is not None and back.kind == "stream"
    assert back.to_text() == path.read_text()
    # the derived numbers, computed here from the counts alone
    blocks = [(b.errors, b.n) for b in res.blocks]
    assert doc["stream"]["mean"] == pytest.approx(np.mean([e / n for e, n in blocks]), abs=1e-15)
    assert doc["stream"]["overall"] == sum(e for e, _ in blocks) / sum(n for _, n in blocks)
    assert doc["stream"]["samples"] == 60
    assert back.stream.order == ORDER
    assert StreamResults.load(path).to_dict() == res.to_dict()


def _broken(doc: dict, change: str) -> None:
    part = doc["stream"]
    if change == "errors above n":
        part["domains"][0]["errors"] = part["domains"][0]["n"] + 1
    elif change == "negative count":
        part["blocks"][1]["n"] = -4
    elif change == "stored mean":
        part["mean"] += 1e-6
    elif change == "stored overall":
        part["overall"] = 0.5 if part["overall"] != 0.5 else 0.25
    elif change == "totals":
        part["cells"][0]["n"] += 1
    elif change == "batches":
        part["batches"][1][0] += 1
    elif change == "calibration":
        part["domains"][1]["calibration"]["top1_error"] += 0.1
    elif change == "sha":
        part["sequence_sha256"] = "abc"
    elif change == "severity":
        part["blocks"][0]["severity"] = 6
    elif change == "options":
        part["adapt_options"] = {"lr": [0.1]}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("errors above n", "errors among"),
        ("negative count", "non-negative integer"),
        ("stored mean", "stored stream.mean"),
        ("stored overall", "stored stream.overall"),
        ("totals", "counts disagree"),
        ("batches", "expected start"),
        ("calibration", "not the part's error"),
        ("sha", "64 hex digits"),
        ("severity", "severity must be 1..5"),
        ("options", r"stream\.adapt_options\.lr must be a number or a string, got \[0\.1\]"),
    ],
)
def test_a_broken_stream_part_is_refused_in_one_line(
    tmp_path: Path, change: str, message: str
) -> None:
    doc = make_stream_results(seed=1).to_dict()
    _broken(doc, change)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=message) as info:
        Results.from_json(path)
    text = str(info.value)
    assert text.startswith(str(path)) and "\n" not in text


def test_a_non_finite_calibration_number_is_refused(tmp_path: Path) -> None:
    doc = make_stream_results().to_dict()
    doc["stream"]["domains"][0]["calibration"]["nll"] = math.inf
    path = tmp_path / "inf.json"
    path.write_text(json.dumps(doc))  # Infinity: what json writes, and Python reads
    with pytest.raises(ValueError, match="not a finite number"):
        Results.from_json(path)


def test_the_methods_options_are_written_and_read_back(tmp_path: Path) -> None:
    options = {"method": "sgd", "lr": 0.01, "steps": 2}
    path = write_stream(tmp_path, "tent.json", make_stream_results("tent", adapt_options=options))
    assert json.loads(path.read_text())["stream"]["adapt_options"] == options
    back = StreamResults.load(path)
    assert back.adapt_options == options
    assert back.to_results().to_text() == path.read_text()


def test_a_file_without_options_reads_as_not_recorded_and_stays_so(tmp_path: Path) -> None:
    """Files written before the options were recorded: None (unknown), not {} (none taken)."""
    path = write_stream(tmp_path, "old.json", make_stream_results("tent"))
    assert "adapt_options" not in json.loads(path.read_text())["stream"]
    back = StreamResults.load(path)
    assert back.adapt_options is None
    assert back.to_results().to_text() == path.read_text()


def _first_format(res: StreamResults) -> dict:
    """The JSON the first eval-stream wrote (streams/results.py at 52bb05f)."""
    part = res.part()
    doc = {"model": res.model, "adapt": part.adapt, "settings": part.settings}
    doc["sequence_sha256"] = part.sequence_sha256
    for key in ("blocks", "domains", "cells"):
        doc[key] = [c.to_dict() for c in getattr(part, key)]
    doc.update(batches=part.batches, ece_bins=part.ece_bins, version="0.9.0")
    doc.update(format=LEGACY_FORMAT, mean=part.mean, mean_at_5=part.mean_at_5)
    doc.update(domain_mean=part.domain_mean, overall=part.overall)
    return doc


def test_a_first_format_file_reads_as_the_same_numbers(tmp_path: Path) -> None:
    res = make_stream_results("norm", seed=2)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(_first_format(res), indent=1, allow_nan=True))
    back = Results.from_json(path)
    assert back.kind == "stream" and back.versions == {"corruptbench": "0.9.0"}
    assert back.stream is not None and back.stream.to_dict() == res.part().to_dict()


def test_a_first_format_file_with_bad_counts_is_refused_in_one_line(tmp_path: Path) -> None:
    doc = _first_format(make_stream_results(seed=2))
    doc["mean"] = 0.999
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"old\.json: stored stream\.mean 0\.999"):
        Results.from_json(path)


def test_a_stream_result_without_samples_writes_null_means(tmp_path: Path) -> None:
    res = make_stream_results(n=0)
    path = write_stream(tmp_path, "empty.json", res)
    doc = json.loads(path.read_text())
    assert doc["stream"]["mean"] is None and doc["stream"]["overall"] is None
    assert Results.from_json(path).stream is not None

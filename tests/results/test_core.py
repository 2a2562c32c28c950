"""The results type: reading and validating files, derived numbers, writing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corruptbench.corruptions import BENCHMARK_CORRUPTIONS
from corruptbench.metrics import summarize_c
from corruptbench.results import Results
from corruptbench.tables.alexnet import ALEXNET_C_ERRORS
from results.support import make_results, write


def test_load_valid(three: list[Path]) -> None:
    res = Results.from_json(three[0])
    assert res.kind == "demo" and res.model_id == "resnet50"
    assert res.c is not None and res.p is not None
    assert set(res.c.errors) == set(ALEXNET_C_ERRORS)
    assert res.c.mce == pytest.approx(json.loads(three[0].read_text())["mce"])
    assert res.p.flip_probability["rotate"] > 0


def test_derived_numbers_recomputed_when_absent(tmp_path: Path) -> None:
    data = make_results("m", 0.9, 0.3)
    for key in (
        "ce",
        "relative_ce",
        "mce",
        "relative_mce",
        "mean_error",
        "extra_mean_error",
        "partial",
        "missing",
    ):
        del data[key]
    res = Results.from_json(write(tmp_path, "m.json", data))
    expected = summarize_c(data["errors"], clean_error=0.3)
    assert res.c is not None and res.c.mce == pytest.approx(expected.mce)
    assert res.c.relative_mce == pytest.approx(expected.relative_mce)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: "{not json", "not valid JSON"),
        (lambda d: [1, 2], "must hold a JSON object"),
        (lambda d: {k: v for k, v in d.items() if k != "model"}, "missing key 'model'"),
        (lambda d: {**d, "model": {"source": "x"}}, "missing key model.'id'"),
        (lambda d: {**d, "model": {"id": 5}}, "model.'id' must be a string"),
        (lambda d: {k: v for k, v in d.items() if k != "errors"}, "missing key 'errors'"),
        (lambda d: {**d, "errors": {"fog": [0.1, 0.2]}}, "list of 5"),
        (lambda d: {**d, "errors": {"fog": ["a", 0.2, 0.3, 0.4, 0.5]}}, "must be a number"),
        (lambda d: {**d, "errors": {"fgo": [0.1] * 5}}, "unknown corruption 'fgo'"),
        (lambda d: {**d, "clean_error": 23.9}, "not percentages"),
        (lambda d: {**d, "kind": "x"}, "'kind' must be one of"),
        (lambda d: {**d, "schema": "corruptbench.results/2"}, "incompatible"),
        (lambda d: {**d, "schema": "other/1"}, "not a corruptbench results schema"),
        (lambda d: {k: v for k, v in d.items() if k != "schema"}, "missing key 'schema'"),
        (lambda d: {**d, "kind": "p"}, "missing key 'flip_probability'"),
        (lambda d: {**d, "p": {"flip_probability": {"rotate": "high"}}}, "must be a number"),
    ],
)
def test_malformed_files_name_file_and_problem(tmp_path: Path, mutate, message: str) -> None:
    path = write(tmp_path, "bad results.json", mutate(make_results("m", 0.9, 0.3, p=True)))
    with pytest.raises(ValueError) as info:
        Results.from_json(path)
    text = str(info.value)
    assert str(path) in text
    assert message in text


def test_missing_file() -> None:
    with pytest.raises(ValueError, match="no such results file"):
        Results.from_json("/nonexistent/results.json")


def test_parse_results_accepts_dict() -> None:
    res = Results.from_dict(make_results("m", 0.9, 0.3), "inline")
    assert res.source == "inline" and res.c is not None and res.p is None


def test_written_files_read_back_identically(tmp_path: Path) -> None:
    data = make_results("m", 0.9, 0.3)
    data["extra_ce"] = {k: data["ce"][k] for k in data["errors"] if k not in BENCHMARK_CORRUPTIONS}
    data["run"] = {"limit": None, "seed": 0}
    path = write(tmp_path, "r.json", json.dumps(data, indent=1) + "\n")
    res = Results.from_json(path)
    assert res.to_dict() == data and res.to_text() == path.read_text()
    demo = Results.from_dict(make_results("d", 0.8, 0.2, p=True), "d.json")
    for r in (res, demo):
        r.to_json(tmp_path / "again.json")
        again = Results.from_json(tmp_path / "again.json")
        assert again.to_text() == r.to_text() == (tmp_path / "again.json").read_text()
        assert again.c == r.c and again.p == r.p
    assert not list(tmp_path.glob(".again.json.*"))  # the temporary files are gone


def test_headline_properties() -> None:
    res = Results.from_dict(make_results("m", 0.9, 0.3, p=True), "m.json")
    assert res.c is not None and res.p is not None
    assert res.mce == res.c.mce and res.relative_mce == res.c.relative_mce
    assert res.errors == res.c.errors and res.ce == res.c.ce and res.clean_error == 0.3
    assert res.relative_ce == res.c.relative_ce and res.mfr is None and res.mt5d is None
    assert res.notes == ["no baseline"] and res.label == res.model_id == "m"
    assert list(res.c.extra_ce) == ["speckle_noise", "gaussian_blur", "spatter", "saturate"]
    only_p = Results(kind="p", model={"id": "x"})
    assert only_p.mce is None and only_p.errors is None and only_p.label == "x"


def test_summary_repr_and_notebook_view() -> None:
    res = Results.from_dict(make_results("m", 0.9, 0.3, p=True), "m.json")
    text = res.summary()
    assert text.startswith("m") and "Clean error" in text and "30.0%" in text
    assert "Gaussian noise" in text and "ImageNet-P (difficulty 1)" in text
    assert "\x1b[" not in text and text.endswith("\n")
    assert (
        repr(res)
        == f"Results(kind='demo', model='m', clean_error=0.3000, mce={res.mce:.4f}, relative_mce={res.relative_mce:.4f})"
    )
    assert repr(Results(kind="p", model={"id": "x"})) == "Results(kind='p', model='x')"
    html = res._repr_html_()
    assert html.startswith('<div class="corruptbench-results">') and html.endswith("</div>")
    assert html.count("data:image/png;base64,") == 2  # CE per corruption, flip probability


def test_results_files_follow_the_umask(tmp_path: Path) -> None:
    """Written like every other output (corruptbench.fileio), not 0600 like mkstemp's files."""
    import os
    import stat

    res = Results.from_dict(make_results("m", 0.9, 0.3), "m.json")
    old = os.umask(0o022)
    try:
        res.to_json(tmp_path / "sub" / "m.json")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "sub" / "m.json").stat().st_mode) == 0o644
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["m.json"]


def test_the_protocol_is_read_and_written_and_old_files_are_full(tmp_path: Path) -> None:
    data = make_results("m", 0.9, 0.3)
    assert Results.from_dict(data, "m.json").dataset.protocol == "full"
    del data["dataset"]["protocol"]
    old = Results.from_dict(data, "old.json")  # written before protocols: evaluated as full
    assert old.dataset.protocol == "full" and old.leaderboard is None
    assert list(old.to_dict()["dataset"])[:3] == ["path", "layout", "protocol"]
    no_dataset = Results.from_dict({k: v for k, v in data.items() if k != "dataset"}, "x.json")
    assert no_dataset.dataset.protocol == "full"
    demo = make_results("d", 0.8, 0.2, p=True)
    del demo["dataset"]["protocol"]
    res = Results.from_dict(demo, "d.json")  # a demo names no protocol, and writes none
    assert res.dataset.protocol is None and "protocol" not in res.to_dict()["dataset"]
    for bad, message in (("x", "got 'x'"), (5, "must be a string")):
        data["dataset"]["protocol"] = bad
        with pytest.raises(ValueError, match=f"^bad.json: dataset.*protocol.*{message}"):
            Results.from_dict(data, "bad.json")


def test_a_robustbench_file_carries_its_leaderboard_figures(tmp_path: Path) -> None:
    data = make_results("m", 0.9, 0.3, images=5000)
    data["dataset"]["protocol"] = "robustbench"
    res = Results.from_dict(data, "m.json")
    assert res.c is not None and res.c.mean_error is not None
    lb = res.leaderboard
    assert lb is not None and lb["clean_acc"] == pytest.approx(0.7)
    # the mean accuracy over the 75 cells: 1 - the mean over the 15 of the severity means
    assert lb["corruptions_acc"] == pytest.approx(1.0 - res.c.mean_error, rel=1e-12)
    written = res.to_dict()
    assert written["leaderboard"] == lb and list(written).index("leaderboard") > list(
        written
    ).index("missing")
    res.to_json(tmp_path / "rb.json")
    again = Results.from_json(tmp_path / "rb.json")
    assert again.to_text() == res.to_text() and again.leaderboard == lb
    # derived, never trusted: a file's stale figure is recomputed from its errors
    stale = json.loads((tmp_path / "rb.json").read_text())
    stale["leaderboard"]["corruptions_acc"] = 0.99
    assert Results.from_dict(stale, "stale.json").leaderboard == lb


def _four_images(protocol: str) -> dict:
    """An eval-c file of 4 images per cell (whole counts, derived numbers consistent)."""
    from corruptbench.metrics import summarize_c
    from results.support import make_results

    data = make_results("m", 1.0, 0.25)
    errors = {k: [0.25, 0.5, 0.5, 0.75, 0.75] for k in data["errors"]}
    s = summarize_c(errors, clean_error=0.25)
    data.update(
        errors=errors,
        counts={k: [4] * 5 for k in errors},
        clean_error=0.25,
        clean_count=4,
        ce=s.ce,
        relative_ce=s.relative_ce,
        mce=s.mce,
        relative_mce=s.relative_mce,
        mean_error=s.mean_error,
        extra_mean_error=s.extra_mean_error,
        extra_ce={k: s.ce[k] for k in data["extra_ce"]},
    )
    data["dataset"]["protocol"] = protocol
    return data


def test_a_protocol_that_fixes_its_images_fixes_the_counts(tmp_path) -> None:
    # issue 33 item 6: a file edited to claim robustbench for 4 images read as a RobustBench number
    from corruptbench.cli import main
    from results.support import write

    assert Results.from_dict(_four_images("full")).c is not None
    bad = _four_images("robustbench")
    with pytest.raises(
        ValueError,
        match="^r: dataset.protocol robustbench evaluates 5,000 images per cell, but cell "
        "gaussian_noise/1 counts 4: not a robustbench result",
    ):
        Results.from_dict(bad, "r")
    path = write(tmp_path, "r.json", bad)
    assert main(["report", str(path), "--out", str(tmp_path / "r.md")]) == 2
    assert not (tmp_path / "r.md").exists()

"""The typed parts of a results file (corruptbench.results.parts): what they derive, their file
order, and ResultsLike, the face a Results shows its views."""

from __future__ import annotations

import json

import pytest

from corruptbench.results import Results
from corruptbench.results.parts import CResults, DatasetInfo, PResults, ResultsLike
from results.support import make_results


def c_part(**changes: object) -> CResults:
    fields: dict = {
        "errors": {
            "fog": [0.1, 0.2, 0.3, 0.4, 0.5],
            "saturate": [0.2, 0.2, 0.2, 0.2, 0.3],
            "spatter": [0.1, None, 0.1, 0.1, 0.1],
        },
        "clean_error": 0.1,
        "ce": {"fog": 0.6, "saturate": 0.4, "spatter": None},
        "relative_ce": {"fog": 0.5, "saturate": 0.3, "spatter": None},
        "mce": 0.6,
        "relative_mce": 0.5,
        "mean_error": 0.3,
        "extra_mean_error": 0.22,
        "baseline": "alexnet",
        "partial": True,
        "missing": ["gaussian_noise"],
    }
    fields.update(changes)
    return CResults(**fields)


def test_mean_errors_over_the_five_severities() -> None:
    means = c_part().mean_errors()
    assert means == {"fog": 0.3, "saturate": pytest.approx(0.22), "spatter": None}
    assert list(means) == ["fog", "saturate", "spatter"]  # a missing severity: None


def test_extra_ce_only_the_extra_corruptions_present() -> None:
    assert c_part().extra_ce == {"spatter": None, "saturate": 0.4}  # the reference's order
    assert c_part(errors={"fog": [0.1] * 5}, ce={"fog": 0.2}).extra_ce == {}


def test_c_to_dict_in_file_order() -> None:
    d = c_part(counts={"fog": [100] * 5}, clean_count=100).to_dict()
    assert list(d) == [
        "errors",
        "counts",
        "clean_error",
        "clean_count",
        "baseline",
        "ce",
        "relative_ce",
        "mce",
        "relative_mce",
        "partial_mce",
        "partial_relative_mce",
        "mean_error",
        "extra_mean_error",
        "extra_ce",
        "partial",
        "missing",
    ]
    assert d["extra_ce"] == {"spatter": None, "saturate": 0.4} and d["clean_count"] == 100
    json.dumps(d)  # serialisable as it is


def test_p_to_dict_in_file_order() -> None:
    p = PResults(
        flip_probability={"rotate": 0.1},
        top5_distance={"rotate": 1.2},
        zipf_distance={"rotate": 0.3},
        num_sequences={"rotate": 7},
        difficulty=2,
        baseline=None,
        flip_rate=None,
        t5d_ratio=None,
        mfr=None,
        mt5d=None,
        notes=["n"],
    )
    d = p.to_dict()
    assert list(d) == [
        "difficulty",
        "flip_probability",
        "top5_distance",
        "zipf_distance",
        "num_sequences",
        "baseline",
        "flip_rate",
        "t5d_ratio",
        "mfr",
        "mt5d",
        "notes",
    ]
    assert d["difficulty"] == 2 and d["num_sequences"] == {"rotate": 7} and d["notes"] == ["n"]


def test_dataset_info_defaults_and_dict() -> None:
    assert DatasetInfo().to_dict() == {
        "path": None,
        "layout": None,
        "profile": None,
        "fingerprint": None,
        "num_images": None,
        "notes": [],
    }
    a, b = DatasetInfo(), DatasetInfo()
    assert a.notes is not b.notes  # no shared default list
    info = DatasetInfo(path="/d", layout="imagenet-c", num_images={"fog": 5}, notes=["x"])
    assert info.to_dict()["num_images"] == {"fog": 5} and info.to_dict()["notes"] == ["x"]


def test_a_results_is_results_like_and_its_parts_round_trip() -> None:
    data = make_results("m", 0.9, 0.3, p=True)
    res = Results.from_dict(data, "m.json")

    def label_of(view: ResultsLike) -> str:  # what a view is typed against
        return f"{view.label} {view.model_id} {view.dataset.layout} {view.c is not None} {view.p is not None}"

    assert label_of(res) == "m m imagenet-c True True"
    assert isinstance(res.c, CResults) and isinstance(res.p, PResults)
    assert isinstance(res.dataset, DatasetInfo)
    c = res.c.to_dict()
    for key in ("errors", "clean_error", "ce", "relative_ce", "mce", "relative_mce", "partial"):
        assert c[key] == data[key], key
    assert res.p.to_dict() == data["p"]
    assert res.dataset.to_dict() == data["dataset"]

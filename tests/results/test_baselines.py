"""A measured baseline compared with the data it normalises (issue 33 item 5): another profile
refused, another protocol or other images noted in every view; AlexNet's ImageNet-C errors noted
for Tiny-ImageNet and CIFAR data."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from corruptbench.errors import ArgumentError
from corruptbench.report import apply_baseline, render_report
from corruptbench.results import Baseline, MeasuredOn, Results, resolve_baseline
from corruptbench.tables.alexnet import ALEXNET_CLEAN_ERROR
from results.support import make_results, write

CELLS = {"fog/1": "a", "fog/2": "b"}


def test_compare() -> None:
    base = Baseline("b.json", measured_on=MeasuredOn("imagenet", "full", "x", CELLS))
    assert base.compare(MeasuredOn("imagenet", "full", "x", CELLS)) == []
    # the same images in other files (shards of a folder build): the content fingerprint agrees
    assert base.compare(MeasuredOn("imagenet", "full", "x", {"fog/1": "z"})) == []
    other = base.compare(MeasuredOn("imagenet", "robustbench", None, {"fog/1": "z", "snow/1": "s"}))
    assert other[0].startswith("baseline b.json was measured with protocol full, these results")
    assert other[1].startswith("baseline b.json was measured on other images in 1 cell (fog/1;")
    with pytest.raises(ArgumentError, match="^baseline 'b.json': was measured on 'cifar' data"):
        Baseline("b.json", measured_on=MeasuredOn("cifar")).compare(MeasuredOn("imagenet"))
    (tiny,) = Baseline("alexnet").compare(MeasuredOn("tiny"))
    assert "not on Tiny-ImageNet images" in tiny
    assert Baseline("alexnet").compare(MeasuredOn("imagenet")) == []
    assert Baseline("uniform").compare(MeasuredOn("tiny")) == []


def test_report_baseline_of_other_data_is_noted_in_every_view(tmp_path: Path) -> None:
    mine_data = make_results("mine", 0.8, 0.25, seed=4)
    mine_data["run"] = {"cell_fingerprints": CELLS}
    mine = Results.from_json(write(tmp_path, "m.json", mine_data))
    data = make_results("ref", 1.0, ALEXNET_CLEAN_ERROR, seed=5)
    data["run"] = {"cell_fingerprints": {"fog/1": "a", "fog/2": "OTHER"}}
    ref = write(tmp_path, "ref.json", data)
    (out,) = apply_baseline([mine], str(ref))
    note = next(n for n in out.dataset.notes if n.startswith(f"baseline {ref} was measured"))
    assert "other images in 1 cell (fog/2;" in note
    assert note in out.summary() or note[:60] in out.summary()
    assert note in render_report([mine], "html", baseline=str(ref), contact_sheet=False)
    # and in the Markdown report (it showed the normalised numbers without the note)
    assert f"- mine: {note}" in render_report([mine], "md", baseline=str(ref), contact_sheet=False)
    # a baseline of CIFAR data for ImageNet results is refused
    cifar = copy.deepcopy(data)
    cifar["dataset"]["profile"] = "cifar"
    with pytest.raises(ArgumentError, match="was measured on 'cifar' data, these results are"):
        apply_baseline([mine], str(write(tmp_path, "cifar.json", cifar)))
    # resolved from a file, the baseline knows what it was measured on
    assert resolve_baseline(ref, need="c").measured_on == MeasuredOn(
        "imagenet", "full", None, {"fog/1": "a", "fog/2": "OTHER"}
    )

"""The ImageNet-C part of a results file read back checked (results/c_part.py): derived numbers
recomputed and compared, NaN / infinity refused, counts that fit the errors, partial mCE apart
(issue 22 items 4 and 13)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from corruptbench.corruptions import BENCHMARK_CORRUPTIONS
from corruptbench.metrics import summarize_c
from corruptbench.results import Results
from results.support import make_partial, make_results, write


def read(data: dict[str, Any]) -> Results:
    return Results.from_dict(data, "r.json")


def refused(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as err:
        read(data)
    assert str(err.value).startswith("r.json: ") and message in str(err.value), str(err.value)


def test_a_file_as_written_reads_back_unchanged() -> None:
    data = make_results("m", 0.9, 0.3)
    res = read(data)
    assert res.c is not None and not res.c.partial and res.mce == data["mce"]
    assert res.partial_mce is None and "partial_mce" not in res.to_dict()
    assert read(res.to_dict()).to_dict() == res.to_dict()


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("mce", 0.5, "'mce' = 0.5 disagrees with the errors, which give 0.8"),
        ("relative_mce", 0.1, "'relative_mce' = 0.1 disagrees"),
        ("mean_error", 0.05, "'mean_error' = 0.05 disagrees"),
        ("extra_mean_error", 0.9, "'extra_mean_error' = 0.9 disagrees"),
        ("partial", True, "'partial' = True disagrees with the errors, which give False"),
        ("missing", ["fog"], "'missing' = ['fog'] disagrees"),
    ],
)
def test_stored_numbers_that_disagree_with_the_errors(key: str, value: Any, message: str) -> None:
    # issue 22 item 4: the report showed a stored mCE that contradicted the file's own errors
    refused({**make_results("m", 0.9, 0.3), key: value}, message)


def test_a_per_corruption_ce_that_disagrees_is_named() -> None:
    data = make_results("m", 0.9, 0.3)
    data["ce"] = {**data["ce"], "fog": data["ce"]["fog"] * 1.01}
    refused(data, "'ce['fog']' = ")
    data = make_results("m", 0.9, 0.3)
    data["extra_ce"] = {**data["extra_ce"], "spatter": 0.1}
    refused(data, "'extra_ce['spatter']' = 0.1 disagrees")
    data = make_results("m", 0.9, 0.3)
    data["relative_ce"] = {**data["relative_ce"], "glass_blur": None}
    refused(data, "'relative_ce['glass_blur']' = None disagrees")


def test_summation_order_is_tolerated() -> None:
    data = make_results("m", 0.9, 0.3)
    res = read({**data, "mce": data["mce"] * (1 + 1e-12)})
    assert res.mce == pytest.approx(data["mce"], rel=1e-15)  # the recomputed value is kept


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("where", ["errors", "clean_error", "mce", "relative_mce", "ce"])
def test_nan_and_infinity_are_refused_alike(tmp_path: Path, where: str, bad: float) -> None:
    # issue 22 item 4: NaN was read as null and shown as a dash, while infinity was refused
    data = make_results("m", 0.9, 0.3)
    if where == "errors":
        data["errors"]["fog"][2] = bad
    elif where == "ce":
        data["ce"]["fog"] = bad
    else:
        data[where] = bad
    path = write(tmp_path, "r.json", json.dumps(data))  # NaN / Infinity tokens, as json writes
    with pytest.raises(ValueError, match=r"is -?(nan|inf) \(not a finite number"):
        Results.from_json(path)


def test_counts_are_whole_numbers_of_images_that_fit_the_errors() -> None:
    data = make_results("m", 0.9, 0.3)
    data["counts"]["fog"][1] = -3
    refused(data, "counts['fog'][severity 2] must be a non-negative integer, got -3")
    data = make_results("m", 0.9, 0.3)
    data["counts"]["fog"][1] = 2.5
    refused(data, "counts['fog'][severity 2] must be a non-negative integer, got 2.5")
    data = make_results("m", 0.9, 0.3)
    data["counts"]["fog"][1] = 7  # 50,000 images' error over 7 images
    refused(data, "errors['fog'][severity 2]: error ")
    data = make_results("m", 0.9, 0.3)
    data["counts"]["fog"][1] = 0
    refused(data, "errors['fog'][severity 2]: an error over 0 images")
    data = make_results("m", 0.9, 0.3)
    data["clean_count"] = 3
    refused(data, "'clean_error': error 0.3 is not a whole number of its 3 images")


def test_files_without_derived_numbers_or_counts_are_computed() -> None:
    data = make_results("m", 0.9, 0.3)
    full = read(data)
    for key in ("ce", "relative_ce", "mce", "relative_mce", "mean_error", "extra_mean_error"):
        del data[key]
    for key in ("extra_ce", "partial", "missing", "counts", "clean_count"):
        del data[key]
    res = read(data)
    assert res.c is not None and full.c is not None
    assert (res.mce, res.c.ce, res.c.missing) == (full.mce, full.c.ce, full.c.missing)
    assert res.c.counts == {} and res.c.clean_count is None


def _partial(n: int = 2) -> tuple[dict[str, Any], Any]:
    errors = {k: [0.2, 0.3, 0.4, 0.5, 0.6] for k in BENCHMARK_CORRUPTIONS[:n]}
    s = summarize_c(errors, clean_error=0.25)
    data = make_results("m", 0.9, 0.25)
    for key in ("counts", "clean_count", "extra_ce"):
        del data[key]
    data.update(errors=errors, ce=s.ce, relative_ce=s.relative_ce, mean_error=s.mean_error)
    data.update(extra_mean_error=None, partial=True, missing=s.missing)
    return data, s


def test_a_partial_mean_is_not_the_mce() -> None:
    # issue 22 item 13: evaluate_c(..., corruptions=["fog"]).mce returned the mean over one
    data, s = _partial()
    # a file of an older version stored the partial mean as "mce": read as partial_mce
    old = read({**data, "mce": s.mce, "relative_mce": s.relative_mce})
    assert old.mce is None and old.relative_mce is None
    assert old.partial_mce == s.mce and old.partial_relative_mce == s.relative_mce
    assert old.c is not None and old.c.covered == 2
    written = old.to_dict()
    assert written["mce"] is None and written["partial_mce"] == s.mce
    assert list(written).index("partial_mce") == list(written).index("relative_mce") + 1
    again = read(written)
    assert again.to_dict() == written and again.c == old.c
    assert ", partial_mce=" in repr(again) and ", mce=" not in repr(again)
    refused({**written, "mce": s.mce}, "'mce' = ")  # a new file: mce is null when partial
    refused({**written, "partial_mce": 0.1}, "'partial_mce' = 0.1 disagrees")


def test_a_measured_baseline_checks_the_stored_ces() -> None:
    data = make_results("m", 0.9, 0.3)
    data["baseline"] = "alexnet-measured.json"  # CEs against errors the file does not hold
    res = read(data)
    assert res.c is not None and res.c.ce == data["ce"] and res.mce == data["mce"]
    refused({**data, "mce": data["mce"] + 0.01}, "'mce' = ")
    ce = dict(data["ce"])
    del data["ce"]
    refused(data, "'ce' is missing and the baseline 'alexnet-measured.json' is not built in")
    data["ce"] = ce
    data["errors"] = {**data["errors"], "fog": [0.5, None, 0.5, 0.5, 0.5]}
    del data["counts"]
    refused(data, "'ce['fog']' = ")


def test_every_view_labels_a_partial_mean() -> None:
    # issue 22 item 13: after --corruptions fog,snow the card printed "mCE 65.8%" ("partial" only
    # in the notes); the CSV wrote it as the mce
    from corruptbench.report import render_report
    from corruptbench.results import to_csv
    from corruptbench.results.card import summary_card

    part = Results.from_dict(make_partial("part", 2), "part.json")
    full = Results.from_dict(make_results("full", 0.9, 0.3), "full.json")
    expected = summarize_c(part.errors or {}).mce  # the mean over the two, as metrics gives it
    assert part.mce is None and part.partial_mce == expected
    card = summary_card(part)
    assert "<dt>Partial mCE, 2 of 15</dt>" in card and "<dt>mCE</dt>" not in card
    assert '<span class="badge">partial: 2/15</span>' in card
    csv_rows = to_csv(part).splitlines()
    assert "part,part.json,mce,,," in csv_rows  # empty: no mCE over 2 of the 15
    assert any(line.startswith("part,part.json,partial_mce,,,0.") for line in csv_rows)
    md = render_report([full, part], "md")
    row = next(line for line in md.splitlines() if line.startswith("| part"))
    pm = f"{100 * part.partial_mce:.1f}% (partial: 2/15)"  # type: ignore[operator]
    assert pm in row
    assert md.index("| full") < md.index("| part")  # an mCE first, then a partial mean
    long = render_report([part], "csv").splitlines()
    assert any(line.startswith("part,part.json,mce,,,") and line.endswith(",") for line in long)
    assert any(line.startswith("part,part.json,partial_mce,,,0.") for line in long)
    html = render_report([full, part], "html", contact_sheet=False)
    assert pm in html

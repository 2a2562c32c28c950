"""A toolkit's score table (corruption, severity, score) read into checked task-score results."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from corruptbench.corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS
from corruptbench.errors import ArgumentError
from corruptbench.metrics import summarize_scores
from corruptbench.results import Results
from corruptbench.results.score_table import read_score_table, results_from_table


def table_rows(
    clean: float = 0.363, names=BENCHMARK_CORRUPTIONS, seed: int = 0
) -> list[tuple[str, int, float]]:
    """One model's cells: the clean score and a score per corruption and severity."""
    rng = np.random.default_rng(seed)
    rows = [("clean", 0, clean)]
    for n in names:
        for s, v in enumerate(sorted(rng.uniform(0.05, clean, 5), reverse=True), 1):
            rows.append((n, s, round(float(v), 4)))
    return rows


def write_table(path: Path, rows, sep: str = ",", header: str = "corruption,severity,score"):
    lines = [header.replace(",", sep)] + [sep.join(map(str, r)) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_reads_a_table_and_summarises_it(tmp_path: Path) -> None:
    rows = table_rows()
    path = write_table(tmp_path / "frcnn.csv", rows)
    clean, grid = read_score_table(path)
    assert clean == 0.363 and list(grid) == list(BENCHMARK_CORRUPTIONS)
    assert grid["fog"] == [v for n, s, v in rows if n == "fog"]
    res = results_from_table(path, metric="box AP")
    assert res.kind == "score" and res.model_id == "frcnn" and res.score is not None
    assert res.score.metric == "box AP" and res.dataset.layout == "score table"
    assert res.mpc == summarize_scores(grid, clean).mpc
    assert res.rpc == pytest.approx(res.mpc / 0.363)
    again = Results.from_dict(res.to_dict(), "again")
    assert again.score == res.score and again.to_text() == res.to_text()


def test_separators_bom_extra_columns_and_mmdetection_clean_rows(tmp_path: Path) -> None:
    rows = table_rows(seed=1)
    base = results_from_table(write_table(tmp_path / "a.csv", rows))
    tsv = write_table(tmp_path / "b.tsv", rows, sep="\t")
    semi = write_table(tmp_path / "c.txt", rows, sep=";")
    assert results_from_table(tsv).score == results_from_table(semi).score == base.score
    # a BOM (Excel), upper-case headers, more columns, the score in another column
    lines = ["\ufeffModel,Corruption,Severity,bbox_mAP,segm_mAP"]
    lines += [f"frcnn,{n},{s},{v},0.1" for n, s, v in rows[1:]]
    # mmdetection evaluates severity 0 once and repeats it under every corruption
    lines += [f"frcnn,{n},0,0.363,0.2" for n in BENCHMARK_CORRUPTIONS]
    other = tmp_path / "mmdet.csv"
    other.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    res = results_from_table(other, column="bbox_mAP", name="faster")
    assert res.model_id == "faster" and res.score == base.score


def test_extra_corruptions_and_partial_tables(tmp_path: Path) -> None:
    path = write_table(tmp_path / "all.csv", table_rows(names=ALL_CORRUPTIONS))
    res = results_from_table(path)
    assert res.score is not None and len(res.score.scores) == 19 and not res.score.partial
    few = write_table(tmp_path / "few.csv", table_rows(names=("fog", "snow")))
    with pytest.raises(ArgumentError, match=r"few.csv: missing cells: no scores for 13 of the 15"):
        results_from_table(few)
    part = results_from_table(few, partial=True)
    assert part.score is not None and part.score.partial and len(part.score.missing) == 13


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r.__setitem__(5, ("fog", 2, "nan")), r"line \d+: the score of fog/2 is NaN$"),
        (lambda r: r.pop(7), r"t.csv: missing cell: \w+/\d$"),
        (lambda r: r.append(("fog", 7, 0.1)), r"line 78: severity 7 is outside 0..5"),
        (lambda r: r.append(("fog", 3, 0.1)), r"line 78: fog/3 is given twice \(first at .*line"),
        (lambda r: r.__setitem__(0, ("clean", 0, 0)), r"t.csv: the clean score is 0, so rPC"),
        (lambda r: r.pop(0), r"t.csv: no clean score \(severity 0\)"),
        (lambda r: r.append(("smog", 1, 0.1)), r"line 78: unknown corruption 'smog'"),
    ],
)
def test_each_error_is_one_line_naming_the_file(tmp_path: Path, edit, message: str) -> None:
    rows = table_rows()
    edit(rows)
    path = write_table(tmp_path / "t.csv", rows)
    with pytest.raises(ValueError, match=message) as info:
        results_from_table(path)
    text = str(info.value)
    assert text.startswith(str(path)) and "\n" not in text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"empty table; expected a header"),
        ("corruption,severity\nfog,1\n", r"the header has no column 'score'"),
        ("corruption,severity,score\n", r"a header but no rows"),
        ("corruption,severity,score\nfog,1\n", r"line 2: 2 fields, the header has 3"),
    ],
)
def test_malformed_tables(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_score_table(path)
    with pytest.raises(ValueError, match="no such file"):
        read_score_table(tmp_path / "absent.csv")


def write_csv(path: Path, header, rows, **fmt) -> Path:
    """``rows`` through Python's csv writer (RFC 4180 quoting, as Excel and pandas write)."""
    import csv

    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, **fmt)
        w.writerow(header)
        w.writerows(rows)
    return path


@pytest.mark.parametrize("quoting", ["minimal", "all"])
def test_standard_csv_quoting_keeps_the_columns(tmp_path: Path, quoting: str) -> None:
    """Issue 33 item 8: a quoted text column with doubled quotes, a separator and a line break
    inside (csv.writer, Excel, pandas' to_csv) is one field; the old reader shifted the columns."""
    import csv

    rows = table_rows(seed=7)
    base = results_from_table(write_table(tmp_path / "plain.csv", rows))
    notes = ['says "hi", ok', "plain", 'a "quoted"\nline; break', ""]
    quoted = [("frcnn", notes[i % 4], n, s, v) for i, (n, s, v) in enumerate(rows)]
    path = write_csv(
        tmp_path / "q.csv",
        ["model", "note", "corruption", "severity", "score"],
        quoted,
        quoting=csv.QUOTE_ALL if quoting == "all" else csv.QUOTE_MINIMAL,
    )
    res = results_from_table(path)
    assert res.score == base.score and res.mpc == base.mpc
    fog5 = next(v for n, s, v in rows if (n, s) == ("fog", 5))
    assert res.score is not None and res.score.scores["fog"][4] == fog5 != 0.0


@pytest.mark.parametrize(("where", "line"), [(("fog", 5), 52), (("clean", 0), 2)])
def test_minus_one_is_refused_as_undefined(tmp_path: Path, where, line: int) -> None:
    """Issue 33 item 9: -1 is COCOeval's "undefined"; it is refused (like NaN), never averaged."""
    rows = [(n, s, -1 if (n, s) == where else v) for n, s, v in table_rows()]
    path = write_table(tmp_path / "coco.csv", rows)
    name = "clean" if where[1] == 0 else f"{where[0]}/{where[1]}"
    with pytest.raises(ValueError, match=rf"line {line}: the score of {name} is -1, COCOeval's"):
        results_from_table(path)


def scaled(rows, factor: float, only=lambda n, s: True):
    return [(n, s, round(v * factor, 6) if only(n, s) else v) for n, s, v in rows]


def test_percentages_read_like_fractions(tmp_path: Path) -> None:
    rows = table_rows(seed=8)
    frac = results_from_table(write_table(tmp_path / "f.csv", rows))
    pct = results_from_table(write_table(tmp_path / "p.csv", scaled(rows, 100)))
    assert pct.rpc == pytest.approx(frac.rpc) and pct.mpc == pytest.approx(frac.mpc * 100)
    assert results_from_table(tmp_path / "f.csv", scale="fraction").rpc == frac.rpc
    assert results_from_table(tmp_path / "p.csv", scale="percent").rpc == pct.rpc


@pytest.mark.parametrize(
    ("factor", "only", "scale", "message"),
    [
        # issue 33 item 10: rPC 0.8 %, 7520 %, 185 % before
        (100, lambda n, s: s == 0, None, r"of gaussian_noise lies in 0\.\.1 .* clean is 36\.3: fr"),
        (100, lambda n, s: s > 0, None, r"the clean score lies in 0\.\.1 \(clean = 0\.363\)"),
        (100, lambda n, s: (n, s) == ("fog", 2), None, r"fractions mixed with percentages"),
        (1000, lambda n, s: (n, s) == ("fog", 2), None, r"fog/2 is .*above 100: outside the perc"),
        (100, lambda n, s: n == "snow", "fraction", r"snow/\d is .*above 1: outside the fraction"),
        (-1.5, lambda n, s: (n, s) == ("fog", 2), None, r"the score of fog/2 is negative"),
        (3, lambda n, s: True, "percent", None),  # percentages below 1: accepted when given
    ],
)
def test_one_scale_per_table(tmp_path: Path, factor, only, scale, message) -> None:
    rows = scaled(table_rows(), factor, only)
    if factor == 3:  # every score of a weak model below 1 %, and P above 1
        rows = [(n, s, 2.5 if s == 0 else v / 2) for n, s, v in rows]
    path = write_table(tmp_path / "t.csv", rows)
    if message is None:
        assert results_from_table(path, scale=scale).clean_score == 2.5
        with pytest.raises(ValueError, match=r"every score of gaussian_noise lies in 0\.\.1"):
            results_from_table(path)  # detected: a row wholly in 0..1 beside P = 2.5
        return
    with pytest.raises(ValueError, match=message) as info:
        results_from_table(path, scale=scale)
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("cell", "text"),
    [
        ("score", "1_0"),
        ("score", "\u0661\u0662"),
        ("score", "0x1p-2"),
        ("score", "27%"),
        ("severity", "\u0663"),
        ("severity", "2_0"),
        ("severity", "\uff13"),
    ],
)
def test_only_plain_ascii_numbers(tmp_path: Path, cell: str, text: str) -> None:
    """``float()`` reads ``1_0`` as 10 and Arabic-Indic digits as 12; a table must not."""
    rows: list = table_rows()
    n, s, v = rows[7]
    rows[7] = (n, text, v) if cell == "severity" else (n, s, text)
    path = write_table(tmp_path / "t.csv", rows)
    what = "is not an integer" if cell == "severity" else "must be a number, got"
    with pytest.raises(ValueError, match=rf"line 9: .*{what}"):
        results_from_table(path)


def test_a_long_table_is_streamed_in_constant_memory(tmp_path: Path) -> None:
    """Issue 33 item 11: the old reader held ~19x the file in memory (text, lines, rows); rows
    are now read one at a time, so a 6 MB table peaks at a few lines' worth."""
    import tracemalloc

    rows = table_rows(seed=10)
    note = "x" * 60_000
    path = write_table(
        tmp_path / "wide.csv",
        [(n, s, v, note) for n, s, v in rows],
        header="corruption,severity,score,note",
    )
    assert path.stat().st_size > 4_000_000
    tracemalloc.start()
    try:
        clean, grid = read_score_table(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert clean == 0.363 and grid["fog"] == [v for n, s, v in rows if n == "fog"]
    assert peak < 1_000_000, peak


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"corruption,severity,score\n" + b"fog," * 20_000 + b"\n", r"line 2: longer than 65536"),
        (b"x" * 100_000, r"t.csv, line 1: longer than 65536 characters: not a score table"),
        (b"corruption,severity,score\nfog,1,0.2\n\xff\xfe\x00garbage", r"t.csv: not UTF-8 text"),
        (
            b"corruption,severity,score\nfog,1,0.2\x00\n",
            r"line 2: the score of fog/1 must be a number",
        ),
        (b'corruption,severity,score,n\nfog,1,0.2,"' + b"x\n" * 70_000, r"field larger than"),
    ],
)
def test_too_large_or_garbage_tables_are_one_line(tmp_path: Path, content: bytes, message) -> None:
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message) as info:
        read_score_table(path)
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)

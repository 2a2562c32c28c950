"""``corruptbench report``: exit codes, messages, the contact sheet, the sample photo."""

from __future__ import annotations

from pathlib import Path

import pytest

from corruptbench.cli import main
from results.support import write


def test_cli_malformed_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "broken.json", {"schema": "corruptbench.results/9", "kind": "c"})
    rc = main(["report", str(bad), "--out", str(tmp_path / "r.html"), "--no-contact-sheet"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "broken.json" in err and "incompatible" in err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow
def test_report_with_contact_sheet(three: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    assert main(["report", *map(str, three), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert 'id="examples"' in html and "data:image/jpeg;base64," in html
    assert "chelsea" in html


def test_bad_sample_image(
    three: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(
        [
            "report",
            str(three[0]),
            "--out",
            str(tmp_path / "r.html"),
            "--sample",
            str(tmp_path / "nope.jpg"),
        ]
    )
    assert rc == 2 and "nope.jpg" in capsys.readouterr().err


def test_formats_and_baseline_errors(
    three: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.md"
    assert main(["report", *map(str, three), "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n"
    assert out.read_text().startswith("## Robustness summary")
    assert main(["report", str(three[0]), "--out", str(out), "--baseline", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "corruptbench report: error: --baseline 'nope': not alexnet, uniform, auto, a model in the "
        "report ('resnet50'), or an existing results file"
    )


def test_format_from_the_extension_or_refuse(
    three: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(three[0]), "-o", str(tmp_path / "x.pdf")]) == 2
    assert capsys.readouterr().err == (
        f"corruptbench report: error: cannot tell the report format from "
        f"'{tmp_path / 'x.pdf'}': name a .html, .md or .csv file, or give --format html|md|csv\n"
    )
    assert not (tmp_path / "x.pdf").exists()
    assert main(["report", str(three[0]), "-o", str(tmp_path / "x.md"), "-f", "csv"]) == 2
    assert "--format csv does not match the file name" in capsys.readouterr().err
    assert main(["report", str(three[0]), "-o", str(tmp_path / "x.md")]) == 0
    assert (tmp_path / "x.md").read_text().startswith("## Robustness summary")
    capsys.readouterr()


def test_different_datasets_warn_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from results.support import make_results

    a = make_results("m", 0.9, 0.3)
    b = make_results("m", 0.8, 0.2, seed=2)
    b["dataset"] = dict(b["dataset"], fingerprint="another")
    paths = [write(tmp_path, "a.json", a), write(tmp_path, "b.json", b)]
    assert main(["report", *map(str, paths), "-o", str(tmp_path / "r.md")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("corruptbench report: warning: the ImageNet-C results come from 2 ")
    assert "'m (a.json)'" in err and "'m (b.json)'" in err


def test_the_report_never_replaces_a_results_file(
    three: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33 item 13: ``report R.json --out R.json --format md`` replaced the results."""
    kept = three[0].read_bytes()
    args = ["--format", "md", "--no-contact-sheet"]
    assert main(["report", str(three[0]), "--out", str(three[0]), *args]) == 2
    err = capsys.readouterr().err
    assert f"--out {three[0]} is the results file {three[0]}: an output never replaces" in err
    assert main(["report", str(three[0]), "--out", str(three[1]), *args]) == 2
    err = capsys.readouterr().err
    assert f"--out {three[1]} already holds a results file (kind 'c'), and this would" in err
    assert three[0].read_bytes() == kept and len(err.strip().splitlines()) == 1


def test_stream_results_of_other_settings_warn_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the warning was written into the .md / .html alone: the terminal said nothing
    from results.stream_support import make_stream_results, write_stream

    a = write_stream(tmp_path, "a.json", make_stream_results("tent"))
    b = write_stream(tmp_path, "b.json", make_stream_results("norm", setting="reset_each_shift"))
    for out in ("r.md", "r.csv"):
        assert main(["report", str(a), str(b), "-o", str(tmp_path / out)]) == 0
        err = capsys.readouterr().err
        assert "corruptbench report: warning: the stream results differ in setting" in err, err

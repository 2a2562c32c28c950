"""The options every command shares (cli/options.py): one list syntax, help text on every flag."""

from __future__ import annotations

import argparse

import pytest

from corruptbench.cli import build_parser
from corruptbench.cli.options import (
    parse_levels,
    parse_names,
    split_list,
)


def test_split_list() -> None:
    assert split_list(["fog,snow"]) == split_list(["fog", "snow"]) == ["fog", "snow"]
    assert split_list(["fog, snow", "frost,"]) == ["fog", "snow", "frost"]
    assert split_list("fog") == ["fog"] and split_list(None) == []


@pytest.mark.parametrize(
    "values", [["1-5"], ["1,2,3,4,5"], ["1", "2", "3", "4", "5"], ["1-2", "3,4", "5"], "1-5"]
)
def test_levels_in_every_spelling(values: list[str] | str) -> None:
    assert parse_levels(values, "c") == [1, 2, 3, 4, 5]


def test_level_errors() -> None:
    assert parse_levels(["3"], "c") == [3]
    assert parse_levels(["1", "3", "5"], "c") == [1, 3, 5]
    with pytest.raises(ValueError, match="severities must be in 1..5, got '0-2'"):
        parse_levels(["0-2"], "c")
    with pytest.raises(
        ValueError, match=r"bad difficulties list 'x' \(use e.g. 1-5, 1,3,5 or 1 3 5\)"
    ):
        parse_levels(["x"], "p")


def parse_names_c(values: list[str]) -> list[str]:
    return parse_names(values, "c")


def parse_names_p(values: list[str]) -> list[str]:
    return parse_names(values, "p")


def test_name_lists() -> None:
    assert parse_names_c(["fog,snow"]) == parse_names_c(["fog", "snow"]) == ["fog", "snow"]
    assert parse_names_c(["weather"]) == ["snow", "frost", "fog", "brightness"]
    assert parse_names_c(["noise", "Gaussian-Noise", "fog"]) == [
        "gaussian_noise",
        "shot_noise",
        "impulse_noise",
        "fog",
    ]
    assert len(parse_names_c(["all"])) == 19 and len(parse_names_c(["common"])) == 15
    with pytest.raises(ValueError, match="did you mean 'jpeg_compression'"):
        parse_names_c(["jpeg"])
    assert parse_names_p(["rotate,tilt"]) == parse_names_p(["rotate", "tilt"])
    assert parse_names_p(["validation"]) == [
        "speckle_noise",
        "gaussian_blur",
        "spatter",
        "shear",
    ]
    with pytest.raises(ValueError, match="did you mean 'rotate'"):
        parse_names_p(["rotat"])
    # ImageNet-P's groups under both spellings, on every command (eval-p refused these)
    assert parse_names_p(["extra"]) == parse_names_p(["validation"])
    assert (
        parse_names_p(["benchmark"]) == parse_names_p(["test"])
        and len(parse_names_p(["test"])) == 10
    )
    assert parse_names_c(["fog", "weather"]) == [
        "fog",
        "snow",
        "frost",
        "brightness",
    ]  # order given


def test_level_errors_name_the_flag() -> None:
    from corruptbench.cli import FLAGS
    from corruptbench.errors import ArgumentError

    with pytest.raises(ArgumentError) as info:
        parse_levels(["4"], "p")
    assert info.value.render(FLAGS) == "--difficulty must be in 1..3, got '4'"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    return dict(action.choices)


def test_every_flag_has_help_text() -> None:
    missing = []
    for name, sub in _subparsers(build_parser()).items():
        for action in sub._actions:  # noqa: SLF001
            if isinstance(action, argparse._HelpAction):  # noqa: SLF001
                continue
            if not (action.help or "").strip():
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, missing


def test_list_flags_take_both_spellings() -> None:
    subs = _subparsers(build_parser())
    for command, flags in {
        "make-c": ("--corruptions", "--severities"),
        "make-p": ("--perturbations", "--difficulty"),
        "eval-c": ("--corruptions", "--severities"),
        "eval-p": ("--perturbations",),
    }.items():
        for flag in flags:
            action = next(a for a in subs[command]._actions if flag in a.option_strings)  # noqa: SLF001
            assert action.nargs == "+" and "a,b or a b" in action.help, (command, flag)


def test_check_output_same_file_and_kinds(tmp_path) -> None:
    """Issue 33 item 13: one check for every command that writes: an output equal to an input
    (the same path, a hard link, a symbolic link) or an existing file of another kind."""
    import json
    import os

    from corruptbench.cli.options import check_output

    table = tmp_path / "t.csv"
    table.write_text("corruption,severity,score\n")
    os.link(table, tmp_path / "hard.csv")
    (tmp_path / "soft.csv").symlink_to(table)
    for alias in (
        table,
        tmp_path / "hard.csv",
        tmp_path / "soft.csv",
        tmp_path / "x" / ".." / "t.csv",
    ):
        with pytest.raises(ValueError, match=rf"--report {alias} is the input table {table}"):
            check_output(alias, "--report", writes="report", inputs=[("the input table", table)])
    check_output(tmp_path / "new.md", "--report", writes="report", inputs=[("t", table)])
    res = tmp_path / "r.json"
    res.write_text(json.dumps({"schema": "corruptbench.results/1", "kind": "p", "model": {}}))
    with pytest.raises(ValueError, match=r"already holds a results file \(kind 'p'\), and this"):
        check_output(res, "--csv", writes="csv")
    with pytest.raises(ValueError, match=r"with a results file \(kind 'score'\): refusing"):
        check_output(res, "--out-dir's", writes="results:score")
    check_output(res, "--out", writes="results:p")  # the same kind: a re-run replaces it
    check_output(res, "--out", writes=None)  # eval-c's --out: its own check, with --overwrite
    with pytest.raises(ValueError, match=r"holds a file that is not a corruptbench results file"):
        check_output(table, "--out-dir's", writes="results:score")
    check_output(table, "--report", writes="report")  # an older report (or any text) is replaced


def test_check_output_refuses_any_path_inside_an_input_folder(tmp_path) -> None:
    """A data folder's files are inputs: an output over one (labels.npy, a domain's array) or
    a new file beside them (a CIFAR-C folder's next domain) is refused; the folder's
    neighbours are not."""
    from corruptbench.cli.options import check_output

    data = tmp_path / "d"
    (data / "sub").mkdir(parents=True)
    (data / "labels.npy").write_bytes(b"\x93NUMPY")
    (tmp_path / "link").symlink_to(data)
    for inside in (
        data / "labels.npy",
        data / "new.csv",
        data / "sub" / "x",
        tmp_path / "link" / "y",
    ):
        with pytest.raises(ValueError, match=rf"--csv {inside} is inside the data {data}: an out"):
            check_output(inside, "--csv", writes="csv", inputs=[("the data", data)])
    check_output(tmp_path / "d.csv", "--csv", writes="csv", inputs=[("the data", data)])

"""Typed readers of results files (corruptbench.results.reader): each accessor returns the value
or raises one ValueError naming the file and the key."""

from __future__ import annotations

import math

import pytest

from corruptbench.results.reader import Reader, raise_, short_repr, type_name

R = Reader("run.json")
NAMES = ("gaussian_noise", "fog", "saturate")


def test_fail_names_the_source() -> None:
    err = R.fail("something is off")
    assert isinstance(err, ValueError) and str(err) == "run.json: something is off"
    with pytest.raises(KeyError):
        raise_(KeyError("k"))


def test_obj_and_string() -> None:
    assert R.obj({"model": {"id": "m"}}, "model", "") == {"id": "m"}
    assert R.obj({}, "p", "", required=False) is None
    assert R.obj({"p": None}, "p", "", required=False) is None
    with pytest.raises(ValueError, match=r"^run\.json: missing key 'model' \(an object\)$"):
        R.obj({}, "model", "")
    with pytest.raises(ValueError, match=r"^run\.json: model\.'x' must be an object, got a list$"):
        R.obj({"x": [1]}, "x", "model.")
    assert R.string({"id": "m"}, "id", "") == "m"
    assert R.string({}, "id", "", required=False) is None
    with pytest.raises(ValueError, match=r"missing key 'id' \(a string\)"):
        R.string({"id": None}, "id", "")
    with pytest.raises(ValueError, match=r"'id' must be a string, got a boolean"):
        R.string({"id": True}, "id", "")


def test_number() -> None:
    assert R.number(0.25, "'mce'") == 0.25 and R.number(1, "'mce'") == 1.0
    assert R.number(None, "'mce'") is None
    assert R.number(3.5, "'mce'", hi=math.inf) == 3.5
    # NaN and infinity are refused alike, even where null is allowed (issue 22 item 4: NaN was
    # read as null and shown as a dash, infinity was refused)
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError, match=r"^run\.json: 'mce' is -?(nan|inf) \(not a finite"):
            R.number(bad, "'mce'", hi=math.inf, lo=-math.inf)
    assert R.number(-0.2, "'rel'", lo=-math.inf) == -0.2
    with pytest.raises(ValueError, match=r"^run\.json: 'mce' is null; a number is required$"):
        R.number(None, "'mce'", allow_none=False)
    with pytest.raises(ValueError, match=r"'mce' must be a number, got a boolean True"):
        R.number(True, "'mce'")
    with pytest.raises(ValueError, match=r"'mce' must be a number, got a string '0\.5'"):
        R.number("0.5", "'mce'")
    with pytest.raises(
        ValueError,
        match=r"'mce' = 76\.7 is outside \[0, 1\] \(fractions are expected, not percentages\)",
    ):
        R.number(76.7, "'mce'")
    with pytest.raises(ValueError, match=r"'mce' = 101 is outside \[0, 1\]$"):
        R.number(101, "'mce'")  # above 100: not a percentage either
    with pytest.raises(ValueError, match=r"'x' = 5 is outside \[0, 2\]$"):
        R.number(5, "'x'", hi=2.0)


def test_integer() -> None:
    assert R.integer(50000, "'n'") == 50000 and R.integer(None, "'n'") is None
    for bad in (-1, 2.0, True, "3"):
        with pytest.raises(ValueError, match=r"'n' must be a non-negative integer, got"):
            R.integer(bad, "'n'")
    with pytest.raises(ValueError, match="must be a non-negative integer, got None"):
        R.integer(None, "'n'", allow_none=False)


def test_name() -> None:
    assert R.name("Gaussian Noise", NAMES, "corruption", "'errors'") == "gaussian_noise"
    assert R.name("fog", NAMES, "corruption", "'errors'") == "fog"
    with pytest.raises(
        ValueError, match=r"^run\.json: 'errors' names an unknown corruption 'fogg'$"
    ):
        R.name("fogg", NAMES, "corruption", "'errors'")
    with pytest.raises(ValueError, match=r"'errors' has a non-string key 3"):
        R.name(3, NAMES, "corruption", "'errors'")


def test_rate_map_in_the_given_order() -> None:
    data = {"ce": {"saturate": 0.5, "Gaussian-Noise": 0.25, "fog": None}}
    got = R.rate_map(data, "ce", NAMES, "corruption", hi=math.inf)
    assert got == {"gaussian_noise": 0.25, "fog": None, "saturate": 0.5}
    assert list(got) == ["gaussian_noise", "fog", "saturate"]  # the order of ``allowed``
    assert R.rate_map({}, "ce", NAMES, "corruption") is None
    with pytest.raises(ValueError, match=r"missing key 'ce' \(an object\)"):
        R.rate_map({}, "ce", NAMES, "corruption", required=True)
    with pytest.raises(ValueError, match=r"ce\['fog'\] is null; a number is required"):
        R.rate_map(data, "ce", NAMES, "corruption", allow_none_values=False, hi=math.inf)
    with pytest.raises(ValueError, match=r"ce\['fog'\] = 2 is outside \[0, 1\]"):
        R.rate_map({"ce": {"fog": 2}}, "ce", NAMES, "corruption")
    with pytest.raises(ValueError, match=r"'ce' names an unknown corruption 'rain'"):
        R.rate_map({"ce": {"rain": 0.1}}, "ce", NAMES, "corruption")


def test_str_list() -> None:
    assert R.str_list({"notes": ["a", "b"]}, "notes") == ["a", "b"]
    assert R.str_list({"notes": "one"}, "notes") == ["one"]
    assert R.str_list({}, "notes") == [] and R.str_list({"notes": None}, "notes") == []
    with pytest.raises(ValueError, match=r"'notes' must be a list of strings, got \['a', 1\]"):
        R.str_list({"notes": ["a", 1]}, "notes")


def test_type_name_and_short_repr() -> None:
    assert [type_name(v) for v in ({}, [], "", False, None, 1.5, 3)] == [
        "an object",
        "a list",
        "a string",
        "a boolean",
        "null",
        "float",
        "int",
    ]
    assert short_repr("x") == "'x'"
    long = short_repr("y" * 100)
    assert len(long) == 60 and long.endswith("...") and long.startswith("'yyy")


def test_json_nested_too_deeply_is_one_line(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue 33 item 25: a RecursionError traceback in report, eval-c resume and --baseline
    import numpy as np

    from corruptbench.cli import main
    from corruptbench.results import Results
    from corruptbench.results.reader import load_json

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(
        ValueError, match="deep.json: not a results file .its JSON is nested too deeply"
    ):
        Results.from_json(deep)
    with pytest.raises(ValueError, match="^x: not valid JSON .line 1, column 2"):
        load_json("{", "x")
    assert main(["report", str(deep)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nested too deeply" in err
    data = tmp_path / "c10"
    data.mkdir()
    np.save(data / "labels.npy", np.tile(np.arange(10, dtype=np.uint8), 5))
    np.save(data / "fog.npy", np.zeros((50, 32, 32, 3), np.uint8))
    net = tmp_path / "net.py"
    net.write_text(
        "import torch\n"
        "def make():\n"
        "    return torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),"
        " torch.nn.Linear(3, 10))\n"
    )
    run = ["eval-c", "--model", f"python:{net}:make", "--data", str(data), "--quiet"]
    for extra in (["--baseline", str(deep)], ["--out", str(deep)]):
        assert main([*run, "--workers", "0", *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "nested too deeply" in err, err
    assert (
        main(
            [
                "eval-p",
                "--model",
                f"python:{net}:make",
                "--data",
                str(data),
                "--baseline",
                str(deep),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nested too deeply" in err, err

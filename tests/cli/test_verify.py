"""``corruptbench verify``: exit 0 complete, 1 defects, 2 usage errors."""

from __future__ import annotations

import shutil

import pytest

from builders.support import make_source, run_c
from corruptbench.cli import main


def test_exit_codes_and_report(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    run_c(make_source(tmp_path, 2), out, names=["brightness"], levels=[1, 2])
    assert main(["verify", str(out), "--no-progress"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("complete: 2 cells, 4 files in")
    shutil.rmtree(out / "brightness/2")
    assert main(["verify", str(out), "--no-progress", "--decode"]) == 1
    text = capsys.readouterr().out
    assert "missing cells (1): brightness/2" in text and "INCOMPLETE" in text
    assert main(["verify", str(tmp_path / "nope")]) == 2
    assert "corruptbench verify: error: " in capsys.readouterr().err


def test_usage_errors_name_the_command_line_arguments(tmp_path, capsys) -> None:
    """VerifyError is one of the errors that name their argument: DIR / --layout here, root /
    layout in Python."""
    from corruptbench.errors import ArgumentError
    from corruptbench.verify import VerifyError, verify

    assert main(["verify", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"corruptbench verify: error: DIR {tmp_path / 'nope'}: folder not found"
    )
    with pytest.raises(VerifyError) as err:
        verify(tmp_path / "nope")
    assert isinstance(err.value, ArgumentError)
    assert str(err.value) == f"root {tmp_path / 'nope'}: folder not found"
    with pytest.raises(VerifyError, match="^unknown layout 'x'; known: webdataset, build"):
        verify(tmp_path, layout="x")

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

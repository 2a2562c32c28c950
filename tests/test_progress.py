"""corruptbench.progress: nothing when disabled or when stderr is not a terminal, a rich bar on a
terminal (a real pseudo-terminal). The notebook display is checked in a real Jupyter kernel by
tests/test_notebook.py."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from corruptbench.progress import in_notebook, progress
from support import REPO


def test_disabled_and_not_a_terminal_show_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    for enabled in (False, True):  # pytest's captured stderr is not a terminal
        with progress(4, "work", enabled) as bar:
            bar.update(2)
            bar.update(2, label="more work")
    assert capsys.readouterr() == ("", "")
    assert not in_notebook()


def test_the_context_closes_on_an_exception() -> None:
    with pytest.raises(KeyError), progress(2, "work", False) as bar:
        bar.update(1)
        raise KeyError("x")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_a_terminal_gets_a_rich_bar() -> None:
    import pty

    code = (
        "from corruptbench.progress import progress\n"
        "with progress(3, 'eval-c model') as bar:\n"
        "    for k in range(3):\n"
        "        bar.update(1, label=f'eval-c fog/{k + 1}')\n"
    )
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "COLUMNS": "100", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stderr=slave, stdout=subprocess.PIPE, env=env
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=60) == 0
    os.close(master)
    text = b"".join(chunks).decode("utf-8", "replace")
    assert "eval-c fog/3" in text and "3/3" in text
    assert proc.stdout is not None and proc.stdout.read() == b""

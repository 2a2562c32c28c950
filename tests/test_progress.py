"""corruptbench.progress: plain lines for logs (when and what), the modes, the rich bar (also on
a real pseudo-terminal). The notebook display is checked in a real Jupyter kernel by
tests/test_notebook.py."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from corruptbench.progress import (
    BarProgress,
    LineProgress,
    Progress,
    format_duration,
    in_notebook,
    progress,
    resolve_mode,
)
from support import REPO


class Clock:
    """A hand-moved clock (no test depends on real time)."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_format_duration() -> None:
    assert format_duration(7.4) == "7s"
    assert format_duration(185) == "3m05s"
    assert format_duration(3725) == "1h02m"
    assert format_duration(-3) == "0s"


def test_lines_every_step_of_the_work() -> None:
    out, clock = io.StringIO(), Clock()
    bar = LineProgress(200, "make-c imagenet", "images", stream=out, clock=clock)
    assert out.getvalue() == "make-c imagenet: 200 images to do\n"
    clock.t += 2.0
    bar.advance(5)  # 2.5 %: not yet
    assert out.getvalue().count("\n") == 1
    clock.t += 2.0
    bar.advance(5)  # 5 % since the last line
    lines = out.getvalue().splitlines()
    assert lines[-1] == (
        "make-c imagenet: 10/200 images (5.0%), 2.5 images/s, elapsed 4s, ETA 1m16s"
    )
    clock.t += 0.5
    bar.advance(20)  # another 10 %, but within a second of the last line
    assert len(out.getvalue().splitlines()) == 2
    clock.t += 0.6
    bar.advance(1)
    assert out.getvalue().splitlines()[-1].startswith("make-c imagenet: 31/200 images (15.5%)")
    bar.close()
    bar.close()  # once
    assert len(out.getvalue().splitlines()) == 3  # nothing new since the last line


def test_lines_every_ten_seconds_on_a_slow_job() -> None:
    out, clock = io.StringIO(), Clock()
    with LineProgress(50_000, "eval-c lite0", "images", stream=out, clock=clock) as bar:
        for _ in range(30):  # 1 image per 1.5 s: far below 5 %, a line every 10 s or so
            clock.t += 1.5
            bar.advance(1)
    lines = out.getvalue().splitlines()
    assert lines[0] == "eval-c lite0: 50000 images to do"
    assert len(lines) == 1 + 4 + 1  # after 10.5, 21, 31.5, 42 s; and the last one at 45 s
    assert lines[1].startswith("eval-c lite0: 7/50000 images (0.0%), 0.667 images/s")
    assert "ETA 20h49m" in lines[1]
    assert lines[-1].startswith("eval-c lite0: 30/50000 images")


def test_final_line_and_messages() -> None:
    out, clock = io.StringIO(), Clock()
    bar = LineProgress(4, "make-p cifar", "images", stream=out, clock=clock)
    bar.message("skipped a broken file")
    clock.t += 3
    bar.advance(4)
    bar.close()
    assert out.getvalue().splitlines() == [
        "make-p cifar: 4 images to do",
        "skipped a broken file",
        "make-p cifar: 4/4 images (100.0%), 1.33 images/s, elapsed 3s",
    ]


def test_modes() -> None:
    assert resolve_mode("auto", Tty()) == "bar"
    assert resolve_mode("auto", io.StringIO()) == "lines"
    assert resolve_mode(True, io.StringIO()) == "lines"
    assert resolve_mode(False) == resolve_mode(None) == resolve_mode("off") == "off"
    with pytest.raises(ValueError, match="progress must be one of auto, notebook, bar, lines, off"):
        resolve_mode("notebooks")
    off = progress(10, "x", mode="off")
    assert type(off) is Progress
    off.advance(3)
    assert off.done == 3
    assert isinstance(progress(10, "x", mode="auto", stream=io.StringIO()), LineProgress)


def test_the_bar_on_a_terminal() -> None:
    out = Tty()
    with progress(3, "make-c tiny", unit="images", mode="auto", stream=out) as bar:
        assert isinstance(bar, BarProgress)
        bar.advance(2)
        bar.message("a note")
        bar.advance(1)
    text = out.getvalue()
    assert "make-c tiny" in text and "3/3" in text and "a note" in text


def test_labels_and_off(capsys: pytest.CaptureFixture[str]) -> None:
    out = Tty()
    with progress(4, "eval-c model", unit="images", mode="bar", stream=out) as bar:
        bar.advance(2)
        bar.advance(2, label="eval-c fog/3")  # the bar's description follows the cell
    assert "eval-c fog/3" in out.getvalue()
    for mode in (False, "off"):
        with progress(4, "work", mode=mode) as off:
            off.advance(2, label="more work")
    assert capsys.readouterr() == ("", "")
    assert not in_notebook()  # pytest is no Jupyter kernel; tests/test_notebook.py runs one


def test_the_context_closes_on_an_exception() -> None:
    out = io.StringIO()
    with pytest.raises(KeyError), progress(2, "work", mode="lines", stream=out) as bar:
        bar.advance(1)
        raise KeyError("x")
    assert out.getvalue().splitlines()[-1].startswith("work: 1/2 items (50.0%)")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_a_real_terminal_gets_a_rich_bar() -> None:
    import pty

    code = (
        "from corruptbench.progress import progress\n"
        "with progress(3, 'eval-c model') as bar:\n"
        "    for k in range(3):\n"
        "        bar.advance(1, label=f'eval-c fog/{k + 1}')\n"
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


def test_rates_are_in_human_units() -> None:
    # issue 33 item 21: a download's rate read "6.39e+04 kB/s"
    from corruptbench.progress import format_rate

    assert format_rate(63_900, "kB") == "63.9 MB/s"
    assert format_rate(2.5, "MB") == "2.5 MB/s" and format_rate(1500, "MB") == "1.5 GB/s"
    assert format_rate(0.5, "bytes") == "0.5 bytes/s" and format_rate(999, "bytes") == "999 bytes/s"
    assert format_rate(2.5, "images") == "2.5 images/s"
    assert format_rate(63_900, "images") == "63,900 images/s"

"""Progress of the long jobs (make-c, make-p, eval-c, eval-p, the Python API): one small API,
four displays.

* ``"notebook"``: in a Jupyter kernel (notebook, JupyterLab, VS Code, Colab), an HTML ``<progress>``
  bar in the cell's output, redrawn in place through IPython's display handles
  (``display(..., display_id=True)``): it needs neither ``ipywidgets`` nor a network connection;
* ``"bar"``: a rich progress bar on stderr (counts, percentage, rate, elapsed, ETA);
* ``"lines"``: plain lines for logs (nohup, SLURM, a file): one when the job starts, then one
  whenever :data:`LINE_INTERVAL_S` seconds or :data:`LINE_STEP` of the work have passed since the
  last line (whichever comes first, never two within :data:`LINE_MIN_GAP_S`), and one at the end;
  each with the counts, the percentage, the rate and the ETA, e.g.
  ``make-c imagenet: 1200/50000 images (2.4%), 5.12 images/s, elapsed 3m54s, ETA 2h38m``;
* ``"off"``: nothing.

``"auto"`` (the default) is ``"notebook"`` in a Jupyter kernel, ``"bar"`` when the stream is a
terminal and ``"lines"`` otherwise.

Example::

    with progress(total=len(items), desc="make-c imagenet", unit="images") as bar:
        for res in results:
            bar.advance(len(res), label="make-c fog/3")  # label: the bar's new description
            bar.message("skipped a broken file")  # shown above the bar / as its own line

A new display is a :class:`Progress` subclass (``advance`` / ``message`` / ``close``) and a
mode in :func:`progress`.
"""

from __future__ import annotations

import html
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from .safe_text import printable

__all__ = [
    "MODES",
    "LINE_INTERVAL_S",
    "LINE_STEP",
    "LINE_MIN_GAP_S",
    "Progress",
    "LineProgress",
    "BarProgress",
    "NotebookProgress",
    "in_notebook",
    "progress",
    "resolve_mode",
    "format_duration",
    "format_rate",
]

#: the display modes :func:`progress` accepts
MODES = ("auto", "notebook", "bar", "lines", "off")
#: plain lines: at most this many seconds between two lines while work is being done
LINE_INTERVAL_S = 10.0
#: plain lines: a line whenever this fraction of the work is done since the last one
LINE_STEP = 0.05
#: plain lines: never two progress lines closer than this (a fast job prints a handful)
LINE_MIN_GAP_S = 1.0


_BYTE_UNITS = {"bytes": 1, "kB": 10**3, "MB": 10**6, "GB": 10**9}


def _number(value: float) -> str:
    """Three significant digits below 100, whole numbers above; never e-notation."""
    return f"{value:.3g}" if value < 100 else f"{value:,.0f}"


def format_rate(rate: float, unit: str) -> str:
    """A rate for people: ``2.5 images/s``, ``1,200 images/s``; bytes in the largest unit that
    keeps the number at 1 or more (``63.9 MB/s``, not ``6.39e+04 kB/s``)."""
    if unit in _BYTE_UNITS:
        n = rate * _BYTE_UNITS[unit]
        for name in ("GB", "MB", "kB"):
            if n >= _BYTE_UNITS[name]:
                return f"{_number(n / _BYTE_UNITS[name])} {name}/s"
        return f"{_number(n)} bytes/s"
    return f"{_number(rate)} {unit}/s"


def format_duration(seconds: float) -> str:
    """``3725`` -> ``"1h02m"``, ``185`` -> ``"3m05s"``, ``7.4`` -> ``"7s"``."""
    s = max(0, int(round(seconds)))
    if s >= 3600:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


class Progress:
    """Counts work done; this base class shows nothing (mode ``"off"``).

    Args:
        total: Units of work in the job (images, sequences).
        desc: What is running (``"make-c imagenet"``), the start of every line.
        unit: The unit's name in the plural (``"images"``).
    """

    def __init__(self, total: int, desc: str, unit: str = "items") -> None:
        self.total = max(0, int(total))
        self.desc = desc
        self.unit = unit
        self.done = 0

    def advance(self, n: int = 1, *, label: str | None = None) -> None:
        """``n`` more units are done; ``label`` (the bar displays) replaces the description."""
        self.done += int(n)
        self._update(label)

    def message(self, text: str) -> None:
        """A line of information from the job (this display: dropped)."""

    def close(self) -> None:
        """The job is over (finished or interrupted)."""

    def _update(self, label: str | None = None) -> None:
        pass

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class LineProgress(Progress):
    """Plain progress lines on ``stream`` (see the module docstring for when)."""

    def __init__(
        self,
        total: int,
        desc: str,
        unit: str = "items",
        *,
        stream: IO[str] | None = None,
        interval: float = LINE_INTERVAL_S,
        step: float = LINE_STEP,
        min_gap: float = LINE_MIN_GAP_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(total, desc, unit)
        self._stream = stream
        self.interval, self.step, self.min_gap = float(interval), float(step), float(min_gap)
        self._clock = clock
        self._t0 = self._last_t = clock()
        self._last_done = 0
        self._closed = False
        self._print(f"{self.desc}: {self.total} {self.unit} to do")

    def _print(self, text: str) -> None:
        stream = self._stream if self._stream is not None else sys.stderr
        print(printable(text, keep_newlines=True), file=stream, flush=True)

    def line(self) -> str:
        """The current progress line."""
        elapsed = self._clock() - self._t0
        pct = f" ({100.0 * self.done / self.total:.1f}%)" if self.total else ""
        text = f"{self.desc}: {self.done}/{self.total} {self.unit}{pct}"
        if elapsed > 0 and self.done > 0:
            rate = self.done / elapsed
            text += f", {format_rate(rate, self.unit)}, elapsed {format_duration(elapsed)}"
            if self.done < self.total:
                text += f", ETA {format_duration((self.total - self.done) / rate)}"
        return text

    def _update(self, label: str | None = None) -> None:
        # the description stays fixed so that a log's lines can be grepped
        now = self._clock()
        since = now - self._last_t
        if since < self.min_gap:
            return
        stepped = self.total > 0 and (self.done - self._last_done) >= self.step * self.total
        if since >= self.interval or stepped:
            self._emit(now)

    def _emit(self, now: float) -> None:
        self._print(self.line())
        self._last_t, self._last_done = now, self.done

    def message(self, text: str) -> None:
        self._print(text)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self.done != self._last_done or self.done == 0:
                self._emit(self._clock())


class BarProgress(Progress):
    """A rich progress bar on stderr (or ``stream``); messages are printed above it."""

    def __init__(
        self, total: int, desc: str, unit: str = "items", *, stream: IO[str] | None = None
    ) -> None:
        super().__init__(total, desc, unit)
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        console = Console(file=stream) if stream is not None else Console(stderr=True)
        self._bar = RichProgress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self._task = self._bar.add_task(desc, total=self.total, rate="")
        self._t0 = time.monotonic()
        self._bar.start()

    def _update(self, label: str | None = None) -> None:
        dt = time.monotonic() - self._t0
        rate = format_rate(self.done / dt, self.unit) if dt > 0 else ""
        if label is None:
            self._bar.update(self._task, completed=self.done, rate=rate)
        else:
            self._bar.update(self._task, completed=self.done, rate=rate, description=label)

    def message(self, text: str) -> None:
        # rich drops some control characters but passes ESC sequences through
        self._bar.console.print(printable(text, keep_newlines=True), highlight=False, markup=False)

    def close(self) -> None:
        self._bar.stop()


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel that renders HTML (rich's own detection)."""
    if "IPython" not in sys.modules:  # a kernel has always imported IPython
        return False
    from rich.console import Console

    return bool(Console().is_jupyter)


class NotebookProgress(Progress):
    """An HTML bar in the notebook cell's output, redrawn at most every ``interval`` seconds;
    messages are printed to stderr (the cell shows them too)."""

    def __init__(self, total: int, desc: str, unit: str = "items", *, interval: float = 0.25):
        super().__init__(total, desc, unit)
        from IPython.display import HTML, display

        self._html = HTML
        self._t0 = self._last = time.monotonic()
        self.interval = interval
        self._handle: Any = display(HTML(self.render()), display_id=True)

    def render(self) -> str:
        """The bar as HTML."""
        elapsed = time.monotonic() - self._t0
        rate = self.done / elapsed if elapsed > 0 else 0.0
        text = f"{self.done}/{self.total} {self.unit} &middot; {format_rate(rate, self.unit)} &middot; "
        text += f"elapsed {format_duration(elapsed)}"
        if rate > 0 and self.done < self.total:
            text += f" &middot; ETA {format_duration((self.total - self.done) / rate)}"
        return (
            f'<div style="font-family:monospace;font-size:12px">{html.escape(self.desc)} '
            f'<progress value="{self.done}" max="{max(self.total, 1)}" style="width:40%;'
            f'vertical-align:middle"></progress> {text}</div>'
        )

    def _update(self, label: str | None = None) -> None:
        if label is not None:
            self.desc = label
        now = time.monotonic()
        if now - self._last >= self.interval or self.done >= self.total:
            self._last = now
            self._handle.update(self._html(self.render()))

    def message(self, text: str) -> None:
        print(printable(text, keep_newlines=True), file=sys.stderr, flush=True)

    def close(self) -> None:
        self._handle.update(self._html(self.render()))


def resolve_mode(mode: str | bool | None, stream: IO[str] | None = None) -> str:
    """``mode`` as ``"notebook"``, ``"bar"``, ``"lines"`` or ``"off"``.

    ``True`` means ``"auto"``, ``False`` / ``None`` ``"off"``; ``"auto"`` is ``"notebook"`` in a
    Jupyter kernel (when no ``stream`` is given), else ``"bar"`` when ``stream`` (default: stderr)
    is a terminal, else ``"lines"``.
    """
    if mode is True:
        mode = "auto"
    if mode is False or mode is None:
        return "off"
    if mode not in MODES:
        raise ValueError(f"progress must be one of {', '.join(MODES)}, got {mode!r}")
    if mode == "auto":
        if stream is None and in_notebook():
            return "notebook"
        s = stream if stream is not None else sys.stderr
        try:
            tty = bool(s.isatty())
        except (AttributeError, ValueError):  # closed or not a file
            tty = False
        return "bar" if tty else "lines"
    return mode


def progress(
    total: int,
    desc: str,
    *,
    unit: str = "items",
    mode: str | bool | None = "auto",
    stream: IO[str] | None = None,
) -> Progress:
    """The display of one job's progress (a context manager; see the module docstring).

    Args:
        total: Units of work.
        desc: What is running, e.g. ``"eval-c efficientnet_lite0"``.
        unit: The unit in the plural, e.g. ``"images"``.
        mode: ``"auto"`` | ``"notebook"`` | ``"bar"`` | ``"lines"`` | ``"off"`` (or True = auto,
            False = off).
        stream: Where to write (default: stderr at the time of writing).
    """
    chosen = resolve_mode(mode, stream)
    if chosen == "notebook":
        return NotebookProgress(total, desc, unit)
    if chosen == "bar":
        return BarProgress(total, desc, unit, stream=stream)
    if chosen == "lines":
        return LineProgress(total, desc, unit, stream=stream)
    return Progress(total, desc, unit)

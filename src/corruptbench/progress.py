"""Progress display for long loops, behind one small interface.

:func:`progress` returns a context manager whose value has ``update(n, label=None)``. What it shows
depends on where the code runs:

* in a Jupyter kernel (notebook, JupyterLab, VS Code, Colab): an HTML ``<progress>`` bar updated in
  place through IPython's display handles (``display(..., display_id=True)``), which needs neither
  ``ipywidgets`` nor a network connection;
* with ``stderr`` on a terminal: a ``rich`` progress bar on stderr (counts, rate, elapsed, ETA);
* otherwise (a log file, a pipe, ``enabled=False``): nothing.

Examples:
    >>> from corruptbench.progress import progress
    >>> with progress(3, "corrupting", enabled=False) as bar:
    ...     for _ in range(3):
    ...         bar.update(1, label="fog/3")
"""

from __future__ import annotations

import html
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

__all__ = ["Progress", "progress", "in_notebook"]


class Progress(Protocol):
    """What :func:`progress` yields."""

    def update(self, n: int = 1, *, label: str | None = None) -> None:
        """Count ``n`` more items done; ``label`` replaces the description when given."""


class _Silent:
    def update(self, n: int = 1, *, label: str | None = None) -> None:
        pass


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel that renders HTML (rich's own detection)."""
    if "IPython" not in sys.modules:  # a kernel has always imported IPython
        return False
    from rich.console import Console

    return bool(Console().is_jupyter)


class _NotebookBar:
    """An HTML bar in the cell's output, redrawn at most every ``interval`` seconds."""

    def __init__(self, total: int, label: str, interval: float = 0.25) -> None:
        from IPython.display import HTML, display

        self._html = HTML
        self.total, self.label, self.done = max(0, int(total)), label, 0
        self.t0 = self.last = time.perf_counter()
        self.interval = interval
        self.handle: Any = display(HTML(self._render()), display_id=True)

    def _render(self) -> str:
        elapsed = time.perf_counter() - self.t0
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 and self.total else None
        text = f"{self.done}/{self.total} &middot; {rate:.1f}/s &middot; {elapsed:.0f} s"
        if eta is not None and self.done < self.total:
            text += f" &middot; ETA {eta:.0f} s"
        return (
            f'<div style="font-family:monospace;font-size:12px">{html.escape(self.label)} '
            f'<progress value="{self.done}" max="{max(self.total, 1)}" style="width:40%;'
            f'vertical-align:middle"></progress> {text}</div>'
        )

    def update(self, n: int = 1, *, label: str | None = None) -> None:
        self.done += int(n)
        if label is not None:
            self.label = label
        now = time.perf_counter()
        if now - self.last >= self.interval or self.done >= self.total:
            self.last = now
            self.handle.update(self._html(self._render()))

    def close(self) -> None:
        self.handle.update(self._html(self._render()))


class _RichBar:
    def __init__(self, bar: Any, task: Any) -> None:
        self.bar, self.task = bar, task

    def update(self, n: int = 1, *, label: str | None = None) -> None:
        if label is None:
            self.bar.advance(self.task, n)
        else:
            self.bar.update(self.task, advance=n, description=label)


@contextmanager
def progress(total: int, label: str, enabled: bool = True) -> Iterator[Progress]:
    """A progress display for ``total`` items (see the module docstring for what is shown where).

    Args:
        total: Items expected (the bar's 100 %).
        label: What is being done, shown before the bar.
        enabled: ``False`` shows nothing (the yielded object still accepts ``update``).

    Returns:
        A context manager yielding an object with ``update(n=1, *, label=None)``. The display is
        finished (left at its last state) when the context exits, also on an exception.
    """
    if not enabled:
        yield _Silent()
        return
    if in_notebook():
        nb = _NotebookBar(total, label)
        try:
            yield nb
        finally:
            nb.close()
        return
    if not sys.stderr.isatty():
        yield _Silent()
        return
    from rich import progress as rp
    from rich.console import Console

    columns = (
        rp.TextColumn("{task.description}"),
        rp.BarColumn(),
        rp.MofNCompleteColumn(),
        rp.TimeElapsedColumn(),
        rp.TimeRemainingColumn(),
    )
    with rp.Progress(*columns, console=Console(stderr=True), transient=False) as bar:
        yield _RichBar(bar, bar.add_task(label, total=total))

"""The terminal summary."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from corruptbench.report import print_summary


def test_print_summary(three: list[Path]) -> None:
    console = Console(file=io.StringIO(), width=120)
    print_summary(json.loads(three[0].read_text()), console=console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert (
        "resnet50" in text and "mCE" in text and "Gaussian noise" in text and "Flip prob." in text
    )


def test_print_summary_malformed_does_not_raise() -> None:
    console = Console(file=io.StringIO(), width=120)
    print_summary({"schema": "corruptbench.results/1", "kind": "c"}, console=console)
    assert "cannot summarise" in console.file.getvalue()  # type: ignore[attr-defined]

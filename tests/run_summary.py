"""The line that ends a test run: what it did not check, grouped by cause.

Outside the development checkout, ``python -m pytest`` skips every comparison with the reference
implementation and every test on the shared real photos, with a reason each, and still ends green.
``tests/conftest.py`` prints :func:`not_checked` of the run's skipped and deselected tests as its
last line but pytest's own, e.g.::

    not checked in this run: 120 reference-fidelity tests (no reference environment: bash
    tools/reference/setup_refenv.sh), 61 real-photo tests (../shared absent), 3 optional
    (torchvision, timm, chromium not installed)

Counts are pytest's: a module skipped as a whole (``pytest.importorskip`` at import) is one skip.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

#: the optional package a skip reason names: pytest's importorskip wording, then ours
_PACKAGE = [
    re.compile(r"could not import '([\w.]+)'"),
    re.compile(r"([\w.-]+) (?:is )?not installed\b"),
    re.compile(r"\bneeds (?:the )?([a-z][\w.-]*[a-z0-9])\b"),
]


def skip_reason(report: Any) -> str:
    """The reason of a skipped test or module report (pytest's ``(path, line, reason)``)."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ").strip()


def optional_package(reason: str) -> str | None:
    """The optional package (or tool) a skip reason says is missing, if it says one."""
    for pattern in _PACKAGE:
        m = pattern.search(reason)
        if m:
            return m.group(1).split(".")[0]
    return None


def cause(reason: str, shared: str) -> str:
    """``reference``, ``shared``, ``optional`` or ``other``."""
    if "setup_refenv" in reason:
        return "reference"
    if shared in reason:
        return "shared"
    if optional_package(reason):
        return "optional"
    return "other"


def not_checked(reasons: Sequence[str], deselected: int, *, shared: str, slow: int = 0) -> str:
    """One line naming what a run with these skip ``reasons`` and ``deselected`` tests did not
    check; ``shared`` is the path of the shared data folder as the skip reasons spell it;
    ``slow``: how many of the deselected are the ``slow`` tests the default run leaves out."""
    by_cause: dict[str, list[str]] = {}
    for reason in reasons:
        by_cause.setdefault(cause(reason, shared), []).append(reason)
    parts = []
    if n := len(by_cause.get("reference", [])):
        parts.append(
            f"{_tests(n, 'reference-fidelity')} "
            "(no reference environment: bash tools/reference/setup_refenv.sh)"
        )
    if n := len(by_cause.get("shared", [])):
        parts.append(f"{_tests(n, 'real-photo')} (../shared absent)")
    if optional := by_cause.get("optional", []):
        names = ", ".join(dict.fromkeys(str(optional_package(r)) for r in optional))
        parts.append(f"{len(optional)} optional ({names} not installed)")
    if other := by_cause.get("other", []):
        parts.append(f"{len(other)} other ({_most_common(other)})")
    if slow:
        parts.append(
            f"{_tests(slow, 'slow')} (run them: CORRUPTBENCH_SLOW=1 or -m slow; .ci/run does)"
        )
    if deselected > slow:
        parts.append(f"{deselected - slow} deselected (-m / -k)")
    if not parts:
        return "every collected test ran"
    return "not checked in this run: " + ", ".join(parts)


def _tests(n: int, kind: str) -> str:
    return f"{n} {kind} test{'' if n == 1 else 's'}"


def _most_common(reasons: Iterable[str], shown: int = 3, width: int = 60) -> str:
    counts = Counter(reasons).most_common()
    out = [
        (r if len(r) <= width else r[: width - 3] + "...") + (f" x{n}" if n > 1 else "")
        for r, n in counts[:shown]
    ]
    if len(counts) > shown:
        out.append(f"{len(counts) - shown} more reasons")
    return "; ".join(out)


def line_of(stats: dict[str, list[Any]], *, shared: str, deselected: int = 0, slow: int = 0) -> str:
    """:func:`not_checked` of a terminal reporter's ``stats``; ``deselected``: the count the
    pytest-xdist workers reported (the controller deselects nothing itself), when larger;
    ``slow``: how many of them are ``slow`` tests left out by ``-m "not slow"``."""
    skipped = [skip_reason(r) for r in stats.get("skipped", [])]
    deselected = max(deselected, len(stats.get("deselected", [])))
    return not_checked(skipped, deselected, shared=shared, slow=slow)

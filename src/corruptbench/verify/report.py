"""What ``verify`` found: one :class:`CellReport` per cell (or file), the whole
:class:`VerifyReport`, and its text; :class:`VerifyError` when it cannot check at all."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ArgumentError

__all__ = ["VerifyError", "CellReport", "VerifyReport", "format_report"]


class VerifyError(ArgumentError):
    """``verify`` cannot tell what the folder is, or cannot read what it must (a usage error:
    exit status 2). A ``ValueError`` whose message names the arguments, in Python as
    ``root`` / ``layout`` and on the command line as ``DIR`` / ``--layout``
    (:class:`corruptbench.errors.ArgumentError`)."""


@dataclass
class CellReport:
    """One cell (``fog/3``), array file (``fog.npy``) or shard cell, and its defects.

    ``missing`` names files that should be there; ``missing_unnamed`` counts files the known
    total says are missing when no name can be given (a build's manifest holds counts only), and
    ``extra_unnamed`` the files beyond the known total when every cell holds them alike.
    ``broken`` holds ``"<file>: <what>"`` (zero bytes, truncated, undecodable, wrong shape).
    """

    key: str
    expected: int | None = None
    found: int = 0
    missing: list[str] = field(default_factory=list)
    missing_unnamed: int = 0
    extra: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    extra_unnamed: int = 0

    @property
    def ok(self) -> bool:
        return not (
            self.missing or self.missing_unnamed or self.extra or self.extra_unnamed or self.broken
        )

    def problems(self) -> int:
        return (
            len(self.missing)
            + self.missing_unnamed
            + len(self.extra)
            + self.extra_unnamed
            + len(self.broken)
        )


@dataclass
class VerifyReport:
    """The result of :func:`corruptbench.verify.verify`."""

    root: Path
    layout: str  #: e.g. "imagenet-c", "cifar10-c", "make-c build (jpeg)", "webdataset shards"
    cells: list[CellReport] = field(default_factory=list)
    missing_cells: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files_checked: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.missing_cells and all(c.ok for c in self.cells)

    @property
    def files_per_second(self) -> float:
        return self.files_checked / self.seconds if self.seconds > 0 else 0.0


def _names(label: str, names: list[str], limit: int | None) -> str:
    shown = names if limit is None else names[:limit]
    more = f", ... ({len(names) - len(shown)} more)" if len(shown) < len(names) else ""
    return f"    {label} ({len(names)}): " + ", ".join(shown) + more


def format_report(report: VerifyReport, *, limit: int | None = 5) -> str:
    """The report as text: the layout, each cell with defects (up to ``limit`` names per kind;
    None: all), the missing cells, the notes and a last line ``complete`` / ``INCOMPLETE``."""
    lines = [f"{report.root}: {report.layout}"]
    for c in report.cells:
        if c.ok:
            continue
        exp = f"/{c.expected}" if c.expected is not None else ""
        lines.append(f"  {c.key}: {c.found}{exp} files, {c.problems()} problem(s)")
        if c.missing:
            lines.append(_names("missing", c.missing, limit))
        if c.missing_unnamed:
            lines.append(f"    missing: {c.missing_unnamed} more file(s) than the names known")
        if c.extra:
            lines.append(_names("extra", c.extra, limit))
        if c.extra_unnamed:
            lines.append(
                f"    extra: {c.extra_unnamed} more file(s) than the {c.expected} known (every "
                "cell holds them)"
            )
        if c.broken:
            lines.append(_names("broken", c.broken, limit))
    if report.missing_cells:
        lines.append(_names("  missing cells", report.missing_cells, None if limit is None else 20))
    lines.extend(f"  note: {n}" for n in report.notes)
    bad = sum(1 for c in report.cells if not c.ok)
    speed = f"{report.files_checked} files in {report.seconds:.1f} s"
    if report.seconds > 0:
        speed += f" ({report.files_per_second:,.0f} files/s)"
    if report.ok:
        lines.append(f"complete: {len(report.cells)} cells, {speed}")
    else:
        lines.append(
            f"INCOMPLETE: {bad} of {len(report.cells)} cells with problems, "
            f"{len(report.missing_cells)} missing cells; {speed}"
        )
    return "\n".join(lines)

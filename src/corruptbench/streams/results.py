"""What :func:`~corruptbench.streams.evaluate_stream` returns: :class:`StreamResults`, the
stream part of the results schema (:class:`~corruptbench.results.stream_part.StreamPart`:
counts, ``mean``, ``mean_at_5``, ``domain_mean``, ``overall``) with the model and provenance
that make it a results file (``kind="stream"``, :meth:`StreamResults.to_results`), and its
views (:mod:`corruptbench.results.stream_views`: the terminal summary, the table TTA papers
print, a Markdown section, the error along the stream). ``corruptbench report`` reads the file
:meth:`StreamResults.save` writes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from ..results.core import Results
from ..results.parts import DatasetInfo
from ..results.provenance import library_versions, now
from ..results.stream_part import Counts, StreamPart
from ..results.stream_views import calibration_rows as _calibration_rows
from ..results.stream_views import error_along_stream_figure as _figure
from ..results.stream_views import markdown_table as _markdown_table
from ..results.stream_views import report_section, short_name, stream_summary

__all__ = ["StreamResults", "Counts", "markdown_table", "error_along_stream_figure", "short_name"]

_PART_FIELDS = tuple(f.name for f in fields(StreamPart))


@dataclass(frozen=True)
class StreamResults(StreamPart):
    """An evaluation's numbers (:class:`~corruptbench.results.stream_part.StreamPart`) with the
    model (``model``: its info, ``id`` first), the data evaluated, library versions and time."""

    model: dict[str, Any] = field(default_factory=dict)
    dataset: DatasetInfo = field(default_factory=DatasetInfo)
    versions: dict[str, Any] = field(default_factory=library_versions)
    created: str | None = field(default_factory=now)
    time_s: float | None = None
    source: str = ""

    @property
    def version(self) -> str | None:
        """The corruptbench version that evaluated."""
        return self.versions.get("corruptbench")

    def part(self) -> StreamPart:
        return StreamPart(**{k: getattr(self, k) for k in _PART_FIELDS})

    def to_results(self) -> Results:
        """The results file (``kind="stream"``) of this evaluation."""
        return Results(
            kind="stream",
            model=self.model,
            dataset=self.dataset,
            stream=self.part(),
            versions=self.versions,
            time_s=self.time_s,
            created=self.created,
            source=self.source,
        )

    @classmethod
    def from_results(cls, res: Results) -> StreamResults:
        """The stream evaluation a results file holds.

        Raises:
            ValueError: the file holds no stream evaluation (one line naming it).
        """
        if res.stream is None:
            raise ValueError(
                f"{res.source or res.label}: a {res.kind!r} results file, not a stream evaluation "
                "(eval-stream --out)"
            )
        part = {k: getattr(res.stream, k) for k in _PART_FIELDS}
        return cls(
            **part,
            model=res.model,
            dataset=res.dataset,
            versions=res.versions,
            created=res.created,
            time_s=res.time_s,
            source=res.source,
        )

    def to_dict(self) -> dict[str, Any]:
        """The results file's JSON object (schema ``corruptbench.results/1``)."""
        return self.to_results().to_dict()

    @classmethod
    def from_dict(cls, doc: Any, source: str = "<results>") -> StreamResults:
        """Read back, checked as every results file (:func:`Results.from_dict`)."""
        return cls.from_results(Results.from_dict(doc, source))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the results file atomically."""
        self.to_results().to_json(path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> StreamResults:
        """Read a results file (or one of the first eval-stream format), checked."""
        return cls.from_results(Results.from_json(path))

    def summary(self) -> str:
        """The terminal summary: each block's error as the reference logs it, then the means."""
        return stream_summary(self.to_results())

    def calibration_rows(self) -> list[tuple[str, float, Any, Any, Any]]:
        """``(domain, error, NLL, ECE, Brier)`` per domain."""
        return _calibration_rows(self)

    def report_section(self) -> str:
        """A Markdown section: the table, the means, calibration per domain."""
        return report_section(self.to_results())


def _as_results(results: Sequence[StreamResults | Results]) -> list[Results]:
    return [r.to_results() if isinstance(r, StreamResults) else r for r in results]


def markdown_table(results: Sequence[StreamResults | Results], *, label: str | None = None) -> str:
    """One row per result, a column per domain in stream order, then the mean (error %, one
    decimal), as TENT / CoTTA print their tables
    (:func:`corruptbench.results.stream_views.markdown_table`; ``label``: ``adapt`` or ``model``
    forces the rows' names)."""
    return _markdown_table(_as_results(results), label)


def error_along_stream_figure(
    results: Sequence[StreamResults | Results], *, window: int = 1
) -> Any:
    """The error of each batch along the stream, one line per result: a matplotlib Figure."""
    return _figure(_as_results(results), window=window)

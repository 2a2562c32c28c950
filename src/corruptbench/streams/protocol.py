"""What :func:`~corruptbench.streams.harness.evaluate_stream` needs of a stream: the
:class:`OnlineStream` protocol, followed by :class:`~corruptbench.streams.Stream` (a TTA
setting's stream) and :class:`corruptbench.ccc.CCCStream` (a CCC run, generated on the fly or
read from its shards), so the harness reads neither's internals.

Reporting: a stream is cut into :class:`Part` s (a TTA setting's blocks; a CCC run's walk steps),
each counted on its own, and its samples carry a domain (a corruption; a CCC pair ``"c1+c2"``)
counted across parts and, with the part's severity, per cell.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .core import Batch

__all__ = ["Part", "Segment", "OnlineStream"]


class Part(Protocol):
    """A stretch of the stream reported on its own: samples ``[start, stop)``."""

    @property
    def name(self) -> str: ...
    @property
    def severity(self) -> int | str | None: ...
    @property
    def start(self) -> int: ...
    @property
    def stop(self) -> int: ...


@dataclass(frozen=True)
class Segment:
    """A plain :class:`Part` (a CCC walk step: ``name`` the pair ``"c1+c2"``, ``severity``
    ``"s1+s2"``)."""

    name: str
    severity: int | str | None
    start: int
    stop: int


class OnlineStream(Protocol):
    """A stream :func:`~corruptbench.streams.harness.evaluate_stream` can evaluate.

    * ``settings``: what made it (stored in the results);
    * ``identity``: what a checkpoint must match to be resumed (the sequence's settings, not
      where the data lies);
    * ``dataset``: a name of :data:`~corruptbench.streams.settings.DATASETS` (TENT's optimiser
      family); ``image_size``: the default model input size;
    * ``domains``: the domains its samples carry, in order; ``blocks``: its parts, in order,
      covering every sample;
    * ``num_batches`` / ``batches(batch_size, workers, start=)``: batches in order (``start``:
      the first batch number; a batch's ``reset`` resets the adapter);
    * ``sequence_sha256()``: SHA-256 of its CSV export (``index,domain,severity,id,label``);
    * ``check_images()``: raise :class:`~corruptbench.streams.StreamError` when it has no images;
    * ``where`` / ``kind``: where its data lies and what kind it is (the results' dataset).
    """

    @property
    def settings(self) -> dict[str, Any]: ...
    @property
    def identity(self) -> dict[str, Any]: ...
    @property
    def dataset(self) -> str: ...
    @property
    def image_size(self) -> int: ...
    @property
    def domains(self) -> list[str]: ...
    @property
    def blocks(self) -> Sequence[Part]: ...
    @property
    def where(self) -> str | None: ...
    @property
    def kind(self) -> str: ...

    def num_batches(self, batch_size: int | None = None) -> int: ...

    def batches(
        self, batch_size: int | None = None, workers: int = 0, *, start: int = 0
    ) -> Iterator[Batch]: ...

    def sequence_sha256(self) -> str: ...

    def check_images(self) -> None: ...

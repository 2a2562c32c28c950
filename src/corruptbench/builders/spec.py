"""What one build does (shipped to every worker), the writer interface, and what each item's
processing reports."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import ArgumentError
from ..pipeline import ItemStep, Source, SourceError, SourceItem, item_step, open_source

__all__ = ["BuildError", "BuildSpec", "ItemResult", "Cell", "Shard", "ShardPlan", "Writer"]

Cell = tuple[str, int]  #: (corruption, severity) or (perturbation, difficulty)
Shard = tuple[int, list[SourceItem]]  #: (shard id, its source items)


class BuildError(ArgumentError):
    """A build cannot start (bad source, parameter mismatch with an existing OUT, ...)."""


@dataclass(frozen=True)
class BuildSpec:
    """Everything a worker needs (picklable): the per-item step, the writer, the cells."""

    step: ItemStep
    writer: Writer
    cells: tuple[Cell, ...]
    shard_size: int = 1

    @property
    def kind(self) -> str:
        return self.step.kind

    @property
    def profile(self) -> str:
        return self.step.profile


@dataclass
class ItemResult:
    """What happened to one source item in one run."""

    rel: str
    #: "done" (already there), "written", "skipped", "failed"; "warning" in skipped.csv and
    #: :attr:`BuildSummary.warnings` (an item made with a remark: ``reason``)
    status: str
    written: int = 0
    reason: str = ""
    source: str = ""
    cpu: float = 0.0  #: CPU seconds the worker spent (on the shard's first item: the whole shard)
    warning: str = ""  #: a remark on a done or written item (e.g. it was upsampled)


@dataclass
class ShardPlan:
    """The work of one run."""

    todo: list[Shard]  #: shards to run now
    done: list[Shard] = field(default_factory=list)  #: shards finished by an earlier run
    shards: list[Shard] = field(default_factory=list)  #: every shard (what finish() assembles)
    already_done: int = 0  #: items complete before this run
    finished: bool = False  #: nothing left to do (with a "complete" manifest: return at once)
    #: outputs of an earlier run found damaged and deleted, to be made again ("<name>: <why>")
    remade: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Writer(ABC):
    """The outputs of one build under ``out`` (picklable: it runs in the workers too)."""

    format: ClassVar[str]
    out: str

    @abstractmethod
    def layout(self) -> str:
        """The manifest's ``layout`` line."""

    def manifest_params(self) -> dict[str, Any]:
        """Format settings recorded in the manifest's ``params`` (and compared on resume)."""
        return {}

    def open_source(self, src: str | os.PathLike[str]) -> Source:
        """The source this layout builds from (default: an image folder with the ImageNet layout
        or a CIFAR batch, :func:`~corruptbench.pipeline.open_source`).

        Raises:
            BuildError: the source cannot be opened.
        """
        try:
            return open_source(src)
        except SourceError as exc:
            raise BuildError(*exc.parts) from None

    def for_source(self, source: Source, n_items: int, shard_size: int | None) -> Writer:
        """This writer fitted to the opened source and the items to build (default: itself;
        WebDataset shards number classes and size shards from them)."""
        return self

    def item_step(self, kind: str, profile: str, seed: int) -> ItemStep:
        """The per-item step (default: the profile's preprocessing, then corrupt / perturb)."""
        return item_step(kind, profile, seed)

    def default_shard_size(self, profile: str, n_cells: int) -> int:
        """Items per shard when the caller does not choose."""
        return 1

    def output_key(self, rel: str) -> str | None:
        """A key two items must not share (same output file), or None when names cannot clash."""
        return None

    @abstractmethod
    def plan(
        self, spec: BuildSpec, items: list[SourceItem], known_skips: set[str], complete: bool
    ) -> ShardPlan:
        """Split ``items`` into shards and see what an earlier run finished (driver side).

        ``known_skips``: relative paths listed as skipped by a complete earlier run;
        ``complete``: the manifest says the earlier run completed.
        """

    @abstractmethod
    def run_shard(
        self, spec: BuildSpec, shard_id: int, items: Sequence[SourceItem]
    ) -> list[ItemResult]:
        """Process one shard (worker side); a shard done earlier only reports its items."""

    @abstractmethod
    def finish(
        self, spec: BuildSpec, plan: ShardPlan, source: Source, results: Sequence[ItemResult]
    ) -> int:
        """After every shard: final assembly (driver side). Returns the outputs written."""

    def cleanup(self) -> None:  # noqa: B027 - optional hook, nothing to remove by default
        """Remove intermediate files after a run without failures."""

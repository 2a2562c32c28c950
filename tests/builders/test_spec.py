"""What one build ships to its workers and the writer interface (corruptbench.builders.spec): the
defaults a writer inherits, the records of each item and shard plan, pickling, the error type."""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from PIL import Image

from corruptbench.builders.spec import BuildError, BuildSpec, ItemResult, ShardPlan, Writer
from corruptbench.builders.writers import JpegTreeWriter
from corruptbench.errors import Arg, ArgumentError
from corruptbench.pipeline import CorruptStep, PerturbStep, Source, SourceItem


@dataclass(frozen=True)
class ListingWriter(Writer):
    """The smallest writer: the abstract methods only (one shard per item, nothing written)."""

    format: ClassVar[str] = "listing"

    def layout(self) -> str:
        return "nothing"

    def plan(
        self, spec: BuildSpec, items: list[SourceItem], known_skips: set[str], complete: bool
    ) -> ShardPlan:
        shards = [(i, [it]) for i, it in enumerate(items) if it.rel not in known_skips]
        return ShardPlan(shards, shards=shards)

    def run_shard(
        self, spec: BuildSpec, shard_id: int, items: Sequence[SourceItem]
    ) -> list[ItemResult]:
        return [ItemResult(it.rel, "written", len(spec.cells)) for it in items]

    def finish(
        self, spec: BuildSpec, plan: ShardPlan, source: Source, results: Sequence[ItemResult]
    ) -> int:
        return sum(r.written for r in results)


def test_a_writer_must_define_the_abstract_methods() -> None:
    @dataclass(frozen=True)
    class Half(Writer):
        format: ClassVar[str] = "half"

        def layout(self) -> str:
            return ""

    with pytest.raises(TypeError, match="abstract"):
        Half("out")  # type: ignore[abstract]
    assert Writer.__abstractmethods__ == {"layout", "plan", "run_shard", "finish"}


def test_writer_defaults(tmp_path: Path) -> None:
    w = ListingWriter(str(tmp_path))
    assert w.manifest_params() == {}
    assert w.default_shard_size("imagenet", 95) == 1
    assert w.output_key("n0/a.JPEG") is None  # names cannot clash
    assert w.cleanup() is None
    assert w.item_step("c", "tiny", 3) == CorruptStep("tiny", 3)
    assert w.item_step("p", "cifar", 0) == PerturbStep("cifar", 0)


def test_default_open_source_and_its_error(tmp_path: Path) -> None:
    folder = tmp_path / "src" / "n01440764"
    folder.mkdir(parents=True)
    Image.fromarray(np.full((40, 50, 3), 7, np.uint8)).save(folder / "a.png")
    w = ListingWriter(str(tmp_path / "out"))
    source = w.open_source(tmp_path / "src")
    assert [it.rel for it in source.items] == ["n01440764/a.png"]
    assert w.for_source(source, 1, None) is w
    with pytest.raises(BuildError, match="source not found: .*nowhere") as info:
        w.open_source(tmp_path / "nowhere")
    assert isinstance(info.value, ArgumentError) and isinstance(info.value, ValueError)
    assert info.value.__suppress_context__  # one clear line, no chained SourceError traceback


def test_build_spec_kind_profile_and_pickling(tmp_path: Path) -> None:
    spec = BuildSpec(
        CorruptStep("tiny", 7), JpegTreeWriter(str(tmp_path), quality=90), (("fog", 2),), 4
    )
    assert (spec.kind, spec.profile, spec.shard_size) == ("c", "tiny", 4)
    again = pickle.loads(pickle.dumps(spec))  # what the process pool and Ray ship to workers
    assert again == spec and again.writer.quality == 90 and again.step.seed == 7
    p_spec = BuildSpec(PerturbStep("cifar"), ListingWriter(str(tmp_path)), (("rotate", 1),))
    assert (p_spec.kind, p_spec.profile, p_spec.shard_size) == ("p", "cifar", 1)


def test_item_result_and_shard_plan_records() -> None:
    r = ItemResult("n0/a.JPEG", "written")
    assert (r.written, r.reason, r.source, r.cpu, r.warning) == (0, "", "", 0.0, "")
    plan, other = ShardPlan([]), ShardPlan([])
    plan.done.append((0, []))
    assert other.done == [] and other.shards == []  # no list shared between plans
    assert (plan.already_done, plan.finished) == (0, False)


def test_build_error_names_arguments_and_pickles() -> None:
    err = BuildError(Arg("shard_size"), " must be >= 1, got 0")
    assert str(err) == "shard_size must be >= 1, got 0"
    assert err.render({"shard_size": "--shard-size"}) == "--shard-size must be >= 1, got 0"
    back = pickle.loads(pickle.dumps(err))  # raised in a worker, re-raised in the driver
    assert type(back) is BuildError and str(back) == str(err)

"""evaluate_stream: resets exactly where the setting resets, every batch in order, and numbers
equal to a computation from the stream's samples alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import corruptbench.streams as S
from corruptbench.models import Preprocessing
from corruptbench.streams.results import StreamResults, error_along_stream_figure
from results.stream_support import one_decimal
from streams.conftest import NAMES

RAW = Preprocessing(input_size=1, mean=(0.0, 0.0, 0.0), std=(1.0, 1.0, 1.0))


class Recorder:
    """Predicts ``id % 10`` from the 1 px image (its row) and records what it is asked."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int]] = []

    def reset(self) -> None:
        self.events.append(("reset", 0))

    def step(self, x: torch.Tensor) -> torch.Tensor:
        px = torch.round(x[:, :, 0, 0] * 255).long()
        ids = px[:, 0] * 256 + px[:, 1]
        self.events.append(("step", len(ids)))
        return torch.nn.functional.one_hot(ids % 10, 10).double()


def _expected(st: S.Stream, key) -> dict:
    out: dict = {}
    for s in st.samples:
        n, e = out.get(key(s), (0, 0))
        out[key(s)] = (n + 1, e + (int(s.id) % 10 != s.label))
    return out


@pytest.mark.parametrize("setting", ["reset_each_shift", "mixed_domains", "gradual_correlated"])
def test_numbers_equal_an_independent_count(tiny_cifar: Path, setting: str) -> None:
    st = S.stream(
        tiny_cifar,
        "cifar10_c",
        setting,
        order=NAMES,
        batch_size=64,
        num_examples=120 if "gradual" in setting else None,
    )
    rec = Recorder()
    res = S.evaluate_stream(lambda x: x, st, rec, preprocessing=RAW)
    # resets before exactly the batches the stream marks, and a step per batch in order
    marks: list[tuple[str, int]] = []
    for b in st.batches():
        if b.reset:
            marks.append(("reset", 0))
        marks.append(("step", len(b.labels)))
    assert rec.events == marks
    by_domain = _expected(st, lambda s: s.domain)
    assert [(d.name, d.n, d.errors) for d in res.domains] == [
        (d, *by_domain[d]) for d in NAMES if d in by_domain
    ]
    by_cell = _expected(st, lambda s: (s.domain, s.severity))
    assert {(c.name, c.severity): (c.n, c.errors) for c in res.cells} == by_cell
    blocks = [_block_counts(st, b) for b in st.blocks]
    assert [(b.n, b.errors) for b in res.blocks] == blocks
    assert res.mean == pytest.approx(np.mean([e / n for n, e in blocks]))
    errors = sum(e for _, e in by_domain.values())
    assert res.overall == errors / len(st)
    for d in res.domains:
        assert d.calibration["top1_error"] == pytest.approx(d.error)
    assert sum(b[1] for b in res.batches) == len(st)


def _block_counts(st: S.Stream, block) -> tuple[int, int]:
    part = st.samples[block.start : block.stop]
    return len(part), sum(int(s.id) % 10 != s.label for s in part)


def test_mean_is_printed_as_the_reference_does(tiny_cifar: Path) -> None:
    st = S.stream(tiny_cifar, "cifar10_c", "gradual", order=NAMES[:1], num_examples=50)
    res = S.evaluate_stream(lambda x: x, st, Recorder(), preprocessing=RAW)
    text = res.summary()
    assert text.count("error % [gaussian_noise") == 9
    assert "[gaussian_noise1][#samples=50]" in text
    assert f"mean error: {res.mean:.2%}, mean error at 5: {res.mean_at_5:.2%}" in text
    assert res.mean_at_5 == res.blocks[4].error


def test_results_round_trip_and_views(tiny_cifar: Path, tmp_path: Path) -> None:
    st = S.stream(tiny_cifar, "cifar10_c", order=NAMES, batch_size=100)
    res = S.evaluate_stream(lambda x: x, st, Recorder(), preprocessing=RAW)
    res.save(tmp_path / "r.json")
    back = StreamResults.load(tmp_path / "r.json")
    assert back.to_dict() == res.to_dict()
    table = S.markdown_table([res, back])
    assert table.splitlines()[0] == "| method | gaussian | fog | contrast | mean |"
    assert table.splitlines()[2].endswith(f"| {one_decimal(res.mean)} |")
    doc = res.to_dict()
    doc["stream"]["mean"] += 0.01
    with pytest.raises(ValueError, match="stored stream.mean"):
        StreamResults.from_dict(doc)
    fig = error_along_stream_figure([res])
    assert len(fig.axes[0].lines) == 1 + len(res.blocks)
    assert "## Test-time adaptation: cifar10_c, continual" in res.report_section()


def test_tent_on_a_stream_changes_nothing_of_the_callers_model(tiny_cifar: Path) -> None:
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 1),
        torch.nn.BatchNorm2d(4),
        torch.nn.Flatten(),
        torch.nn.Linear(4, 10),
    )
    before = {k: v.clone() for k, v in net.state_dict().items()}
    st = S.stream(tiny_cifar, "cifar10_c", order=NAMES[:1], batch_size=100)
    res = S.evaluate_stream(net, st, "tent", preprocessing=RAW)
    assert res.adapt == "tent" and res.samples == 300
    assert all(torch.equal(v, before[k]) for k, v in net.state_dict().items())


@pytest.mark.parametrize(
    ("adapt", "given", "recorded"),
    [
        ("tent", {"lr": 0.01}, {"method": "adam", "lr": 0.01, "steps": 1}),
        ("norm", {}, {"eps": 1e-5, "momentum": 0.1}),
        ("source", {}, {}),
    ],
)
def test_the_results_record_the_options_the_method_ran_with(
    tiny_cifar: Path, tmp_path: Path, adapt: str, given: dict, recorded: dict
) -> None:
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 1),
        torch.nn.BatchNorm2d(4),
        torch.nn.Flatten(),
        torch.nn.Linear(4, 10),
    )
    st = S.stream(tiny_cifar, "cifar10_c", order=NAMES[:1], batch_size=100)
    res = S.evaluate_stream(net, st, adapt, preprocessing=RAW, adapt_options=given)
    assert res.adapt_options == recorded
    res.save(tmp_path / "r.json")
    assert StreamResults.load(tmp_path / "r.json").adapt_options == recorded
    assert (f"adaptation {adapt} (" in res.report_section()) == bool(recorded)


class Stop(Exception):
    pass


@pytest.mark.parametrize("adapt", ["tent", "norm"])
def test_an_interrupted_evaluation_resumes_to_the_same_numbers(
    tiny_cifar: Path, tmp_path: Path, adapt: str
) -> None:
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 1),
        torch.nn.BatchNorm2d(4),
        torch.nn.Flatten(),
        torch.nn.Linear(4, 10),
    )
    st = S.stream(tiny_cifar, "cifar10_c", "reset_each_shift", order=NAMES, batch_size=50)
    whole = S.evaluate_stream(net, st, adapt, preprocessing=RAW)
    ck = tmp_path / "ck.pt"

    def stop_at_7(done: int, total: int) -> None:
        if done == 7:
            raise Stop

    with pytest.raises(Stop):
        S.evaluate_stream(
            net, st, adapt, preprocessing=RAW, checkpoint=ck, checkpoint_every=3, progress=stop_at_7
        )
    assert ck.is_file()
    seen: list[int] = []
    again = S.evaluate_stream(
        net,
        st,
        adapt,
        preprocessing=RAW,
        checkpoint=ck,
        checkpoint_every=3,
        progress=lambda d, t: seen.append(d),
    )
    assert seen[0] == 7 and seen[-1] == st.num_batches()  # resumed after batch 6
    # the same numbers (time and creation time apart)
    assert again.to_dict()["stream"] == whole.to_dict()["stream"]
    assert again.model == whole.model
    assert not ck.exists()
    other = S.stream(tiny_cifar, "cifar10_c", order=NAMES, batch_size=50)
    with pytest.raises(Stop):
        S.evaluate_stream(
            net, st, adapt, preprocessing=RAW, checkpoint=ck, checkpoint_every=3, progress=stop_at_7
        )
    with pytest.raises(S.StreamError, match="belongs to another evaluation"):
        S.evaluate_stream(net, other, adapt, preprocessing=RAW, checkpoint=ck)


@pytest.mark.parametrize(
    ("adapt", "options", "needle"),
    [
        ("tent", {"lr": -1}, "lr must be a finite number > 0, got -1"),
        ("tent", {"steps": 0}, "steps must be an integer >= 1, got 0"),
        ("norm", {"lr": 0.1}, "adapt_options['lr'] applies to adapt tent, not norm"),
        ("source", {"method": "sgd"}, "adapt_options['method'] applies to adapt tent, not source"),
    ],
)
def test_adapt_options_are_checked_before_the_model_loads(
    tiny_cifar: Path, adapt: str, options: dict, needle: str
) -> None:
    st = S.stream(tiny_cifar, "cifar10_c", order=NAMES[:1], batch_size=100)
    with pytest.raises(S.StreamError) as err:  # not the unknown model's error
        S.evaluate_stream("no_such_model", st, adapt, adapt_options=options)
    assert needle in str(err.value)


def test_options_for_a_callable_or_an_adapter_of_yours_are_refused(tiny_cifar: Path) -> None:
    st = S.stream(tiny_cifar, "cifar10_c", order=NAMES[:1], batch_size=100)
    with pytest.raises(S.StreamError, match=r"adapt_options\['lr'\] applies to adapt tent"):
        S.evaluate_stream(Recorder().step, st, "source", adapt_options={"lr": 0.1})
    with pytest.raises(S.StreamError, match="not to an adapter of yours"):
        S.evaluate_stream(Recorder().step, st, Recorder(), adapt_options={"lr": 0.1})


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"adapt_options": {"lr": 0.5}}, "(lr 0.001 there, 0.5 here)"),
        ({"adapt_options": {"steps": 3}}, "(steps 1 there, 3 here)"),
        ({"adapt_options": {"method": "sgd"}}, "(method adam there, sgd here)"),
        ({"ece_bins": 10}, "(ece_bins 15 there, 10 here)"),
        ({"adapt": "norm"}, "(adapt tent there, norm here)"),
    ],
)
def test_a_checkpoint_of_other_options_is_refused_at_load_and_kept(
    tiny_cifar: Path, tmp_path: Path, change: dict, needle: str
) -> None:
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 1),
        torch.nn.BatchNorm2d(4),
        torch.nn.Flatten(),
        torch.nn.Linear(4, 10),
    )
    st = S.stream(tiny_cifar, "cifar10_c", order=NAMES[:2], batch_size=50)
    ck = tmp_path / "ck.pt"

    def stop_at_3(done: int, total: int) -> None:
        if done == 3:
            raise Stop

    with pytest.raises(Stop):
        S.evaluate_stream(
            net,
            st,
            "tent",
            preprocessing=RAW,
            checkpoint=ck,
            checkpoint_every=2,
            progress=stop_at_3,
        )
    saved = ck.read_bytes()
    seen: list[int] = []
    kwargs = {"adapt": "tent", **change}
    with pytest.raises(S.StreamError) as err:
        S.evaluate_stream(
            net,
            st,
            preprocessing=RAW,
            checkpoint=ck,
            progress=lambda d, t: seen.append(d),
            **kwargs,
        )
    assert str(err.value) == (
        f"checkpoint {ck} belongs to another evaluation {needle}; remove it or give another file"
    )
    assert seen == [] and ck.read_bytes() == saved  # refused before any batch; kept


def test_the_results_record_the_batch_size_used(tiny_cifar: Path) -> None:
    st = S.stream(tiny_cifar, "cifar10_c", order=NAMES[:1], batch_size=100)
    res = S.evaluate_stream(Recorder().step, st, "source", preprocessing=RAW, batch_size=40)
    assert res.settings["batch_size"] == 40 and [b[1] for b in res.batches] == [40] * 7 + [20]
    assert "batch 40" in res.summary().splitlines()[0]
    assert S.evaluate_stream(Recorder().step, st, preprocessing=RAW).settings["batch_size"] == 100

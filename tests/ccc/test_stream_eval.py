"""A CCC run through the stream harness: made on the fly and read from its shards, the harness'
numbers equal a count over the shards read with the original's WebDataset recipe; never reset;
an interrupted evaluation resumes to the same numbers."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from ccc.test_generate import MATRICES, RUN
from corruptbench.ccc.generate import parse_info
from corruptbench.ccc.runs import RUN_FILE, CCCStream, generate
from corruptbench.errors import ArgumentError
from support import IMAGENET_SAMPLE, need_shared

torch = pytest.importorskip("torch")

from corruptbench.models import Preprocessing  # noqa: E402
from corruptbench.streams.harness import evaluate_stream  # noqa: E402

RAW = Preprocessing(input_size=224, mean=(0.0, 0.0, 0.0), std=(1.0, 1.0, 1.0))


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    need_shared()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield generate(IMAGENET_SAMPLE, MATRICES, tmp_path_factory.mktemp("ccc"), **RUN)
    torch.set_num_threads(threads)


def _digest(img: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(img, dtype=np.uint8).tobytes()).hexdigest()


@pytest.fixture(scope="module")
def written(run: Path) -> list[tuple[np.ndarray, int, dict[str, str]]]:
    """The run's samples as the original's eval.py reads them (image, label), with their info."""
    wds = pytest.importorskip("webdataset")
    url = str(run / "serial_{00000..00002}.tar")
    ds = wds.WebDataset(url, shardshuffle=False).decode("rgb8")
    return [(s["input.jpg"], int(s["output.cls"]), parse_info(s["info"].decode())) for s in ds]


class Oracle:
    """An adapter right on two samples of three (by the written order), wrong on the rest; it
    knows each image by its bytes, and records resets and batch sizes."""

    def __init__(self, written) -> None:
        self.answer = {
            _digest(img): label if k % 3 else (label + 1) % 1000
            for k, (img, label, _) in enumerate(written)
        }
        self.events: list[tuple[str, int]] = []

    def reset(self) -> None:
        self.events.append(("reset", 0))

    def step(self, x):
        imgs = torch.round(x * 255).to(torch.uint8).permute(0, 2, 3, 1).numpy()
        self.events.append(("step", len(imgs)))
        pred = torch.tensor([self.answer[_digest(im)] for im in imgs])
        return torch.nn.functional.one_hot(pred, 1000).double()


@pytest.mark.parametrize("source", ["on_the_fly", "shards"])
def test_numbers_equal_a_count_over_the_written_run(run, written, source) -> None:
    st = (
        CCCStream.create(IMAGENET_SAMPLE, MATRICES, **RUN)
        if source == "on_the_fly"
        else CCCStream.open(run)
    )
    oracle = Oracle(written)
    res = evaluate_stream(lambda x: x, st, oracle, preprocessing=RAW, batch_size=5)
    assert oracle.events == [("step", 5), ("step", 5), ("step", 2)]  # never reset
    wrong = [k % 3 == 0 for k in range(len(written))]
    # per walk step (4 images each: batches of 5 straddle the steps)
    speed = RUN["speed"]
    steps = [written[k][2] for k in range(0, len(written), speed)]
    assert [(b.name, b.severity, b.n, b.errors) for b in res.blocks] == [
        (
            f"{i['n1']}+{i['n2']}",
            f"{i['s1']}+{i['s2']}",
            speed,
            sum(wrong[j * speed : (j + 1) * speed]),
        )
        for j, i in enumerate(steps)
    ]
    # per pair, per batch (the per-batch accuracy eval.py logs), over all
    pairs: dict[str, list[int]] = {}
    for (_, _, i), w in zip(written, wrong):
        c = pairs.setdefault(f"{i['n1']}+{i['n2']}", [0, 0])
        c[0], c[1] = c[0] + 1, c[1] + w
    assert {d.name: [d.n, d.errors] for d in res.domains} == pairs
    assert res.batches == [[k, len(wrong[k : k + 5]), sum(wrong[k : k + 5])] for k in (0, 5, 10)]
    assert res.overall == sum(wrong) / len(wrong) == 4 / 12
    assert res.settings["name"] == "baseline_20_transition+speed_4_seed_44"
    assert res.summary().startswith("baseline_20_transition+speed_4_seed_44 (seed 44)")


def test_shards_and_on_the_fly_give_the_same_stream(run) -> None:
    made = CCCStream.create(IMAGENET_SAMPLE, MATRICES, **RUN)
    read = CCCStream.open(run)
    assert list(read.samples) == list(made.samples)
    assert read.sequence_sha256() == made.sequence_sha256()
    assert read.identity == made.identity and read.blocks == made.blocks
    a = list(read.batches(5, start=1))
    b = list(made.batches(5, start=1))
    assert [x.samples for x in a] == [x.samples for x in b]
    assert all(np.array_equal(x.images, y.images) for x, y in zip(a, b))


def test_csv_digest_is_the_sha256_of_the_csv(run, tmp_path) -> None:
    st = CCCStream.open(run)
    st.to_csv(tmp_path / "s.csv")
    assert hashlib.sha256((tmp_path / "s.csv").read_bytes()).hexdigest() == st.sequence_sha256()


def _net():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 8, stride=8),
        torch.nn.BatchNorm2d(4),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(4, 1000),
    )


class Stop(Exception):
    pass


@pytest.mark.slow
def test_tent_resumes_to_the_same_numbers(run, tmp_path) -> None:
    st = CCCStream.open(run)
    net = _net()
    whole = evaluate_stream(net, st, "tent", batch_size=3)
    ck = tmp_path / "ck.pt"

    def stop_at_3(done: int, total: int) -> None:
        if done == 3:
            raise Stop

    with pytest.raises(Stop):
        evaluate_stream(
            net, st, "tent", batch_size=3, checkpoint=ck, checkpoint_every=2, progress=stop_at_3
        )
    seen: list[int] = []
    again = evaluate_stream(
        net, st, "tent", batch_size=3, checkpoint=ck, checkpoint_every=2,
        progress=lambda d, t: seen.append(d),
    )  # fmt: skip
    # the same numbers (time and creation time apart)
    assert seen == [3, 4] and again.to_dict()["stream"] == whole.to_dict()["stream"]
    assert again.model == whole.model and not ck.exists()


def test_open_refuses_what_is_not_a_finished_run(run, tmp_path) -> None:
    with pytest.raises(
        ArgumentError, match=r"^folder .* is not a CCC run folder \(no ccc_run.json"
    ):
        CCCStream.open(tmp_path)
    part = tmp_path / "part"
    part.mkdir()
    (part / RUN_FILE).write_text((run / RUN_FILE).read_text())
    (part / "serial_00000.tar").write_bytes((run / "serial_00000.tar").read_bytes())
    with pytest.raises(
        ArgumentError, match=r"unfinished run, 2 of 3 shards missing \(first serial_00001.tar\)"
    ):
        CCCStream.open(part)
    (part / RUN_FILE).write_text("{")
    with pytest.raises(ArgumentError, match="ccc_run.json: not readable"):
        CCCStream.open(part)


def _copy(run: Path, to: Path) -> Path:
    to.mkdir()
    for f in run.iterdir():
        (to / f.name).write_bytes(f.read_bytes())
    return to


def test_a_damaged_shard_is_one_line_naming_it(run, tmp_path) -> None:
    copy = _copy(run, tmp_path / "run")
    tar = copy / "serial_00002.tar"
    tar.write_bytes(tar.read_bytes()[:3000])
    stream = CCCStream.open(copy)
    with pytest.raises(ArgumentError, match=r"serial_00002.tar is damaged .*generate' again"):
        list(stream.batches(5))


def test_shards_swapped_are_refused_not_evaluated_under_the_wrong_steps(run, tmp_path) -> None:
    copy = _copy(run, tmp_path / "run")
    a, b = copy / "serial_00000.tar", copy / "serial_00001.tar"
    a_bytes = a.read_bytes()
    a.write_bytes(b.read_bytes())
    b.write_bytes(a_bytes)
    steps = CCCStream.open(run).blocks
    assert steps[0].name != steps[1].name or steps[0].severity != steps[1].severity
    with pytest.raises(ArgumentError, match=r"serial_00000.tar: sample 0 .* but the run records"):
        list(CCCStream.open(copy).batches(5, workers=2))


def test_a_batch_size_below_one_is_refused_everywhere(run) -> None:
    stream = CCCStream.open(run)
    for size in (0, -3, True):
        with pytest.raises(ArgumentError, match="batch_size must be an image count >= 1"):
            stream.num_batches(size)
        with pytest.raises(ArgumentError, match="batch_size must be an image count >= 1"):
            next(stream.batches(size))


def test_generate_into_a_damaged_run_file_is_one_line(run, tmp_path) -> None:
    copy = _copy(run, tmp_path / run.name)
    for text in ("{garbage", "[1, 2]", '{"format": "ccc-run/1", "shard_sha256": [1]}'):
        (copy / RUN_FILE).write_text(text)
        with pytest.raises(
            ArgumentError, match=r"^out .*ccc_run.json: not (readable|a CCC run file)"
        ):
            generate(IMAGENET_SAMPLE, MATRICES, tmp_path, **RUN)

"""``corruptbench eval-stream`` on the real CIFAR-10 ResNet-20 and CIFAR-10 test photos
corrupted on the fly: the table, the results file, the report section and the figure."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from corruptbench.cli import main
from corruptbench.streams import StreamResults
from results.stream_support import one_decimal
from streams.tta_reference import write_cifar_c
from support import CIFAR_TEST, SHARED

WEIGHTS = SHARED / "models" / "resnet20-12fca82f.th"


@pytest.fixture
def one_thread() -> object:
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # ResNet-20 on 32 images: a second thread only spins on 2 cores
    yield None
    torch.set_num_threads(threads)


def test_eval_stream_writes_results_markdown_and_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], one_thread: object
) -> None:
    if not WEIGHTS.is_file() or not CIFAR_TEST.is_dir():
        pytest.skip(
            f"real photos not available: {CIFAR_TEST} or the weights are absent (dev/CI only)"
        )
    out, md, fig = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "r.png"
    rc = main(
        [
            "eval-stream",
            "--on-the-fly",
            str(CIFAR_TEST),
            "--dataset",
            "cifar10_c",
            "--order",
            "gaussian_noise,fog",
            "--num-examples",
            "64",
            "--batch-size",
            "32",
            "--model",
            "cifar_resnet20",
            "--weights",
            str(WEIGHTS),
            "--adapt",
            "norm",
            "--out",
            str(out),
            "--markdown",
            str(md),
            "--figure",
            str(fig),
            "--quiet",
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "error % [gaussian_noise5][#samples=64]" in text
    assert "| method | gaussian | fog | mean |" in text and "| norm |" in text
    res = StreamResults.load(out)
    assert res.adapt == "norm" and res.samples == 128
    doc = json.loads(out.read_text())
    assert (doc["schema"], doc["kind"]) == ("corruptbench.results/1", "stream")
    assert doc["stream"]["settings"]["setting"] == "continual"
    assert md.read_text().startswith("## Test-time adaptation: cifar10_c, continual")
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the report step: the file is a results file `corruptbench report` reads
    assert main(["report", str(out), "-o", str(tmp_path / "t.md")]) == 0
    cells = [one_decimal(d.error) for d in res.domains] + [one_decimal(res.mean)]
    expected = f"| norm | {' | '.join(cells)} |"
    assert expected in (tmp_path / "t.md").read_text().splitlines()


def test_eval_stream_refuses_an_unknown_method(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(
        [
            "eval-stream",
            "--order",
            "fog",
            "--num-examples",
            "10",
            "--model",
            "cifar_resnet20",
            "--adapt",
            "tnet",
            "--out",
            str(tmp_path / "r.json"),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2
    assert "--adapt: unknown method 'tnet'; did you mean 'tent'?" in err
    assert not (tmp_path / "r.json").exists()


def test_eval_stream_without_data_is_refused_before_the_model_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(
        [
            "eval-stream",
            "--order",
            "fog",
            "--num-examples",
            "10",
            "--model",
            "no_such_model",
            "--out",
            str(tmp_path / "r.json"),
        ]
    )
    assert rc == 2
    assert "eval-stream needs images: give --data D or --on-the-fly SRC" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--adapt", "tent", "--lr", "-1"], "--lr must be a finite number > 0, got -1.0"),
        (["--adapt", "tent", "--lr", "nan"], "--lr must be a finite number > 0, got nan"),
        (["--adapt", "tent", "--steps", "0"], "--steps must be an integer >= 1, got 0"),
        (["--adapt", "tent", "--optimizer", "rms"], "--optimizer must be 'adam' or 'sgd'"),
        (["--adapt", "norm", "--lr", "0.1"], "--lr applies to --adapt tent, not norm"),
        (["--adapt", "source", "--steps", "2"], "--steps applies to --adapt tent, not source"),
        (["--optimizer", "sgd"], "--optimizer applies to --adapt tent, not source"),
    ],
)
def test_eval_stream_refuses_bad_adapt_options_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], needle: str
) -> None:
    data = write_cifar_c(tmp_path / "c", ["fog"], np.repeat(np.arange(10), 2))
    out = tmp_path / "r.json"
    argv = ["eval-stream", "--data", str(data), "--order", "fog", "--model", "no_such_model"]
    rc = main([*argv, *extra, "--out", str(out), "--quiet"])  # refused before the model loads
    err = capsys.readouterr().err.strip()
    assert rc == 2 and needle in err and "\n" not in err, err
    assert not out.exists()


def test_eval_stream_resumes_only_a_checkpoint_of_the_same_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], one_thread: object
) -> None:
    """A checkpoint of tent at its defaults (made through the library, stopped after a batch):
    another --lr, --steps, --optimizer or --ece-bins is refused at load in one line, the file
    kept; the same options resume it."""
    if not WEIGHTS.is_file():
        pytest.skip(f"{WEIGHTS} not available (dev/CI only)")
    import corruptbench.streams as S
    from corruptbench.models import load_model

    data = write_cifar_c(tmp_path / "c", ["fog"], np.repeat(np.arange(10), 3))
    ck = tmp_path / "ck.pt"

    def stop(done: int, total: int) -> None:
        if done == 1:
            raise KeyboardInterrupt

    model = load_model("cifar_resnet20", weights=str(WEIGHTS), probe=False)
    st = S.stream(data, order="fog", batch_size=10)
    with pytest.raises(KeyboardInterrupt):
        S.evaluate_stream(model, st, "tent", checkpoint=ck, checkpoint_every=1, progress=stop)
    saved = ck.read_bytes()
    argv = ["eval-stream", "--data", str(data), "--order", "fog", "--batch-size", "10"]
    argv += ["--model", "cifar_resnet20", "--weights", str(WEIGHTS), "--adapt", "tent"]
    argv += ["--checkpoint", str(ck), "--quiet"]
    for extra, needle in [
        (["--lr", "0.5"], "(--lr 0.001 there, 0.5 here)"),
        (["--steps", "3"], "(--steps 1 there, 3 here)"),
        (["--optimizer", "sgd"], "(--optimizer adam there, sgd here)"),
        (["--ece-bins", "10"], "(--ece-bins 15 there, 10 here)"),
    ]:
        assert main([*argv, *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert f"--checkpoint {ck} belongs to another evaluation {needle}" in err, err
        assert "\n" not in err and ck.read_bytes() == saved
    assert main([*argv, "--lr", "0.001"]) == 0  # the same options, spelt out: resumed
    assert not ck.exists()


def test_eval_stream_of_a_replay_records_the_batch_size_it_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], one_thread: object
) -> None:
    if not WEIGHTS.is_file():
        pytest.skip(f"{WEIGHTS} not available (dev/CI only)")
    data = write_cifar_c(tmp_path / "c", ["fog"], np.repeat(np.arange(10), 2))
    man, out = tmp_path / "m.json", tmp_path / "r.json"
    assert main(["stream", "--data", str(data), "--order", "fog", "--manifest", str(man)]) == 0
    argv = ["eval-stream", "--data", str(data), "--replay", str(man), "--model", "cifar_resnet20"]
    argv += ["--weights", str(WEIGHTS), "--out", str(out)]
    assert main([*argv, "--setting", "gradual"]) == 2  # the manifest fixes it: not ignored
    assert "--setting would be ignored" in capsys.readouterr().err
    assert main([*argv, "--batch-size", "8"]) == 0
    assert "batch 8" in capsys.readouterr().err.splitlines()[0]  # the header
    part = json.loads(out.read_text())["stream"]
    assert part["settings"]["batch_size"] == 8
    assert [b[1] for b in part["batches"]] == [8, 8, 4]

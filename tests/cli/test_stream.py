"""``corruptbench stream``: export, replay, refusals (one line, nothing written)."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from corruptbench.cli import main
from streams.tta_reference import write_cifar_c


@pytest.fixture(scope="module")
def cifar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    labels = np.random.RandomState(2).permutation(np.repeat(np.arange(10), 20))
    return write_cifar_c(tmp_path_factory.mktemp("cli_cifar"), ["fog", "snow"], labels)


def test_stream_writes_csv_and_manifest_and_replays(
    cifar: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_csv, out_json = tmp_path / "s.csv", tmp_path / "m.json"
    args = [
        "stream",
        "--data",
        str(cifar),
        "--setting",
        "mixed_domains_correlated",
        "--order",
        "fog,snow",
        "--delta",
        "0.5",
        "--seed",
        "3",
    ]
    assert main([*args, "--csv", str(out_csv), "--manifest", str(out_json)]) == 0
    out = capsys.readouterr().out
    digest = hashlib.sha256(out_csv.read_bytes()).hexdigest()
    assert f"sequence SHA-256 (of the CSV): {digest}" in out
    assert json.loads(out_json.read_text())["sequence_sha256"] == digest
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 400 and {r["domain"] for r in rows} == {"fog", "snow"}
    again = tmp_path / "again.csv"
    assert (
        main(["stream", "--data", str(cifar), "--replay", str(out_json), "--csv", str(again)]) == 0
    )
    assert again.read_bytes() == out_csv.read_bytes()


def test_stream_of_imagenet_ids_needs_no_data(tmp_path: Path) -> None:
    out = tmp_path / "s.csv"
    assert main(["stream", "--order", "cotta3", "--num-examples", "100", "--csv", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 1500 and rows[0]["domain"] == "shot_noise" and "/" in rows[0]["id"]


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (
            ["--setting", "continous"],
            "--setting: unknown setting 'continous'; did you mean 'continual'?",
        ),
        (["--order", "cota1"], "did you mean 'cotta1'?"),
        (
            ["--setting", "correlated", "--delta", "0"],
            "--delta must be a finite number > 0, got 0.0",
        ),
        (["--batch-size", "0"], "--batch-size must be an image count >= 1, got 0"),
        (["--severities", "7"], "--severities must be integers 1..5, got 7"),
        (["--order", "fog,frost"], "no <corruption>.npy for 1 domain(s) of the order: frost"),
        (["--dataset", "imagenet_c"], "is a CIFAR-C folder (labels.npy), not data of imagenet_c"),
    ],
)
def test_stream_refusals_are_one_line_and_write_nothing(
    cifar: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], needle: str
) -> None:
    out = tmp_path / "s.csv"
    rc = main(
        [
            "stream",
            "--data",
            str(cifar),
            "--order",
            "fog",
            *extra,
            "--csv",
            str(out),
            "--manifest",
            str(tmp_path / "m.json"),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert rc == 2 and needle in err and "\n" not in err
    assert list(tmp_path.iterdir()) == []


def test_replay_on_other_data_is_refused(
    cifar: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    man = tmp_path / "m.json"
    assert main(["stream", "--data", str(cifar), "--order", "fog", "--manifest", str(man)]) == 0
    other = write_cifar_c(tmp_path / "other", ["fog"], np.repeat(np.arange(10), 20))
    capsys.readouterr()
    assert (
        main(
            ["stream", "--data", str(other), "--replay", str(man), "--csv", str(tmp_path / "x.csv")]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "is not the data of the manifest" in err and "differ: labels" in err
    assert not (tmp_path / "x.csv").exists()


def test_outputs_never_replace_inputs_or_each_other(
    cifar: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33 item 13 on the stream commands: --csv over --manifest, an output over the data, a
    results file where a manifest would go: one line, nothing written."""
    same = tmp_path / "x.json"
    manifest = tmp_path / "m.json"
    assert (
        main(["stream", "--data", str(cifar), "--order", "fog", "--manifest", str(manifest)]) == 0
    )
    before = manifest.read_bytes()
    results = tmp_path / "r.json"
    results.write_text('{"schema": "corruptbench.results/1", "kind": "stream"}')
    cases = [
        (["--order", "fog", "--csv", str(same), "--manifest", str(same)], "--csv"),
        (["--replay", str(manifest), "--manifest", str(manifest)], "--manifest"),
        (["--order", "fog", "--manifest", str(results)], "--manifest"),
    ]
    capsys.readouterr()
    for extra, flag in cases:
        rc = main(["stream", "--data", str(cifar), *extra])
        err = capsys.readouterr().err.strip()
        assert rc == 2 and flag in err and "\n" not in err, err
    assert not same.exists() and manifest.read_bytes() == before
    rc = main(["eval-stream", "--data", str(cifar), "--order", "fog", "--model", "m.onnx", "--out", str(same),
               "--markdown", str(same)])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "--out" in err and "never replaces" in err and not same.exists(), err


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--csv", "{data}/labels.npy"], "--csv {data}/labels.npy is inside the data {data}"),
        (["--csv", "{data}/fog.npy"], "--csv {data}/fog.npy is inside the data {data}"),
        (["--manifest", "{data}/snow.npy"], "--manifest {data}/snow.npy is inside the data"),
        (["--manifest", "{data}/new.json"], "--manifest {data}/new.json is inside the data"),
    ],
)
def test_stream_writes_nothing_into_the_data_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], needle: str
) -> None:
    """``--csv D/labels.npy`` replaced the labels with CSV text (exit 0; the next run failed):
    every file of the data folder is an input, and so is a new one beside them."""
    data = write_cifar_c(tmp_path / "d", ["fog", "snow"], np.repeat(np.arange(10), 2))
    before = {p.name: p.read_bytes() for p in data.iterdir()}
    args = [a.format(data=data) for a in extra]
    rc = main(["stream", "--data", str(data), "--order", "fog", *args])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and needle.format(data=data) in err and "\n" not in err, err
    assert {p.name: p.read_bytes() for p in data.iterdir()} == before


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--replay", "{m}", "--markdown", "{m}"], "--markdown {m} is the manifest replayed {m}"),
        (["--order", "fog", "--weights", "{w}", "--markdown", "{w}"],
         "--markdown {w} is the weights file --weights {w}"),
        (["--order", "fog", "--out", "{data}/fog.npy"], "--out {data}/fog.npy is inside the data"),
        (["--order", "fog", "--figure", "{data}/f.png"], "--figure {data}/f.png is inside the data"),
        (["--order", "fog", "--checkpoint", "{data}/ck"], "--checkpoint {data}/ck is inside the"),
    ],
)  # fmt: skip
def test_eval_stream_replaces_no_file_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], needle: str
) -> None:
    """eval-stream overwrote (exit 0) the --replay manifest, the --weights file and a data array
    with its report: refused before the model loads, nothing written."""
    data = write_cifar_c(tmp_path / "d", ["fog"], np.repeat(np.arange(10), 2))
    m, w = tmp_path / "m.json", tmp_path / "w.th"
    assert main(["stream", "--data", str(data), "--order", "fog", "--manifest", str(m)]) == 0
    w.write_bytes(b"weights")
    files = [*sorted(data.iterdir()), m, w]
    before = [p.read_bytes() for p in files]
    capsys.readouterr()
    args = [a.format(data=data, m=m, w=w) for a in extra]
    rc = main(["eval-stream", "--data", str(data), *args, "--model", "no_such_model"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and needle.format(data=data, m=m, w=w) in err and "\n" not in err, err
    assert [p.read_bytes() for p in files] == before and sorted(data.iterdir()) == files[:-2]


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--dataset", "cifar10_c"], "error: cifar10_c needs images: give --data D or --on-the-fly"
         " SRC (a sequence without images comes from ImageNet-C's id lists only: robustbench,"),
        (["--dataset", "imagenet_c", "--image-list", "data"],
         "error: --image-list 'data' takes its ids from the data: give --data D or --on-the-fly"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", ["stream", "eval-stream"])
def test_no_data_names_what_is_missing(
    capsys: pytest.CaptureFixture[str], command: str, extra: list[str], needle: str
) -> None:
    """``stream --dataset cifar10_c`` without data said "--data is needed for cifar10_c with
    image list 'robustbench'", a list no one gave: the message names what is missing."""
    model = ["--model", "no_such_model"] if command == "eval-stream" else []
    assert main([command, *extra, "--order", "fog", *model]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "robustbench'" not in err and "\n" not in err, err


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--setting", "gradual"], "--setting"),
        (["--order", "fog,snow", "--seed", "3"], "--order, --seed"),
        (["--num-examples", "5"], "--num-examples"),
        (["--corruption-seed", "2"], "--corruption-seed"),
        (["--dataset", "cifar10_c", "--severities", "3"], "--dataset, --severities"),
    ],
)
def test_replay_refuses_the_options_its_manifest_fixes(
    cifar: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], named: str
) -> None:
    man = tmp_path / "m.json"
    assert main(["stream", "--data", str(cifar), "--order", "fog", "--manifest", str(man)]) == 0
    capsys.readouterr()
    out = tmp_path / "x.csv"
    rc = main(["stream", "--data", str(cifar), "--replay", str(man), *extra, "--csv", str(out)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "\n" not in err, err
    assert err.endswith(
        f"error: {named} would be ignored: the manifest of --replay fixes the stream "
        "(only --data, --on-the-fly, --batch-size go with it)"
    ), err
    assert not out.exists()


def test_replay_in_batches_of_another_size_says_so(
    cifar: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--batch-size with --replay: the same sequence, in batches of that size, and the stream
    (its header, the manifest it writes) says that size, not the manifest's."""
    man, again = tmp_path / "m.json", tmp_path / "m8.json"
    assert main(["stream", "--data", str(cifar), "--order", "fog", "--manifest", str(man)]) == 0
    capsys.readouterr()
    argv = ["stream", "--data", str(cifar), "--replay", str(man), "--batch-size", "8"]
    assert main([*argv, "--manifest", str(again)]) == 0
    assert ", batch 8)" in capsys.readouterr().out
    first, second = json.loads(man.read_text()), json.loads(again.read_text())
    assert (first["settings"]["batch_size"], second["settings"]["batch_size"]) == (200, 8)
    assert second["sequence_sha256"] == first["sequence_sha256"]

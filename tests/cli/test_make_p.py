"""``corruptbench make-p``: MP4 and npy end to end, argument errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from builders.support import make_source, write_batch
from corruptbench.cli import main
from corruptbench.formats import video
from corruptbench.layouts import cifar_p, imagenet_p
from corruptbench.pipeline import item_seed
from support import psnr


def test_make_p_mp4_layout_frames_and_loss(tmp_path: Path) -> None:
    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    rc = main(
        [
            "make-p",
            str(src),
            str(out),
            "--perturbations",
            "translate,gaussian_noise",
            "--difficulty",
            "1,2",
            "--workers",
            "1",
        ]
    )
    assert rc == 0
    rel = next(src.rglob("*.JPEG")).relative_to(src)
    stem = rel.with_suffix(".mp4").as_posix()
    from corruptbench import perturb

    with Image.open(src / rel) as im:
        img = np.asarray(im.convert("RGB"))
    for folder, name, d, t in (
        ("translate", "translate", 1, 41),
        ("gaussian_noise", "gaussian_noise", 1, 31),
        ("gaussian_noise_2", "gaussian_noise", 2, 31),
    ):
        frames = video.read_mp4(out / folder / stem)
        assert frames.shape == (t, 224, 224, 3)
        want = perturb(
            img,
            name,
            profile="imagenet",
            difficulty=d,
            rng=item_seed(0, "p", name, d, rel.as_posix()),
        )
        loss = psnr(frames, want)
        print(f"\nmake-p {folder}: MP4 PSNR vs the exact frames {loss:.2f} dB")
        assert loss > (30 if "noise" in name else 40)
    assert not (out / "translate_2").exists()
    idx = imagenet_p.scan_imagenet_p(out, difficulties=(1, 2))
    assert sorted(idx.cells) == [("gaussian_noise", 1), ("gaussian_noise", 2), ("translate", 1)]


def test_make_p_cifar_npy(tmp_path: Path) -> None:
    images, _labels = write_batch(tmp_path / "test_batch", 4)
    out = tmp_path / "out"
    rc = main(
        [
            "make-p",
            str(tmp_path / "test_batch"),
            str(out),
            "--profile",
            "cifar",
            "--perturbations",
            "translate,shot_noise",
            "--difficulty",
            "1,3",
            "--workers",
            "1",
        ]
    )
    assert rc == 0
    got = cifar_p.scan_cifar_p(out)
    assert sorted(got) == ["shot_noise", "shot_noise_3", "translate"]
    tr = np.load(out / "translate.npy")
    assert tr.shape == (4, 16, 32, 32, 3)
    from corruptbench import perturb

    sn3 = np.load(out / "shot_noise_3.npy")
    rel = f"{_labels[2]}/{2:05d}.png"
    assert np.array_equal(
        sn3[2],
        perturb(
            images[2],
            "shot_noise",
            profile="cifar",
            difficulty=3,
            rng=item_seed(0, "p", "shot_noise", 3, rel),
        ),
    )
    assert not (out / "labels.npy").exists()


def test_cli_argument_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    assert (
        main(["make-p", str(src), str(out), "--perturbations", "translate", "--difficulty", "2"])
        == 2
    )
    assert "only for gaussian_noise" in capsys.readouterr().err and not out.exists()
    assert main(["make-p", str(src), str(out), "--perturbations", "rotat"]) == 2
    assert "unknown perturbation 'rotat'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["make-p", str(src), str(out), "--format", "jpeg"])
    assert "invalid choice: 'jpeg'" in capsys.readouterr().err


def test_list_syntax_progress_and_interrupts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_batch(tmp_path / "test_batch", 3)
    manifests = []
    for name, flags in {
        "commas": ["--perturbations", "rotate,gaussian_noise", "--difficulty", "1,2"],
        "spaces": ["--perturbations", "rotate", "gaussian_noise", "--difficulties", "1", "2"],
        "range": ["--perturbations", "rotate", "gaussian_noise", "--difficulty", "1-2"],
    }.items():
        out = tmp_path / name
        assert (
            main(
                [
                    "make-p",
                    str(tmp_path / "test_batch"),
                    str(out),
                    "--profile",
                    "cifar",
                    *flags,
                    "--workers",
                    "1",
                ]
            )
            == 0
        )
        manifests.append(json.loads((out / "manifest.json").read_text())["params"])
        err = capsys.readouterr().err.splitlines()
        assert err[0] == "make-p cifar: 3 images to do" and err[-1].startswith("make-p cifar: 3/3")
    assert manifests[0] == manifests[1] == manifests[2]
    assert manifests[0]["perturbations"] == ["rotate", "gaussian_noise"]
    assert manifests[0]["difficulties"] == [1, 2]

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("corruptbench.builders.build", interrupted)
    assert main(["make-p", str(tmp_path / "test_batch"), str(tmp_path / "x")]) == 130
    assert "run the same command again to resume" in capsys.readouterr().err


def test_upsampled_inputs_are_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """make-c listed a 300 x 159 photo as upsampled; make-p said nothing for the same photo."""
    from support import IMAGENET_SAMPLE, need_shared

    need_shared()
    src = tmp_path / "src" / "n01440764"
    src.mkdir(parents=True)
    with Image.open(IMAGENET_SAMPLE / "n01440764_tench.JPEG") as im:
        im.convert("RGB").resize((300, 159)).save(src / "wide.png")
        im.convert("RGB").resize((320, 260)).save(src / "fine.png")
    out = tmp_path / "out"
    flags = ["--format", "npy", "--perturbations", "brightness", "--workers", "1", "--no-progress"]
    assert main(["make-p", str(tmp_path / "src"), str(out), *flags]) == 0
    text = capsys.readouterr().out
    assert "warning: 1 input(s) made with a remark" in text
    assert "n01440764/wide.png: upsampled: 300x159 is smaller than the imagenet profile's" in text
    rows = (out / "skipped.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].startswith("n01440764/wide.png,") and ",warning," in rows[1]
    assert np.load(out / "brightness.npy").shape[0] == 2  # made, as before

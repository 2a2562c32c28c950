"""``corruptbench make-c``: exit codes, the printed summary, argument errors, CIFAR npy end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from build.support import make_source, tree, write_batch
from corruptbench import corrupt
from corruptbench.cli import main
from corruptbench.datasets import cifar
from corruptbench.pipeline import item_seed
from support import IMAGENET_SAMPLE, need_shared


def test_bad_inputs_are_skipped_and_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    need_shared()
    src = tmp_path / "src"
    (src / "n01440764").mkdir(parents=True)
    photo = IMAGENET_SAMPLE / "n01440764_tench.JPEG"
    data = photo.read_bytes()
    (src / "n01440764" / "good.JPEG").write_bytes(data)
    (src / "n01440764" / "truncated.JPEG").write_bytes(data[: len(data) // 2])
    (src / "n01440764" / "text.jpg").write_text("this is not a JPEG")
    with Image.open(photo) as im:
        im.convert("CMYK").save(src / "n01440764" / "cmyk.jpg")
        im.convert("P").save(src / "n01440764" / "palette.png")
        im.convert("L").save(src / "n01440764" / "gray.JPEG")
    (src / "n01440764" / "README.txt").write_text("ignored: not an image extension")
    out = tmp_path / "out"
    rc = main(
        [
            "make-c",
            str(src),
            str(out),
            "--corruptions",
            "brightness",
            "--severities",
            "1",
            "--workers",
            "1",
            "--no-progress",
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "2 skipped" in text and "0 failed" in text and "1 non-image files" in text
    rows = (out / "skipped.csv").read_text().splitlines()
    assert rows[0] == "relative_path,source,status,reason" and len(rows) == 3
    assert rows[1].startswith("n01440764/text.jpg,") and "not an image" in rows[1]
    assert rows[2].startswith("n01440764/truncated.JPEG,") and "truncated" in rows[2]
    made = sorted(p.name for p in (out / "brightness" / "1" / "n01440764").iterdir())
    assert made == ["cmyk.jpg", "good.JPEG", "gray.JPEG", "palette.jpg"]
    rc = main(
        [
            "make-c",
            str(src),
            str(out),
            "--corruptions",
            "brightness",
            "--severities",
            "1",
            "--workers",
            "1",
            "--strict",
        ]
    )
    assert rc == 1  # --strict: any skip is an error exit
    capsys.readouterr()


def test_make_c_cifar_npy_shapes_labels_and_values(tmp_path: Path) -> None:
    images, labels = write_batch(tmp_path / "test_batch", 12)
    out = tmp_path / "out"
    rc = main(
        [
            "make-c",
            str(tmp_path / "test_batch"),
            str(out),
            "--profile",
            "cifar",
            "--corruptions",
            "fog,gaussian_noise",
            "--workers",
            "1",
        ]
    )
    assert rc == 0
    idx = cifar.scan_cifar_c(out, ["fog", "gaussian_noise"])
    assert idx.n == 12 and not idx.missing
    lab = np.load(out / "labels.npy")
    assert lab.dtype == np.uint8 and np.array_equal(lab, np.tile(labels, 5))
    arr = np.load(out / "gaussian_noise.npy")
    assert arr.shape == (60, 32, 32, 3) and arr.dtype == np.uint8
    for sev in (1, 4):
        for i in (0, 11):
            rel = f"{labels[i]}/{i:05d}.png"
            want = corrupt(
                images[i],
                "gaussian_noise",
                sev,
                profile="cifar",
                rng=item_seed(0, "c", "gaussian_noise", sev, rel),
            )
            assert np.array_equal(arr[(sev - 1) * 12 + i], want)
    assert not (out / ".corruptbench").exists() or not any((out / ".corruptbench").rglob("*.npz"))
    before = tree(out)
    assert (
        main(
            [
                "make-c",
                str(tmp_path / "test_batch"),
                str(out),
                "--profile",
                "cifar",
                "--corruptions",
                "fog,gaussian_noise",
                "--workers",
                "1",
            ]
        )
        == 0
    )
    assert tree(out) == before


def test_cli_argument_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    assert main(["make-c", str(src), str(out), "--severities", "0-2"]) == 2
    assert main(["make-c", str(src), str(out), "--corruptions", "gausian_noise"]) == 2
    assert "did you mean 'gaussian_noise'" in capsys.readouterr().err
    (tmp_path / "file.bin").write_bytes(b"GIF89a")
    assert main(["make-c", str(tmp_path / "file.bin"), str(out)]) == 2
    assert "not a CIFAR python batch" in capsys.readouterr().err
    assert main(["make-c", str(src), str(src / "inside")]) == 2


def test_errors_name_the_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    assert main(["make-c", str(src), str(out), "--limit", "0", "--no-progress"]) == 2
    assert capsys.readouterr().err == "corruptbench make-c: error: --limit must be >= 1, got 0\n"
    assert main(["make-c", str(src), str(out), "--workers", "0"]) == 2
    assert "--workers must be >= 1, got 0" in capsys.readouterr().err
    assert main(["make-c", str(src), str(out), "--severities", "7"]) == 2
    assert "severities must be in 1..5, got '7'" in capsys.readouterr().err
    assert not out.exists()


def test_summary_and_nothing_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_source(tmp_path, 2)
    out = tmp_path / "out"
    args = ["make-c", str(src), str(out), "--corruptions", "brightness", "--severities", "1,2"]
    assert main([*args, "--workers", "1", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("2 images: 2 processed in this run, 0 already done; 4 outputs written;")
    assert main([*args, "--workers", "1", "--no-progress"]) == 0
    assert capsys.readouterr().out == f"nothing to do: {out} is complete (2 images)\n"


def test_layout_tree_end_to_end_and_option_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from build.support import make_coco_tree

    src = make_coco_tree(tmp_path)
    out = tmp_path / "out"
    args = ["make-c", str(src), str(out), "--layout", "tree", "--corruptions", "fog"]
    args += ["--severities", "2", "--workers", "1", "--no-progress"]
    assert main([*args, "--copy-files", "annotations", "--quality", "70"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("6 images: 6 processed in this run, 0 already done; 5 outputs written;")
    assert "1 skipped" in text and "1 non-image files" in text
    with Image.open(out / "fog" / "2" / "val2017" / "000000000285.jpg") as im:
        assert im.size == (480, 640)
    assert (out / "fog" / "2" / "annotations" / "instances_val2017.json").is_file()
    assert main([*args, "--copy-files", "annotations", "--quality", "70"]) == 0
    assert capsys.readouterr().out.startswith("nothing to do")
    # the options of the other layout, and the tree's own, are refused where they do not apply
    assert main([*args, "--format", "npy"]) == 2
    assert "--format does not apply to --layout tree" in capsys.readouterr().err
    plain = ["make-c", str(src), str(tmp_path / "o2"), "--copy-files", "annotations"]
    assert main(plain) == 2
    assert "--copy-files and --no-links apply to --layout tree only" in capsys.readouterr().err
    assert main([*args[:2], str(tmp_path / "o3"), *args[3:], "--quality", "101"]) == 2
    assert "--quality must be an int in 1..100, got 101" in capsys.readouterr().err
    assert main([*args[:2], str(tmp_path / "o4"), *args[3:], "--copy-files", "nope"]) == 2
    assert "pattern 'nope' selects no file" in capsys.readouterr().err

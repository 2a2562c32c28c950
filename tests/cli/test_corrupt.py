"""``corruptbench corrupt``: one image file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from corruptbench import corrupt
from corruptbench.cli import main


def test_corrupt_png(
    tmp_path: Path, synthetic_image: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    Image.fromarray(synthetic_image).save(tmp_path / "in.png")
    args = ["corrupt", str(tmp_path / "in.png"), str(tmp_path / "out.png"), "-c", "fog", "-s", "3"]
    assert main([*args, "--seed", "4"]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 'out.png'} (fog, severity 3, 224x224)\n"
    want = corrupt(synthetic_image, "fog", 3, rng=4)
    np.testing.assert_array_equal(np.asarray(Image.open(tmp_path / "out.png")), want)


def test_corrupt_errors(
    tmp_path: Path, synthetic_image: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            ["corrupt", str(tmp_path / "nope.png"), str(tmp_path / "o.png"), "-c", "fog", "-s", "1"]
        )
        == 2
    )
    assert "input image not found" in capsys.readouterr().err
    Image.fromarray(synthetic_image).save(tmp_path / "in.png")
    assert (
        main(["corrupt", str(tmp_path / "in.png"), str(tmp_path / "o.xyz"), "-c", "fog", "-s", "1"])
        == 2
    )
    assert "unsupported output extension '.xyz'" in capsys.readouterr().err


def _run(*args: str) -> int:
    return main(["corrupt", *args])


def test_alpha_and_gray_are_kept_like_the_api(
    tmp_path: Path, synthetic_image: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    alpha = (np.arange(224 * 224) % 251).astype(np.uint8).reshape(224, 224)
    rgba = np.dstack([synthetic_image, alpha])
    Image.fromarray(rgba).save(tmp_path / "a.png")
    assert (
        _run(
            str(tmp_path / "a.png"),
            str(tmp_path / "a-out.png"),
            "-c",
            "frost",
            "-s",
            "2",
            "--seed",
            "3",
        )
        == 0
    )
    assert "(frost, severity 2, 224x224, RGBA)" in capsys.readouterr().out
    with Image.open(tmp_path / "a-out.png") as im:
        assert im.mode == "RGBA"
        np.testing.assert_array_equal(np.asarray(im), corrupt(rgba, "frost", 2, rng=3))
    gray = synthetic_image[:, :, 0]
    Image.fromarray(gray).save(tmp_path / "g.png")
    assert (
        _run(
            str(tmp_path / "g.png"),
            str(tmp_path / "g-out.png"),
            "-c",
            "snow",
            "-s",
            "4",
            "--seed",
            "1",
        )
        == 0
    )
    with Image.open(tmp_path / "g-out.png") as im:
        assert im.mode == "L"
        np.testing.assert_array_equal(np.asarray(im), corrupt(gray, "snow", 4, rng=1))
    # JPEG cannot store alpha: written as RGB, with a note
    assert _run(str(tmp_path / "a.png"), str(tmp_path / "a.jpg"), "-c", "fog", "-s", "1") == 0
    assert "alpha channel was dropped" in capsys.readouterr().err
    with Image.open(tmp_path / "a.jpg") as im:
        assert im.mode == "RGB"


def test_16_bit_input_is_converted_not_white(tmp_path: Path) -> None:
    a = (np.arange(64 * 80, dtype=np.uint32).reshape(64, 80) * 12).astype(np.uint16)
    Image.fromarray(a).save(tmp_path / "g16.png")
    assert (
        _run(str(tmp_path / "g16.png"), str(tmp_path / "o.png"), "-c", "contrast", "-s", "1") == 0
    )
    with Image.open(tmp_path / "o.png") as im:
        got = np.asarray(im)
    want = corrupt((a >> 8).astype(np.uint8), "contrast", 1)
    np.testing.assert_array_equal(got, want)
    assert got.min() < 100  # not the pure white of Pillow's own 16 -> 8 bit convert


@pytest.mark.parametrize("quality", ["-3", "0", "101", "500"])
def test_quality_is_range_checked(
    tmp_path: Path, synthetic_image: np.ndarray, capsys: pytest.CaptureFixture[str], quality: str
) -> None:
    Image.fromarray(synthetic_image).save(tmp_path / "in.png")
    assert (
        _run(
            str(tmp_path / "in.png"),
            str(tmp_path / "o.jpg"),
            "-c",
            "fog",
            "-s",
            "1",
            "--quality",
            quality,
        )
        == 2
    )
    err = capsys.readouterr().err
    assert f"--quality must be an int in 1..100, got {quality} (Pillow's JPEG scale" in err
    assert not (tmp_path / "o.jpg").exists()


def test_outputs_follow_the_umask_and_errors_name_the_path(
    tmp_path: Path, synthetic_image: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    Image.fromarray(synthetic_image).save(tmp_path / "in.png")
    old = os.umask(0o022)
    try:
        assert _run(str(tmp_path / "in.png"), str(tmp_path / "o.png"), "-c", "fog", "-s", "1") == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "o.png").stat().st_mode) == 0o644  # was 0600 (mkstemp)
    (tmp_path / "taken.png").mkdir()  # where the file should go there is a folder
    assert _run(str(tmp_path / "in.png"), str(tmp_path / "taken.png"), "-c", "fog", "-s", "1") == 2
    err = capsys.readouterr().err
    assert err == f"corruptbench corrupt: error: Is a directory: '{tmp_path / 'taken.png'}'\n"


def test_unknown_corruption_suggests_by_prefix(
    tmp_path: Path, synthetic_image: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    Image.fromarray(synthetic_image).save(tmp_path / "in.png")
    assert _run(str(tmp_path / "in.png"), str(tmp_path / "o.png"), "-c", "jpeg", "-s", "1") == 2
    assert "unknown corruption 'jpeg'; did you mean 'jpeg_compression'?" in capsys.readouterr().err


def test_a_missing_output_folder_is_refused(
    tmp_path: Path, synthetic_image: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    """``corrupt photo.jpg /nonexistent_dir/x.png`` created the folder silently."""
    Image.fromarray(synthetic_image).save(tmp_path / "in.png")
    out = tmp_path / "typo" / "x.png"
    assert main(["corrupt", str(tmp_path / "in.png"), str(out), "-c", "fog", "-s", "1"]) == 2
    assert capsys.readouterr().err == (
        f"corruptbench corrupt: error: the output's folder {out.parent} does not exist; create it "
        "first (or check the path)\n"
    )
    assert not out.parent.exists()
    (tmp_path / "file").write_text("x")
    bad = tmp_path / "file" / "x.png"
    assert main(["corrupt", str(tmp_path / "in.png"), str(bad), "-c", "fog", "-s", "1"]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_the_output_never_replaces_the_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33 item 13: the shared output check (cli.options.check_output) in corrupt too."""
    src = tmp_path / "in.png"
    Image.fromarray(np.full((32, 32, 3), 128, np.uint8)).save(src)
    kept = src.read_bytes()
    assert main(["corrupt", str(src), str(src), "-c", "fog", "-s", "1"]) == 2
    err = capsys.readouterr().err
    assert f"OUTPUT {src} is the INPUT image {src}: an output never replaces" in err
    assert src.read_bytes() == kept

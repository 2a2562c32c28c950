"""``corruptbench make-c``: exit codes, the printed summary, argument errors, CIFAR npy end to end."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from builders.support import make_source, tree, write_batch
from corruptbench import corrupt
from corruptbench.cli import main
from corruptbench.datasets import cifar
from corruptbench.grid import subsets
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
    assert text.startswith(
        "2 images: 2 made in this run, 0 already done, 0 skipped, 0 failed; 4 outputs written;"
    )
    assert main([*args, "--workers", "1", "--no-progress"]) == 0
    assert capsys.readouterr().out == f"nothing to do: {out} is complete (2 images)\n"


def _manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


def test_one_list_syntax(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_source(tmp_path, 1)
    spellings = {
        "commas": ["--corruptions", "fog,brightness", "--severities", "1,3"],
        "spaces": ["--corruptions", "fog", "brightness", "--severities", "1", "3"],
        "mixed": ["--corruptions", "fog,", "brightness", "--severities", "1", "3-3"],
    }
    for name, flags in spellings.items():
        out = tmp_path / name
        assert main(["make-c", str(src), str(out), *flags, "--workers", "1", "--no-progress"]) == 0
        params = _manifest(out)["params"]
        assert params["corruptions"] == ["fog", "brightness"] and params["severities"] == [1, 3]
    assert (
        main(
            [
                "make-c",
                str(src),
                str(tmp_path / "w"),
                "--corruptions",
                "weather",
                "--severities",
                "2",
                "--workers",
                "1",
                "--no-progress",
            ]
        )
        == 0
    )
    assert _manifest(tmp_path / "w")["params"]["corruptions"] == [
        "snow",
        "frost",
        "fog",
        "brightness",
    ]
    capsys.readouterr()


def test_progress_lines_when_stderr_is_not_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = make_source(tmp_path, 2)
    args = [
        "make-c",
        str(src),
        "--corruptions",
        "brightness",
        "--severities",
        "1",
        "--workers",
        "1",
    ]
    assert main([*args[:2], str(tmp_path / "a"), *args[2:]]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "make-c imagenet: 2 images to do"
    assert err[-1].startswith("make-c imagenet: 2/2 images (100.0%), ") and "images/s" in err[-1]
    assert main([*args[:2], str(tmp_path / "b"), *args[2:], "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_upsampled_inputs_are_listed_as_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "src" / "n01440764"
    src.mkdir(parents=True)
    tiny = np.random.RandomState(0).randint(0, 256, (5, 5, 3)).astype(np.uint8)
    Image.fromarray(tiny).save(src / "tiny.png")
    Image.fromarray(np.zeros((300, 400, 3), np.uint8)).save(src / "big.png")
    out = tmp_path / "out"
    flags = ["--corruptions", "brightness", "--severities", "1", "--workers", "1", "--no-progress"]
    assert main(["make-c", str(tmp_path / "src"), str(out), *flags]) == 0
    text = capsys.readouterr().out
    assert "warning: 1 input(s) made with a remark (all listed in " in text
    assert "n01440764/tiny.png: upsampled: 5x5 is smaller than the imagenet profile's" in text
    rows = (out / "skipped.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].startswith("n01440764/tiny.png,") and ",warning," in rows[1]
    assert (out / "brightness" / "1" / "n01440764" / "tiny.jpg").is_file()  # made, pixels kept
    # a re-run (nothing to do) and a resumed run keep the list
    assert main(["make-c", str(tmp_path / "src"), str(out), *flags]) == 0
    assert (out / "skipped.csv").read_text().splitlines() == rows
    assert "nothing to do" in capsys.readouterr().out


def test_limit_takes_a_seeded_subset_spread_over_the_classes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "src"
    for c in range(3):
        (src / f"class{c}").mkdir(parents=True)
        for i in range(4):
            Image.fromarray(np.full((32, 32, 3), 10 * c + i, np.uint8)).save(
                src / f"class{c}" / f"{i}.png"
            )
    flags = [
        "--profile",
        "cifar",
        "--corruptions",
        "brightness",
        "--severities",
        "1",
        "--workers",
        "1",
        "--no-progress",
        "--limit",
        "3",
    ]
    picks = []
    for seed in ("0", "0", "5"):
        out = tmp_path / f"out{len(picks)}"
        assert main(["make-c", str(src), str(out), *flags, "--seed", seed]) == 0
        picks.append((out / "sources.txt").read_text().split())
    assert picks[0] == picks[1]  # the seed decides
    for pick in picks:
        assert sorted(p.split("/")[0] for p in pick) == ["class0", "class1", "class2"]
        assert pick == sorted(pick)  # kept in sorted order
    assert _manifest(tmp_path / "out0")["params"]["limit_subset"]
    capsys.readouterr()


@pytest.mark.parametrize("quality", ["-3", "0", "101", "500"])
def test_quality_is_range_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], quality: str
) -> None:
    src = make_source(tmp_path, 1)
    assert main(["make-c", str(src), str(tmp_path / "o"), "--quality", quality]) == 2
    assert f"error: --quality must be an int in 1..100, got {quality}" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_ctrl_c_says_what_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("corruptbench.builders.build", interrupted)
    src = make_source(tmp_path, 1)
    assert main(["make-c", str(src), str(tmp_path / "o")]) == 130
    assert capsys.readouterr().err == (
        f"interrupted: the outputs written so far are kept in {tmp_path / 'o'}; run the same "
        "command again to resume (they are not recomputed)\n"
    )


def test_16_bit_sources_are_read_correctly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "src" / "c"
    src.mkdir(parents=True)
    a = (np.arange(32 * 32, dtype=np.uint32).reshape(32, 32) * 60).astype(np.uint16)
    Image.fromarray(a).save(src / "g16.png")
    out = tmp_path / "out"
    flags = ["--profile", "cifar", "--corruptions", "contrast", "--severities", "1"]
    assert main(["make-c", str(tmp_path / "src"), str(out), *flags, "--workers", "1"]) == 0
    got = np.load(out / "contrast.npy")[0]
    eight = np.repeat((a >> 8).astype(np.uint8)[..., None], 3, axis=2)
    np.testing.assert_array_equal(got, corrupt(eight, "contrast", 1, profile="cifar"))
    assert got.min() < 100  # not Pillow's clipped white
    capsys.readouterr()


def test_layout_tree_end_to_end_and_option_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from builders.support import make_coco_tree

    src = make_coco_tree(tmp_path)
    out = tmp_path / "out"
    args = ["make-c", str(src), str(out), "--layout", "tree", "--corruptions", "fog"]
    args += ["--severities", "2", "--workers", "1", "--no-progress"]
    assert main([*args, "--copy-files", "annotations", "--quality", "70"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(
        "6 images: 5 made in this run, 0 already done, 1 skipped, 0 failed; 5 outputs written;"
    )
    assert "1 non-image files" in text
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


def test_webdataset_builds_list_upsampled_inputs_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The folder build listed a 300 x 159 photo as upsampled; the webdataset build said nothing."""
    need_shared()
    src = tmp_path / "src" / "n01440764"
    src.mkdir(parents=True)
    with Image.open(IMAGENET_SAMPLE / "n01440764_tench.JPEG") as im:
        im.convert("RGB").resize((300, 159)).save(src / "wide.png")
        im.convert("RGB").resize((320, 260)).save(src / "fine.png")
    flags = ["--corruptions", "brightness", "--severities", "1", "--workers", "1", "--no-progress"]
    rows = {}
    for fmt in ("jpeg", "webdataset"):
        out = tmp_path / fmt
        assert main(["make-c", str(tmp_path / "src"), str(out), "--format", fmt, *flags]) == 0
        text = capsys.readouterr().out
        assert "warning: 1 input(s) made with a remark" in text, fmt
        assert "n01440764/wide.png: upsampled: 300x159 is smaller than" in text, fmt
        rows[fmt] = (out / "skipped.csv").read_text()
    assert rows["jpeg"] == rows["webdataset"]
    # a resume that finds the shard done still lists it
    (tmp_path / "webdataset" / "shards.json").unlink()
    assert (
        main(
            [
                "make-c",
                str(tmp_path / "src"),
                str(tmp_path / "webdataset"),
                "--format",
                "webdataset",
                *flags,
            ]
        )
        == 0
    )
    assert (tmp_path / "webdataset" / "skipped.csv").read_text() == rows["jpeg"]
    capsys.readouterr()


def test_control_characters_in_file_names_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ESC sequence in a file name reached the terminal (it can clear the screen or recolour
    it); it is shown escaped, and kept as it is in skipped.csv (data)."""
    src = make_source(tmp_path, 1)
    name = "clear\x1b[2J\x1b[31mred\x07.JPEG"
    cls = sorted(src.iterdir())[0]
    (cls / name).write_bytes(b"not a JPEG")
    out = tmp_path / "out"
    flags = ["--corruptions", "brightness", "--severities", "1", "--workers", "1", "--no-progress"]
    assert main(["make-c", str(src), str(out), *flags]) == 0
    text = capsys.readouterr().out
    assert "\x1b" not in text and "\x07" not in text
    assert f"  skipped: {cls.name}/clear\\x1b[2J\\x1b[31mred\\x07.JPEG: " in text
    assert f"{cls.name}/{name}," in (out / "skipped.csv").read_text()


def _interrupt_a_build(tmp_path: Path, how: str) -> tuple[int, str, list[object]]:
    """make-c --workers 2 --format webdataset in its own session, signalled while its workers
    stream shards; returns (exit status, stderr, the processes it had started)."""
    import signal
    import subprocess
    import time

    from builders.support import cli_cmd
    from support import REPO

    psutil = pytest.importorskip("psutil")
    src = make_source(tmp_path, 8)
    out = tmp_path / "out"
    args = [
        "--format",
        "webdataset",
        "--corruptions",
        "glass_blur",
        "fog",
        "--severities",
        "1",
        "2",
    ]
    cmd = cli_cmd("make-c", str(src), str(out), *args, "--shard-size", "4", "--workers", "2")
    proc = subprocess.Popen(
        [*cmd, "--no-progress"], cwd=REPO, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    for _ in range(30000):  # until a worker streams a shard (a hang guard, not a speed check)
        if out.is_dir() and any(p.name.endswith(".cbtmp") for p in out.iterdir()):
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    kids = psutil.Process(proc.pid).children(recursive=True)
    t0 = time.monotonic()
    if how == "SIGINT":  # Ctrl-C: the whole foreground process group
        os.killpg(proc.pid, signal.SIGINT)
    else:  # kill PID, a scheduler
        os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=600)
    print(f"{how}: exited {time.monotonic() - t0:.1f} s after the signal")  # measured, not asserted
    return proc.returncode, err, kids


def _running(proc: object) -> bool:
    """Whether a psutil process still runs (a zombie holds nothing: it does not count)."""
    import psutil

    try:
        return proc.status() != psutil.STATUS_ZOMBIE  # type: ignore[attr-defined, no-any-return]
    except psutil.Error:
        return False


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM"])
def test_an_interrupted_build_stops_its_workers_and_says_so(tmp_path: Path, how: str) -> None:
    """SIGINT during --format webdataset took ~20 s, with no word; SIGTERM printed "leaked
    semaphore objects", no "interrupted" line, and left the manifest "running"."""
    import signal
    import subprocess
    import time

    from builders.support import cli_cmd

    rc, err, kids = _interrupt_a_build(tmp_path, how)
    assert rc == 128 + getattr(signal, how), err
    tail = "the outputs written so far are kept in "
    assert err.splitlines()[-1].startswith(
        "interrupted: " + tail if how == "SIGINT" else "interrupted (SIGTERM): " + tail
    )
    assert "Traceback" not in err and "leaked" not in err and "Error" not in err
    out = tmp_path / "out"
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    assert not [p for p in out.rglob("*") if p.name.endswith(".cbtmp")]
    for _ in range(600):  # the resource tracker ends once its last client has: a hang guard
        if not [k for k in kids if _running(k)]:
            break
        time.sleep(0.1)
    assert not [k for k in kids if _running(k)]
    src = tmp_path / "src"
    args = [
        "--format",
        "webdataset",
        "--corruptions",
        "glass_blur",
        "fog",
        "--severities",
        "1",
        "2",
    ]
    again = subprocess.run(
        cli_cmd("make-c", str(src), str(out), *args, "--shard-size", "4", "--no-progress"),
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "shards.json").read_text())["complete"]


def test_suite_cbar_defaults_subsets_and_level_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--suite cbar: the default is the profile's benchmark (ImageNet-C-bar's ten here), its
    subsets resolve, --level-names value names the folders as make_imagenet_c_bar.py; wrong
    combinations are refused naming the flags before any work."""
    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    rc = main(["make-c", str(src), str(out), "--suite", "cbar", "--corruptions", "noise",
               "--severities", "1", "--level-names", "value", "--no-progress"])  # fmt: skip
    assert rc == 0, capsys.readouterr().err
    names = json.loads((out / "manifest.json").read_text())["params"]["corruptions"]
    assert names == list(subsets("c", "cbar")["noise"])
    assert (out / "single_frequency_greyscale" / "1.00").is_dir()  # its level 1 is 1.0
    bad = tmp_path / "bad"
    assert (
        main(["make-c", str(src), str(bad), "--level-names", "value", "--corruptions", "fog"]) == 2
    )
    assert "--level-names 'value': 'fog' has no level values" in capsys.readouterr().err
    assert main(["make-c", str(src), str(bad), "--suite", "cbar", "--format", "webdataset",
                 "--level-names", "value"]) == 2  # fmt: skip
    assert "--level-names applies to --format jpeg only" in capsys.readouterr().err
    assert main(["make-c", str(src), str(bad), "--suite", "cbar", "--corruptions", "fog_x"]) == 2
    assert not bad.exists()
    # the default of the suite: the profile's benchmark, listed in the manifest
    write_batch(tmp_path / "test_batch", 2)
    rc = main(["make-c", str(tmp_path / "test_batch"), str(tmp_path / "c"), "--suite", "cbar",
               "--profile", "cifar", "--severities", "1", "--no-progress"])  # fmt: skip
    assert rc == 0
    params = json.loads((tmp_path / "c" / "manifest.json").read_text())["params"]
    assert params["corruptions"] == list(subsets("c", "cbar")["cifar10_c_bar"])
    assert params["suite"] == "cbar"


def test_cbar_progress_names_cbar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue 33 item 26: a C-bar build's progress said "make-c imagenet"
    src = make_source(tmp_path, 2)
    args = ["--corruptions", "blue_noise_sample", "--severities", "1", "--workers", "1"]
    assert main(["make-c", str(src), str(tmp_path / "a"), "--suite", "cbar", *args]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "make-c imagenet_c_bar: 2 images to do"
    assert err[-1].startswith("make-c imagenet_c_bar: 2/2 images (100.0%), ")

"""``corruptbench ccc calibrate | generate``: end to end on the test photos, and the refusals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from corruptbench.ccc import find_walk
from corruptbench.ccc.matrices import load_matrices, save_matrices
from corruptbench.cli import main
from corruptbench.streams.results import StreamResults
from support import IMAGENET_SAMPLE, need_shared

pytest.importorskip("torch")

CAL = ["--images", "3", "--corruptions", "gaussian_noise,contrast", "--levels", "10"]


def _calibrate(out, *extra):
    need_shared()
    return main(
        ["ccc", "calibrate", "--data", str(IMAGENET_SAMPLE), "--out", str(out), *CAL, *extra]
    )


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    out = tmp_path_factory.mktemp("cal")
    assert _calibrate(out) == 0
    return out


def test_calibrate_writes_matrices(calibrated):
    m = load_matrices(calibrated / "ccc_accuracy_matrix.npz")
    assert sorted(m) == ["n1_contrast_n2_gaussian_noise", "n1_gaussian_noise_n2_contrast"]
    a = m["n1_gaussian_noise_n2_contrast"]
    assert a.shape == (21, 21) and set(np.unique(a[::10, ::10])) <= {0, 100 / 3, 200 / 3, 100}
    assert a[0, 0] >= a[20, 20]  # clean vs both corruptions at 5
    find_walk(a, 20, tolerance=None)  # usable by the walk


def test_calibrate_resumes_to_the_same_numbers(calibrated, tmp_path):
    first = load_matrices(calibrated / "ccc_accuracy_matrix.npz")
    for f in calibrated.glob("pairs/*contrast_n2_gauss*"):
        f.unlink()  # as if killed before this pair finished
    assert _calibrate(calibrated) == 0
    again = load_matrices(calibrated / "ccc_accuracy_matrix.npz")
    assert all(np.array_equal(first[k], again[k]) for k in first)


@pytest.mark.slow
def test_calibrate_workers_same_numbers(calibrated, tmp_path):
    assert _calibrate(tmp_path, "--workers", "2") == 0
    a = load_matrices(calibrated / "ccc_accuracy_matrix.npz")
    b = load_matrices(tmp_path / "ccc_accuracy_matrix.npz")
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_calibrate_refuses_other_settings(calibrated, capsys):
    assert _calibrate(calibrated, "--seed", "1") == 2
    assert "holds a calibration with other settings (images, seed)" in capsys.readouterr().err


def test_generate_refuses_bad_matrix(tmp_path, capsys):
    need_shared()
    save_matrices(tmp_path / "m.npz", {"n1_fog_n2_snow": np.zeros((21, 21))})
    np.savez(tmp_path / "bad.npz", n1_fog_n2_snow=np.full((21, 21), np.nan))
    out = tmp_path / "out"
    base = ["ccc", "generate", "--data", str(IMAGENET_SAMPLE), "--out", str(out)]
    run = ["--baseline", "20", "--speed", "10", "--seed", "43"]
    assert main([*base, "--matrix", str(tmp_path / "bad.npz"), *run]) == 2
    assert "n1_fog_n2_snow has 441 NaN or infinite cell(s)" in capsys.readouterr().err
    assert main([*base, "--matrix", str(tmp_path / "m.npz"), *run]) == 2
    assert "--matrix lacks 155 of the 156 corruption pairs" in capsys.readouterr().err
    assert main([*base, "--matrix", str(tmp_path / "none.npz"), *run]) == 2
    assert "--matrix not found" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.slow
def test_recipe_calibrate_generate_read_back_eval_stream(calibrated, tmp_path, capsys):
    # issue 32's recipe in small: a matrix from `ccc calibrate` on the offline demo model,
    # `ccc generate` 3 steps of 3 images, read back with the original's recipe, `eval-stream`
    # on the written run and on the same run made on the fly: the same numbers
    wds = pytest.importorskip("webdataset")
    run = [
        "--matrix", str(calibrated / "ccc_accuracy_matrix.npz"), "--baseline", "20",
        "--speed", "3", "--seed", "43", "--images", "9", "--shard-images", "3",
        "--corruptions", "gaussian_noise,contrast", "--tolerance", "-1",
    ]  # fmt: skip
    assert (
        main(["ccc", "generate", "--data", str(IMAGENET_SAMPLE), "--out", str(tmp_path), *run]) == 0
    )
    folder = Path(capsys.readouterr().out.strip())
    url = str(folder / "serial_{00000..00002}.tar")
    ds = wds.WebDataset(url, shardshuffle=False).decode("pil").to_tuple("input.jpg", "output.cls")
    labels = [int(label) for _, label in ds]
    assert len(labels) == 9
    model = ["--model", "efficientnet_lite0", "--adapt", "tent", "--batch-size", "4", "--quiet"]
    written, made = tmp_path / "written.json", tmp_path / "made.json"
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)  # (tent keeps dropout off: no draw depends on this; kept as a guard)
    assert main(["eval-stream", "--ccc", str(folder), *model, "--out", str(written)]) == 0
    printed = capsys.readouterr().out
    assert "baseline_20_transition+speed_3_seed_43 (seed 43), tent" in printed
    assert "Error over all samples" in printed
    res = StreamResults.load(written)
    assert [b.n for b in res.blocks] == [3, 3, 3] and [b[1] for b in res.batches] == [4, 4, 1]
    assert res.overall == sum(b[2] for b in res.batches) / 9
    on_the_fly = ["--ccc-on-the-fly", str(IMAGENET_SAMPLE), *run]
    torch.manual_seed(0)
    assert main(["eval-stream", *on_the_fly, *model, "--out", str(made)]) == 0
    # the same numbers (time, creation time and where the data lies apart)
    assert StreamResults.load(made).to_dict()["stream"] == res.to_dict()["stream"]
    # the corruptions on torch: the same samples, blocks and batches (other draws)
    torched = tmp_path / "torch.json"
    argv = ["eval-stream", *on_the_fly, "--ccc-backend", "torch", *model, "--out", str(torched)]
    assert main(argv) == 0
    t = StreamResults.load(torched)
    assert [b.n for b in t.blocks] == [3, 3, 3] and [b[1] for b in t.batches] == [4, 4, 1]


def test_eval_stream_ccc_refusals(tmp_path, capsys):
    assert (
        main(["eval-stream", "--ccc", str(tmp_path), "--data", str(tmp_path), "--model", "x"]) == 2
    )
    assert (
        "give --ccc RUN or --ccc-on-the-fly SRC alone, not with --data" in capsys.readouterr().err
    )
    assert main(["eval-stream", "--ccc", str(tmp_path), "--model", "x"]) == 2
    assert f"--ccc {tmp_path} is not a CCC run folder" in capsys.readouterr().err
    assert (
        main(["eval-stream", "--ccc-on-the-fly", str(tmp_path), "--speed", "3", "--model", "x"])
        == 2
    )
    err = capsys.readouterr().err
    assert "--ccc-on-the-fly SRC needs the run's --matrix, --baseline, --seed" in err
    argv = ["eval-stream", "--ccc", str(tmp_path), "--ccc-backend", "torch", "--model", "x"]
    assert main(argv) == 2
    assert "--ccc-backend torch applies to --ccc-on-the-fly SRC" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("source", "extra", "message"),
    [
        (
            "--ccc",
            ["--baseline", "40"],
            "--baseline applies to --ccc-on-the-fly SRC (--ccc RUN reads",
        ),
        ("--ccc", ["--seed", "99"], "--seed applies to --ccc-on-the-fly SRC"),
        ("--ccc", ["--shard-images", "5"], "--shard-images applies to --ccc-on-the-fly SRC"),
        ("--ccc", ["--setting", "gradual"], "--setting sets a TTA setting's stream; a CCC run"),
        ("--ccc-on-the-fly", ["--severities", "3"], "--severities sets a TTA setting's stream"),
    ],
)
def test_eval_stream_refuses_options_a_ccc_run_would_ignore(
    tmp_path, capsys, source, extra, message
):
    assert main(["eval-stream", source, str(tmp_path), *extra, "--model", "x"]) == 2
    assert message in capsys.readouterr().err


def test_calibrate_refuses_a_bad_model_before_writing_anything(tmp_path, capsys):
    assert _calibrate(tmp_path / "c", "--model", "nonsense_model") == 2
    assert "nonsense_model" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()  # so the corrected command starts afresh
    assert _calibrate(tmp_path / "c", "--levels", "20") == 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--seed", "-1"], "--seed must be an int in [0, 2**32), got -1"),
        (
            ["--corruptions", "gaussian_noise,contrast,contrast"],
            "--corruptions names contrast more than once",
        ),
    ],
)
def test_calibrate_one_line_refusals(tmp_path, capsys, extra, message):
    assert _calibrate(tmp_path / "c", *extra) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and not (tmp_path / "c").exists()


def test_calibrate_names_a_damaged_pair_file(calibrated, tmp_path, capsys):
    out = tmp_path / "c"
    out.mkdir()
    for f in [*calibrated.glob("*.json"), *calibrated.glob("pairs/*.npy")]:
        (out / f.relative_to(calibrated)).parent.mkdir(exist_ok=True)
        (out / f.relative_to(calibrated)).write_bytes(f.read_bytes())
    pair = out / "pairs" / "n1_contrast_n2_gaussian_noise.npy"
    counts = np.load(pair)
    counts[0, 0] = 7  # 7 of 3 images correct: not a count
    np.save(pair, counts)
    assert _calibrate(out) == 2
    assert "n1_contrast_n2_gaussian_noise.npy is damaged" in capsys.readouterr().err
    pair.write_bytes(pair.read_bytes()[:60])  # truncated
    assert _calibrate(out) == 2
    assert "n1_contrast_n2_gaussian_noise.npy is damaged" in capsys.readouterr().err


def test_calibrate_refuses_out_inside_data(tmp_path, capsys):
    need_shared()
    data = tmp_path / "data"
    data.mkdir()
    for photo in sorted(IMAGENET_SAMPLE.iterdir())[:4]:
        (data / photo.name).write_bytes(photo.read_bytes())
    cmd = ["ccc", "calibrate", "--data", str(data), "--out", str(data / "cal"), *CAL]
    assert main(cmd) == 2
    assert "must not be the --data folder" in capsys.readouterr().err
    assert sorted(p.name for p in data.iterdir()) == sorted(
        p.name for p in sorted(IMAGENET_SAMPLE.iterdir())[:4]
    )


def test_generate_says_when_it_rounds_the_image_count_up(calibrated, tmp_path, capsys):
    run = [
        "--matrix", str(calibrated / "ccc_accuracy_matrix.npz"), "--baseline", "20",
        "--speed", "3", "--seed", "43", "--images", "5", "--shard-images", "6",
        "--corruptions", "gaussian_noise,contrast", "--tolerance", "-1",
    ]  # fmt: skip
    assert (
        main(["ccc", "generate", "--data", str(IMAGENET_SAMPLE), "--out", str(tmp_path), *run]) == 0
    )
    assert "6 images (--images 5 rounded up to the end of a shard)" in capsys.readouterr().err

"""``corruptbench ccc calibrate | generate``: end to end on the test photos, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

from corruptbench.ccc import find_walk
from corruptbench.ccc.matrices import load_matrices, save_matrices
from corruptbench.cli import main
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

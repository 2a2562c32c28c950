"""Executors: kill -9 at any moment and resume gives the same bytes; 1 worker = 2 workers = Ray."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from builders.support import (
    cli_cmd,
    kill_when,
    make_c_on_local_ray,
    make_source,
    run_c,
    tree,
    write_batch,
)
from corruptbench.builders import BuildSpec, JpegTreeWriter
from corruptbench.builders.engine import (
    BULK_ITEMS,
    iter_local,
    kernel_choice,
    ray_init_kwargs,
    warm_up,
)
from corruptbench.cli import main
from corruptbench.pipeline import CorruptStep, open_source


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_sigkill_and_resume_gives_identical_bytes_jpeg(tmp_path: Path, workers: int) -> None:
    src = make_source(tmp_path, 8)
    opts = ["--corruptions", "glass_blur,gaussian_noise,frost", "--no-progress"]
    full, killed = tmp_path / "full", tmp_path / "killed"
    assert main(["make-c", str(src), str(full), *opts, "--workers", "1"]) == 0
    n_files = len(list(full.rglob("*.JPEG")))
    assert n_files == 8 * 15
    cmd = cli_cmd("make-c", str(src), str(killed), *opts, "--workers", str(workers))
    kill_when(cmd, lambda: len(list(killed.rglob("*.JPEG"))) >= 20)
    snapshot = tree(killed)
    time.sleep(1.0)  # no orphaned worker goes on writing after the driver died
    assert tree(killed) == snapshot
    partial = len(list(killed.rglob("*.JPEG")))
    assert 20 <= partial < n_files
    assert json.loads((killed / "manifest.json").read_text())["status"] == "running"
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    assert tree(killed) == tree(full)


@pytest.mark.slow
def test_sigkill_and_resume_gives_identical_bytes_npy(tmp_path: Path) -> None:
    write_batch(tmp_path / "test_batch", 500)
    opts = [
        "--profile",
        "cifar",
        "--corruptions",
        "glass_blur,zoom_blur",
        "--workers",
        "1",
        "--no-progress",
    ]
    full, killed = tmp_path / "full", tmp_path / "killed"
    assert main(["make-c", str(tmp_path / "test_batch"), str(full), *opts]) == 0
    kill_when(
        cli_cmd("make-c", str(tmp_path / "test_batch"), str(killed), *opts),
        lambda: len(list(killed.rglob("shard-*.npz"))) >= 2,
    )
    assert not (killed / "glass_blur.npy").exists()
    assert (
        subprocess.run(
            cli_cmd("make-c", str(tmp_path / "test_batch"), str(killed), *opts),
            capture_output=True,
        ).returncode
        == 0
    )
    assert tree(killed) == tree(full)
    assert np.load(full / "glass_blur.npy").shape == (2500, 32, 32, 3)


def test_cbar_two_workers_and_sigkill_resume_give_one_workers_bytes(tmp_path: Path) -> None:
    """ImageNet-C-bar with value-named level folders: 2 workers, and a run killed with SIGKILL
    and resumed, write exactly the bytes of one worker (item seeds, as make-c's)."""
    src = make_source(tmp_path, 8)
    opts = ["--suite", "cbar", "--level-names", "value", "--no-progress", "--corruptions",
            "blue_noise_sample,checkerboard_cutout,sparkles"]  # fmt: skip
    one, two, killed = tmp_path / "one", tmp_path / "two", tmp_path / "killed"
    assert main(["make-c", str(src), str(one), *opts, "--workers", "1"]) == 0
    assert main(["make-c", str(src), str(two), *opts, "--workers", "2"]) == 0
    assert len(list(one.rglob("*.JPEG"))) == 8 * 3 * 5
    assert (one / "sparkles" / "5.00").is_dir()
    assert tree(two) == tree(one)
    cmd = cli_cmd("make-c", str(src), str(killed), *opts, "--workers", "2")
    kill_when(cmd, lambda: len(list(killed.rglob("*.JPEG"))) >= 12)
    assert 12 <= len(list(killed.rglob("*.JPEG"))) < 8 * 3 * 5
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    assert tree(killed) == tree(one)


@pytest.mark.slow
def test_one_worker_two_workers_and_ray_give_identical_bytes(tmp_path: Path) -> None:
    """Ray as on a user's machine: ``make-c --ray auto --workers 2`` starts its own Ray."""
    src = make_source(tmp_path, 4)
    kw = dict(names=["gaussian_noise", "snow", "frost"], levels=[2, 5])
    one, two, ray_out = tmp_path / "one", tmp_path / "two", tmp_path / "ray"
    run_c(src, one, **kw)
    s2 = run_c(src, two, workers=2, **kw)
    assert s2.processed == 4
    text = make_c_on_local_ray(
        [str(src), str(ray_out), "--corruptions", "gaussian_noise,snow,frost",
         "--severities", "2,5", "--workers", "2", "--no-progress"]
    )  # fmt: skip
    assert "4 made in this run" in text and "0 failed" in text, text
    assert tree(one) == tree(two) == tree(ray_out)
    assert len(tree(one)) == 4 * 6 + 2


def test_ray_auto_joins_the_cluster_in_ray_address_else_starts_ray_here() -> None:
    """Ray refuses a CPU count when it joins a cluster: ``--workers`` goes to a Ray started here."""
    assert ray_init_kwargs("auto", 2, None, {}) == {
        "include_dashboard": False,
        "log_to_driver": False,
        "num_cpus": 2,
    }
    joined = ray_init_kwargs("auto", 2, None, {"RAY_ADDRESS": "127.0.0.1:6379"})
    assert "num_cpus" not in joined and "address" not in joined  # ray.init reads RAY_ADDRESS
    assert ray_init_kwargs("local", 2, None, {"RAY_ADDRESS": "x:1"})["address"] == "local"
    assert ray_init_kwargs("local", 2, None, {})["num_cpus"] == 2
    there = ray_init_kwargs("10.0.0.1:6379", 4, {"namespace": "n"}, {})
    assert there["address"] == "10.0.0.1:6379" and there["namespace"] == "n"
    assert "num_cpus" not in there
    assert "num_cpus" not in ray_init_kwargs("auto", 1, None, {})


def test_in_process_executor_and_warm_up(tmp_path: Path) -> None:
    src = make_source(tmp_path, 2)
    items = open_source(src).items
    spec = BuildSpec(CorruptStep("imagenet"), JpegTreeWriter(str(tmp_path / "out")), (("fog", 1),))
    warm_up(spec)  # runs each operation once; writes nothing
    assert not (tmp_path / "out").exists()
    shards = [(i, [it]) for i, it in enumerate(items)]
    res = [r for batch in iter_local(spec, shards, workers=1) for r in batch]
    assert [r.status for r in res] == ["written", "written"] and [r.written for r in res] == [1, 1]
    assert res[0].cpu > 0 and len(list((tmp_path / "out").rglob("*.JPEG"))) == 2
    again = [r for batch in iter_local(spec, shards, workers=1) for r in batch]
    assert [r.status for r in again] == ["done", "done"]


def test_bulk_builds_use_the_jit_small_ones_the_aot_kernels_when_built() -> None:
    from corruptbench.ops import aot

    assert kernel_choice(BULK_ITEMS) == "jit"
    assert kernel_choice(3) == ("jit" if aot.load() is None else "auto")

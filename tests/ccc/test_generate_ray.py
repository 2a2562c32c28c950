"""``ccc generate --ray ADDRESS`` on a loopback Ray cluster writes the bytes of one local worker."""

from __future__ import annotations

import subprocess

import pytest
from test_generate import MATRICES, RUN

from builders.support import RAY_DRIVER_TIMEOUT, cli_cmd, start_cluster, stop_cluster
from corruptbench.ccc.matrices import save_matrices
from corruptbench.ccc.runs import generate
from support import IMAGENET_SAMPLE, need_shared


@pytest.mark.slow
def test_ray_cluster_same_shards(tmp_path):
    pytest.importorskip("torch")
    need_shared()
    local = generate(IMAGENET_SAMPLE, MATRICES, tmp_path / "local", **RUN)
    save_matrices(tmp_path / "m.npz", MATRICES)
    cl = start_cluster(workers=2)
    try:
        args = [
            "ccc", "generate", "--data", str(IMAGENET_SAMPLE), "--matrix", str(tmp_path / "m.npz"),
            "--out", str(tmp_path / "ray"), "--baseline", "20", "--speed", "4", "--seed", "44",
            "--images", "12", "--shard-images", "4", "--ray", cl.address,
        ]  # fmt: skip
        r = subprocess.run(
            cli_cmd(*args), env=cl.driver_env(), capture_output=True, text=True,
            timeout=RAY_DRIVER_TIMEOUT,
        )  # fmt: skip
        assert r.returncode == 0, r.stdout + r.stderr
    finally:
        stop_cluster(cl)
    on_ray = tmp_path / "ray" / local.name
    for f in sorted(local.glob("serial_*.tar")):
        assert (on_ray / f.name).read_bytes() == f.read_bytes(), f.name

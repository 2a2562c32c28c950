"""``make-c --ray ADDRESS`` on a real multi-node Ray cluster: a head and two worker nodes (separate
raylets, object stores and worker processes) on this machine, bound to 127.0.0.1
(``tools/loopback_ray.py``). The driver is the CLI in its own process, as a user runs it.

* the bytes equal a local ``--workers 1`` build (ImageNet layout and ``--layout tree``), and every
  socket of the cluster and of the driver is on 127.0.0.1;
* a worker node SIGKILLed in the middle of a build (while it runs a shard): Ray retries the shard
  on the other node and the build finishes, or a re-run resumes; either way the bytes are the
  local build's and no temporary file is left.

The cluster runs in a process of its own and is ready when the GCS lists every node alive (a node
start that misses Ray's fixed start-up deadline is retried, within a 300 s budget); the first two
tests share the session's cluster (``ray_cluster``), the kill test starts its own. Every driver
runs under a timeout (a cluster whose workers all died would wait forever); no process of a
cluster may outlive it (the cluster's process kills its nodes; they die with it too).
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builders.support import (
    RAY_DRIVER_TIMEOUT,
    cli_cmd,
    loopback_ray,
    make_coco_tree,
    make_source,
    need_ray,
    run_c,
    start_cluster,
    stop_cluster,
    tree,
)
from corruptbench.builders import build_tree
from support import REPO

pytestmark = pytest.mark.slow

NAMES = ["fog", "snow", "frost"]
OPTS = ["--corruptions", ",".join(NAMES), "--severities", "1,2", "--no-progress"]


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """12 real photos (ImageNet layout) and their local ``--workers 1`` build."""
    base = tmp_path_factory.mktemp("cluster")
    src = make_source(base, 12)
    local = base / "local"
    s = run_c(src, local, names=NAMES, levels=[1, 2], workers=1)
    assert s.written == 12 * 6 and not s.failed
    return src, local


def driver(cl: Any, *args: str, cwd: Path = REPO) -> subprocess.Popen[str]:
    return subprocess.Popen(
        cli_cmd("make-c", *args, "--ray", cl.address),
        cwd=cwd,
        env=cl.driver_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        out, _ = proc.communicate(timeout=RAY_DRIVER_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        pytest.fail(f"make-c --ray did not finish in {RAY_DRIVER_TIMEOUT} s:\n{out[-3000:]}")
    return proc.returncode, out


def outputs(out: Path) -> int:
    return sum(1 for _ in out.rglob("*.JPEG"))


def test_cluster_build_equals_local_build_and_stays_on_loopback(
    ray_cluster: Any, photos: tuple[Path, Path], tmp_path: Path
) -> None:
    import psutil

    cluster = ray_cluster
    lr = loopback_ray()

    nodes = [n for n in cluster.node_table() if n["Alive"]]
    assert len(nodes) == 3 and {n["NodeManagerAddress"] for n in nodes} == {"127.0.0.1"}
    assert sorted(n["Resources"].get("CPU", 0) for n in nodes) == [0, 1, 1]

    src, local = photos
    out = tmp_path / "ray"
    proc = driver(cluster, str(src), str(out), *OPTS)
    sockets: list[tuple[int, str, str, str]] = []
    driver_sockets = 0
    while proc.poll() is None and not sockets:  # mid-build: connected, shards running
        if outputs(out) >= 1:
            try:
                mine = psutil.Process(proc.pid)
                own = [mine, *mine.children(recursive=True)]
            except psutil.Error:
                own = []
            theirs = list(lr.inet_sockets(own))
            driver_sockets = len(theirs)
            sockets = theirs + list(lr.inet_sockets(cluster.processes()))
        time.sleep(0.02)
    rc, text = finish(proc)
    assert rc == 0, text
    assert tree(out) == tree(local)
    assert len(sockets) >= 10, sockets  # GCS, raylets, object managers, workers, driver
    assert driver_sockets > 0  # the driver's connections to the GCS and its raylet
    print(f"{len(sockets)} sockets sampled mid-build, {driver_sockets} of them the driver's")
    off = [s for s in sockets if s[2] not in lr.LOOPBACK or s[3] not in (*lr.LOOPBACK, "")]
    assert not off, f"sockets outside 127.0.0.1: {off}"


def test_tree_layout_on_the_cluster_with_relative_paths(ray_cluster: Any, tmp_path: Path) -> None:
    """The tree layout on the cluster; SRC and OUT given relative to the driver's working
    directory, which is not the Ray workers' (they run in the nodes' directory, here the repo)."""
    src = make_coco_tree(tmp_path)
    kw: dict[str, Any] = {"corruptions": NAMES, "severities": [2], "copy_files": ["annotations"]}
    local = build_tree(src, tmp_path / "local", **kw)
    assert local.written == 5 * 3
    proc = driver(ray_cluster, "coco", "ray", "--layout", "tree", "--copy-files", "annotations",
                  "--corruptions", ",".join(NAMES), "--severities", "2", "--no-progress",
                  cwd=tmp_path)  # fmt: skip
    rc, text = finish(proc)
    assert rc == 0, text
    assert tree(tmp_path / "ray") == tree(tmp_path / "local")


@pytest.fixture
def own_cluster() -> Iterator[Any]:
    """A cluster of its own: the test kills one of its nodes."""
    cl = start_cluster(workers=2)
    try:
        yield cl
    finally:
        stop_cluster(cl)


def test_worker_node_killed_mid_build_finishes_or_resumes_to_the_same_bytes(
    own_cluster: Any, photos: tuple[Path, Path], tmp_path: Path
) -> None:
    cluster = own_cluster
    src, local = photos
    out = tmp_path / "killed"
    proc = driver(cluster, str(src), str(out), *OPTS)
    t0 = time.time()
    # "the middle": some outputs exist and worker node 1 is executing a shard right now
    while proc.poll() is None and not (outputs(out) >= 8 and cluster.running(1)):
        if time.time() - t0 > RAY_DRIVER_TIMEOUT:
            proc.kill()
            pytest.fail("node 1 never ran a shard")
        time.sleep(0.02)
    assert proc.poll() is None, "the build finished before the kill; give it more work"
    at_kill = outputs(out)
    assert 8 <= at_kill < 12 * 6
    assert cluster.kill_node(1) >= 2  # the raylet and at least the task worker
    rc, text = finish(proc)
    retried = "retries remaining" in text  # Ray's wording (2.x); informative only
    print(f"killed node 1 with {at_kill}/72 outputs; exit {rc}; retry reported: {retried}")
    if rc != 0:  # not retried to the end: a re-run resumes on the surviving node
        rc, text = finish(driver(cluster, str(src), str(out), *OPTS))
        assert rc == 0, text
        assert "already done" in text
    # the very bytes of the local build, no temporary file left (tree() lists hidden files)
    assert tree(out) == tree(local)
    deadline = time.time() + 30
    while time.time() < deadline and sum(n["Alive"] for n in cluster.node_table()) != 2:
        time.sleep(0.2)
    assert sum(n["Alive"] for n in cluster.node_table()) == 2  # node 1 really died


#: a Python session (a notebook's kernel) joined to the cluster: a build interrupted by Ctrl-C,
#: then the session lives on, connected, as a kernel does after "interrupt"
SESSION = """
import os, sys, time
import ray
from corruptbench.builders import build
from corruptbench.builders.engine import ray_init_kwargs

src, out, address = sys.argv[1:4]
ray.init(**ray_init_kwargs(address, 1, None, os.environ))
try:
    build("c", src, out, profile="imagenet", fmt="jpeg", names=["fog", "snow", "frost"],
          levels=[1, 2, 3, 4, 5], ray=address,
          progress=False)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
time.sleep(20)
"""


def test_an_interrupted_build_cancels_its_tasks_on_the_cluster(
    ray_cluster: Any, photos: tuple[Path, Path], tmp_path: Path
) -> None:
    """Issue 33 item 25: an interrupted build left its tasks running on the cluster, writing
    into OUT after the build said "interrupted" (seen from a session that stays connected)."""
    import signal
    import sys

    src, _ = photos
    out = tmp_path / "ray"
    script = tmp_path / "session.py"
    script.write_text(SESSION)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(src), str(out), ray_cluster.address],
        cwd=REPO,
        env=ray_cluster.driver_env(),
        stdout=subprocess.PIPE,
        stderr=(tmp_path / "stderr").open("w"),
        text=True,
    )
    try:
        deadline = time.monotonic() + RAY_DRIVER_TIMEOUT
        while proc.poll() is None and outputs(out) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, (tmp_path / "stderr").read_text()[-3000:]
        proc.send_signal(signal.SIGINT)
        assert proc.stdout is not None
        assert proc.stdout.readline() == "interrupted\n", (tmp_path / "stderr").read_text()[-3000:]
        after = outputs(out)
        time.sleep(8)  # a task left running writes its next image within a second or two
        assert outputs(out) == after < 12 * 15, "the interrupted build's tasks went on writing"
    finally:
        proc.kill()
        proc.communicate()


#: Ray's cloud-metadata probe (run by its dashboard at every start) under the clusters' env: the
#: addresses it connects to and the host names it looks up
PROBE = """
import json, socket
seen = []
connect, lookup = socket.socket.connect, socket.getaddrinfo
def record_connect(self, address):
    seen.append(["connect", str(address[0])])
    return connect(self, address)
def record_lookup(host, *args, **kwargs):
    seen.append(["lookup", str(host)])
    return lookup(host, *args, **kwargs)
socket.socket.connect = record_connect
socket.getaddrinfo = record_lookup
from ray._common.usage.usage_lib import get_cloud_from_metadata_requests
print(json.dumps([get_cloud_from_metadata_requests(), seen]))
"""


def test_rays_cloud_metadata_probe_stays_on_loopback() -> None:
    """Seen once as a socket to 169.254.169.254 from this machine's address in a make-c --ray
    auto run: Ray's dashboard asks the cloud metadata servers who hosts it whatever
    RAY_USAGE_STATS_ENABLED says. Under the env every test Ray gets, nothing leaves 127.0.0.1."""
    import json
    import sys

    need_ray()  # (never imports ray here: the probe runs in its own process)
    r = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=loopback_ray().ray_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    cloud, seen = json.loads(r.stdout.strip().splitlines()[-1])
    assert cloud == "unknown"
    assert seen and all(host in ("127.0.0.1", "::1", "localhost") for _, host in seen), seen

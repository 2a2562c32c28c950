"""A real multi-node Ray cluster on this machine, bound to 127.0.0.1 only.

Used by the cluster test (``tests/builders/test_ray_cluster.py``) and the Ray benchmark
(``benchmarks/ray_cluster.py``); run it as a script to try ``make-c --ray ADDRESS`` by hand::

    python tools/loopback_ray.py --workers 2      # prints the address and the driver's env; Ctrl-C stops

A head node with no CPUs (no task ever runs there; a driver on this machine attaches to the head's
raylet, so killing a worker node never kills the driver's) and N worker nodes with
``cpus_per_worker`` CPUs each, every one a separate raylet + object store + agents, started with
``ray.cluster_utils.Cluster``. Why each setting (Ray 2.60):

* ``node_ip_address="127.0.0.1"`` on every node: the node's listeners bind to it. Any other address
  (even 127.0.0.2) makes the metrics servers and the dashboard agent bind 0.0.0.0.
* A driver in another process (``python -m corruptbench make-c ... --ray ADDRESS``) needs
  ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` before it imports ray (:meth:`driver_env`): otherwise Ray
  rewrites ``127.0.0.1`` in the address to the interface's IP and never connects.
* Health checks every 0.5 s, dead after 3 misses: a killed node is noticed in ~1.5 s, not ~15 s.
* A short private temp dir (AF_UNIX socket paths must stay under 108 bytes; /tmp/ray is shared).
* Ray's ``Cluster`` publishes its address in /tmp/ray/ray_current_cluster (whatever the temp
  dir), where every plain ``ray.init()`` on the machine would find it, and deletes that file at
  shutdown (also when another cluster wrote it): both are switched off while this one runs.

:meth:`kill_node` SIGKILLs a worker node like a machine crash: its raylet and every child of it
(the task worker processes and agents; ``Cluster.remove_node`` would leave a running task alive).
:meth:`close` kills only what this object started (never ``ray stop``, which stops every Ray
instance on the machine).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

IP = "127.0.0.1"
LOOPBACK = ("127.0.0.1", "::ffff:127.0.0.1")
FAST_HEALTH = {
    "health_check_period_ms": 500,
    "health_check_timeout_ms": 500,
    "health_check_failure_threshold": 3,
}
#: environment of every node and driver: loopback addresses are not rewritten, no usage stats, no
#: token file in ~/.ray (auth off: the cluster is reachable from this machine only)
CLUSTER_ENV = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_AUTH_MODE": "disabled",
}


class LoopbackCluster:
    """Head (0 CPUs) + ``workers`` worker nodes on 127.0.0.1; a context manager."""

    def __init__(self, workers: int = 2, cpus_per_worker: int = 1) -> None:
        self.n_workers = workers
        self.cpus_per_worker = cpus_per_worker
        self.address = ""
        self.nodes: list[Any] = []  # [head, worker 1, ...]
        self._tmp = ""
        self._cluster: Any = None
        self._saved: dict[str, Any] = {}

    # --------------------------------------------------------------------------------------------
    def start(self) -> str:
        """Start the nodes (this process's environment gets :data:`CLUSTER_ENV`, which the nodes
        inherit); return the GCS address ``127.0.0.1:PORT``."""
        self._saved_env = {k: os.environ.get(k) for k in (*CLUSTER_ENV, "PYTHONPATH")}
        os.environ.update(CLUSTER_ENV)
        if os.environ.get("PYTHONPATH"):  # the nodes and drivers may run in other directories
            os.environ["PYTHONPATH"] = _absolute_path_list(os.environ["PYTHONPATH"])
        import ray._common.utils
        import ray._private.utils
        from ray.cluster_utils import Cluster

        self._saved = {
            "write": ray._private.utils.write_ray_address,
            "reset": ray._common.utils.reset_ray_address,
        }
        ray._private.utils.write_ray_address = lambda *a, **k: None
        ray._common.utils.reset_ray_address = lambda *a, **k: None
        self._tmp = tempfile.mkdtemp(prefix="cbray-", dir="/tmp")
        try:
            self._cluster = Cluster(
                initialize_head=True,
                head_node_args={
                    "num_cpus": 0,
                    "include_dashboard": False,
                    "temp_dir": self._tmp,
                    "node_ip_address": IP,
                    "_system_config": FAST_HEALTH,
                },
            )
            self.nodes = [self._cluster.head_node]
            for _ in range(self.n_workers):
                self.nodes.append(
                    self._cluster.add_node(num_cpus=self.cpus_per_worker, node_ip_address=IP)
                )
            self._cluster.wait_for_nodes(timeout=120)
        except BaseException:
            self.close()
            raise
        self.address = self._cluster.address
        return self.address

    def __enter__(self) -> LoopbackCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def driver_env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The environment of a driver process (``make-c --ray ADDRESS``) for this cluster."""
        env = {k: v for k, v in (os.environ if base is None else base).items()}
        env.update(CLUSTER_ENV)
        env.pop("RAY_ADDRESS", None)
        if env.get("PYTHONPATH"):
            env["PYTHONPATH"] = _absolute_path_list(env["PYTHONPATH"])
        return env

    # --------------------------------------------------------------------------------------------
    def node_table(self) -> list[dict[str, Any]]:
        """What ``ray.nodes()`` says (node IP, alive, resources), read from the GCS."""
        return list(self._cluster.global_state.node_table())

    def processes(self, i: int | None = None) -> list[Any]:
        """psutil processes of node ``i`` (0 = head), or of every node: each process the node
        started, and their children (task workers, agents)."""
        import psutil

        out: dict[int, Any] = {}
        for node in self.nodes if i is None else [self.nodes[i]]:
            for infos in node.all_processes.values():
                for info in infos:
                    try:
                        p = psutil.Process(info.process.pid)
                        out[p.pid] = p
                        for c in p.children(recursive=True):
                            out[c.pid] = c
                    except psutil.Error:
                        pass
        return list(out.values())

    def running(self, i: int, title: str = "ray::_ray_shard") -> bool:
        """Whether worker node ``i`` runs a task now (Ray titles a busy worker ``ray::<task>``)."""
        import psutil

        for p in self.processes(i):
            try:
                if p.name() == title[:15] or title in " ".join(p.cmdline()):
                    return True
            except psutil.Error:
                pass
        return False

    def kill_node(self, i: int) -> int:
        """SIGKILL worker node ``i`` (>= 1): its raylet and all its children; return how many."""
        import psutil

        if i < 1:
            raise ValueError("node 0 is the head")
        raylet = self.nodes[i].all_processes["raylet"][0].process.pid
        try:
            root = psutil.Process(raylet)
            victims = [root, *root.children(recursive=True)]
        except psutil.Error:
            return 0
        for p in victims:
            try:
                p.kill()
            except psutil.Error:
                pass
        return len(victims)

    def close(self) -> None:
        """Kill every node this object started and remove its temp dir."""
        try:
            if self._cluster is not None:
                for i in range(1, len(self.nodes)):
                    self.kill_node(i)
                self._cluster.shutdown()
        finally:
            self._cluster = None
            if self._saved:
                import ray._common.utils
                import ray._private.utils

                ray._private.utils.write_ray_address = self._saved["write"]
                ray._common.utils.reset_ray_address = self._saved["reset"]
                self._saved = {}
            for k, v in getattr(self, "_saved_env", {}).items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            if self._tmp:
                # a dying process (a driver's log monitor) may still create its session folder
                for _ in range(50):
                    shutil.rmtree(self._tmp, ignore_errors=True)
                    if not os.path.exists(self._tmp):
                        break
                    time.sleep(0.1)
                self._tmp = ""


def _absolute_path_list(value: str) -> str:
    return os.pathsep.join(os.path.abspath(p) if p else p for p in value.split(os.pathsep))


def inet_sockets(processes: list[Any]) -> Iterator[tuple[int, str, str, str]]:
    """``(pid, status, local ip, remote ip or "")`` of every TCP/UDP socket of ``processes``."""
    import psutil

    for p in processes:
        try:
            conns = p.net_connections(kind="inet")
        except psutil.Error:
            continue
        for c in conns:
            yield p.pid, c.status, c.laddr.ip, c.raddr.ip if c.raddr else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="start a loopback multi-node Ray cluster")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cpus-per-worker", type=int, default=1)
    args = ap.parse_args(argv)
    with LoopbackCluster(args.workers, args.cpus_per_worker) as cl:
        print(f"address: {cl.address}")
        print("driver environment: " + " ".join(f"{k}={v}" for k, v in CLUSTER_ENV.items()))
        print(f"e.g. env {' '.join(f'{k}={v}' for k, v in CLUSTER_ENV.items())} \\")
        print(f"  python -m corruptbench make-c SRC OUT --ray {cl.address}")
        print("Ctrl-C stops the cluster", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

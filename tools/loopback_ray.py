"""A real multi-node Ray cluster on this machine, bound to 127.0.0.1 only, in a process of its own.

Used by the Ray tests (``tests/builders/``) and the Ray benchmark (``benchmarks/ray_cluster.py``);
run it as a script to try ``make-c --ray ADDRESS`` by hand::

    python tools/loopback_ray.py --workers 2      # prints the address and the driver's env; Ctrl-C stops

A head node with no CPUs (no task ever runs there; a driver on this machine attaches to the head's
raylet, so killing a worker node never kills the driver's) and N worker nodes with
``cpus_per_worker`` CPUs each, every one a separate raylet + object store + agents, started with
``ray.cluster_utils.Cluster``.

:class:`LoopbackCluster` runs the cluster in a child process (``loopback_ray.py --serve``) and
talks to it over pipes: the caller never imports ray. In-process Ray leaves gRPC and GCS-client
threads running after ``ray.shutdown()`` (12 of them with Ray 2.60) and, after a failed start, a
half-made node: the likely cause of the SIGSEGV a pytest process once died of, a test after its
Ray test. The server process owns every Ray process; when it dies (even by SIGKILL) they die with
it (Ray starts them with ``PR_SET_PDEATHSIG``).

Start-up on a loaded machine. A node is up when its raylet has registered with the GCS, and the
raylet registers only after its two Python agents (dashboard agent, runtime-env agent) have
written their port files. Ray 2.60 gives that fixed deadlines that no setting moves (tried:
``RAY_raylet_start_wait_time_s``, ``RAY_agent_register_timeout_ms``): the raylet aborts when an
agent takes over 15 s to start, and ``ray._private.node.Node`` gives up after 30 s ("The current
node timed out during startup"). On a loaded 2-core machine the agents' imports alone can take
that long. So each node start is an attempt: a failed one is killed and the node started again
(the next attempt finds the agents' modules in the page cache) until :data:`START_BUDGET_S`; the
cluster is ready when the GCS lists every node alive on 127.0.0.1 with its CPUs, and the caller
waits for that readiness, not for a fixed time. The time-outs Ray does let us set are raised
(:data:`CLUSTER_ENV`, :data:`HEALTH`).

Why each setting (Ray 2.60):

* ``node_ip_address="127.0.0.1"`` on every node: the node's listeners bind to it. Any other address
  (even 127.0.0.2) makes the metrics servers and the dashboard agent bind 0.0.0.0.
* A driver in another process (``python -m corruptbench make-c ... --ray ADDRESS``) needs
  ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` before it imports ray (:meth:`driver_env`): otherwise Ray
  rewrites ``127.0.0.1`` in the address to the interface's IP and never connects.
* Health checks every 0.5 s, dead after 3 failures: a killed node (its port refuses at once) is
  noticed in ~1.5 s, not ~15 s; each check may take 10 s, so a raylet slowed by load is not.
* A short private temp dir (AF_UNIX socket paths must stay under 108 bytes; /tmp/ray is shared).
* Ray's ``Cluster`` publishes its address in /tmp/ray/ray_current_cluster (whatever the temp
  dir), where every plain ``ray.init()`` on the machine would find it, and deletes that file at
  shutdown (also when another cluster wrote it): both are switched off in the cluster's process.

:meth:`LoopbackCluster.kill_node` SIGKILLs a worker node like a machine crash: its raylet and every
child of it (the task worker processes and agents; ``Cluster.remove_node`` would leave a running
task alive). :meth:`LoopbackCluster.close` kills only what this cluster started (never ``ray
stop``, which stops every Ray instance on the machine) and :meth:`LoopbackCluster.leftovers` says
whether any of it survived.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import IO, Any

IP = "127.0.0.1"
LOOPBACK = ("127.0.0.1", "::ffff:127.0.0.1")
#: seconds a cluster may take to become ready (every node start attempt included)
START_BUDGET_S = 300.0
#: start attempts per node (each ends within ~32 s: Ray's own deadlines)
MAX_ATTEMPTS = 4
HEALTH = {
    "health_check_period_ms": 500,
    "health_check_timeout_ms": 10_000,
    "health_check_failure_threshold": 3,
}
#: a closed port on 127.0.0.1 as every HTTP(S) proxy: Ray 2.60's dashboard asks the cloud
#: metadata servers who hosts it (ray/_common/usage/usage_lib.py, get_cloud_from_metadata_requests:
#: 169.254.169.254 and a DNS lookup of metadata.google.internal) at every start, before it reads
#: RAY_USAGE_STATS_ENABLED; through this "proxy" (requests honours it) those requests fail at once
#: on loopback, with no lookup. Ray's own traffic to 127.0.0.1 / localhost bypasses it (no_proxy).
NO_EGRESS_ENV = {
    **{k: "http://127.0.0.1:9" for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")},
    **{k: "127.0.0.1,localhost,::1" for k in ("no_proxy", "NO_PROXY")},
}

#: environment of every node and driver: loopback addresses are not rewritten, no usage stats, no
#: token file in ~/.ray (auth off: the cluster is reachable from this machine only); a worker
#: process may take 5 min to register (default 1 min) and the GCS 5 min to publish its port; no
#: request leaves loopback (:data:`NO_EGRESS_ENV`)
CLUSTER_ENV = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_AUTH_MODE": "disabled",
    "RAY_worker_register_timeout_seconds": "300",
    "RAY_gcs_server_port_wait_time_s": "300",
    **NO_EGRESS_ENV,
}


class ClusterStartError(RuntimeError):
    """The cluster did not become ready within its budget (the message lists every attempt)."""


class LoopbackCluster:
    """Head (0 CPUs) + ``workers`` worker nodes on 127.0.0.1, run by a child process; a context
    manager. Nothing here imports ray."""

    def __init__(
        self, workers: int = 2, cpus_per_worker: int = 1, start_budget_s: float = START_BUDGET_S
    ) -> None:
        self.n_workers = workers
        self.cpus_per_worker = cpus_per_worker
        self.start_budget_s = start_budget_s
        self.address = ""
        #: per node start: ``{"node", "attempt", "seconds", "error"}`` (failed attempts too)
        self.attempts: list[dict[str, Any]] = []
        self.startup_s = 0.0
        self._proc: subprocess.Popen[str] | None = None
        self._log: IO[str] | None = None
        self._known: dict[int, float] = {}  # pid -> start time of each process of the cluster seen
        self._tmp = ""  # the cluster's temp dir: its processes name it on their command lines

    # --------------------------------------------------------------------------------------------
    def start(self) -> str:
        """Start the cluster's process and wait until the cluster is ready; return the GCS address
        ``127.0.0.1:PORT``. Raises :class:`ClusterStartError` (with the server's log) otherwise."""
        self._log = tempfile.TemporaryFile("w+")
        cmd = [sys.executable, os.path.abspath(__file__), "--serve", "--workers",
               str(self.n_workers), "--cpus-per-worker", str(self.cpus_per_worker),
               "--budget", str(self.start_budget_s)]  # fmt: skip
        self._proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=self.driver_env(),
            text=True,
        )
        try:
            ready = self._receive(self.start_budget_s + 60)
            if ready.get("event") != "ready":
                raise ClusterStartError(f"{ready.get('message', ready)}\n{self._log_tail()}")
        except BaseException:
            self.close()
            raise
        self.address = ready["address"]
        self.attempts = ready["attempts"]
        self.startup_s = ready["startup_s"]
        self._remember(ready["pids"])
        self._tmp = ready["tmp"]
        return self.address

    def __enter__(self) -> LoopbackCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def driver_env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The environment of a driver process (``make-c --ray ADDRESS``) for this cluster."""
        return ray_env(base)

    # --------------------------------------------------------------------------------------------
    def node_table(self) -> list[dict[str, Any]]:
        """What ``ray.nodes()`` says (node ID, IP, alive, resources), read from the GCS."""
        return list(self._request("nodes")["nodes"])

    def processes(self, i: int | None = None) -> list[Any]:
        """psutil processes of node ``i`` (0 = head), or of every node: each process the node
        started, and their children (task workers, agents)."""
        import psutil

        pids = self._request("pids" if i is None else f"pids {i}")["pids"]
        self._remember(pids)
        out = []
        for pid in pids:
            try:
                out.append(psutil.Process(pid))
            except psutil.Error:
                pass
        return out

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
        if i < 1:
            raise ValueError("node 0 is the head")
        return int(self._request(f"kill {i}")["killed"])

    def close(self) -> None:
        """Stop every process of the cluster: the server kills its nodes and removes its temp dir;
        a server that does not answer is killed, and with it its nodes."""
        proc, self._proc = self._proc, None
        if proc is not None:
            self._remember(_descendants(proc.pid))  # the task workers too
            try:
                if proc.poll() is None and proc.stdin is not None:
                    proc.stdin.close()  # end of commands: the server stops its nodes and exits
                proc.wait(timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
            finally:
                if proc.stdout is not None:
                    proc.stdout.close()
        kill_processes(self.leftovers())  # a node the server could not stop (it was killed itself)
        if self._log is not None:
            self._log.close()
            self._log = None

    def leftovers(self) -> list[int]:
        """The processes of this cluster still running (none after :meth:`close`)."""
        import psutil

        alive = set(processes_naming(self._tmp)) if self._tmp else set()
        for pid, started in self._known.items():
            try:
                p = psutil.Process(pid)  # the same process, not a later one with its pid
                if p.create_time() == started and p.status() != psutil.STATUS_ZOMBIE:
                    alive.add(pid)
            except psutil.Error:
                pass
        return sorted(alive)

    def _remember(self, pids: list[int]) -> None:
        import psutil

        for pid in pids:
            try:
                self._known.setdefault(pid, psutil.Process(pid).create_time())
            except psutil.Error:
                pass

    # --------------------------------------------------------------------------------------------
    def _request(self, command: str, timeout: float = 60.0) -> dict[str, Any]:
        if self._proc is None or self._proc.stdin is None:
            raise RuntimeError("the cluster is not running")
        self._proc.stdin.write(command + "\n")
        self._proc.stdin.flush()
        reply = self._receive(timeout)
        if "error" in reply:
            raise RuntimeError(f"cluster: {command}: {reply['error']}")
        return reply

    def _receive(self, timeout: float) -> dict[str, Any]:
        """The server's next message (one JSON line), within ``timeout`` seconds."""
        assert self._proc is not None and self._proc.stdout is not None
        ready, _, _ = select.select([self._proc.stdout], [], [], timeout)
        line = self._proc.stdout.readline() if ready else ""
        if not line:
            why = (
                "exited" if self._proc.poll() is not None else f"gave no answer in {timeout:.0f} s"
            )
            raise ClusterStartError(f"the cluster's process {why}\n{self._log_tail()}")
        return dict(json.loads(line))

    def _log_tail(self, chars: int = 4000) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read()[-chars:]


# ------------------------------------------------------------------------------------------------
# the cluster's own process


class _Nodes:
    """The nodes themselves: lives in the process that owns the Ray processes."""

    def __init__(self, workers: int, cpus_per_worker: int, budget_s: float) -> None:
        self.n_workers = workers
        self.cpus_per_worker = cpus_per_worker
        self.budget_s = budget_s
        self.address = ""
        self.nodes: list[Any] = []  # [head, worker 1, ...]
        self.attempts: list[dict[str, Any]] = []
        self.tmp = ""
        self._cluster: Any = None

    def start(self) -> str:
        """Start the head and the workers (each in attempts), wait for readiness; the address."""
        os.environ.update(CLUSTER_ENV)  # before ray is imported; the nodes inherit it
        import ray._common.utils
        import ray._private.utils
        from ray.cluster_utils import Cluster

        ray._private.utils.write_ray_address = lambda *a, **k: None
        ray._common.utils.reset_ray_address = lambda *a, **k: None
        deadline = time.monotonic() + self.budget_s
        self.tmp = tempfile.mkdtemp(prefix="cbray-", dir="/tmp")
        self._cluster = Cluster(initialize_head=False)
        # no dashboard and no autoscaler monitor (a fixed cluster): fewer processes to start
        head = {"num_cpus": 0, "include_dashboard": False, "no_monitor": True,
                "temp_dir": self.tmp, "node_ip_address": IP, "_system_config": HEALTH}  # fmt: skip
        self.nodes = [self._attempts("head", lambda: self._cluster.add_node(wait=False, **head),
                                     deadline)]  # fmt: skip
        for i in range(1, self.n_workers + 1):
            start = lambda: self._cluster.add_node(  # noqa: E731
                wait=False, num_cpus=self.cpus_per_worker, node_ip_address=IP
            )
            self.nodes.append(self._attempts(f"worker {i}", start, deadline))
        self._wait_ready(deadline)
        self.address = self._cluster.address
        return self.address

    def _attempts(self, what: str, start: Callable[[], Any], deadline: float) -> Any:
        """``start()`` until it works: a failed attempt's processes are killed first."""
        failures = []
        for attempt in range(1, MAX_ATTEMPTS + 1):
            before = set(_descendants(os.getpid()))
            t0 = time.monotonic()
            try:
                node = start()
            except Exception as e:  # noqa: BLE001 - Ray raises a bare Exception on its time-out
                live = set(self.pids())  # the nodes already up; an aborted raylet's agents
                # are no longer our descendants, but name the temp dir on their command lines
                kill_processes([p for p in _descendants(os.getpid()) if p not in before])
                kill_processes([p for p in processes_naming(self.tmp) if p not in live])
                seconds = time.monotonic() - t0
                failures.append(f"{what}, attempt {attempt}: {e} (after {seconds:.0f} s)")
                self.attempts.append(
                    {"node": what, "attempt": attempt, "seconds": seconds, "error": str(e)}
                )
                print(f"[loopback_ray] {failures[-1]}", file=sys.stderr, flush=True)
                if time.monotonic() + 35 > deadline:  # no time left for a whole attempt
                    break
                continue
            self.attempts.append(
                {"node": what, "attempt": attempt, "seconds": time.monotonic() - t0, "error": None}
            )
            return node
        raise ClusterStartError(f"{what} did not start: " + "; ".join(failures))

    def _wait_ready(self, deadline: float) -> None:
        """Until the GCS lists every node alive on 127.0.0.1 with its CPUs."""
        want = sorted([0.0] + [float(self.cpus_per_worker)] * self.n_workers)
        seen: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            seen = [n for n in self.node_table() if n["Alive"]]
            cpus = sorted(float(n["Resources"].get("CPU", 0)) for n in seen)
            if cpus == want and all(n["NodeManagerAddress"] == IP for n in seen):
                return
            time.sleep(0.2)
        raise ClusterStartError(f"the cluster never became ready: alive nodes {seen}")

    def node_table(self) -> list[dict[str, Any]]:
        keep = ("NodeID", "Alive", "NodeManagerAddress", "Resources")
        return [{k: n.get(k) for k in keep} for n in self._cluster.global_state.node_table()]

    def pids(self, i: int | None = None) -> list[int]:
        """Every process node ``i`` (or every node) started that still runs, and their children."""
        out: set[int] = set()
        for node in self.nodes if i is None else [self.nodes[i]]:
            for infos in node.all_processes.values():
                for info in infos:
                    # a reaped child's pid may belong to another process by now (pid_max 32768)
                    if info.process.poll() is None:
                        out.add(info.process.pid)
                        out.update(_descendants(info.process.pid))
        return sorted(out)

    def kill_node(self, i: int) -> int:
        raylet = self.nodes[i].all_processes["raylet"][0].process
        victims = [raylet.pid, *_descendants(raylet.pid)] if raylet.poll() is None else []
        kill_processes(victims)
        return len(victims)

    def close(self) -> None:
        """Kill every node this process started and remove its temp dir."""
        try:
            if self._cluster is not None:
                kill_processes([p for i in range(1, len(self.nodes)) for p in self.pids(i)])
                self._cluster.shutdown()
        finally:
            self._cluster = None
            kill_processes(_descendants(os.getpid()))
            if self.tmp:
                kill_processes(processes_naming(self.tmp))
                # a dying process (a driver's log monitor) may still create its session folder
                for _ in range(50):
                    shutil.rmtree(self.tmp, ignore_errors=True)
                    if not os.path.exists(self.tmp):
                        break
                    time.sleep(0.1)


def processes_naming(tmp: str) -> list[int]:
    """The processes whose command line names ``tmp`` (a Ray temp dir), but this one."""
    import psutil

    out = []
    for p in psutil.process_iter(["cmdline"]):
        if p.pid != os.getpid() and tmp and any(tmp in a for a in p.info["cmdline"] or ()):
            out.append(p.pid)
    return out


def _descendants(pid: int) -> list[int]:
    import psutil

    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def kill_processes(pids: list[int]) -> None:
    """SIGKILL ``pids`` and reap those that are our children."""
    import psutil

    procs = []
    for pid in pids:
        try:
            p = psutil.Process(pid)
            p.kill()
            procs.append(p)
        except psutil.Error:
            pass
    psutil.wait_procs(procs, timeout=10)


def ray_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this environment) with :data:`CLUSTER_ENV`, no ``RAY_ADDRESS`` and an
    absolute ``PYTHONPATH`` (the nodes and drivers may run in other directories)."""
    env = {k: v for k, v in (os.environ if base is None else base).items()}
    env.update(CLUSTER_ENV)
    env.pop("RAY_ADDRESS", None)
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = _absolute_path_list(env["PYTHONPATH"])
    return env


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


def serve(workers: int, cpus_per_worker: int, budget_s: float) -> int:
    """The cluster's process: start, say ``ready`` (or the error), then answer one command per
    stdin line (``nodes``, ``pids [I]``, ``kill I``) with one JSON line; stop at end of input."""
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # whatever else writes to stdout (Ray's processes inherit it) goes to the log
    t0 = time.monotonic()
    nodes = _Nodes(workers, cpus_per_worker, budget_s)

    def send(message: dict[str, Any]) -> None:
        channel.write(json.dumps(message, default=str) + "\n")

    try:
        try:
            nodes.start()
        except Exception as e:  # noqa: BLE001 - reported to the caller, which raises
            send({"event": "error", "message": str(e), "attempts": nodes.attempts})
            return 1
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # -> finally: close
        send({"event": "ready", "address": nodes.address, "attempts": nodes.attempts,
              "startup_s": time.monotonic() - t0, "pids": nodes.pids(),
              "tmp": nodes.tmp})  # fmt: skip
        for line in sys.stdin:
            command, *args = line.split()
            try:
                if command == "nodes":
                    send({"nodes": nodes.node_table()})
                elif command == "pids":
                    send({"pids": nodes.pids(int(args[0]) if args else None)})
                elif command == "kill":
                    send({"killed": nodes.kill_node(int(args[0]))})
                else:
                    send({"error": f"unknown command {command!r}"})
            except Exception as e:  # noqa: BLE001 - the caller raises it
                send({"error": repr(e)})
        return 0
    finally:
        nodes.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="start a loopback multi-node Ray cluster")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cpus-per-worker", type=int, default=1)
    ap.add_argument("--budget", type=float, default=START_BUDGET_S, help="start-up budget, s")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # LoopbackCluster's
    args = ap.parse_args(argv)
    if args.serve:
        return serve(args.workers, args.cpus_per_worker, args.budget)
    with LoopbackCluster(args.workers, args.cpus_per_worker, args.budget) as cl:
        print(f"address: {cl.address} (ready in {cl.startup_s:.1f} s)")
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

"""corruptbench.processes: workers that end with their driver, and whether a pid still runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from corruptbench.processes import bounded_map, chained_map, pid_alive, process_start_time
from support import REPO

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc, prctl")

SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(REPO / "src"))


def _worker(driver: int) -> list[str]:
    code = (
        "import sys, time\n"
        "from corruptbench.processes import end_with\n"
        f"end_with({driver})\n"
        "print('ready', flush=True)\n"
        "time.sleep(120)\n"
    )
    return [sys.executable, "-c", code]


def _gone(proc: subprocess.Popen[str], timeout: float = 60.0) -> int:
    """The exit status, waiting at most ``timeout`` (a guard against a hang, not a speed check)."""
    return proc.wait(timeout=timeout)


def test_pid_alive() -> None:
    assert pid_alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not pid_alive(child.pid)  # exited and reaped
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    while open(f"/proc/{zombie.pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
        time.sleep(0.05)
    assert not pid_alive(zombie.pid)  # exited, not yet reaped: not running
    zombie.wait()
    assert not pid_alive(0) and not pid_alive(-1)
    # a file written before this process started is not this process's (a reused pid)
    started = process_start_time(os.getpid())
    assert started is not None and started <= time.time()
    assert pid_alive(os.getpid(), since=started + 5)
    assert not pid_alive(os.getpid(), since=started - 60)


def test_a_worker_ends_with_a_driver_that_is_not_its_parent() -> None:
    """eval-c's loader workers are children of the forkserver: a thread waits on the driver."""
    driver = subprocess.Popen(SLEEPER)
    worker = subprocess.Popen(_worker(driver.pid), stdout=subprocess.PIPE, text=True, env=_env())
    try:
        assert worker.stdout is not None and worker.stdout.readline() == "ready\n"
        assert worker.poll() is None
        driver.kill()
        driver.wait()
        assert _gone(worker) == 1
    finally:
        driver.kill()
        worker.kill()


def test_a_worker_ends_with_its_parent_driver() -> None:
    """make-c's pool workers are the driver's children: the kernel's parent-death signal."""
    worker = _worker(0)[2].replace("end_with(0)", "end_with(DRIVER)")
    code = (
        "import os, subprocess, sys\n"
        f"code = {worker!r}.replace('DRIVER', str(os.getpid()))\n"
        "w = subprocess.Popen([sys.executable, '-c', code])\n"
        "print(w.pid, flush=True)\n"
        "w.wait()\n"
    )
    driver = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=_env()
    )
    try:
        assert driver.stdout is not None
        wpid = int(driver.stdout.readline())
        assert driver.stdout.readline() == "ready\n" and pid_alive(wpid)
        driver.kill()
        driver.wait()
        for _ in range(600):  # reparented and reaped; poll until gone (a hang guard only)
            if not pid_alive(wpid):
                break
            time.sleep(0.1)
        assert not pid_alive(wpid)
    finally:
        driver.kill()


def test_a_worker_pools_workers_end_with_a_driver_killed_with_sigkill() -> None:
    # the stream's workers outlived eval-stream killed with kill -9
    code = (
        "import os, time\n"
        "from corruptbench.processes import worker_pool\n"
        "pool = worker_pool(2, context='spawn')\n"
        "pids = {pool.submit(os.getpid).result() for _ in range(20)}\n"
        "print(*sorted(pids), flush=True)\n"
        "time.sleep(600)\n"
    )
    driver = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=_env()
    )
    try:
        assert driver.stdout is not None
        pids = [int(p) for p in driver.stdout.readline().split()]
        assert pids and all(pid_alive(p) for p in pids)
        driver.kill()
        driver.wait()
        for _ in range(600):  # poll until gone (a hang guard only)
            if not any(pid_alive(p) for p in pids):
                break
            time.sleep(0.1)
        assert not any(pid_alive(p) for p in pids)
    finally:
        driver.kill()


def test_a_worker_of_a_dead_driver_exits_at_once() -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    worker = subprocess.Popen(_worker(dead.pid), stdout=subprocess.PIPE, text=True, env=_env())
    out, _ = worker.communicate(timeout=60)
    assert worker.returncode == 1 and out == ""


def test_bounded_map_keeps_the_order_and_makes_at_most_ahead_results_ahead() -> None:
    # Executor.map submits every call at once: behind a slow consumer results pile up
    from concurrent.futures import ThreadPoolExecutor

    started: list[int] = []

    def work(k: int) -> int:
        started.append(k)
        return k * k

    with ThreadPoolExecutor(2) as pool:
        out = []
        for r in bounded_map(pool, work, range(10), ahead=2):
            time.sleep(0.01)  # a slow consumer
            assert len(started) <= len(out) + 3  # the 2 ahead and the one submitted on taking
            out.append(r)
        assert out == [k * k for k in range(10)]
        started.clear()
        gen = bounded_map(pool, work, range(100), ahead=3)
        assert next(gen) == 0
        gen.close()  # stopped early: the calls not yet started are cancelled
        time.sleep(0.05)
        assert len(started) <= 5


def _chain_step(arg: tuple[int, int, int]) -> tuple[tuple[int, int], tuple[int, int, int] | None]:
    """Chain ``c`` of ``n`` calls: the output of call ``k`` is ``(c, k)``."""
    c, k, n = arg
    time.sleep(0.002 * ((c * 7 + k * 3) % 5))  # calls end out of order
    return (c, k), ((c, k + 1, n) if k + 1 < n else None)


def test_chained_map_yields_chain_after_chain_in_order_with_at_most_active_chains() -> None:
    import threading
    from concurrent.futures import ThreadPoolExecutor

    lengths = [3, 1, 5, 2, 4, 1, 3]
    live: set[int] = set()
    most = [0]
    lock = threading.Lock()

    def step(arg: tuple[int, int, int]) -> tuple[tuple[int, int], tuple[int, int, int] | None]:
        with lock:
            live.add(arg[0])
            most[0] = max(most[0], len(live))
        out, nxt = _chain_step(arg)
        if nxt is None:
            with lock:
                live.discard(arg[0])
        return out, nxt

    with ThreadPoolExecutor(4) as pool:
        chains = ((c, 0, n) for c, n in enumerate(lengths))
        out = list(chained_map(pool, step, chains, active=3))
    assert out == [(c, k) for c, n in enumerate(lengths) for k in range(n)]
    assert most[0] == 3  # chains ran side by side, never more than `active`


def test_chained_map_stops_its_chains_with_the_consumer_and_raises_a_calls_error() -> None:
    from concurrent.futures import ThreadPoolExecutor

    calls: list[tuple[int, int]] = []

    def step(arg: tuple[int, int, int]) -> tuple[tuple[int, int], tuple[int, int, int] | None]:
        calls.append(arg[:2])
        if arg[:2] == (1, 2):
            raise ValueError("chain 1 broke at call 2")
        return _chain_step(arg)

    with ThreadPoolExecutor(2) as pool:
        gen = chained_map(pool, step, ((c, 0, 100) for c in range(50)), active=2)
        assert next(gen) == (0, 0)
        gen.close()  # stopped: no call is submitted any more
        time.sleep(0.05)
        assert len(calls) <= 4
        with pytest.raises(ValueError, match="chain 1 broke at call 2"):
            list(chained_map(pool, step, ((c, 0, 4) for c in range(3)), active=2))


_POOL_CTRL_C = """
import os, signal, sys, time
from corruptbench.processes import worker_pool


def ctrl_c(wait):  # the terminal's Ctrl-C reaches the whole group; the driver goes on
    try:
        os.killpg(0, signal.SIGINT)
        time.sleep(wait)
    except KeyboardInterrupt:
        pass


with worker_pool(2) as pool:
    busy = [pool.submit(time.sleep, 0.5) for _ in range(2)]
    time.sleep(0.2)
    ctrl_c(0.6)  # while the workers run
    idle = pool.submit(int, 7)
    ctrl_c(0.3)  # and while they wait for work
    assert idle.result() == 7 and all(f.result() is None for f in busy)
print("stopped", file=sys.stderr)
"""


def test_a_worker_pool_leaves_ctrl_c_to_its_driver(tmp_path) -> None:
    # a CCC stream's / generate's / calibrate's workers printed KeyboardInterrupt tracebacks
    # above the driver's one "interrupted" line
    script = tmp_path / "pool.py"
    script.write_text(_POOL_CTRL_C)
    res = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, stdin=subprocess.DEVNULL,
        start_new_session=True, timeout=120,  # a group of its own: the signal stays out of pytest's
    )  # fmt: skip
    assert (res.returncode, res.stderr) == (0, "stopped\n"), res.stderr


def test_a_ctrl_c_while_a_worker_pool_starts_is_raised_once_it_is_up(monkeypatch) -> None:
    # a Ctrl-C half-way through starting a stream's workers left one reading a pickled
    # semaphore its driver had removed (a FileNotFoundError traceback under "interrupted")
    import signal
    from concurrent.futures import ProcessPoolExecutor

    from corruptbench.processes import worker_pool

    calls: list[object] = []
    submit = ProcessPoolExecutor.submit

    def interrupted(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        if not calls:
            os.kill(os.getpid(), signal.SIGINT)  # arrives in the middle of the start
        calls.append(fn)
        return submit(self, fn, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        worker_pool(2, context="spawn")
    assert calls == [int, int]  # every worker's start made before the interrupt was raised


#: a worker's descriptor hand-off (multiprocessing.resource_sharer, as a data-loader worker's
#: batch uses it) whose receiver drops the connection half-way, then a complete one
DROPPED_HANDOFF = """
import os, socket, sys
from multiprocessing import resource_sharer
if sys.argv[1] == "quiet":
    from corruptbench.processes import quiet_dropped_handoffs
    quiet_dropped_handoffs()
fd = os.open(os.devnull, os.O_RDONLY)
shared = resource_sharer.DupFd(fd)
address = shared._id[0]  # the listener a receiver connects to
s = socket.socket(socket.AF_UNIX)
s.connect(address)
s.recv(1)  # the listener's challenge has begun: close with it unread (a reset)
s.close()
os.close(shared.detach())  # served after the dropped connection was handled
print("handed over")
"""


@pytest.mark.parametrize("mode", ["default", "quiet"])
def test_a_dropped_handoff_prints_no_traceback_in_a_quiet_worker(mode: str) -> None:
    """SIGTERM of eval-c --workers 2 printed a loader worker's ConnectionResetError traceback
    (its resource-sharer thread) under the "interrupted" line, now and then (.ci/run)."""
    done = subprocess.run(
        [sys.executable, "-c", DROPPED_HANDOFF, mode],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout == "handed over\n", done.stderr
    if mode == "default":  # the scenario reproduces the traceback the hook removes
        assert "Traceback" in done.stderr and "resource_sharer.py" in done.stderr, done.stderr
    else:
        assert done.stderr == ""


def test_a_quiet_worker_still_reports_other_errors() -> None:
    """Only hand-off errors are dropped: a connection error raised elsewhere, and any other
    error, still reach the hook before it."""
    code = (
        "import sys\n"
        "from corruptbench.processes import quiet_dropped_handoffs\n"
        "quiet_dropped_handoffs()\n"
        "for e in (ConnectionResetError('not a hand-off'), EOFError('eof'), ValueError('other')):\n"
        "    try:\n"
        "        raise e\n"
        "    except Exception as caught:\n"
        "        sys.excepthook(type(caught), caught, caught.__traceback__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=120
    )
    for line in ("ConnectionResetError: not a hand-off", "EOFError: eof", "ValueError: other"):
        assert line in done.stderr, done.stderr

"""One build at a time per OUT: the lock, what a second build says, and where locks stop."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from builders.support import cli_cmd, make_source, run_c, tree
from corruptbench.builders import BuildError
from corruptbench.builders.lock import OutLock, lock_note
from support import REPO


def test_a_held_lock_stops_a_second_build(tmp_path: Path) -> None:
    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    out.mkdir()
    with OutLock(out, out, "make-c") as lock:
        assert lock.note == ""  # a local filesystem: the lock keeps out everyone
        holder = json.loads((out / ".corruptbench" / "lock").read_text())
        assert holder["pid"] == os.getpid() and holder["command"] == "make-c"
        with pytest.raises(BuildError) as info:
            run_c(src, out, names=["brightness"], levels=[1])
        assert str(info.value).startswith(
            f"{out} is being written by make-c (pid {os.getpid()} on "
        )
        # a command in another process says the same, in one line, and writes nothing
        res = subprocess.run(
            cli_cmd("make-c", str(src), str(out), "--corruptions", "fog", "--severities", "1"),
            capture_output=True,
            text=True,
            cwd=REPO,
        )
        assert res.returncode == 2
        assert f"is being written by make-c (pid {os.getpid()} on " in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1
        assert sorted(os.listdir(out)) == [".corruptbench"]
    # released (and its file removed): the next build runs, and leaves no bookkeeping behind
    s = run_c(src, out, names=["brightness"], levels=[1])
    assert s.made == 1 and not (out / ".corruptbench").exists()


def test_two_builds_of_one_out(tmp_path: Path) -> None:
    """The first build is stopped (SIGSTOP) while it holds OUT: the second one is refused at
    once, naming it, and deletes nothing; the first then finishes with every shard."""
    src = make_source(tmp_path, 4)
    out = tmp_path / "out"
    args = ["--format", "webdataset", "--corruptions", "fog", "contrast", "--severities", "1", "2"]
    args += ["--shard-size", "2", "--workers", "1", "--no-progress"]
    first = subprocess.Popen(cli_cmd("make-c", str(src), str(out), *args), cwd=REPO)
    lock = out / ".corruptbench" / "lock"
    try:
        for _ in range(6000):  # until it holds the lock (a hang guard, not a speed check)
            try:
                if json.loads(lock.read_text())["pid"] == first.pid:
                    break
            except (OSError, ValueError, KeyError):
                pass
            assert first.poll() is None, "the first build ended before it was seen"
            time.sleep(0.02)
        os.kill(first.pid, signal.SIGSTOP)
        assert first.poll() is None and lock.exists(), "the first build ended: make it bigger"
        before = tree(out)
        second = subprocess.run(
            cli_cmd("make-c", str(src), str(out), *args), capture_output=True, text=True, cwd=REPO
        )
        assert second.returncode == 2
        assert f"is being written by make-c (pid {first.pid} on " in second.stderr
        assert tree(out) == before  # not one temporary file of the first build touched
    finally:
        os.kill(first.pid, signal.SIGCONT)
        first.wait(timeout=600)
    assert first.returncode == 0
    index = json.loads((out / "shards.json").read_text())
    assert index["complete"] and index["totals"]["samples"] == 4 * 4


def test_where_a_lock_keeps_out_this_machine_only(tmp_path: Path) -> None:
    """NFS mounted with local locks (nolock: local_lock=all): said, since another machine's
    build would not see the lock. Read from a mount table in /proc/self/mountinfo's format."""
    table = tmp_path / "mountinfo"
    table.write_text(
        "22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
        "40 22 0:35 / /mnt/data\\040set rw,relatime shared:20 - nfs4 srv:/export "
        "rw,vers=4.2,local_lock=all,addr=10.0.0.2\n"
        "41 22 0:36 / /mnt/shared rw,relatime shared:21 - nfs4 srv:/other "
        "rw,vers=4.2,local_lock=none,addr=10.0.0.2\n"
    )
    note = lock_note("/mnt/data set/imagenet-c", mountinfo=str(table))
    assert note.startswith("/mnt/data set is NFS mounted with local_lock=all: the lock on OUT")
    assert lock_note("/mnt/shared/out", mountinfo=str(table)) == ""  # NFS locks: they work
    assert lock_note("/home/me/out", mountinfo=str(table)) == ""
    assert lock_note("/x", mountinfo=str(tmp_path / "absent")) == ""


def test_a_link_planted_as_the_lock_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    # issue 33 item 15: the lock file was opened through the link and its target truncated
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    (out / ".corruptbench").mkdir(parents=True)
    (out / ".corruptbench" / "lock").symlink_to(victim)
    with pytest.raises(BuildError, match=r"lock is a symbolic link; the lock is never opened"):
        with OutLock(out, out, "make-c"):
            pass
    assert victim.read_text() == "precious\n"
    # nor through a linked .corruptbench folder holding a file named lock
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "lock").write_text("precious\n")
    out2 = tmp_path / "out2"
    out2.mkdir()
    (out2 / ".corruptbench").symlink_to(elsewhere)
    with pytest.raises(BuildError, match=r"\.corruptbench is a symbolic link"):
        with OutLock(out2, out2, "make-c"):
            pass
    assert (elsewhere / "lock").read_text() == "precious\n"

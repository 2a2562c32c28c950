"""The reference client (``tests/reference.py``) waits for a reference env that
``tools/reference/setup_refenv.sh`` is still building (.ci/run builds it beside the install)."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from reference import wait_for_build
from support import REPO

#: what setup_refenv.sh does first: an exclusive lock on DIR.lock, held until it exits
HOLD = 'exec 9>"$1"; flock 9; echo locked; sleep "$2"'


def _builder(directory: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        ["bash", "-c", HOLD, "_", f"{directory}.lock", str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "locked\n"
    return proc


@pytest.fixture(autouse=True)
def _needs_flock() -> None:
    if shutil.which("flock") is None:
        pytest.skip("flock (util-linux) not installed")


def test_setup_refenv_locks_its_directory_first() -> None:
    script = (REPO / "tools" / "reference" / "setup_refenv.sh").read_text(encoding="utf-8")
    lock = script.index('exec 9>>"$DIR.lock"')
    assert "flock 9" in script[lock : lock + 200]
    assert lock < script.index("have_magickwand()")  # before anything is built


def test_a_run_waits_while_the_env_is_being_built(tmp_path: Path) -> None:
    env = tmp_path / "refenv"
    proc = _builder(env, 1.5)
    t0 = time.monotonic()
    assert wait_for_build(env, timeout=60)
    assert time.monotonic() - t0 > 0.5 and proc.wait(5) == 0


def test_a_build_that_outlasts_the_timeout_is_reported(tmp_path: Path) -> None:
    env = tmp_path / "refenv"
    proc = _builder(env, 30)
    try:
        assert not wait_for_build(env, timeout=0.5)
    finally:
        proc.kill()
        proc.wait()
    assert wait_for_build(env, timeout=5)  # a killed build releases the lock


def test_no_lock_no_wait(tmp_path: Path) -> None:
    assert wait_for_build(tmp_path / "refenv", timeout=0)


def test_setup_refenv_refuses_a_planted_link_and_leaves_its_target_alone(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "refenv.lock").symlink_to(victim)
    r = subprocess.run(
        ["bash", str(REPO / "tools" / "reference" / "setup_refenv.sh"), str(tmp_path / "refenv")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and "is a symbolic link" in r.stderr
    assert victim.read_text() == "keep me" and not (tmp_path / "refenv").exists()

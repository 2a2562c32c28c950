"""The run's last line names what it did not check (``tests/run_summary.py``, the
``pytest_terminal_summary`` hook of ``tests/conftest.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reference import REFERENCE_MISSING
from run_summary import not_checked
from support import REPO, RUN_SLOW, SHARED

SHARED_REASON = f"real photos not available: {SHARED / 'data'} is absent"


def test_skip_reasons_are_grouped_by_cause() -> None:
    reasons = [
        REFERENCE_MISSING,
        "reference environment not built (run: bash tools/reference/setup_refenv.sh)",
        SHARED_REASON,
        f"{SHARED / 'models' / 'resnet20.th'} absent",
        "could not import 'torchvision': No module named 'torchvision'",
        "timm not installed: only the clear error was checked",
        "chromium not installed (optional: apt-get install chromium)",
        "Hugging Face datasets is not installed (pip install 'corruptbench[hf]')",
        "a GPU is present",
        "a GPU is present",
        "needs a POSIX pseudo-terminal",
    ]
    assert not_checked(reasons, 4, shared=str(SHARED)) == (
        "not checked in this run: "
        "2 reference-fidelity tests (no reference environment: bash "
        "tools/reference/setup_refenv.sh), "
        "2 real-photo tests (../shared absent), "
        "4 optional (torchvision, timm, chromium, datasets not installed), "
        "3 other (a GPU is present x2; needs a POSIX pseudo-terminal), "
        "4 deselected (-m / -k)"
    )
    assert not_checked([], 0, shared=str(SHARED)) == "every collected test ran"
    assert not_checked([], 5, shared=str(SHARED), slow=3) == (
        "not checked in this run: 3 slow tests (run them: CORRUPTBENCH_SLOW=1 or -m slow; "
        ".ci/run does), 2 deselected (-m / -k)"
    )


TESTS = f"""
import pytest

def test_passes():
    pass

def test_needs_the_reference(reference):
    pass

def test_needs_the_photos():
    pytest.skip({SHARED_REASON!r})

def test_needs_a_package():
    pytest.importorskip("no_such_package_here")

def test_not_on_this_machine():
    pytest.skip("a GPU is present")

def test_left_out():
    pass
"""


def _run(tmp_path: Path, tests: str, *args: str, slow: str | None = None) -> list[str]:
    """``python -m pytest ARGS`` on a throwaway tree with this suite's conftest.py, with
    ``CORRUPTBENCH_SLOW`` set to ``slow`` (unset: None)."""
    (tmp_path / "conftest.py").write_text((REPO / "tests" / "conftest.py").read_text())
    (tmp_path / "test_tiny.py").write_text(tests)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", RUN_SLOW)}
    if slow is not None:
        env[RUN_SLOW] = slow
    env["CORRUPTBENCH_REFENV"] = str(tmp_path / "no-refenv")  # only looked for there
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "tests"), str(REPO / "src")])
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-ra", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.strip().splitlines()


@pytest.mark.parametrize("deselect", [True, False])
def test_the_run_ends_with_what_it_did_not_check(tmp_path: Path, deselect: bool) -> None:
    lines = _run(tmp_path, TESTS, *(["-k", "not left_out"] if deselect else []))
    assert lines[-2] == (
        "not checked in this run: "
        "1 reference-fidelity test (no reference environment: bash "
        "tools/reference/setup_refenv.sh), "
        "1 real-photo test (../shared absent), "
        "1 optional (no_such_package_here not installed), "
        "1 other (a GPU is present)" + (", 1 deselected (-m / -k)" if deselect else "")
    )
    assert "4 skipped" in lines[-1]


def test_a_run_that_skipped_nothing_says_so(tmp_path: Path) -> None:
    lines = _run(tmp_path, "def test_passes():\n    pass\n")
    assert lines[-2] == "every collected test ran" and "1 passed" in lines[-1]


SLOW_TESTS = """
import pytest

def test_quick():
    pass

def test_other():
    pass

@pytest.mark.slow
def test_heavy():
    pass

@pytest.mark.slow
def test_heavier():
    pass
"""


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_plain_run_leaves_out_the_slow_tests_and_names_them(tmp_path: Path, workers: str) -> None:
    # the count comes back from the pytest-xdist workers too
    lines = _run(tmp_path, SLOW_TESTS, "-n", workers, "-k", "not other")
    assert lines[-2] == (
        "not checked in this run: 2 slow tests (run them: CORRUPTBENCH_SLOW=1 or -m slow; "
        ".ci/run does), 1 deselected (-m / -k)"
    )
    assert "1 passed" in lines[-1]


@pytest.mark.parametrize(
    ("slow", "args", "passed"),
    [("1", (), 4), ("0", (), 2), (None, ("-m", "slow"), 2), ("1", ("-m", "not slow"), 2)],
)
def test_slow_tests_run_when_asked_for(
    tmp_path: Path, slow: str | None, args: tuple[str, ...], passed: int
) -> None:
    lines = _run(tmp_path, SLOW_TESTS, "-n", "0", *args, slow=slow)
    assert f"{passed} passed" in lines[-1]

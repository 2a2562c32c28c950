"""Every test file on disk is collected by the README's test command, ``python -m pytest``
(pytest silently skips folders named like ``build`` or ``dist``: ``tests/collection_guard.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from collection_guard import (
    PLUGIN_NAME,
    collect_in_subprocess,
    collected_default_testpaths,
    uncollected,
)
from support import REPO, RUN_SLOW

#: pytest's default ``python_files``
PATTERNS = ["test_*.py", "*_test.py"]


def test_every_test_file_on_disk_is_collected(request: pytest.FixtureRequest) -> None:
    config = request.config
    patterns = config.getini("python_files")
    if collected_default_testpaths(config):  # a plain `python -m pytest`: this session's record
        collected, how = config.pluginmanager.get_plugin(PLUGIN_NAME).modules, "this run"
    else:
        collected, how = collect_in_subprocess(REPO), "python -m pytest --collect-only"
    missing = uncollected(REPO, collected, patterns)
    assert not missing, (
        f"{how} does not collect {missing}: pytest skips folders its norecursedirs names "
        f"({', '.join(config.getini('norecursedirs'))}); rename the folder"
    )


def _project(root: Path) -> None:
    """A throwaway project: the repository's pytest settings and a few test folders."""
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    files = {
        "tests/test_top.py": "def test_a():\n    pass\n",
        "tests/builders/test_seen.py": "def test_b():\n    pass\n",
        "tests/build/test_hidden.py": "def test_c():\n    pass\n",
        "tests/dist/sub/test_deep.py": "def test_d():\n    pass\n",
        "tests/extras/test_needs_a_missing_package.py": (
            "import pytest\n\npytest.importorskip('no_such_package_here')\n"
        ),
        "tests/helpers.py": "X = 1\n",  # not a test file
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_the_guard_reports_test_folders_that_pytest_skips(tmp_path: Path) -> None:
    """Real pytest collection of a throwaway tree: ``build/`` and ``dist/`` are reported; a module
    skipped at import (a missing optional package) counts as collected."""
    _project(tmp_path)
    collected = collect_in_subprocess(tmp_path)
    assert uncollected(tmp_path, collected, PATTERNS) == [
        "tests/build/test_hidden.py",
        "tests/dist/sub/test_deep.py",
    ]
    (tmp_path / "tests/build").rename(tmp_path / "tests/builds")
    (tmp_path / "tests/dist").rename(tmp_path / "tests/distributions")
    assert uncollected(tmp_path, collect_in_subprocess(tmp_path), PATTERNS) == []


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    # README: "`.ci/run` runs that same line" (the second of the two opening commands)
    readme = (REPO / "README.md").read_text(encoding="utf-8").split("```bash\n", 1)[1]
    commands = readme.split("```", 1)[0].strip().splitlines()
    assert len(commands) == 2 and "corruptbench demo" in commands[0]
    assert commands[1] in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def ci_lines_before_the_readme_command() -> list[str]:
    """The lines of .ci/run above its run of the README's test command (what that run sees)."""
    lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    readme = next(i for i, line in enumerate(lines) if line.startswith("python3 -m venv .venv"))
    return lines[:readme]


def test_ci_runs_the_slow_tests_the_readme_command_leaves_out() -> None:
    # README: a plain run leaves out the tests marked slow; .ci/run's run of the same command
    # includes them (CORRUPTBENCH_SLOW=1, read by tests/conftest.py before collection)
    assert f"export {RUN_SLOW}=1" in ci_lines_before_the_readme_command()


def test_ci_installs_without_compiling_every_module_and_caches_what_the_tests_import() -> None:
    # pip's byte-compile of every installed module is ~45 s of .ci/run on one core; without it,
    # Python must be free to write the bytecode of what the tests import, or every process of
    # the run compiles torch anew
    before = ci_lines_before_the_readme_command()
    assert "export PIP_COMPILE=0" in before and "unset PYTHONDONTWRITEBYTECODE" in before


def test_openmp_threads_sleep_while_they_wait() -> None:
    # tests/conftest.py, before torch loads: the two workers' spinning OpenMP threads would take
    # each other's core; the child processes of the run inherit it
    code = "import os, torch; print(os.environ['OMP_WAIT_POLICY'])"
    pytest.importorskip("torch")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "PASSIVE"


#: session fixtures that take a minute of CPU each: only tests marked slow may use them, or a
#: plain run (which leaves the slow tests out) would make them anyway
SLOW_FIXTURES = {"cold_kernels", "full_demo"}


def test_only_slow_tests_use_the_minute_long_fixtures(request: pytest.FixtureRequest) -> None:
    items = request.session.items
    assert any(item.nodeid == request.node.nodeid for item in items)
    quick = [
        item.nodeid
        for item in items
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ()))
        and not item.get_closest_marker("slow")
    ]
    assert quick == []

"""Which test files ``python -m pytest`` collects, against the test files on disk.

pytest never enters a folder that its ``norecursedirs`` names (by default ``build``, ``dist``,
``*.egg``, ``.*``, ``_darcs``, ``CVS``, ``node_modules``, ``venv``, ``{arch}``) and says nothing
about it: the 59 tests under ``tests/build/`` never ran that way. ``tests/test_collection.py``
fails when a test file on disk is not collected.

:class:`CollectionRecord`, a pytest plugin, records every module that pytest collected (skipped
and failed imports included: pytest did look at those). Two ways to use it:

* this session's record, when the session collected the default ``testpaths`` as a plain
  ``python -m pytest`` from the repository root does (:func:`collected_default_testpaths`);
* otherwise :func:`collect_in_subprocess`: ``python -m pytest --collect-only`` in a project root,
  with this module as a plugin (``-p collection_guard``) writing the record to a file.
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

import pytest

#: where a ``--collect-only`` subprocess writes its record (one absolute path a line)
RECORD_ENV = "CORRUPTBENCH_COLLECTION_RECORD"
PLUGIN_NAME = "collection_record"


class CollectionRecord:
    """Every test module pytest collected in this session, as absolute paths."""

    def __init__(self, rootpath: Path) -> None:
        self.rootpath = rootpath
        self.modules: set[Path] = set()

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # a module's node id is its path relative to the rootdir (no "::")
        if "::" not in report.nodeid and report.nodeid.endswith(".py"):
            self.modules.add((self.rootpath / report.nodeid).resolve())

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        out = os.environ.get(RECORD_ENV)
        if out:
            Path(out).write_text("".join(f"{p}\n" for p in sorted(self.modules)))


def install(config: pytest.Config) -> CollectionRecord:
    """Register the record in this session (once); return it."""
    record = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if record is None:
        record = CollectionRecord(config.rootpath)
        config.pluginmanager.register(record, PLUGIN_NAME)
    assert isinstance(record, CollectionRecord)
    return record


def pytest_configure(config: pytest.Config) -> None:
    """Loaded with ``-p collection_guard``: record this session."""
    install(config)


def collected_default_testpaths(config: pytest.Config) -> bool:
    """Whether this session collected exactly what ``python -m pytest`` collects: no paths given
    (so the ``testpaths``, from the rootdir) and nothing left out of collection."""
    option = config.option
    return (
        config.args_source is pytest.Config.ArgsSource.TESTPATHS
        and not getattr(option, "ignore", None)
        and not getattr(option, "ignore_glob", None)
        and not getattr(option, "lf", False)  # --last-failed may skip whole files
    )


def files_on_disk(root: Path, patterns: Iterable[str]) -> set[Path]:
    """Every file under ``root/tests`` whose name matches one of ``patterns`` (``python_files``)."""
    patterns = list(patterns)
    return {
        p.resolve()
        for p in (root / "tests").rglob("*.py")
        if any(fnmatch.fnmatch(p.name, pat) for pat in patterns)
    }


def uncollected(root: Path, collected: Iterable[Path], patterns: Iterable[str]) -> list[str]:
    """The test files under ``root/tests`` that are not in ``collected``, relative to ``root``."""
    missing = files_on_disk(root, patterns) - {Path(p).resolve() for p in collected}
    return sorted(p.relative_to(root.resolve()).as_posix() for p in missing)


def collect_in_subprocess(root: Path, timeout: float = 600) -> set[Path]:
    """The modules ``python -m pytest --collect-only`` collects when run in ``root``."""
    here = str(Path(__file__).resolve().parent)
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "collected.txt"
        env = {**os.environ, RECORD_ENV: str(record)}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
        cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        r = subprocess.run(
            [*cmd, "-p", "collection_guard"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if not record.exists():
            raise RuntimeError(f"{' '.join(cmd)} recorded nothing (exit {r.returncode}):\n"
                               f"{(r.stdout + r.stderr)[-3000:]}")  # fmt: skip
        return {Path(line) for line in record.read_text().splitlines() if line}

"""Model-source errors: a missing or broken optional package is one line, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from corruptbench.models.errors import ModelSourceError, import_optional
from support import REPO

#: what a torchvision built for another torch raises on import (torchvision/_meta_registrations.py)
BROKEN = 'raise RuntimeError("operator torchvision::nms does not exist")\n'


def _broken_package(root: Path, name: str = "torchvision") -> Path:
    """A package ``name`` on disk whose import fails the way a mismatched install does."""
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text(BROKEN)
    return root


def test_missing_and_broken_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelSourceError) as info:
        import_optional("no_such_pkg_xyz", needed_by="thing:<x>", install="pip install x")
    assert (
        str(info.value) == "thing:<x> needs no_such_pkg_xyz, which is not installed (pip install x)"
    )
    monkeypatch.syspath_prepend(str(_broken_package(tmp_path, "brokenpkg_xyz")))
    with pytest.raises(ModelSourceError) as info:
        import_optional("brokenpkg_xyz", needed_by="thing:<x>", install="pip install x")
    assert str(info.value).startswith(
        "thing:<x> needs brokenpkg_xyz, which is installed but fails to import (RuntimeError: "
        "operator torchvision::nms does not exist); reinstall a brokenpkg_xyz"
    )


def test_a_broken_torchvision_is_one_line(tmp_path: Path) -> None:
    """``eval-c --model torchvision:resnet18`` with a broken torchvision died with a traceback."""
    pytest.importorskip("torch")
    import os

    env = dict(os.environ, PYTHONPATH=f"{_broken_package(tmp_path)}{os.pathsep}{REPO / 'src'}")
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "corruptbench",
            "eval-c",
            "--model",
            "torchvision:resnet18",
            "--data",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    assert (
        res.stderr.strip()
        .splitlines()[-1]
        .startswith(
            "corruptbench eval-c: error: torchvision:<name> needs torchvision, which is installed but "
            "fails to import (RuntimeError: operator torchvision::nms does not exist); reinstall a "
            "torchvision that matches torch "
        )
    )

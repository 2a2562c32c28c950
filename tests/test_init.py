"""The package's top level: ``import corruptbench`` stays light (no torch), the evaluation API is
reachable from it lazily."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support import REPO


def test_import_is_light_and_the_api_lazy() -> None:
    code = (
        "import sys, corruptbench\n"
        "assert 'torch' not in sys.modules and 'corruptbench.evaluation' not in sys.modules\n"
        "from corruptbench import evaluate_c, evaluate_p, OnTheFly, Results\n"
        "assert 'torch' not in sys.modules, 'the evaluation API imported torch'\n"
        "import corruptbench.evaluation as ev\n"
        "assert evaluate_c is ev.evaluate_c and evaluate_p is ev.evaluate_p\n"
        "assert corruptbench.perturb.__module__ == 'corruptbench.perturbations'\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert out.returncode == 0 and out.stdout == "ok\n", out.stderr


def test_unknown_attribute() -> None:
    import corruptbench

    with pytest.raises(AttributeError, match="has no attribute 'evaluate'"):
        corruptbench.evaluate  # noqa: B018
    assert set(corruptbench.__all__) >= {"evaluate_c", "evaluate_p", "OnTheFly", "Results"}


def test_dir_lists_the_lazy_api() -> None:
    # issue 33 item 27: dir(corruptbench) listed neither evaluate_c nor evaluate_grid
    import corruptbench

    listed = dir(corruptbench)
    assert set(corruptbench.__all__) <= set(listed)
    assert {"evaluate_c", "evaluate_p", "evaluate_grid", "OnTheFly", "Results", "perturb"} <= set(
        listed
    )
    for name in corruptbench.__all__:
        assert getattr(corruptbench, name) is not None

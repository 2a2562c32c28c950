"""Fixtures of the report tests: three results files (one with a hostile model id)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corruptbench.tables.alexnet import ALEXNET_CLEAN_ERROR
from results.support import EVIL, make_results, write


@pytest.fixture
def three(tmp_path: Path) -> list[Path]:
    return [
        write(tmp_path, "r50.json", make_results("resnet50", 0.85, 0.2385, seed=1, p=True)),
        write(tmp_path, "alexnet.json", make_results("alexnet", 1.0, ALEXNET_CLEAN_ERROR, seed=2)),
        write(tmp_path, "evil.json", make_results(EVIL, 0.7, 0.18, seed=3, p=True)),
    ]

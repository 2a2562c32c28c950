"""Fixtures of the command tests (shared with the evaluation tests)."""

from __future__ import annotations

from evaluation.conftest import small_c  # noqa: F401 - a fixture
from report.conftest import three  # noqa: F401 - a fixture

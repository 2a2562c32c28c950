"""Fixtures of the results tests (shared with the report tests)."""

from __future__ import annotations

from report.conftest import three  # noqa: F401 - a fixture

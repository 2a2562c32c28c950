"""Fixtures of the command tests."""

from __future__ import annotations

from report.conftest import three  # noqa: F401 - a fixture

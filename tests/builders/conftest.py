"""Fixtures of the build tests: one loopback Ray cluster for the package's tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from builders.support import start_cluster, stop_cluster


@pytest.fixture(scope="package")  # stopped once tests/builders is done, not at the session's end
def ray_cluster() -> Iterator[Any]:
    """Head (0 CPUs) + 2 worker nodes of 1 CPU on 127.0.0.1, in a process of its own
    (``tools/loopback_ray.py``), started once: ready when the GCS lists every node alive."""
    cl = start_cluster(workers=2)
    try:
        yield cl
    finally:
        stop_cluster(cl)

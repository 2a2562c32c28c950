"""The torch backend's CPU dispatch table (corruptbench.tables.cpu_dispatch): plain data, no torch."""

from __future__ import annotations

import corruptbench
from corruptbench.profiles import PROFILE_NAMES
from corruptbench.tables.cpu_dispatch import CPU_LIBRARY_DISPATCH

ALL = corruptbench.ALL_CORRUPTIONS


def test_cpu_library_dispatch_table():
    assert set(CPU_LIBRARY_DISPATCH) == {"imagenet", "inception", "tiny", "cifar"}
    assert tuple(CPU_LIBRARY_DISPATCH) == PROFILE_NAMES
    for profile, row in CPU_LIBRARY_DISPATCH.items():
        assert set(row) <= set(ALL), profile
        for name, sevs in row.items():
            assert sevs and set(sevs) <= {1, 2, 3, 4, 5}, (profile, name)
            assert list(sevs) == sorted(set(sevs)), (profile, name)
        # faster as tensor ops than the library at every severity and size measured
        assert not {"gaussian_noise", "speckle_noise"} & set(row), profile
        # JPEG's tensor path is the same per-image Pillow code: always the library
        assert row["jpeg_compression"] == (1, 2, 3, 4, 5), profile

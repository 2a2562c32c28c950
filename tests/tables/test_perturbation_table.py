"""The ImageNet-P schedules (corruptbench.tables.perturbations)."""

from __future__ import annotations

from corruptbench.perturbations import (
    ALL_PERTURBATIONS,
    FRAME_COUNTS,
)


def test_frame_count_table() -> None:
    # 31 frames except translate (41 / 31 / 16) and CIFAR motion blur (21): make_imagenet_p.py,
    # make_tinyimagenet_p.py, make_cifar_p.py
    for name in ALL_PERTURBATIONS:
        for prof in ("imagenet", "tiny", "cifar", "inception"):
            expected = 31
            if name == "translate":
                expected = {"imagenet": 41, "inception": 41, "tiny": 31, "cifar": 16}[prof]
            if name == "motion_blur" and prof == "cifar":
                expected = 21
            assert FRAME_COUNTS[name][prof] == expected, (name, prof)

"""``corruptbench list``: the corruptions (and perturbations) with family and profile tables."""

from __future__ import annotations

import argparse

from ..profiles import PROFILES
from ..registry import corruption_registry


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list corruptions, perturbations and profiles")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    reg = corruption_registry()
    print("Corruptions (15 benchmark, then 4 extra/validation):")
    for i, (name, info) in enumerate(reg.items()):
        tag = "extra" if info.extra else "benchmark"
        print(f"  {i:2d}  {name:<18} {info.family:<8} {tag:<9}  {info.doc}")
    try:
        from ..perturbations import ALL_PERTURBATIONS, EXTRA_PERTURBATIONS

        print("\nPerturbations (ImageNet-P; 10 test, then 4 validation):")
        for name in ALL_PERTURBATIONS:
            print(f"  {name:<18} {'validation' if name in EXTRA_PERTURBATIONS else 'test'}")
    except ImportError:
        pass
    print("\nProfiles:")
    for prof in PROFILES.values():
        print(f"  {prof.name:<10} {prof.size:>3} px  {prof.description}")
    return 0

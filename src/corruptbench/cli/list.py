"""``corruptbench list``: the corruptions (and perturbations) with family and profile tables."""

from __future__ import annotations

import argparse

from ..profiles import PROFILES
from ..registry import corruption_registry, corruption_specs, perturbation_specs


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list corruptions, perturbations and profiles")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    reg = corruption_registry()
    print("Corruptions (15 benchmark, then 4 extra/validation, which belong to no family):")
    for i, (name, info) in enumerate(reg.items()):
        tag = "extra" if info.extra else "benchmark"
        print(f"  {i:2d}  {name:<18} {info.family or '-':<8} {tag:<9}  {info.summary}")
    print(
        "\nImageNet-C-bar / CIFAR-10-C-bar corruptions (suite cbar, Mintun et al. 2021; "
        "sets: imagenet_c_bar, cifar10_c_bar, cbar_extra):"
    )
    for cbar in corruption_specs("cbar"):
        sets = ",".join(cbar.tags)
        print(
            f"  {cbar.order:2d}  {cbar.name:<31} {cbar.family or '-':<10} {sets:<28}  {cbar.summary}"
        )
    from .. import perturbations  # noqa: F401  (importing registers the perturbations)

    print("\nPerturbations (ImageNet-P; 10 test, then 4 validation):")
    for spec in perturbation_specs():
        tag = "validation" if spec.validation else "test"
        print(f"  {spec.name:<18} {tag:<10}  {spec.summary}")
    print("\nProfiles:")
    for prof in PROFILES.values():
        print(f"  {prof.name:<10} {prof.size:>3} px  {prof.description}")
    return 0

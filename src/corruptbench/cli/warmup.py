"""``corruptbench warmup``: compile every kernel into numba's disk cache now (containers, nodes)."""

from __future__ import annotations

import argparse

from ..kernel_cache import warmup


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "warmup",
        help="compile every kernel into the cache now (Dockerfiles, cluster nodes)",
        description=(
            "Compile (or load) every compiled kernel into numba's disk cache, so that later "
            "runs on this installation and CPU model start at once. Prints where the cache is "
            "and its size; NUMBA_CACHE_DIR sets the place (e.g. for a read-only install)."
        ),
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..ops import aot

    print(warmup(quiet=False).describe())
    print(aot.status())
    return 0

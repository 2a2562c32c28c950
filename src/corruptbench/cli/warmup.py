"""``corruptbench warmup``: have every kernel ready before the first real run (containers, nodes).

With the ahead-of-time kernels installed and usable (:mod:`corruptbench.ops.aot`) every
corruption, perturbation and JPEG write runs on them, so there is nothing to compile: it says so
and stops. ``--jit`` (or an install without them) compiles numba's JIT kernels into the disk
cache, which builds of :data:`~corruptbench.builders.engine.BULK_ITEMS` images or more use.
"""

from __future__ import annotations

import argparse

from ..kernel_cache import warmup
from ..tables.kernel_signatures import COMPILE_SECONDS

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "warmup",
        help="make every kernel ready now (Dockerfiles, cluster nodes)",
        description=(
            "Make the compiled kernels ready before the first real run. With the ahead-of-time "
            "kernels installed (a pip install on Linux x86-64 builds them) nothing needs "
            "compiling and this only says so. Otherwise, or with --jit, it compiles (or loads) "
            "every kernel into numba's disk cache, so that later runs on this installation and "
            "CPU model start at once, and prints where the cache is and its size; "
            "NUMBA_CACHE_DIR sets the place (e.g. for a read-only install)."
        ),
    )
    p.add_argument(
        "--jit",
        action="store_true",
        help="compile numba's JIT kernels even where the ahead-of-time ones are installed: "
        "make-c / make-p use the JIT for builds of 10,000 images or more (3 %% faster per image) "
        f"and compile it once (~{round(COMPILE_SECONDS['all'])} CPU s) unless the cache holds it",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..ops import aot

    if aot.load() is not None and not args.jit:
        print(aot.status())
        print(
            "nothing to compile: corruptions, perturbations and JPEG writes run on these kernels. "
            "`corruptbench warmup --jit` also compiles numba's JIT kernels "
            f"(~{round(COMPILE_SECONDS['all'])} CPU s), which make-c / make-p builds of 10,000 "
            "images or more use"
        )
        return 0
    print(warmup(quiet=False).describe())
    print(aot.status())
    return 0

"""The ``corruptbench`` command line: one module per sub-command (``register(subparsers)`` adds
its parser, ``run(args)`` parses nothing more, calls the library and prints).

Library errors name their arguments symbolically (:class:`corruptbench.errors.ArgumentError`);
:func:`main` shows them with the command line's flags (:data:`FLAGS`).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..errors import ArgumentError
from ..kernel_cache import compile_estimate
from ..ops import jit

__all__ = ["COMMANDS", "FLAGS", "build_parser", "main"]

#: sub-command modules, in the order ``--help`` lists them
COMMANDS = [
    "list",
    "corrupt",
    "perturb",
    "make_c",
    "make_p",
    "eval_c",
    "eval_p",
    "report",
    "demo",
    "warmup",
]

#: library argument name -> the flag that sets it
FLAGS = {
    "data": "--data",
    "on_the_fly": "--on-the-fly",
    "clean": "--clean",
    "limit": "--limit",
    "baseline": "--baseline",
    "difficulty": "--difficulty",
    "out": "--out",
    "overwrite": "--overwrite",
    "corrupt_on": "--corrupt-on",
    "device": "--device",
    "enhance": "--preprocess",
    "spec": "--model",
    "weights": "--weights",
    "random_weights": "--random-weights",
    "ray": "--ray",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="corruptbench",
        description="ImageNet-C / ImageNet-P corruptions, dataset builders, evaluation and reports.",
    )
    parser.add_argument("--version", action="version", version=f"corruptbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    # one line on stderr if this run compiles kernels (an empty cache), instead of a silent pause
    jit.announce(compile_estimate(everything=True))
    try:
        rc = args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, FileNotFoundError, FileExistsError) as exc:
        msg = exc.render(FLAGS) if isinstance(exc, ArgumentError) else str(exc)
        print(f"corruptbench {args.command}: error: {msg}", file=sys.stderr)
        return 2
    return int(rc or 0)

"""The ``corruptbench`` command line: one module per sub-command (``register(subparsers)`` adds
its parser, ``run(args)`` parses nothing more, calls the library and prints).

Library errors name their arguments symbolically (:class:`corruptbench.errors.ArgumentError`);
:func:`main` shows them with the command line's flags (:data:`FLAGS`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from ..errors import ArgumentError
from ..extras import MissingDependency
from ..kernel_cache import compile_estimate
from ..ops import jit
from ..version import __version__

__all__ = ["COMMANDS", "FLAGS", "build_parser", "main"]

#: sub-command modules, in the order ``--help`` lists them
COMMANDS = [
    "list",
    "corrupt",
    "perturb",
    "make_c",
    "make_p",
    "convert",
    "download",
    "verify",
    "eval_c",
    "eval_p",
    "report",
    "score",
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
    "protocol": "--protocol",
    "ece_bins": "--ece-bins",
    "device": "--device",
    "enhance": "--preprocess",
    "spec": "--model",
    "weights": "--weights",
    "random_weights": "--random-weights",
    "ray": "--ray",
    "quality": "--quality",
    "copy_files": "--copy-files",
    "severities": "--severities",
    "difficulties": "--difficulty",
    "corruptions": "--corruptions",
    "fmt": "--format",
    "to": "--to",
    "shard_size": "--shard-size",
    "partial": "--partial",
    "names": "--names",
    "parts": "--parts",
    "checksums": "--checksum",
    "accept_unverified": "--accept-unverified",
    "retries": "--retries",
    "timeout": "--timeout",
    "suite": "--suite",
    "level_names": "--level-names",
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


def _os_error(exc: OSError) -> str:
    """``Permission denied: 'out/x.png'`` (the path the user gave), else the message."""
    if exc.strerror and exc.filename is not None:
        return f"{exc.strerror}: {os.fsdecode(exc.filename)!r}"
    return str(exc)


def _quiet_broken_pipe() -> int:
    # The reader of our output went away (``corruptbench list | head -1``): nothing more can be
    # said, and Python must not complain while flushing stdout at exit either.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a file descriptor
        pass
    return 141  # 128 + SIGPIPE, what a shell reports for a filter cut short by its reader


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
        sys.stdout.flush()
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        on_interrupt = getattr(args, "on_interrupt", None)
        detail = on_interrupt(args) if on_interrupt is not None else ""
        print(f"interrupted{': ' + detail if detail else ''}", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError, MissingDependency) as exc:
        if isinstance(exc, ArgumentError):
            msg = exc.render(FLAGS)
        elif isinstance(exc, OSError) and not isinstance(exc, (FileNotFoundError, FileExistsError)):
            msg = _os_error(exc)
        else:
            msg = str(exc)
        print(f"corruptbench {args.command}: error: {msg}", file=sys.stderr)
        return 2
    return int(rc or 0)

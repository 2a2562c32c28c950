"""The ``corruptbench`` command line: one module per sub-command (``register(subparsers)`` adds
its parser, ``run(args)`` parses nothing more, calls the library and prints).

Library errors name their arguments symbolically (:class:`corruptbench.errors.ArgumentError`);
:func:`main` shows them with the command line's flags (:data:`FLAGS`). Only the project's own
errors (and ``OSError`` about the user's files) become one line with exit status 2
(:func:`corruptbench.errors.is_user_error`); any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

from ..errors import CorruptbenchError, is_user_error
from ..kernel_cache import compile_estimate
from ..ops import jit
from ..safe_text import printable
from ..version import __version__
from .usage import Parser

__all__ = ["COMMANDS", "FLAGS", "Terminated", "build_parser", "main"]

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
    "stream",
    "eval_stream",
    "report",
    "score",
    "demo",
    "ccc",
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
    "scale": "--scale",
    "names": "--names",
    "parts": "--parts",
    "checksums": "--checksum",
    "accept_unverified": "--accept-unverified",
    "retries": "--retries",
    "timeout": "--timeout",
    "max_extract_bytes": "--max-extract-size",
    "suite": "--suite",
    "level_names": "--level-names",
    "dataset": "--dataset",
    "setting": "--setting",
    "order": "--order",
    "num_examples": "--num-examples",
    "delta": "--delta",
    "seed": "--seed",
    "batch_size": "--batch-size",
    "rounds": "--rounds",
    "image_list": "--image-list",
    "manifest": "--replay",
    "adapt": "--adapt",
    "workers": "--workers",
    # eval-stream --adapt tent: the keys of adapt_options
    "method": "--optimizer",
    "lr": "--lr",
    "steps": "--steps",
    "checkpoint": "--checkpoint",
    "root": "DIR",
    "layout": "--layout",
    "severity": "--severity",
    "outputs": "--outputs",
    "class_map": "--class-map",
    # ccc calibrate / generate
    "speed": "--speed",
    "images": "--images",
    "images_per_shard": "--shard-images",
    "matrix": "--matrix",
    "draws": "--draws",
    "levels": "--levels",
    "tolerance": "--tolerance",
    # eval-stream on a CCC run
    "ccc": "--ccc",
    "ccc_on_the_fly": "--ccc-on-the-fly",
    "ccc_backend": "--ccc-backend",
}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
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


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, a job scheduler, ``docker stop``) raised where Ctrl-C raises
    KeyboardInterrupt, so both stop a command the same way: workers stopped, temporary files
    removed, results and manifests saved, one ``interrupted`` line."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _on_terminate(signum: int, frame: object) -> None:
    # a second SIGTERM during the clean-up ends the process at once (the sender insists)
    signal.signal(signum, signal.SIG_DFL)
    raise Terminated(signum)


@contextlib.contextmanager
def _terminate_like_interrupt() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` while the command runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, _on_terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser()
    except KeyboardInterrupt:  # Ctrl-C while the commands' modules import (seconds when busy)
        print("interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    # one line on stderr if this run compiles kernels (an empty cache), instead of a silent pause
    jit.announce(compile_estimate(everything=True))
    try:
        with _terminate_like_interrupt():
            rc = args.func(args)
            sys.stdout.flush()
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt as exc:
        on_interrupt = getattr(args, "on_interrupt", None)
        detail = on_interrupt(args) if on_interrupt is not None else ""
        how = f" ({exc.args[0]})" if isinstance(exc, Terminated) else ""
        text = f"interrupted{how}{': ' + detail if detail else ''}"
        print(printable(text, keep_newlines=True), file=sys.stderr)
        rc = 128 + (exc.signum if isinstance(exc, Terminated) else signal.SIGINT)
    except Exception as exc:
        if not is_user_error(exc):
            raise  # a bug: its traceback is what a report needs
        if isinstance(exc, CorruptbenchError):
            msg = exc.render(FLAGS)
        elif isinstance(exc, OSError) and not isinstance(exc, (FileNotFoundError, FileExistsError)):
            msg = _os_error(exc)
        else:
            msg = str(exc)
        msg = printable(msg, keep_newlines=True)
        print(f"corruptbench {args.command}: error: {msg}", file=sys.stderr)
        return 2
    else:
        return int(rc or 0)
    # interrupted: what the command left suspended (a generator over data-loader workers, kept
    # in a reference cycle by the traceback) is finalised now, while the process is intact, not
    # at interpreter exit (where torch no longer stops its workers)
    gc.collect()
    return int(rc)

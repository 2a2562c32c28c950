"""The command line's parser: argparse's, with hints for the usage errors that mislead.

A list option (``nargs="+"``: ``--corruptions fog snow``) takes every value up to the next
option, so ``make-c --corruptions fog snow SRC OUT`` puts SRC and OUT into the list, and argparse
then says only ``the following arguments are required: src, out``. :class:`Parser` adds which
values the list took when some of them are existing paths, and how to write the command.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

__all__ = ["Parser", "swallowed_hint"]

_REQUIRED = "the following arguments are required: "


class Parser(argparse.ArgumentParser):
    """:class:`argparse.ArgumentParser` whose usage errors carry :func:`swallowed_hint`
    (sub-command parsers are of the same class: argparse makes them with ``type(self)``)."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._argv = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        super().error(message + swallowed_hint(self, getattr(self, "_argv", []), message))


def _list_flags(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Option string -> its first (long) form, of the options that take a list."""
    out = {}
    for action in parser._actions:  # argparse's documented-by-use list of a parser's actions
        if action.option_strings and action.nargs in ("+", "*"):
            for opt in action.option_strings:
                out[opt] = action.option_strings[-1]
    return out


def swallowed_hint(parser: argparse.ArgumentParser, argv: Sequence[str], message: str) -> str:
    """For ``the following arguments are required: src, out`` when a list option's last values
    are existing paths: which values the list took and how to write it; else ``""``."""
    if not message.startswith(_REQUIRED):
        return ""
    missing = [m.strip() for m in message[len(_REQUIRED) :].split(",") if m.strip()]
    flags = _list_flags(parser)
    for i, token in enumerate(argv):
        if token not in flags:
            continue
        values: list[str] = []
        for value in argv[i + 1 :]:
            if value.startswith("-") and value not in ("-", "--"):
                break
            if value == "--":
                break
            values.append(value)
        last = values[-len(missing) :] if len(values) > len(missing) else []
        paths = [k for k, v in enumerate(last) if os.path.exists(v)]
        if paths:
            flag, tail = flags[token], last[paths[0] :]
            return (
                f" ({flag} took {' '.join(tail)} into its list: a list takes every value up to "
                f"the next option. Give {' '.join(m.upper() for m in missing)} before {flag}, or "
                "end the list with -- and put them last)"
            )
    return ""

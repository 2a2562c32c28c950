"""Errors that name an argument of the library: ``str()`` says its Python name, the CLI its flag.

A message is a sequence of text and :class:`Arg` parts. Library code writes
``EvalError(Arg("limit"), f" must be positive, got {limit}")``: a Python caller reads
``limit must be positive, got 0``, and the command line, which knows its flags, renders the same
error as ``--limit must be positive, got 0`` (:meth:`ArgumentError.render`).

Examples:
    >>> err = ArgumentError("give exactly one of ", Arg("data", "D"), " or ", Arg("on_the_fly", "SRC"))
    >>> str(err)
    'give exactly one of data or on_the_fly'
    >>> err.render({"data": "--data", "on_the_fly": "--on-the-fly"})
    'give exactly one of --data D or --on-the-fly SRC'

The error policy: every error the project raises on purpose for bad input or data is a
:class:`CorruptbenchError` (:class:`ArgumentError` and its subclasses, ``InputTypeError`` for a
value of the wrong type, :class:`~corruptbench.extras.MissingDependency`, ``VerifyError``,
``DownloadError``). The command line prints those (and the operating system's ``OSError`` about
the user's files) as one line with exit status 2; anything else is a bug and keeps its traceback
(:func:`is_user_error`).
"""

from __future__ import annotations

import linecache
import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "Arg",
    "ArgumentError",
    "CorruptbenchError",
    "DownloadError",
    "InputTypeError",
    "is_user_error",
]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


@dataclass(frozen=True)
class Arg:
    """An argument named in an error message.

    Attributes:
        name: The parameter's name, the key of its flag (``"on_the_fly"``).
        metavar: What follows the flag when the CLI names it as a usage (``"SRC"``); not shown in
            the Python rendering.
        python: How the Python rendering names it, when not ``name`` (``"OnTheFly(src)"``).
    """

    name: str
    metavar: str = ""
    python: str = ""


class CorruptbenchError(Exception):
    """Base of the errors corruptbench raises on purpose (bad input, bad data, a missing extra):
    each says in one line what is wrong. The command line prints them without a traceback.

    The message is a sequence of text and :class:`Arg` parts (see the module docstring).
    """

    def __init__(self, *parts: str | Arg) -> None:
        self.parts: tuple[str | Arg, ...] = tuple(parts)
        super().__init__(self.render())

    def render(self, flags: Mapping[str, str] | None = None) -> str:
        """The message with each :class:`Arg` shown as ``flags[name]`` (+ its metavar) when
        ``flags`` knows it, else as its Python name."""
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, Arg):
                if flags is not None and part.name in flags:
                    out.append(flags[part.name] + (f" {part.metavar}" if part.metavar else ""))
                else:
                    out.append(part.python or part.name)
            else:
                out.append(part)
        return "".join(out)

    def __reduce__(self) -> tuple[type[CorruptbenchError], tuple[str | Arg, ...]]:
        return (type(self), self.parts)


class ArgumentError(CorruptbenchError, ValueError):
    """A ``ValueError`` whose message may name arguments (see the module docstring)."""


class InputTypeError(CorruptbenchError, TypeError):
    """An argument of the wrong type (also a ``TypeError``, as Python's own type errors are)."""


class DownloadError(ArgumentError):
    """A released file could not be fetched, verified or extracted (``corruptbench download``);
    the message names the file and why, and any option that would change it as an :class:`Arg`."""


def _raised_here(exc: BaseException) -> bool:
    # A plain ValueError / TypeError counts as ours when a ``raise`` statement of this package
    # raised it (the innermost frame is ours and its line is a raise): the many checks written
    # before the family existed. One raised from inside NumPy, torch or Python (a broadcast
    # mismatch, None + 1) has its innermost frame elsewhere or on a call line: a bug.
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    if not os.path.abspath(code.co_filename).startswith(_PACKAGE):
        return False
    return linecache.getline(code.co_filename, tb.tb_lineno).lstrip().startswith("raise ")


def is_user_error(exc: BaseException) -> bool:
    """Whether the command line shows ``exc`` as one line (exit status 2) rather than as a bug
    with its traceback: a :class:`CorruptbenchError`, an ``OSError`` (a file the user named: not
    found, no permission, disk full), or a ``ValueError`` / ``TypeError`` raised by one of the
    package's own ``raise`` statements (its input checks)."""
    if isinstance(exc, (CorruptbenchError, OSError)):
        return True
    return isinstance(exc, (ValueError, TypeError)) and _raised_here(exc)

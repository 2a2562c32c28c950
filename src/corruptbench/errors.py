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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Arg", "ArgumentError", "DownloadError"]


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


class ArgumentError(ValueError):
    """A ``ValueError`` whose message may name arguments (see the module docstring)."""

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

    def __reduce__(self) -> tuple[type[ArgumentError], tuple[str | Arg, ...]]:
        return (type(self), self.parts)


class DownloadError(ArgumentError):
    """A released file could not be fetched, verified or extracted (``corruptbench download``);
    the message names the file and why, and any option that would change it as an :class:`Arg`."""

"""Atomic file writes for the whole package: a file is either complete or absent, never partial.

Every output (images, results JSON, reports, dataset files) goes through :func:`write_atomic`:
the data is written to ``.<name>.<host>.<pid>.<random>.cbtmp`` in the target's folder and renamed over the target
with :func:`os.replace`. The temporary file is made by ``open(..., "wb")``, so the file gets the
permissions any new file of the user gets (``0o666 & ~umask``), not ``tempfile.mkstemp``'s 0600.
An ``OSError`` (unwritable folder, full disk) names the path the caller gave, not the temporary
file.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import socket
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = [
    "TMP_SUFFIX",
    "temp_path",
    "temp_owner",
    "this_host",
    "write_atomic",
    "write_bytes",
    "write_text",
]

#: suffix of the temporary files (a build sweeps left-overs away)
TMP_SUFFIX = ".cbtmp"


@functools.lru_cache(maxsize=1)
def this_host() -> str:
    """This machine as temporary names record it: the first label of the host name, safe in a
    file name and short (names stay < 255 bytes)."""
    label = socket.gethostname().split(".")[0] or "host"
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in label)[:24]


def temp_path(path: str | os.PathLike[str]) -> str:
    """A fresh temporary name beside ``path``: ``.<name>.<host>.<pid>.<8 hex>.cbtmp``.

    Two processes that make the same output at once (a worker orphaned by a killed run and the
    re-run; a Ray task retried on another machine while the first attempt still runs, both writing
    into one shared OUT, where pids repeat across machines) never share a temporary file; both
    write the same bytes and the last rename wins. Hidden, so no reader ever lists it.
    """
    head, name = os.path.split(os.fspath(path))
    return os.path.join(
        head, f".{name}.{this_host()}.{os.getpid()}.{secrets.token_hex(4)}{TMP_SUFFIX}"
    )


def temp_owner(file_name: str) -> tuple[str | None, int | None] | None:
    """``(host, pid)`` of the process that made a temporary file, from its name; None when the
    name is not a temporary file's (no leading dot or no :data:`TMP_SUFFIX`).

    ``.<name>.<host>.<pid>.<8 hex>.cbtmp`` (:func:`temp_path`) gives both; the older
    ``.<name>.<pid>.cbtmp`` only the pid (host None); a name with neither gives ``(None, None)``.
    """
    if not (file_name.startswith(".") and file_name.endswith(TMP_SUFFIX)):
        return None
    parts = file_name[: -len(TMP_SUFFIX)].split(".")
    if len(parts) >= 5 and parts[-1] and len(parts[-1]) == 8 and parts[-2].isdigit():
        try:
            int(parts[-1], 16)
            return parts[-3] or None, int(parts[-2])
        except ValueError:
            pass
    if len(parts) >= 3 and parts[-1].isdigit():
        return None, int(parts[-1])
    return None, None


def _replace(path: str | os.PathLike[str], fill: Callable[[str], Any], make_parents: bool) -> None:
    """``fill(temporary path)``, then the rename over ``path``; on any failure the temporary file
    is removed and an ``OSError`` names ``path``."""
    target = os.fspath(path)
    tmp = temp_path(target)
    try:
        if make_parents:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        fill(tmp)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename in (tmp, None) and exc.errno is not None:
            raise type(exc)(exc.errno, exc.strerror, target) from None
        raise


def write_atomic(
    path: str | os.PathLike[str],
    writer: Callable[[IO[bytes]], Any],
    *,
    make_parents: bool = False,
) -> None:
    """Write ``path`` through ``writer(binary file)``, atomically (see the module docstring).

    Args:
        path: The file to write (replaced if it exists).
        writer: Writes the content into the open binary file it is given.
        make_parents: Create the missing parent folders first.

    Raises:
        OSError: of the same type, with ``filename`` = ``path`` (e.g. ``PermissionError``).
    """

    def fill(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            writer(fh)

    _replace(path, fill, make_parents)


def write_bytes(path: str | os.PathLike[str], data: bytes, *, make_parents: bool = False) -> None:
    """:func:`write_atomic` of ``data``, through the bare file descriptor (no buffered file object:
    make-c writes 95 files per image, and the object's set-up was a third of a write's cost)."""

    def fill(tmp: str) -> None:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)

    _replace(path, fill, make_parents)


def write_text(path: str | os.PathLike[str], text: str, *, make_parents: bool = False) -> None:
    """:func:`write_atomic` of ``text`` in UTF-8."""
    write_bytes(path, text.encode("utf-8"), make_parents=make_parents)

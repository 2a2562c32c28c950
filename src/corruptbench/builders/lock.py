"""One build at a time per OUT: an exclusive lock on ``OUT/.corruptbench/lock``.

Two builds writing into one OUT at once would each sweep the other's temporary files (a shard
renamed from under a running writer: ENOENT) or both do all the work. :class:`OutLock` takes
``flock(LOCK_EX | LOCK_NB)`` (``flock(2)``) on the lock file for the whole build and writes who
holds it (pid, host, start time, command) into it, so a second build stops at once with a
message naming the first. The kernel releases the lock when the holder's process ends, however
it ends (SIGKILL included): a stale lock file never blocks a later build.

Where it works: local filesystems; NFS (Linux emulates ``flock`` with NFS byte-range locks since
2.6.12: NFSv4 locks, or NLM/lockd for NFSv3) unless mounted with ``nolock`` or ``local_lock=all``
/ ``local_lock=flock``, where locks are seen only by the machine that takes them. That case is
read from ``/proc/self/mountinfo`` and reported (:attr:`OutLock.note`), as is a filesystem that
refuses locks (``ENOLCK``, ``EOPNOTSUPP``): the build then runs unguarded against other
machines. Every process of one build (local workers, Ray tasks) writes under the driver's lock.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import socket
import time
from pathlib import Path
from types import TracebackType

from .outputs import LOCK, WORK_DIR
from .spec import BuildError

__all__ = ["LOCK", "OutLock", "lock_note"]

_UNSUPPORTED = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL)


def _mount_of(path: str, mountinfo: str) -> tuple[str, str, str] | None:
    """``(mount point, filesystem type, super options)`` of the mount holding ``path``, from
    ``mountinfo`` (``proc(5)``); None where it cannot be read."""
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    real = os.path.realpath(path)
    best: tuple[str, str, str] | None = None
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 3:
            continue
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])  # \040
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best[0])):
            best = (point, tail[0], tail[2])
    return best


def lock_note(path: str, *, mountinfo: str = "/proc/self/mountinfo") -> str:
    """Why a lock on ``path`` may not keep out a build on another machine, or ``""`` (read
    from ``mountinfo``, this process's mount table by default)."""
    mount = _mount_of(path, mountinfo)
    if mount is None:
        return ""
    point, fstype, options = mount
    opts = set(options.split(","))
    if fstype.startswith("nfs") and ({"local_lock=all", "local_lock=flock", "nolock"} & opts):
        how = sorted({"local_lock=all", "local_lock=flock", "nolock"} & opts)[0]
        return (
            f"{point} is NFS mounted with {how}: the lock on OUT keeps out builds on this machine "
            "only; do not start a build of the same OUT on another machine while this one runs"
        )
    return ""


class OutLock:
    """Context manager: hold ``OUT/.corruptbench/lock`` for a build (see the module docstring).

    Raises:
        BuildError: another process holds it (the message names its pid, host, start time).
    """

    def __init__(self, out: Path, shown: Path, command: str) -> None:
        self.path = out / WORK_DIR / LOCK
        self.shown = shown
        self.command = command
        self.fd: int | None = None
        #: why the lock may not guard OUT against other machines ("" when it does)
        self.note = ""

    def __enter__(self) -> OutLock:
        if self.path.parent.is_symlink():  # the lock would be made (or truncated) elsewhere
            raise BuildError(
                f"{self.path.parent} is a symbolic link; the lock is never opened through one "
                "(remove it and run again)"
            )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while self.fd is None:
            try:  # never through a link planted there: its target would be truncated
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
            except OSError as exc:
                if exc.errno != errno.ELOOP:
                    raise
                raise BuildError(
                    f"{self.path} is a symbolic link; the lock is never opened through one "
                    "(remove it and run again)"
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise BuildError(self._held_message()) from None
            except OSError as exc:
                if exc.errno not in _UNSUPPORTED:
                    os.close(fd)
                    raise
                self.note = (
                    f"the filesystem of {self.shown} does not support locks ({exc.strerror}): "
                    "nothing keeps another build out of it while this one runs"
                )
            if self._same_file(fd):
                self.fd = fd
            else:  # the last holder removed the file as we opened it: lock the new one
                os.close(fd)
        self.note = self.note or lock_note(str(self.path.parent))
        self._write_holder()
        return self

    def _same_file(self, fd: int) -> bool:
        try:
            return os.fstat(fd).st_ino == os.stat(self.path).st_ino
        except FileNotFoundError:
            return False

    def _write_holder(self) -> None:
        assert self.fd is not None
        holder = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": time.strftime("%Y-%m-%d %H:%M:%S %z"),
            "command": self.command,
        }
        with contextlib.suppress(OSError):  # a full disk must not stop the lock's owner
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, (json.dumps(holder) + "\n").encode(), 0)

    def _held_message(self) -> str:
        try:
            h = json.loads(self.path.read_text())
            who = (
                f"{h.get('command', 'a build')} (pid {h['pid']} on {h['host']}, "
                f"started {h['started']})"
            )
        except (OSError, ValueError, KeyError, TypeError):
            who = "another build (it has not said who yet)"
        return (
            f"{self.shown} is being written by {who}; two builds of one OUT would undo each "
            "other's work: wait for it to finish (or stop it), then run this again"
        )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.fd is None:
            return
        # removed while still held: a build that opened it meanwhile sees another file and retries
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        os.close(self.fd)
        self.fd = None
        with contextlib.suppress(OSError):  # only when nothing else is kept there
            os.rmdir(self.path.parent)

"""HTTP transfers with resume and retries, on the standard library (:mod:`urllib.request`).

Why the standard library: the downloader needs plain GETs with a ``Range`` header, redirects,
HTTPS with the system's certificates, proxies from the environment and timeouts; urllib does all
of it (status line, headers, chunked bodies and redirects are parsed by :mod:`http.client`), and
it adds no dependency to the core install. Only the values of two headers are read here:
``Content-Range`` (``bytes START-END/TOTAL``, RFC 9110 §14.4) and ``Retry-After`` (seconds or an
HTTP date, RFC 9110 §10.2.3, read with :func:`email.utils.parsedate_to_datetime`).

* :func:`fetch` writes a URL to a ``.part`` file, resuming from its size with
  ``Range: bytes=N-``. A ``206`` whose range starts at N is appended; a ``200`` means the server
  ignored the range, so the file restarts from byte 0; a ``416`` whose total equals the size
  means the file was already complete.
* :func:`with_retries` retries timeouts, dropped connections, short bodies, ``429`` and ``5xx``
  with exponential backoff (``RetryPolicy.base_delay_s * 2**(try-1)``, at most
  ``max_delay_s``), and waits at least what a ``Retry-After`` header asks for.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import re
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from ..progress import Progress, progress
from ..version import __version__

__all__ = [
    "DownloadError",
    "RetryPolicy",
    "RETRY_STATUS",
    "with_retries",
    "fetch",
    "get_json",
    "parse_retry_after",
    "parse_content_range",
    "byte_unit",
]

T = TypeVar("T")

#: HTTP statuses worth another try (rate limiting, server trouble)
RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
_CHUNK = 1 << 20
_USER_AGENT = f"corruptbench/{__version__} (+https://pypi.org/project/corruptbench/)"


class DownloadError(Exception):
    """A file could not be fetched or verified; the message names the file and says why."""


class _ShortBody(Exception):
    """The connection ended before the announced number of bytes arrived."""


# errors of the network (never of the local disk: a full disk is an OSError that is not retried)
_NETWORK_ERRORS = (
    urllib.error.URLError,
    TimeoutError,
    ConnectionError,
    http.client.HTTPException,
    ssl.SSLError,
    _ShortBody,
)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry.

    Attributes:
        attempts: Tries per URL (the first included).
        base_delay_s: The wait before the second try; it doubles for each further one.
        max_delay_s: The longest backoff wait.
        max_retry_after_s: The longest ``Retry-After`` honoured; a server asking for more is
            an error (instead of a silent hour-long pause).
        timeout_s: Socket timeout of each connect and read.
        sleep: How to wait (tests record the waits instead of sleeping).
    """

    attempts: int = 8
    base_delay_s: float = 1.0
    max_delay_s: float = 120.0
    max_retry_after_s: float = 900.0
    timeout_s: float = 60.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """The wait after failed try ``attempt`` (1-based): ``base * 2**(attempt-1)`` capped at
        ``max_delay_s``, and never less than ``retry_after``."""
        backoff = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return max(backoff, retry_after or 0.0)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (``"120"`` or an HTTP date); None if absent
    or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


_RANGE_RE = re.compile(r"^\s*bytes\s+(?:(\d+)-(\d+)|\*)/(\d+|\*)\s*$")


def parse_content_range(value: str | None) -> tuple[int | None, int | None]:
    """``(first byte, total size)`` of a ``Content-Range`` value (``bytes 100-199/1000`` ->
    ``(100, 1000)``; ``bytes */1000`` -> ``(None, 1000)``); ``(None, None)`` if unreadable."""
    m = _RANGE_RE.match(value or "")
    if m is None:
        return None, None
    first = int(m[1]) if m[1] is not None else None
    total = int(m[3]) if m[3] != "*" else None
    return first, total


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return f"{exc.reason}"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def with_retries(
    op: Callable[[], T], *, what: str, policy: RetryPolicy, log: Callable[[str], None]
) -> T:
    """``op()``, tried up to ``policy.attempts`` times on network errors, ``429`` and ``5xx``.

    Raises:
        DownloadError: the last error (or a status not worth retrying, e.g. 404), naming ``what``.
    """
    for attempt in range(1, policy.attempts + 1):
        try:
            return op()
        except urllib.error.HTTPError as exc:
            if exc.code not in RETRY_STATUS:
                raise DownloadError(f"{what}: {_reason(exc)}") from None
            retry_after = parse_retry_after(exc.headers.get("Retry-After") if exc.headers else None)
            if retry_after is not None and retry_after > policy.max_retry_after_s:
                raise DownloadError(
                    f"{what}: {_reason(exc)}; the server asks to retry after {retry_after:.0f} s "
                    f"(more than {policy.max_retry_after_s:.0f} s); try again later"
                ) from None
            error: BaseException = exc
        except _NETWORK_ERRORS as exc:
            retry_after, error = None, exc
        if attempt == policy.attempts:
            raise DownloadError(
                f"{what}: {_reason(error)} (gave up after {policy.attempts} tries)"
            ) from None
        wait = policy.delay(attempt, retry_after)
        log(
            f"{what}: {_reason(error)}; retrying in {wait:.1f} s "
            f"(try {attempt + 1} of {policy.attempts})"
        )
        policy.sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover


def _request(url: str, start: int = 0) -> urllib.request.Request:
    headers = {"User-Agent": _USER_AGENT, "Accept-Encoding": "identity"}
    if start:
        headers["Range"] = f"bytes={start}-"
    return urllib.request.Request(url, headers=headers)


def get_json(url: str, *, policy: RetryPolicy, log: Callable[[str], None]) -> Any:
    """The JSON document at ``url`` (with retries).

    Raises:
        DownloadError: not reachable, or not JSON.
    """

    def op() -> Any:
        with urllib.request.urlopen(_request(url), timeout=policy.timeout_s) as resp:
            return resp.read()

    body = with_retries(op, what=url, policy=policy, log=log)
    try:
        return json.loads(body)
    except ValueError as exc:
        raise DownloadError(f"{url}: not a JSON document ({exc})") from None


def byte_unit(total: int) -> tuple[str, int]:
    """The unit progress counts a transfer of ``total`` bytes in: ``("MB", 10**6)`` from 10 MB,
    ``("kB", 1000)`` from 10 kB, else ``("bytes", 1)``."""
    if total >= 10 * 10**6:
        return "MB", 10**6
    if total >= 10 * 10**3:
        return "kB", 1000
    return "bytes", 1


class _ByteBar:
    """A :func:`corruptbench.progress.progress` display that counts bytes in a readable unit."""

    def __init__(self, desc: str, mode: str | bool) -> None:
        self.desc, self.mode = desc, mode
        self.bar: Progress | None = None
        self.scale, self.bytes, self.shown = 1, 0, 0

    def start(self, total: int | None, already: int) -> None:
        """(Re)start the display for ``total`` bytes (None: unknown), ``already`` of them on disk."""
        self.close()
        remaining = max(0, (total or 0) - already)
        unit, self.scale = byte_unit(remaining)
        desc = self.desc + (f" (resuming at byte {already})" if already else "")
        self.bar = progress(remaining // self.scale, desc, unit=unit, mode=self.mode)
        self.bytes = self.shown = 0

    def add(self, n: int) -> None:
        self.bytes += n
        units = self.bytes // self.scale
        if self.bar is not None and units > self.shown:
            self.bar.advance(units - self.shown)
            self.shown = units

    def message(self, text: str) -> None:
        if self.bar is not None:
            self.bar.message(text)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _truncate(part: Path) -> None:
    with open(part, "wb"):
        pass


def _fetch_once(
    url: str, part: Path, bar: _ByteBar, timeout: float, log: Callable[[str], None]
) -> int:
    """One GET of ``url`` into ``part`` (resumed from its size); returns the file's total size.

    Raises the network errors :func:`with_retries` retries, and :class:`_ShortBody` when the body
    ends early (the bytes that did arrive stay in ``part`` for the next try).
    """
    have = part.stat().st_size if part.exists() else 0
    try:
        resp = urllib.request.urlopen(_request(url, have), timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code != 416 or not have:
            raise
        _, whole = parse_content_range(exc.headers.get("Content-Range"))
        exc.close()
        if whole == have:  # nothing left to fetch: the part file is whole
            return have
        log(f"{part.name}: the server refused to resume at byte {have}; restarting from byte 0")
        _truncate(part)
        raise _ShortBody("restart") from None
    with resp:
        total: int | None
        if resp.status == 206:
            first, total = parse_content_range(resp.headers.get("Content-Range"))
            if first != have:
                resp.close()
                log(f"{part.name}: the server resumed at byte {first}, not {have}; restarting")
                _truncate(part)
                raise _ShortBody("restart")
            mode = "ab"
        else:
            if have:
                log(f"{part.name}: the server ignores Range requests; restarting from byte 0")
            have, mode = 0, "wb"
            length = resp.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
        bar.start(total, have)
        got = have
        with open(part, mode) as fh:
            while True:
                chunk = resp.read(_CHUNK)
                if not chunk:
                    break
                fh.write(chunk)
                got += len(chunk)
                bar.add(len(chunk))
        if total is not None and got < total:
            raise _ShortBody(f"connection closed at byte {got} of {total}")
        return got


def fetch(
    url: str,
    part: str | Path,
    *,
    policy: RetryPolicy,
    log: Callable[[str], None],
    desc: str,
    progress_mode: str | bool = "auto",
) -> int:
    """Download ``url`` into ``part``, resuming what is there; returns the size in bytes.

    Raises:
        DownloadError: the transfer failed ``policy.attempts`` times, or the server answered with
            a status that is not worth retrying (404, 403, ...).
    """
    path = Path(part)
    bar = _ByteBar(desc, progress_mode)
    try:
        return with_retries(
            lambda: _fetch_once(url, path, bar, policy.timeout_s, log),
            what=f"{path.name.removesuffix('.part')} from {url}",
            policy=policy,
            log=log,
        )
    finally:
        bar.close()

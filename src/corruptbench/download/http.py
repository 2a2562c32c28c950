"""HTTP transfers: :mod:`urllib3` for the connection, with a hand-written resume and stall check.

What :mod:`urllib3` does here (a dependency of ``requests``, now a core dependency): connection
pools, HTTPS with the system's certificates, proxies (``ProxyManager``, for the proxy the
environment names), separate connect and read timeouts
(``urllib3.Timeout``), and, through ``urllib3.Retry``, the retries of a request before its body:
``429`` / ``5xx`` with ``Retry-After`` honoured, dropped connections and timeouts, and redirects.
:class:`_Retry` adds three rules to it: a redirect is followed only to ``http`` / ``https``
(an ``ftp://`` location on another host is refused before any connection is opened); a name
that does not resolve and a refused connection are not retried (offline, or a wrong host: the
next mirror is tried at once instead of backing off for minutes); and each wait is logged and
taken with the policy's ``sleep``, never longer than ``max_retry_after_s``.

What is hand-written, because urllib3 (and ``requests``) do not do it:

* resume with a validator: a ``.part`` file is continued (``Range: bytes=N-``) only with the
  ``If-Range`` of the ``ETag`` (strong) or ``Last-Modified`` its first response gave (kept in
  ``<part>.resume``, JSON). A ``200`` to it means the file changed: the transfer restarts from
  byte 0 instead of splicing two versions (RFC 9110 §13.1.5). No validator, no resume;
* the body's retries (urllib3's ``Retry`` ends when the headers arrive): a cut connection,
  a read timeout or a stall resumes at the last byte written;
* a throughput deadline: ``--timeout`` bounds each read, so a server sending one byte per
  second never times out; :func:`_copy_body` gives up when fewer than ``min_rate`` bytes per
  second arrived over ``stall_s`` seconds (then retried and resumed like a cut connection);
* size limits: reading stops at the announced length and at the size the table publishes
  (``expected_size``), so an endless body is never stored;
* the ``.part`` file and its ``.resume`` record are opened with ``O_NOFOLLOW``: a symbolic link
  planted there is refused, never written through.

Bytes are read with ``read1`` (what has arrived, at most one chunk) and written at once, so a
timeout or Ctrl-C keeps every byte received. Only two header values are parsed here:
``Content-Range`` (``bytes START-END/TOTAL``, RFC 9110 §14.4) and ``Retry-After`` (seconds or
an HTTP date, RFC 9110 §10.2.3, read with :func:`email.utils.parsedate_to_datetime`).
"""

from __future__ import annotations

import email.utils
import errno
import http
import json
import os
import re
import socket
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import urllib3
from urllib3.exceptions import (
    HTTPError,
    MaxRetryError,
    NameResolutionError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
    ResponseError,
    SSLError,
)
from urllib3.util.retry import Retry

from ..errors import DownloadError
from ..progress import Progress, progress
from ..version import __version__

__all__ = [
    "DownloadError",
    "RetryPolicy",
    "RETRY_STATUS",
    "fetch",
    "get_json",
    "parse_retry_after",
    "parse_content_range",
    "byte_unit",
]

#: HTTP statuses worth another try (rate limiting, server trouble)
RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
_CHUNK = 1 << 20
_USER_AGENT = f"corruptbench/{__version__} (+https://pypi.org/project/corruptbench/)"
_SCHEMES = ("http", "https")


class _BodyError(Exception):
    """The body ended early, stalled, or was cut: worth resuming."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry, and when a transfer counts as stalled.

    Attributes:
        attempts: Tries per URL (the first included).
        base_delay_s: The wait before the second try; it doubles for each further one.
        max_delay_s: The longest backoff wait.
        max_retry_after_s: The longest ``Retry-After`` honoured; a server asking for more is
            an error (instead of a silent hour-long pause).
        timeout_s: Timeout of the connect and of each read.
        stall_s: The window of the throughput deadline: a transfer that receives fewer than
            ``min_rate * stall_s`` bytes in any ``stall_s`` seconds is cut and resumed.
        min_rate: Bytes per second below which a transfer counts as stalled.
        sleep: How to wait (tests record the waits instead of sleeping).
    """

    attempts: int = 8
    base_delay_s: float = 1.0
    max_delay_s: float = 120.0
    max_retry_after_s: float = 900.0
    timeout_s: float = 60.0
    stall_s: float = 60.0
    min_rate: float = 1000.0
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


def _status_text(code: int) -> str:
    try:
        return f"HTTP {code} {http.HTTPStatus(code).phrase}"
    except ValueError:
        return f"HTTP {code}"


def _unreachable(error: BaseException | None) -> str:
    """Why a connection could not be opened at all (name not resolved, refused), or ``""``."""
    if isinstance(error, NameResolutionError):
        return f"the name {error.conn.host} does not resolve (offline, or a wrong host name)"
    if isinstance(error, NewConnectionError) and isinstance(
        error.__cause__, ConnectionRefusedError
    ):
        return f"{error.conn.host}:{error.conn.port} refused the connection"
    if isinstance(error, NewConnectionError) and isinstance(error.__cause__, OSError):
        cause = error.__cause__
        if cause.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return f"{error.conn.host} cannot be reached ({cause.strerror}; offline?)"
    return ""


def _reason(exc: BaseException | None) -> str:
    """One short phrase for a network error."""
    if exc is None:
        return "unknown error"
    if isinstance(exc, MaxRetryError):
        return _reason(exc.reason)
    plain = _unreachable(exc)
    if plain:
        return plain
    if isinstance(exc, (ReadTimeoutError, TimeoutError, socket.timeout)):
        return "timed out"
    if isinstance(exc, NewConnectionError) and exc.__cause__ is not None:
        return f"cannot connect ({exc.__cause__})"
    if isinstance(exc, ProtocolError) and exc.args:
        return f"connection broken ({exc.args[-1]})"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Retry(Retry):
    """``urllib3.Retry`` with the rules of the module docstring (``hooks``: policy, label, log,
    tries). Redirects have their own budget (``redirect``); failed tries of any kind share one
    (urllib3's ``total`` would count redirects too: one redirect would use up ``--retries 1``)."""

    hooks: tuple[RetryPolicy, str, Callable[[str], None], int] | None = None

    def new(self, **kw: Any) -> _Retry:
        out = super().new(**kw)
        out.hooks = self.hooks
        return out

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: Any = None,
        error: Exception | None = None,
        _pool: Any = None,
        _stacktrace: Any = None,
    ) -> Retry:
        if _unreachable(error):
            raise MaxRetryError(_pool, url or "", error) from error
        location = response.get_redirect_location() if response is not None else None
        if location:
            target = urllib.parse.urljoin(url or "", location)
            scheme = urllib.parse.urlsplit(target).scheme.lower()
            if scheme not in _SCHEMES:
                what = self.hooks[1] if self.hooks else url
                raise DownloadError(
                    f"{what}: redirected to {target}; only http and https redirects are "
                    f"followed, not {scheme or 'a URL without a scheme'}"
                )
        new = super().increment(method, url, response, error, _pool, _stacktrace)
        if self.hooks is not None and new.failed_tries() >= self.hooks[3]:
            status = response.status if response is not None else 0
            raise MaxRetryError(_pool, url or "", error or ResponseError(_status_text(status)))
        return new

    def failed_tries(self) -> int:
        """The tries so far that failed (redirects are not failures)."""
        return sum(1 for h in self.history if h.redirect_location is None)

    def sleep(self, response: Any = None) -> None:
        assert self.hooks is not None
        policy, what, log, _ = self.hooks
        last = self.history[-1] if self.history else None
        why = _status_text(last.status) if last and last.status else _reason(last and last.error)
        retry_after = None
        if response is not None:
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
        if retry_after is not None and retry_after > policy.max_retry_after_s:
            raise DownloadError(
                f"{what}: {why}; the server asks to retry after {retry_after:.0f} s "
                f"(more than {policy.max_retry_after_s:.0f} s); try again later"
            )
        tries = self.failed_tries()
        wait = policy.delay(tries, retry_after)
        log(f"{what}: {why}; retrying in {wait:.1f} s (try {tries + 1} of {policy.attempts})")
        policy.sleep(wait)


def _retry(policy: RetryPolicy, what: str, log: Callable[[str], None], left: int) -> _Retry:
    r = _Retry(
        total=None,  # see _Retry
        redirect=10,
        status_forcelist=RETRY_STATUS,
        allowed_methods=frozenset({"GET"}),
        backoff_factor=0,
        raise_on_status=False,
        respect_retry_after_header=True,
    )
    r.hooks = (policy, what, log, max(1, left))
    return r


def _pool(policy: RetryPolicy, url: str) -> urllib3.PoolManager:
    """The connections for ``url``: through the proxy the environment names for its scheme
    (``http_proxy`` / ``https_proxy``, unless ``no_proxy`` covers the host, read by
    :func:`urllib.request.getproxies`, as urllib did), else direct."""
    headers = {"User-Agent": _USER_AGENT, "Accept-Encoding": "identity"}
    timeout = urllib3.Timeout(connect=policy.timeout_s, read=policy.timeout_s)
    parts = urllib.parse.urlsplit(url)
    proxy = urllib.request.getproxies().get(parts.scheme.lower())
    if proxy and not urllib.request.proxy_bypass(parts.hostname or ""):
        return urllib3.ProxyManager(proxy, headers=headers, timeout=timeout)
    return urllib3.PoolManager(headers=headers, timeout=timeout)


def _open(
    pool: urllib3.PoolManager,
    url: str,
    headers: dict[str, str],
    retry: _Retry,
    what: str,
    tries: int,
) -> Any:
    """The response to a GET (headers read, body not), after urllib3's retries.

    Raises:
        DownloadError: a status not worth retrying, retries exhausted, or no connection.
    """
    if urllib.parse.urlsplit(url).scheme.lower() not in _SCHEMES:
        raise DownloadError(f"{what}: only http and https URLs are fetched")
    try:
        resp = pool.request(
            "GET", url, headers=headers, retries=retry, preload_content=False, decode_content=False
        )
    except MaxRetryError as exc:
        if _unreachable(exc.reason):
            raise DownloadError(f"{what}: {_reason(exc.reason)}") from None
        raise DownloadError(
            f"{what}: {_reason(exc.reason)} (gave up after {tries} tries)"
        ) from None
    except (HTTPError, OSError) as exc:
        raise DownloadError(f"{what}: {_reason(exc)}") from None
    if resp.status >= 400 and resp.status != 416:
        resp.release_conn()
        gave_up = f" (gave up after {tries} tries)" if resp.status in RETRY_STATUS else ""
        raise DownloadError(f"{what}: {_status_text(resp.status)}{gave_up}")
    return resp


def get_json(url: str, *, policy: RetryPolicy, log: Callable[[str], None]) -> Any:
    """The JSON document at ``url`` (with retries).

    Raises:
        DownloadError: not reachable, or not JSON.
    """
    pool = _pool(policy, url)
    resp = _open(pool, url, {}, _retry(policy, url, log, policy.attempts), url, policy.attempts)
    try:
        body = resp.read()
    except (HTTPError, OSError) as exc:
        raise DownloadError(f"{url}: {_reason(exc)}") from None
    finally:
        resp.release_conn()
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

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _open_nofollow(path: Path, flags: int, what: str) -> int:
    """``os.open`` that refuses a symbolic link at ``path`` (``O_NOFOLLOW``)."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP or path.is_symlink():
            raise DownloadError(
                f"{what}: {path} is a symbolic link; a download never writes through one "
                "(remove it and run again)"
            ) from None
        raise


def _resume_path(part: Path) -> Path:
    return part.with_name(part.name + ".resume")


def _read_validator(part: Path) -> dict[str, Any]:
    rp = _resume_path(part)
    if rp.is_symlink():
        return {}
    try:
        doc = json.loads(rp.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _write_validator(part: Path, doc: dict[str, Any], what: str) -> None:
    fd = _open_nofollow(_resume_path(part), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, what)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)


def _validator_of(resp: Any) -> dict[str, Any]:
    """What identifies this version of the file: a strong ``ETag``, else ``Last-Modified``."""
    etag = resp.headers.get("ETag")
    if etag and not etag.startswith("W/"):
        return {"etag": etag}
    modified = resp.headers.get("Last-Modified")
    return {"last_modified": modified} if modified else {}


def discard_part(part: Path) -> None:
    """Remove a ``.part`` file and its resume record (never following a link)."""
    for p in (part, _resume_path(part)):
        try:
            p.unlink()
        except FileNotFoundError:
            pass


@dataclass
class _Transfer:
    """One file's transfer: where it goes and what bounds it."""

    url: str
    part: Path
    what: str
    policy: RetryPolicy
    log: Callable[[str], None]
    bar: _ByteBar
    expected_size: int | None
    size_source: str = ""

    @property
    def expected(self) -> str:
        src = f" ({self.size_source})" if self.size_source else ""
        return f"the {self.expected_size} bytes expected{src}"


def _copy_body(t: _Transfer, resp: Any, fd: int, got: int, limit: int | None) -> int:
    """Append the body to ``fd`` until it ends, ``limit`` bytes are there, or it stalls."""
    window_t, window_got = time.monotonic(), got
    while True:
        want = _CHUNK if limit is None else min(_CHUNK, limit - got + 1)
        try:
            chunk = resp.read1(want)
        except (ProtocolError, ReadTimeoutError, SSLError, OSError) as exc:
            raise _BodyError(f"{_reason(exc)} at byte {got}") from None
        if not chunk:
            return got
        os.write(fd, chunk)
        got += len(chunk)
        t.bar.add(len(chunk))
        if limit is not None and got > limit:
            raise DownloadError(
                f"{t.what}: the server sent more than "
                + (t.expected if t.expected_size is not None else f"the {limit} bytes it announced")
                + "; stopped there and discarded the bytes"
            )
        now = time.monotonic()
        if now - window_t >= t.policy.stall_s:
            rate = (got - window_got) / (now - window_t)
            if rate < t.policy.min_rate:
                raise _BodyError(
                    f"stalled: {rate:.0f} bytes/s over {now - window_t:.1f} s (less than "
                    f"{t.policy.min_rate:.0f} bytes/s) at byte {got}"
                )
            window_t, window_got = now, got


def _start(
    t: _Transfer, have: int, resp: Any, saved: dict[str, Any]
) -> tuple[int, int | None, int]:
    """Decide from the response where the body goes: ``(file flags, total, bytes kept)``."""
    if resp.status == 206:
        first, total = parse_content_range(resp.headers.get("Content-Range"))
        now = _validator_of(resp)
        same = all(saved.get(k) == v for k, v in now.items())  # a server ignoring If-Range
        if first == have and same and saved.get("total") in (None, total):
            return os.O_WRONLY | os.O_APPEND, total, have
        t.log(
            f"{t.part.name}: the server resumed at byte {first} of another version of the file "
            f"(or not at byte {have}); restarting from byte 0"
        )
        raise _BodyError("restart")
    if have:
        t.log(
            f"{t.part.name}: the server sent the whole file (it changed since, or ignores Range "
            "requests); restarting from byte 0"
        )
    length = resp.headers.get("Content-Length")
    total = int(length) if length and length.isdigit() else None
    _write_validator(t.part, {"url": t.url, **_validator_of(resp), "total": total}, t.what)
    return os.O_WRONLY | os.O_TRUNC, total, 0


def _fetch_once(t: _Transfer, pool: urllib3.PoolManager, tries_left: int) -> int:
    """One GET of ``t.url`` into ``t.part`` (resumed with a validator); returns the size.

    Raises:
        _BodyError: the body was cut or stalled (the bytes that arrived stay in the part file).
        DownloadError: anything not worth resuming.
    """
    fd = _open_nofollow(t.part, os.O_WRONLY | os.O_CREAT, t.what)
    os.close(fd)
    have = t.part.stat().st_size
    saved = _read_validator(t.part) if have else {}
    headers = {}
    if have and saved.get("url") == t.url and (saved.get("etag") or saved.get("last_modified")):
        headers = {
            "Range": f"bytes={have}-",
            "If-Range": saved.get("etag") or saved["last_modified"],
        }
    elif have:
        t.log(f"{t.part.name}: no validator (ETag / Last-Modified) to resume safely; restarting")
        have = 0
    retry = _retry(t.policy, t.what, t.log, tries_left)
    resp = _open(pool, t.url, headers, retry, t.what, t.policy.attempts)
    try:
        if resp.status == 416:
            _, whole = parse_content_range(resp.headers.get("Content-Range"))
            if whole == have and have:
                return have
            t.log(f"{t.part.name}: the server refused to resume at byte {have}; restarting")
            discard_part(t.part)
            raise _BodyError("restart")
        try:
            flags, total, have = _start(t, have, resp, saved)
        except _BodyError:
            discard_part(t.part)
            raise
        limit = t.expected_size
        if total is not None and limit is not None and total != limit:
            discard_part(t.part)
            raise DownloadError(
                f"{t.what}: the server announces {total} bytes, not {t.expected}; nothing kept"
            )
        limit = total if limit is None else limit
        t.bar.start(limit, have)
        fd = _open_nofollow(t.part, flags, t.what)
        try:
            got = _copy_body(t, resp, fd, have, limit)
        except DownloadError:
            discard_part(t.part)  # more than expected: nothing of it is kept
            raise
        finally:
            os.close(fd)
        if limit is not None and got < limit:
            raise _BodyError(f"connection closed at byte {got} of {limit}")
        return got
    finally:
        resp.release_conn()


def fetch(
    url: str,
    part: str | Path,
    *,
    policy: RetryPolicy,
    log: Callable[[str], None],
    desc: str,
    expected_size: int | None = None,
    size_source: str = "",
    progress_mode: str | bool = "auto",
) -> int:
    """Download ``url`` into ``part``, resuming what is there; returns the size in bytes.

    Args:
        expected_size: The size the file must have (the table's); reading stops there.
        size_source: Where ``expected_size`` comes from (for messages).

    Raises:
        DownloadError: the transfer failed ``policy.attempts`` times, the server answered with
            a status that is not worth retrying (404, 403, ...), the host cannot be reached, or
            the part file is a symbolic link.
    """
    path = Path(part)
    what = f"{path.name.removesuffix('.part')} from {url}"
    bar = _ByteBar(desc, progress_mode)
    t = _Transfer(url, path, what, policy, log, bar, expected_size, size_source)
    pool = _pool(policy, url)
    try:
        for attempt in range(1, policy.attempts + 1):
            try:
                size = _fetch_once(t, pool, policy.attempts - attempt + 1)
            except _BodyError as exc:
                if attempt == policy.attempts:
                    raise DownloadError(
                        f"{what}: {exc} (gave up after {policy.attempts} tries; the bytes "
                        f"received are kept in {path} for the next run)"
                    ) from None
                wait = policy.delay(attempt, None)
                log(
                    f"{what}: {exc}; retrying in {wait:.1f} s "
                    f"(try {attempt + 1} of {policy.attempts})"
                )
                policy.sleep(wait)
                continue
            _resume_path(path).unlink(missing_ok=True)
            return size
        raise AssertionError("unreachable")  # pragma: no cover
    finally:
        t.bar.close()
        pool.clear()

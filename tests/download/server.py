"""A real HTTP server on 127.0.0.1 (``http.server`` in a thread of the test process) that serves
files and Zenodo-style record JSON, and injects faults on request.

``/files/<name>`` serves ``files[name]`` with a strong ``ETag`` (its MD5) and a ``Last-Modified``;
``Range: bytes=N-`` is answered with 206 unless ``no_range``, or when ``If-Range`` names another
ETag (then the whole file, 200, as RFC 9110 §13.1.5 says; ``ignore_if_range`` turns that off).
``/api/records/<id>`` serves ``records[id]`` as JSON; ``redirects[name]`` answers 302 with that
location. ``faults[name]`` is a list of faults consumed one per request of that path:

* ``"cut"``: headers for the whole body, half of it, then the connection closes;
* ``"429"`` (with ``Retry-After: <retry_after>``), ``"503"``, ``"404"``;
* ``"stall"``: no answer for ``stall_s`` seconds, then the file;
* ``"drip"``: one byte every ``drip_s`` seconds;
* ``"half-stall"``: half the body, then ``stall_s`` seconds of silence;
* ``"endless"``: no ``Content-Length``; the file, then ``endless_bytes`` of zeros;
* ``"cut-at:N"``: no ``Content-Length``; the first N bytes, then the connection closes.

``changes[name]`` replaces the file right after a fault of it was served (a file that changes
between two requests). It also answers as an HTTP proxy would (``GET http://host/files/x``),
for any host. Every request is logged as ``(path, Range header or None, status)``.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Site:
    files: dict[str, bytes] = field(default_factory=dict)
    records: dict[str, Any] = field(default_factory=dict)
    faults: dict[str, list[str]] = field(default_factory=dict)
    no_range: bool = False
    retry_after: str = "7"
    stall_s: float = 1.0
    drip_s: float = 0.05
    ignore_if_range: bool = False
    redirects: dict[str, str] = field(default_factory=dict)
    #: ``files[name]`` becomes ``changes[name]`` right after a fault of ``name`` was served
    changes: dict[str, bytes] = field(default_factory=dict)
    endless_bytes: int = 8 << 20
    log: list[tuple[str, str | None, int]] = field(default_factory=list)
    base: str = ""

    def url(self, name: str) -> str:
        return f"{self.base}/files/{name}"

    @property
    def api(self) -> str:
        return f"{self.base}/api/records/"

    def requests_for(self, name: str) -> list[tuple[str, str | None, int]]:
        return [r for r in self.log if r[0] == f"/files/{name}"]


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            path = urllib.parse.urlsplit(self.path).path  # absolute-form too: a proxy's
            rng = self.headers.get("Range")
            fault = site.faults.get(path.rsplit("/", 1)[-1], [])
            kind = fault.pop(0) if fault else None
            if kind == "stall":
                time.sleep(site.stall_s)
            if kind in ("429", "503", "404"):
                site.log.append((path, rng, int(kind)))
                extra = {"Retry-After": site.retry_after} if kind == "429" else {}
                return self._send(int(kind), b"try later", extra)
            if path.startswith("/api/records/"):
                rec = site.records.get(path.rsplit("/", 1)[-1])
                site.log.append((path, rng, 200 if rec is not None else 404))
                if rec is None:
                    return self._send(404, b"{}")
                return self._send(
                    200, json.dumps(rec).encode(), {"Content-Type": "application/json"}
                )
            name = path.removeprefix("/files/")
            if name in site.redirects:
                site.log.append((path, rng, 302))
                return self._send(302, b"", {"Location": site.redirects[name]})
            if not path.startswith("/files/") or name not in site.files:
                site.log.append((path, rng, 404))
                return self._send(404, b"not found")
            data = site.files[name]
            etag = '"' + hashlib.md5(data).hexdigest() + '"'
            start = 0
            if_range = self.headers.get("If-Range")
            changed = if_range is not None and if_range != etag and not site.ignore_if_range
            if rng and not site.no_range and not changed:
                start = int(rng.removeprefix("bytes=").split("-")[0])
            if start >= len(data) and start:
                site.log.append((path, rng, 416))
                return self._send(416, b"", {"Content-Range": f"bytes */{len(data)}"})
            status = 206 if start else 200
            site.log.append((path, rng, status))
            body = data[start:]
            self.send_response(status)
            if status == 206:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            if kind != "endless" and not (kind or "").startswith("cut-at:"):
                self.send_header("Content-Length", str(len(body)))
            self.send_header("Accept-Ranges", "none" if site.no_range else "bytes")
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
            self.end_headers()
            if kind is not None and self._fault_body(kind, body):
                if name in site.changes:
                    site.files[name] = site.changes.pop(name)
                return
            if kind == "cut":
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                if name in site.changes:
                    site.files[name] = site.changes.pop(name)
                return
            self.wfile.write(body)

        def _fault_body(self, kind: str, body: bytes) -> bool:
            """Send the body of a fault; False when ``kind`` has none (the body goes as is)."""
            self.close_connection = True
            try:
                if kind == "drip":
                    for i in range(len(body)):
                        self.wfile.write(body[i : i + 1])
                        self.wfile.flush()
                        time.sleep(site.drip_s)
                elif kind == "half-stall":
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    time.sleep(site.stall_s)
                elif kind == "endless":  # endless to a reader that stops in time
                    self.wfile.write(body)
                    for _ in range(site.endless_bytes >> 16):
                        self.wfile.write(bytes(1 << 16))
                elif kind.startswith("cut-at:"):
                    self.wfile.write(body[: int(kind.split(":")[1])])
                    self.wfile.flush()
                else:
                    self.close_connection = False
                    return False
            except OSError:  # the client went away
                pass
            return True

    return Handler


@contextmanager
def serve(site: Site) -> Iterator[Site]:
    """Run ``site`` on a free port of 127.0.0.1 for the duration of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(site))
    server.daemon_threads = True
    server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
    site.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def loopback_only(monkeypatch: Any) -> None:
    """Name resolution as offline: every name but ``127.0.0.1`` fails at once with the error the
    resolver gives without a network (``EAI_NONAME``), so no query leaves the machine."""
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kw: Any) -> Any:
        if host in ("127.0.0.1", b"127.0.0.1"):
            return real(host, *args, **kw)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)

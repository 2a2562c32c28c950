"""The header values the transfer reads, the retry policy, byte units; transfers from a server on
127.0.0.1 that drips, stalls, changes the file, never ends or redirects to FTP."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from corruptbench.download import DownloadError
from corruptbench.download.http import (
    RetryPolicy,
    byte_unit,
    fetch,
    parse_content_range,
    parse_retry_after,
)
from download.server import Site, loopback_only, serve


def test_retry_after_seconds_and_http_dates():
    now = datetime(2024, 1, 1, 12, 0, 0, tzinfo=timezone.utc)
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after("Mon, 01 Jan 2024 12:00:30 GMT", now) == 30.0
    assert parse_retry_after("Mon, 01 Jan 2024 11:00:00 GMT", now) == 0.0  # in the past
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None


def test_content_range():
    assert parse_content_range("bytes 100-199/1000") == (100, 1000)
    assert parse_content_range("bytes */1000") == (None, 1000)
    assert parse_content_range("bytes 0-9/*") == (0, None)
    assert parse_content_range("garbage") == (None, None)


def test_backoff_doubles_is_capped_and_honours_retry_after():
    p = RetryPolicy(base_delay_s=1.0, max_delay_s=5.0)
    assert [p.delay(a, None) for a in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 5.0]
    assert p.delay(1, 30.0) == 30.0


def test_byte_units():
    assert byte_unit(5) == ("bytes", 1)
    assert byte_unit(20_000) == ("kB", 1000)
    assert byte_unit(20 * 10**9) == ("MB", 10**6)


# --- transfers against a real server on 127.0.0.1 that injects faults (issue 33 items 15-21) ---


class Waits:
    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, s: float) -> None:
        self.waits.append(s)


def quick(**kw: object) -> RetryPolicy:
    fields: dict = {"attempts": 3, "base_delay_s": 0.01, "timeout_s": 5.0, "sleep": Waits()}
    return RetryPolicy(**{**fields, **kw})  # type: ignore[arg-type]


def get(site: Site, name: str, part: Path, policy: RetryPolicy, logs: list[str], **kw: object):
    return fetch(
        site.url(name), part, policy=policy, log=logs.append, desc="t", progress_mode="off", **kw
    )


@pytest.fixture
def site():
    with serve(Site()) as s:
        yield s


def test_a_link_planted_at_the_part_file_is_never_written_through(site, tmp_path):
    # issue 33 item 15: the download appended into the link's target
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    site.files["x.tar"] = bytes(range(256)) * 40
    part = tmp_path / "x.tar.part"
    part.symlink_to(victim)
    with pytest.raises(DownloadError, match=r"x.tar.part is a symbolic link; a download never"):
        get(site, "x.tar", part, quick(), [])
    assert victim.read_bytes() == b"precious" and site.log == []


def test_a_server_dripping_one_byte_at_a_time_is_cut_by_the_stall_deadline(site, tmp_path):
    # issue 33 item 16: each read returned within --timeout, so the transfer never ended
    site.files["x.tar"] = bytes(8000)
    site.faults["x.tar"] = ["drip", "drip"]
    site.drip_s = 0.02
    logs: list[str] = []
    start = time.monotonic()
    with pytest.raises(DownloadError, match=r"stalled: \d+ bytes/s over 0\.\d s \(less than 1000"):
        get(site, "x.tar", tmp_path / "x.tar.part", quick(attempts=2, stall_s=0.3), logs)
    assert time.monotonic() - start < 3
    assert any("stalled" in line and "retrying" in line for line in logs)
    assert site.requests_for("x.tar")[1][1].startswith("bytes=")  # the second try resumed


@pytest.mark.parametrize("ignores_if_range", [False, True])
def test_a_file_that_changed_between_requests_is_fetched_again_not_spliced(
    site, tmp_path, ignores_if_range
):
    # issue 33 item 17: a resumed transfer spliced two versions (files 0-3 of v1, 4-7 of v2)
    v1, v2 = os.urandom(40_000), os.urandom(40_000)
    site.files["x.tar"] = v1
    site.faults["x.tar"] = ["cut"]
    site.changes["x.tar"] = v2
    site.ignore_if_range = ignores_if_range
    logs: list[str] = []
    part = tmp_path / "x.tar.part"
    assert get(site, "x.tar", part, quick(), logs) == len(v2)
    assert part.read_bytes() == v2
    reqs = site.requests_for("x.tar")
    assert reqs[1][1] == f"bytes={len(v1) // 2}-"  # resumed, with If-Range
    if ignores_if_range:  # a 206 of another ETag is not appended either
        assert [r[2] for r in reqs] == [200, 206, 200]
    else:
        assert [r[2] for r in reqs] == [200, 200]
    assert any("restarting from byte 0" in line for line in logs)


def test_no_resume_without_a_validator(site, tmp_path):
    # a part file without the ETag / Last-Modified of its first response is not continued
    data = os.urandom(5000)
    site.files["x.tar"] = data
    part = tmp_path / "x.tar.part"
    part.write_bytes(os.urandom(1000))
    logs: list[str] = []
    assert get(site, "x.tar", part, quick(), logs) == len(data) and part.read_bytes() == data
    assert site.requests_for("x.tar") == [("/files/x.tar", None, 200)]
    assert any("no validator" in line for line in logs)


def test_an_endless_body_is_read_only_up_to_the_expected_size(site, tmp_path):
    # issue 33 item 18: read past the published size and kept whole
    data = os.urandom(20_000)
    site.files["x.tar"] = data
    site.faults["x.tar"] = ["endless"]
    part = tmp_path / "x.tar.part"
    with pytest.raises(
        DownloadError, match=r"sent more than the 20000 bytes expected \(the test\); stopped"
    ):
        get(site, "x.tar", part, quick(), [], expected_size=len(data), size_source="the test")
    assert list(tmp_path.iterdir()) == []  # nothing kept


def test_a_redirect_to_ftp_is_refused_without_a_connection(site, tmp_path):
    # issue 33 item 19: an FTP redirect to another host was followed; the reason was empty
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.3)
    port = listener.getsockname()[1]
    site.redirects["x.tar"] = f"ftp://127.0.0.1:{port}/x.tar"
    try:
        with pytest.raises(
            DownloadError,
            match=r"redirected to ftp://127.0.0.1:\d+/x.tar; only http and https redirects are "
            r"followed, not ftp",
        ):
            get(site, "x.tar", tmp_path / "x.tar.part", quick(timeout_s=0.5), [])
        with pytest.raises(socket.timeout):
            listener.accept()  # no connection was opened
    finally:
        listener.close()


def test_received_bytes_are_kept_when_a_read_times_out(site, tmp_path):
    # issue 33 item 21: a timeout dropped up to 1 MiB of received bytes
    data = os.urandom(200_000)
    site.files["x.tar"] = data
    site.faults["x.tar"] = ["half-stall"]
    site.stall_s = 3.0  # far above the read timeout, which is well above a loaded send
    part = tmp_path / "x.tar.part"
    with pytest.raises(DownloadError, match="timed out at byte 100000 .gave up after 1 tries; the"):
        get(site, "x.tar", part, quick(attempts=1, timeout_s=1.0), [])
    assert part.read_bytes() == data[:100_000]


def test_http_redirects_are_followed_and_a_long_retry_after_is_refused(site, tmp_path):
    data = os.urandom(3000)
    site.files["real.tar"] = data
    site.redirects["x.tar"] = site.url("real.tar")
    part = tmp_path / "x.tar.part"
    # a redirect is not a failed try: it is followed with --retries 1 too
    assert get(site, "x.tar", part, quick(attempts=1), []) == len(data)
    assert part.read_bytes() == data
    site.faults["real.tar"] = ["429"]
    site.retry_after = "100000"
    with pytest.raises(DownloadError, match=r"HTTP 429 Too Many Requests; the server asks to "):
        get(site, "real.tar", tmp_path / "y.part", quick(max_retry_after_s=60), [])


def test_the_proxy_the_environment_names_is_used(site, tmp_path, monkeypatch):
    # urllib took proxies from the environment; urllib3 alone does not: kept as it was
    data = os.urandom(3000)
    site.files["x.tar"] = data
    for var in ("no_proxy", "NO_PROXY", "HTTP_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("http_proxy", site.base)
    loopback_only(monkeypatch)  # were the proxy not used, the name would not resolve
    part = tmp_path / "x.tar.part"
    # the name is never resolved here: the proxy (the test server) is asked for it
    url = "http://mirror.invalid/files/x.tar"
    assert fetch(url, part, policy=quick(), log=print, desc="t", progress_mode="off") == 3000
    assert part.read_bytes() == data and site.log == [("/files/x.tar", None, 200)]

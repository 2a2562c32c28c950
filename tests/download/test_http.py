"""The header values the transfer reads, the retry policy, byte units."""

from __future__ import annotations

from datetime import datetime, timezone

from corruptbench.download.http import (
    RetryPolicy,
    byte_unit,
    parse_content_range,
    parse_retry_after,
)


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

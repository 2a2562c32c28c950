"""download(): against a real HTTP server on 127.0.0.1 that injects faults (cut connections, 429,
503, no Range support, wrong bytes, unsafe archives). Each ends in verified bytes or one clear
message, and nothing lands outside DIR."""

from __future__ import annotations

import hashlib
import io
import os
import socket
import tarfile
import time
from pathlib import Path

import numpy as np
import pytest

from corruptbench.download import RetryPolicy, download, format_plan, plan_download
from corruptbench.download.archive import read_extracted
from corruptbench.errors import ArgumentError
from corruptbench.tables.released import ReleasedFile
from download.archives import (
    cifar_c_tar,
    dataset,
    imagenet_c_part,
    md5,
    sha256,
    sparse_tar,
    tar_bytes,
)
from download.server import Site, loopback_only, serve


class Waits:
    """The RetryPolicy's sleep: records the waits instead of sleeping."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, s: float) -> None:
        self.waits.append(s)


def policy(waits: Waits | None = None, attempts: int = 5) -> RetryPolicy:
    return RetryPolicy(
        attempts=attempts, base_delay_s=0.01, max_delay_s=0.05, timeout_s=10, sleep=waits or Waits()
    )


def entry(site: Site, name: str, data: bytes | None, **kw: object) -> ReleasedFile:
    checks = (md5(data), sha256(data)) if data is not None else ()
    fields = {"urls": (site.url(name),), "part": name.split(".")[0], "checksums": checks, **kw}
    return ReleasedFile(name=name, **fields)  # type: ignore[arg-type]


def run(site: Site, table: dict, dest: Path, logs: list[str] | None = None, **kw: object):
    out = logs if logs is not None else []
    kw.setdefault("policy", policy())
    return download(
        next(iter(table)),
        dest,
        table=table,
        record_api=site.api,
        progress="off",
        log=out.append,
        **kw,
    )


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if ".corruptbench" not in p.parts}


@pytest.fixture
def site():
    with serve(Site()) as s:
        yield s


def test_clean_download_extracts_verified_parts_and_a_rerun_fetches_nothing(site, tmp_path):
    noise = imagenet_c_part(("gaussian_noise",))
    blur = imagenet_c_part(("defocus_blur",))
    site.files.update({"noise.tar": noise, "blur.tar": blur})
    table = dataset("inc", [entry(site, "noise.tar", noise), entry(site, "blur.tar", blur)])
    dest = tmp_path / "data"
    summary = run(site, table, dest)
    assert summary.ok, summary.files
    assert [f.status for f in summary.files] == ["extracted", "extracted"]
    assert (dest / "gaussian_noise/2/n01443537/ILSVRC2012_val_00000008.JPEG").is_file()
    assert (dest / "defocus_blur/1/n01440764/ILSVRC2012_val_00000001.JPEG").is_file()
    assert not (dest / "noise.tar").exists() and not (dest / "noise.tar.part").exists()
    assert read_extracted(dest, "noise.tar")["md5"] == hashlib.md5(noise).hexdigest()
    assert summary.roots() == ["gaussian_noise", "defocus_blur"]
    n = len(site.log)
    again = run(site, table, dest)
    assert [f.status for f in again.files] == ["already extracted"] * 2
    assert len(site.log) == n  # no request at all


def test_parts_selects_files_and_unknown_parts_are_refused(site, tmp_path):
    noise, blur = imagenet_c_part(("gaussian_noise",)), imagenet_c_part(("defocus_blur",))
    site.files.update({"noise.tar": noise, "blur.tar": blur})
    table = dataset("inc", [entry(site, "noise.tar", noise), entry(site, "blur.tar", blur)])
    summary = run(site, table, tmp_path / "d", parts=["blur"])
    assert [f.name for f in summary.files] == ["blur.tar"]
    with pytest.raises(ArgumentError, match="parts fog: inc has the parts noise, blur"):
        run(site, table, tmp_path / "d", parts=["fog"])


def test_a_connection_cut_mid_file_is_resumed_with_a_range_request(site, tmp_path):
    data = cifar_c_tar(n=40)
    site.files["CIFAR-10-C.tar"] = data
    site.faults["CIFAR-10-C.tar"] = ["cut"]
    logs: list[str] = []
    summary = run(site, dataset("c10", [entry(site, "CIFAR-10-C.tar", data)]), tmp_path / "d", logs)
    assert summary.ok, summary.files
    reqs = site.requests_for("CIFAR-10-C.tar")
    assert reqs[0] == ("/files/CIFAR-10-C.tar", None, 200)
    assert reqs[1] == ("/files/CIFAR-10-C.tar", f"bytes={len(data) // 2}-", 206)
    assert any("connection closed at byte" in line or "IncompleteRead" in line for line in logs)
    assert (tmp_path / "d/CIFAR-10-C/fog.npy").is_file()


def test_429_waits_at_least_retry_after_and_503_backs_off(site, tmp_path):
    data = imagenet_c_part(("snow",))
    site.files["weather.tar"] = data
    site.faults["weather.tar"] = ["429", "503", "503"]
    waits = Waits()
    summary = run(
        site, dataset("w", [entry(site, "weather.tar", data)]), tmp_path / "d", policy=policy(waits)
    )
    assert summary.ok, summary.files
    # Retry-After: 7 is honoured; then exponential backoff 0.01 * 2**(try-1)
    assert waits.waits == [7.0, 0.02, 0.04]
    assert [r[2] for r in site.requests_for("weather.tar")] == [429, 503, 503, 200]


def test_too_many_failures_end_in_one_message_naming_the_file(site, tmp_path):
    data = imagenet_c_part(("snow",))
    site.files["weather.tar"] = data
    site.faults["weather.tar"] = ["503"] * 10
    summary = run(
        site,
        dataset("w", [entry(site, "weather.tar", data)]),
        tmp_path / "d",
        policy=policy(attempts=3),
    )
    (out,) = summary.files
    assert out.status == "failed"
    assert (
        "weather.tar" in out.detail
        and "HTTP 503" in out.detail
        and "gave up after 3 tries" in out.detail
    )
    assert not summary.ok


def test_a_server_without_range_support_restarts_the_file(site, tmp_path):
    data = cifar_c_tar(n=40)
    site.files["CIFAR-10-C.tar"] = data
    site.faults["CIFAR-10-C.tar"] = ["cut"]
    site.no_range = True
    logs: list[str] = []
    summary = run(site, dataset("c10", [entry(site, "CIFAR-10-C.tar", data)]), tmp_path / "d", logs)
    assert summary.ok, summary.files
    assert [r[2] for r in site.requests_for("CIFAR-10-C.tar")] == [200, 200]
    assert any("sent the whole file" in line and "restarting from byte 0" in line for line in logs)


def test_a_mirror_is_tried_when_the_first_url_fails(site, tmp_path):
    data = imagenet_c_part(("fog",))
    site.files["mirror.tar"] = data
    e = ReleasedFile(
        "mirror.tar", (site.url("gone.tar"), site.url("mirror.tar")), "all", checksums=(md5(data),)
    )
    summary = run(site, dataset("m", [e]), tmp_path / "d")
    assert summary.ok, summary.files
    assert [r[2] for r in site.log] == [404, 200]


def test_wrong_bytes_are_refused_named_and_kept_aside(site, tmp_path):
    good, bad = imagenet_c_part(("fog",)), imagenet_c_part(("frost",))
    site.files["weather.tar"] = bad
    dest = tmp_path / "d"
    summary = run(site, dataset("w", [entry(site, "weather.tar", good)]), dest)
    (out,) = summary.files
    assert out.status == "failed"
    assert (
        f"md5 is {hashlib.md5(bad).hexdigest()}, expected {hashlib.md5(good).hexdigest()} (the test)"
        in out.detail
    )
    assert (dest / "weather.tar.mismatch").read_bytes() == bad
    assert not (dest / "weather.tar").exists() and not (dest / "frost").exists()


def test_a_users_file_that_does_not_match_is_left_alone(site, tmp_path):
    good = imagenet_c_part(("fog",))
    site.files["weather.tar"] = good
    dest = tmp_path / "d"
    dest.mkdir()
    (dest / "weather.tar").write_bytes(b"my own file")
    summary = run(site, dataset("w", [entry(site, "weather.tar", good)]), dest)
    (out,) = summary.files
    assert out.status == "failed" and "already there but does not match" in out.detail
    assert "size" not in out.detail or "md5" in out.detail
    assert (dest / "weather.tar").read_bytes() == b"my own file"
    assert site.log == []  # nothing fetched


def test_the_tables_checksum_decides_whatever_the_record_claims(site, tmp_path):
    good, bad = imagenet_c_part(("fog",)), imagenet_c_part(("frost",))
    site.files["weather.tar"] = bad
    site.records["42"] = {
        "id": 42,
        "files": [
            {
                "key": "weather.tar",
                "size": len(bad),
                "checksum": "md5:" + hashlib.md5(bad).hexdigest(),
            }
        ],
    }
    e = entry(site, "weather.tar", good, zenodo_record="42")
    summary = run(site, dataset("w", [e]), tmp_path / "d")
    assert summary.files[0].status == "failed" and "does not match" in summary.files[0].detail
    assert not any(r[0].startswith("/api/") for r in site.log)  # the table had a value: not asked


@pytest.mark.parametrize("shape", ["list", "entries"])
def test_without_a_table_checksum_zenodos_record_md5_is_used(site, tmp_path, shape):
    data = imagenet_c_part(("fog",))
    site.files["Tiny.tar"] = data
    f = {"key": "Tiny.tar", "size": len(data), "checksum": "md5:" + hashlib.md5(data).hexdigest()}
    site.records["7"] = {"id": 7, "files": [f] if shape == "list" else {"entries": {"Tiny.tar": f}}}
    e = entry(site, "Tiny.tar", None, zenodo_record="7", unknown="not published")
    logs: list[str] = []
    summary = run(site, dataset("t", [e]), tmp_path / "d", logs)
    assert summary.ok, summary.files
    assert any("verified (md5 from Zenodo's record API (record 7))" in line for line in logs)


def test_a_file_without_any_checksum_is_refused_before_any_transfer(site, tmp_path):
    data = tar_bytes([("bar/x.txt", b"x", None)], gz=True)
    site.files["bar.tar.gz"] = data
    e = entry(site, "bar.tar.gz", None, unknown="the publisher gives none")
    with pytest.raises(
        ArgumentError, match="no known checksum for bar.tar.gz .the publisher gives none."
    ):
        run(site, dataset("b", [e]), tmp_path / "d")
    assert site.log == []
    # a mirror (--base-url) never supplies the checksum, even for a Zenodo file
    z = entry(site, "bar.tar.gz", None, zenodo_record="9")
    with pytest.raises(ArgumentError, match="no known checksum"):
        run(site, dataset("b", [z]), tmp_path / "d", base_url=site.base + "/files")
    assert site.log == []


def test_accept_unverified_and_a_given_checksum(site, tmp_path):
    data = tar_bytes([("bar/x.txt", b"x", None)], gz=True)
    site.files["bar.tar.gz"] = data
    e = entry(site, "bar.tar.gz", None, unknown="none")
    logs: list[str] = []
    summary = run(site, dataset("b", [e]), tmp_path / "a", logs, accept_unverified=True)
    assert summary.ok and (tmp_path / "a/bar/x.txt").read_bytes() == b"x"
    assert any(
        f"accepted WITHOUT a checksum (--accept-unverified): md5 {hashlib.md5(data).hexdigest()}"
        in line
        for line in logs
    )
    given = {"bar.tar.gz": md5(b"something else")}
    summary = run(site, dataset("b", [e]), tmp_path / "b", checksums=given)
    assert summary.files[0].status == "failed" and "does not match" in summary.files[0].detail


def test_base_url_fetches_the_same_names_from_a_mirror(site, tmp_path):
    data = cifar_c_tar()
    site.files["CIFAR-10-C.tar"] = data
    e = ReleasedFile(
        "CIFAR-10-C.tar",
        ("https://example.invalid/CIFAR-10-C.tar",),
        "all",
        checksums=(sha256(data),),
    )
    summary = run(site, dataset("c10", [e]), tmp_path / "d", base_url=site.base + "/files/")
    assert summary.ok, summary.files
    assert [r[0] for r in site.log] == ["/files/CIFAR-10-C.tar"]


@pytest.mark.parametrize(
    ("members", "named"),
    [
        ([("ok/a.txt", b"a", None), ("../evil.txt", b"x", None)], "'../evil.txt' points outside"),
        (
            [("ok/a.txt", b"a", None), ("/tmp/evil.txt", b"x", None)],
            "'/tmp/evil.txt' has an absolute path",
        ),
        (
            [("ok/link", None, "../../outside"), ("ok/b.txt", b"b", None)],
            "'ok/link' is a symbolic link out of the folder",
        ),
        (
            [("ok/link", None, "/etc"), ("ok/b.txt", b"b", None)],
            "'ok/link' is a symbolic link to an absolute path",
        ),
    ],
)
def test_unsafe_archives_are_refused_with_the_member_named(site, tmp_path, members, named):
    data = tar_bytes(members)
    site.files["evil.tar"] = data
    sandbox = tmp_path / "sandbox"
    dest = sandbox / "d"
    summary = run(site, dataset("e", [entry(site, "evil.tar", data)]), dest)
    (out,) = summary.files
    assert out.status == "failed" and named in out.detail
    assert files_under(sandbox) <= {"d", "d/ok", "d/ok/a.txt", "d/evil.tar"}
    assert not (tmp_path / "evil.txt").exists() and not (sandbox / "evil.txt").exists()


def test_plan_and_dry_run_text_use_no_network(site, tmp_path):
    data = imagenet_c_part(("fog",))
    table = dataset(
        "w",
        [
            entry(
                site, "weather.tar", data, size=len(data), size_source="the test", contents=("fog",)
            )
        ],
    )
    (tmp_path / "weather.tar.part").write_bytes(data[:10])
    plan = plan_download("w", tmp_path, table=table)
    assert plan.files[0].state == "partial: 10 bytes"
    text = format_plan(plan)
    assert "weather.tar [part weather]: partial: 10 bytes" in text
    assert f"md5: {hashlib.md5(data).hexdigest()} (the test)" in text
    assert "holds: fog" in text and f"size: {len(data)} bytes" in text
    assert site.log == []


def test_download_only_keeps_the_verified_archive(site, tmp_path):
    data = imagenet_c_part(("fog",))
    site.files["weather.tar"] = data
    summary = run(
        site, dataset("w", [entry(site, "weather.tar", data)]), tmp_path, extract_files=False
    )
    assert summary.files[0].status == "downloaded"
    assert (tmp_path / "weather.tar").read_bytes() == data and not (tmp_path / "fog").exists()
    # a second run with extraction checks the archive already there instead of fetching it
    n = len(site.log)
    summary = run(
        site, dataset("w", [entry(site, "weather.tar", data)]), tmp_path, keep_archives=True
    )
    assert summary.files[0].status == "extracted" and len(site.log) == n
    assert (tmp_path / "weather.tar").exists() and (tmp_path / "fog/1").is_dir()
    assert os.listdir(tmp_path / ".corruptbench/download") == ["weather.tar.extracted"]


def test_a_damaged_archive_is_one_message(site, tmp_path):
    data = b"this is not a tar archive at all" * 40
    site.files["weather.tar"] = data
    summary = run(site, dataset("w", [entry(site, "weather.tar", data)]), tmp_path)
    (out,) = summary.files
    assert out.status == "failed" and "is not a readable archive (ReadError" in out.detail


def test_a_server_that_does_not_answer_in_time_is_retried(site, tmp_path):
    data = imagenet_c_part(("fog",))
    site.files["weather.tar"] = data
    site.faults["weather.tar"] = ["stall"]
    site.stall_s = 1.0
    logs: list[str] = []
    quick = RetryPolicy(attempts=3, base_delay_s=0.01, timeout_s=0.2, sleep=Waits())
    summary = run(
        site, dataset("w", [entry(site, "weather.tar", data)]), tmp_path, logs, policy=quick
    )
    assert summary.ok, summary.files
    assert any("timed out" in line and "retrying in 0.0 s (try 2 of 3)" in line for line in logs), (
        logs
    )


# --- issue 33 items 17, 18, 20, 21: what a user sees from download() ---


def _same_size_versions(n: int = 8) -> tuple[bytes, bytes]:
    def version(seed: int) -> bytes:
        rng = np.random.default_rng(seed)
        return tar_bytes(
            [
                (f"set/{i}.bin", rng.integers(0, 256, 4000, dtype=np.uint8).tobytes(), None)
                for i in range(n)
            ],
            gz=True,
        )

    return version(1), version(2)


def test_a_spliced_tar_gz_is_one_message_and_leaves_nothing(site, tmp_path):
    # issue 33 item 17: a zlib.error traceback, and the members before it left behind
    v1, v2 = _same_size_versions()
    h = len(v1) // 2
    spliced = v1[:h] + v2[h:]
    site.files["set.tar.gz"] = spliced
    e = entry(site, "set.tar.gz", None, unknown="none")
    summary = run(site, dataset("s", [e]), tmp_path, accept_unverified=True)
    (out,) = summary.files
    assert out.status == "failed" and "is not a readable archive" in out.detail
    assert "nothing of it was kept" in out.detail and "\n" not in out.detail
    assert not (tmp_path / "set").exists()


def test_a_body_cut_at_a_member_boundary_is_not_extracted_as_half_an_archive(site, tmp_path):
    # issue 33 item 17: no Content-Length, the connection closed between two members
    data = tar_bytes([(f"d/{i}.bin", bytes([i]) * 3000, None) for i in range(6)])
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        cut = tf.getmembers()[3].offset
    site.files["d.tar"] = data
    site.faults["d.tar"] = [f"cut-at:{cut}"]
    e = entry(site, "d.tar", None, unknown="none")
    summary = run(site, dataset("d", [e]), tmp_path, accept_unverified=True)
    (out,) = summary.files
    assert out.status == "failed" and "end-of-archive block" in out.detail
    assert not (tmp_path / "d").exists()


def test_an_endless_response_stops_at_the_published_size(site, tmp_path):
    # issue 33 item 18: 400 MB read against 247 MB published, and kept whole as .mismatch
    data = imagenet_c_part(("fog",))
    site.files["weather.tar"] = data
    site.faults["weather.tar"] = ["endless"]
    e = entry(site, "weather.tar", data, size=len(data), size_source="the test's table")
    summary = run(site, dataset("w", [e]), tmp_path)
    (out,) = summary.files
    assert out.status == "failed"
    assert f"sent more than the {len(data)} bytes expected (the test's table)" in out.detail
    assert files_under(tmp_path) == set()  # no .part, no .mismatch


@pytest.fixture
def offline(monkeypatch):
    loopback_only(monkeypatch)


def test_offline_every_mirror_fails_at_once_with_one_line(offline, tmp_path):
    # issue 33 item 20: a DNS failure was retried with backoff (~4 minutes to fail)
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there: the connection is refused
    data = b"x"
    e = ReleasedFile(
        "x.tar",
        ("http://host.invalid/x.tar", f"http://127.0.0.1:{port}/x.tar"),
        "all",
        checksums=(md5(data),),
    )
    waits = Waits()
    start = time.monotonic()
    summary = download(
        "o",
        tmp_path,
        table=dataset("o", [e]),
        policy=policy(waits, attempts=8),
        progress="off",
        log=lambda _: None,
    )
    assert time.monotonic() - start < 5
    (out,) = summary.files
    assert out.status == "failed" and "\n" not in out.detail
    assert "the name host.invalid does not resolve (offline, or a wrong host name)" in out.detail
    assert f"127.0.0.1:{port} refused the connection" in out.detail
    assert waits.waits == []  # neither was retried


def test_the_users_archive_is_kept_and_a_stale_mismatch_removed(site, tmp_path):
    # issue 33 item 21: the user's own archive was deleted after extraction, and a .mismatch
    # of an earlier run stayed after a later success
    noise, blur = imagenet_c_part(("gaussian_noise",)), imagenet_c_part(("defocus_blur",))
    site.files.update({"noise.tar": noise, "blur.tar": blur})
    table = dataset("inc", [entry(site, "noise.tar", noise), entry(site, "blur.tar", blur)])
    tmp_path.joinpath("noise.tar").write_bytes(noise)  # the user's copy
    tmp_path.joinpath("blur.tar.mismatch").write_bytes(b"an earlier run's wrong bytes")
    logs: list[str] = []
    summary = run(site, table, tmp_path, logs)
    assert summary.ok, summary.files
    assert (tmp_path / "noise.tar").read_bytes() == noise
    assert any(f"kept {tmp_path / 'noise.tar'} (it was there before this run)" in x for x in logs)
    assert not (tmp_path / "blur.tar").exists() and not (tmp_path / "blur.tar.mismatch").exists()
    assert [r[0] for r in site.log] == ["/files/blur.tar"]


def test_the_default_expansion_limit_comes_from_the_archive_size(site, tmp_path):
    # issue 33 item 21: a small archive may not write without bound; the limit can be raised
    data = tar_bytes([("z/zeros.bin", bytes(4 << 20), None)], gz=True)
    site.files["z.tar.gz"] = data
    table = dataset("z", [entry(site, "z.tar.gz", data)])
    summary = run(site, table, tmp_path / "a")
    (out,) = summary.files
    assert out.status == "failed" and "add up to more than" in out.detail
    assert "raise the limit with max_extract_bytes" in out.detail
    assert not (tmp_path / "a/z").exists()
    summary = run(site, table, tmp_path / "b", max_extract_bytes=5 << 20)
    assert summary.ok and (tmp_path / "b/z/zeros.bin").stat().st_size == 4 << 20


def test_a_sparse_tar_cannot_expand_past_its_size(site, tmp_path):
    # issue 33 item 21: a 10 kB sparse tar wrote 2 GB (here 64 MB: what the old code wrote)
    data = sparse_tar(64 << 20)
    assert len(data) == 10240
    site.files["s.tar"] = data
    summary = run(site, dataset("s", [entry(site, "s.tar", data)]), tmp_path)
    (out,) = summary.files
    assert out.status == "failed" and "'s/big.bin'" in out.detail
    assert f"add up to more than {int(10240 * 1.05) + (1 << 20)} bytes" in out.detail
    assert not (tmp_path / "s").exists()

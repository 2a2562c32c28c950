"""``corruptbench download``: the plan, usage errors (exit 2), and a mirror whose bytes do not
match the package's table (exit 1, named), against a real server on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from corruptbench.cli import main
from download.archives import cifar_c_tar, md5, tar_bytes
from download.server import Site, serve


def test_dry_run_prints_the_plan_with_sources(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["download", "imagenet-c", str(tmp_path), "--parts", "noise,blur", "--dry-run"]) == 0
    )
    out = capsys.readouterr().out
    assert "noise.tar [part noise]: to download" in out and "blur.tar [part blur]" in out
    assert "weather.tar" not in out
    assert "md5: e80562d7f6c3f8834afb1ecf27252745 (pytorch-ood 0.4.0 (PyPI)" in out
    assert "url: https://zenodo.org/records/2235448/files/noise.tar?download=1" in out
    assert list(tmp_path.iterdir()) == []
    assert (
        main(
            [
                "download",
                "cifar10-c",
                str(tmp_path),
                "--dry-run",
                "--base-url",
                "http://127.0.0.1:1/m",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "url: http://127.0.0.1:1/m/CIFAR-10-C.tar" in out
    assert "size: 2918471680 bytes (2.92 GB; tensorflow-datasets 4.9.10 (PyPI)" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["download", "imagenet-x", "D"],
            "unknown dataset 'imagenet-x'; known: imagenet-c, imagenet-p",
        ),
        (
            ["download", "imagenet-c", "D", "--parts", "fog"],
            "--parts fog: imagenet-c has the parts noise, blur",
        ),
        (
            ["download", "cifar10-c", "D", "--checksum", "CIFAR-10-C.tar=md5:" + "0" * 32],
            "--checksum: the table already has",
        ),
        (
            ["download", "imagenet-c-bar", "D", "--checksum", "x.tar=md5:00"],
            "md5 needs 32 hex digits",
        ),
        (
            ["download", "imagenet-c-bar", "D", "--base-url", "http://127.0.0.1:9"],
            "no known checksum for imagenet_c_bar.tar.gz",
        ),
    ],
)
def test_usage_errors_exit_2(argv, message, tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(tmp_path / a) if a == "D" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"corruptbench {argv[0]}: error: ") and message in err


def test_a_mirror_cannot_override_the_packages_checksum(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve(Site(files={"CIFAR-10-C.tar": cifar_c_tar()})) as site:
        rc = main(
            [
                "download",
                "cifar10-c",
                str(tmp_path),
                "--base-url",
                site.base + "/files",
                "--no-progress",
            ]
        )
    assert rc == 1
    captured = capsys.readouterr()
    # the announced size differs from the table's: refused before the body is read, said once
    assert captured.out.startswith("failed: CIFAR-10-C.tar from http://127.0.0.1:")
    assert "the server announces 71680 bytes, not the 2918471680 bytes expected" in captured.out
    assert "(tensorflow-datasets 4.9.10" in captured.out
    assert captured.out.count("announces") == 1 and "announces" not in captured.err
    assert list(tmp_path.iterdir()) == []  # no .part, no .mismatch


def test_a_given_checksum_is_named_plainly_and_each_outcome_printed_once(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 33 item 21: "verified (md5 from given with --checksum)", and a failure printed
    # twice ("FAILED:" in the log, then "failed:" in the summary)
    data = tar_bytes([("ImageNet-C-Bar/blue_noise_sample/0.8/x.JPEG", b"x", None)], gz=True)
    with serve(Site(files={"imagenet_c_bar.tar.gz": data})) as site:
        argv = ["download", "imagenet-c-bar", str(tmp_path / "ok"), "--no-progress"]
        argv += ["--base-url", site.base + "/files"]
        assert main([*argv, "--checksum", f"imagenet_c_bar.tar.gz=md5:{md5(data).value}"]) == 0
        err = capsys.readouterr().err
        assert "imagenet_c_bar.tar.gz: verified (md5 from --checksum)" in err
        argv[2] = str(tmp_path / "bad")
        assert main([*argv, "--checksum", "imagenet_c_bar.tar.gz=md5:" + "0" * 32]) == 1
    out, err = capsys.readouterr()
    assert out.count("does not match") == 1 and "does not match" not in err
    assert out.startswith("failed: imagenet_c_bar.tar.gz: the downloaded file does not match")


def test_a_checksum_the_table_has_is_refused_in_a_whole_sentence(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 33 item 21: the message ended "...only used for files without"
    argv = ["download", "cifar10-c", str(tmp_path), "--checksum", "CIFAR-10-C.tar=md5:" + "0" * 32]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("a checksum you give is only used for a file the table has none for")


def test_the_expansion_limit_is_named_by_its_flag(tmp_path, capsys) -> None:
    data = tar_bytes([("ImageNet-C-Bar/zeros.bin", bytes(1 << 20), None)], gz=True)
    with serve(Site(files={"imagenet_c_bar.tar.gz": data})) as site:
        argv = ["download", "imagenet-c-bar", str(tmp_path), "--no-progress", "--accept-unverified"]
        argv += ["--base-url", site.base + "/files", "--max-extract-size", "1000"]
        assert main(argv) == 1
    out = capsys.readouterr().out
    assert "add up to more than 1000 bytes" in out
    assert out.rstrip().endswith("raise the limit with --max-extract-size BYTES")


def test_dry_run_gives_imagenet_cs_sizes_with_their_source(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 33 item 21: --dry-run said "unknown" for ImageNet-C's size
    assert main(["download", "imagenet-c", str(tmp_path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "unknown" not in out
    assert "size: about 21 GB (rounded; kkirchheim/pytorch-ood on GitHub" in out  # noise.tar
    assert "total: about 62 GB" in out


@pytest.mark.slow  # a CLI process (~4 s on the 2-core machine)
def test_ctrl_c_keeps_every_byte_received_as_the_message_says(tmp_path) -> None:
    # issue 33 item 21: an interrupted read lost what it had buffered (up to 1 MiB), although
    # the message says the bytes fetched so far are kept
    data = os.urandom(300_000)
    site = Site(files={"imagenet_c_bar.tar.gz": data}, stall_s=30.0)
    site.faults["imagenet_c_bar.tar.gz"] = ["half-stall"]
    with serve(site):
        argv = ["download", "imagenet-c-bar", str(tmp_path), "--no-progress"]
        argv += ["--accept-unverified", "--base-url", site.base + "/files"]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "corruptbench", *argv],
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        deadline = time.monotonic() + 60
        while not site.log and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # the first half has arrived; the server is silent
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert (tmp_path / "imagenet_c_bar.tar.gz.part").read_bytes() == data[:150_000]
    assert "every byte received so far is kept" in err

"""Build outputs: one parameter set per OUT (manifest), atomic writes, skipped.csv."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from builders.support import dead_pid, left_temp, make_source, run_c
from corruptbench.builders import BuildError, ItemResult
from corruptbench.builders.outputs import (
    TMP_SUFFIX,
    read_skipped,
    sweep_temps,
    write_atomic,
    write_skipped,
)
from corruptbench.cli import main
from corruptbench.fileio import temp_path


def test_parameter_mismatch_is_refused(tmp_path: Path) -> None:
    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    run_c(src, out, names=["brightness"], levels=[1])
    with pytest.raises(BuildError, match="seed: 0 there, 1 now"):
        run_c(src, out, names=["brightness"], levels=[1], seed=1)
    with pytest.raises(BuildError, match="different parameters"):
        run_c(src, out, names=["brightness", "fog"], levels=[1])
    rc = main(
        [
            "make-c",
            str(src),
            str(out),
            "--corruptions",
            "brightness",
            "--severities",
            "2",
            "--workers",
            "1",
        ]
    )
    assert rc == 2
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "keep.txt").write_text("mine")
    with pytest.raises(BuildError, match="not empty"):
        run_c(src, tmp_path / "other", names=["brightness"], levels=[1])


def test_write_atomic_leaves_no_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "a.bin"
    write_atomic(target, lambda fh: fh.write(b"abc"))
    assert target.read_bytes() == b"abc"

    def fail(fh: object) -> None:
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_atomic(tmp_path / "b.bin", fail)
    assert sorted(os.listdir(tmp_path)) == ["a.bin"]
    left_temp(tmp_path / "c.bin")
    (tmp_path / "sub").mkdir()
    left_temp(tmp_path / "sub" / "d.bin")
    assert sweep_temps(tmp_path) == 2 and sorted(os.listdir(tmp_path)) == ["a.bin", "sub"]


def test_the_sweep_removes_only_what_no_running_writer_owns(tmp_path: Path) -> None:
    """A second run used to delete a running build's temporary files (ENOENT at its rename):
    only those of processes that are gone go; another machine's only when old."""
    import subprocess
    import sys
    import time

    from corruptbench.builders.outputs import FOREIGN_TEMP_AGE_S

    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        keep = [
            left_temp(tmp_path / "live.jpg", pid=live.pid),  # a running writer of this host
            left_temp(tmp_path / "other.jpg", pid=live.pid, host="elsewhere"),  # recent, other host
            left_temp(tmp_path / "mine.jpg", pid=os.getpid()),  # this process (own=False)
        ]
        gone = [
            left_temp(tmp_path / "dead.jpg"),  # a writer of this host that exited
            left_temp(tmp_path / "old.jpg", pid=live.pid, host="elsewhere"),
            tmp_path / f".legacy.jpg.{dead_pid()}{TMP_SUFFIX}",  # the older .<name>.<pid> form
        ]
        gone[-1].write_bytes(b"x")
        old = time.time() - FOREIGN_TEMP_AGE_S - 60
        os.utime(gone[1], (old, old))
        # a pid reused by a process started after the file was last written is not its writer
        before = time.time() - 3600
        reused = left_temp(tmp_path / "reused.jpg", pid=live.pid)
        os.utime(reused, (before, before))
        gone.append(reused)
        (tmp_path / "plain.cbtmp").write_bytes(b"not hidden: not ours")
        assert sweep_temps(tmp_path) == len(gone)
        assert all(p.exists() for p in keep) and not any(p.exists() for p in gone)
        assert (tmp_path / "plain.cbtmp").exists()
        assert sweep_temps(tmp_path, own=True) == 1 and not keep[2].exists()
    finally:
        live.kill()
        live.wait()


def test_skipped_csv_round_trip(tmp_path: Path) -> None:
    rows = [
        ItemResult("b/2.png", "failed", 0, "fog 3: ValueError: x", "/src/b/2.png"),
        ItemResult("a/1.png", "skipped", 0, "truncated, with a comma", "/src/a/1.png"),
    ]
    write_skipped(tmp_path, rows)
    text = (tmp_path / "skipped.csv").read_text()
    assert text.splitlines()[0] == "relative_path,source,status,reason"
    back = read_skipped(tmp_path)
    assert [(r.rel, r.status, r.reason, r.source) for r in back] == [
        ("a/1.png", "skipped", "truncated, with a comma", "/src/a/1.png"),
        ("b/2.png", "failed", "fog 3: ValueError: x", "/src/b/2.png"),
    ]
    assert read_skipped(tmp_path / "none") == []


def test_a_run_sweeps_the_temporary_files_left_during_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shard killed between open and rename (its Ray node died) leaves a temporary file while
    the build goes on; the build removes it when it ends, not only at the next run's start."""
    import corruptbench.builders.builder as builder

    src = make_source(tmp_path, 2)
    out = tmp_path / "out"
    real = builder.iter_local

    def leaky(*args, **kwargs):  # type: ignore[no-untyped-def]
        for res in real(*args, **kwargs):
            leftover = Path(temp_path(out / "brightness" / "1" / res[0].rel))
            leftover.write_bytes(b"partial")
            yield res

    monkeypatch.setattr(builder, "iter_local", leaky)
    s = run_c(src, out, names=["brightness"], levels=[1])
    assert s.written == 2 and not list(out.rglob(f"*{TMP_SUFFIX}"))


def test_rebuild_after_deleting_out_in_the_same_process(tmp_path: Path) -> None:
    """The folders one build made are not assumed to exist in the next (OUT deleted between)."""
    import shutil

    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    first = run_c(src, out, names=["brightness"], levels=[1])
    shutil.rmtree(out)
    again = run_c(src, out, names=["brightness"], levels=[1])
    assert first.written == again.written == 1

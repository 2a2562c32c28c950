"""build(): argument checks, the end-of-run summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders.support import make_source, run_c
from corruptbench.builders import BuildError, BuildSummary, ItemResult, build, format_summary
from corruptbench.errors import ArgumentError


def test_arguments_are_checked_before_any_work(tmp_path: Path) -> None:
    src = make_source(tmp_path, 1)
    out = tmp_path / "out"
    with pytest.raises(ValueError, match="kind must be 'c' or 'p'"):
        build("x", src, out, profile="imagenet", fmt="jpeg", names=["fog"], levels=[1])
    with pytest.raises(BuildError, match="format must be one of mp4, npy, webdataset for make-p"):
        build("p", src, out, profile="imagenet", fmt="jpeg", names=["rotate"], levels=[1])
    with pytest.raises(BuildError, match="^corruptions is empty$"):
        run_c(src, out, names=[])
    with pytest.raises(BuildError, match="^unknown corruption 'fogg'; did you mean 'fog'"):
        run_c(src, out, names=["fogg"])
    with pytest.raises(BuildError, match="^limit must be >= 1, got 0$"):
        run_c(src, out, limit=0)
    with pytest.raises(BuildError, match="must not be the source folder or inside it"):
        run_c(src, src / "inside")
    with pytest.raises(BuildError, match="source not found"):
        run_c(tmp_path / "nope", out)
    with pytest.raises(BuildError, match="difficulties 2 and 3 exist only for"):
        build("p", src, out, profile="imagenet", fmt="mp4", names=["rotate"], levels=[2])
    with pytest.raises(BuildError, match=r"^severities must be in 1..5, got \[0, 1\]$"):
        run_c(src, out, levels=[0, 1])
    with pytest.raises(ArgumentError, match=r"^quality must be an int in 1..100, got 0 \(Pillow"):
        run_c(src, out, quality=0)
    with pytest.raises(BuildError, match="^copy_files applies to the tree layout only$"):
        run_c(src, out, copy_files=["x"])
    # each format takes its own options: one that does not apply is refused, not dropped
    with pytest.raises(
        BuildError, match="^quality applies to --format jpeg, tree, webdataset only$"
    ):
        run_c(src, out, fmt="npy", quality=90)
    with pytest.raises(BuildError, match="^preset applies to --format mp4, webdataset only$"):
        build(
            "p",
            src,
            out,
            profile="imagenet",
            fmt="npy",
            names=["rotate"],
            levels=[1],
            preset="fast",
        )
    assert not out.exists()


def test_relative_paths_reach_the_workers_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ray worker does not run in the driver's working directory: the shards carry absolute
    paths (the summary still shows OUT as given)."""
    make_source(tmp_path, 1)
    (tmp_path / "src" / "n01440764" / "broken.JPEG").write_bytes(b"not a JPEG")
    monkeypatch.chdir(tmp_path)
    s = run_c(Path("src"), Path("out"), names=["brightness"], levels=[1])
    assert s.out == Path("out") and s.written == 1
    assert [r.source for r in s.skipped] == [str(tmp_path / "src" / "n01440764" / "broken.JPEG")]


def test_format_summary(tmp_path: Path) -> None:
    s = BuildSummary(tmp_path, images=4, already_done=1, processed=3, written=6, elapsed=2.0)
    s.skipped = [ItemResult("a.png", "skipped", reason="truncated")]
    text = format_summary(s)
    assert text.startswith("4 images: 3 processed in this run, 1 already done; 6 outputs written;")
    assert "1 skipped; 0 failed; 2.0 s (1.50 img/s)" in text
    assert text.splitlines()[1:] == [
        f"1 input(s) not made (all listed in {tmp_path / 'skipped.csv'}):",
        "  skipped: a.png: truncated",
    ]
    assert s.exit_code == 0
    # warnings are not skips: their own line, after the skips, never called an upsampling
    s.warnings = [ItemResult("b.png", "warning", reason="a remark")]
    assert text + "\n" + "\n".join(
        [
            f"warning: 1 input(s) made with a remark (all listed in {tmp_path / 'skipped.csv'}):",
            "  b.png: a remark",
        ]
    ) == format_summary(s)
    done = BuildSummary(tmp_path, images=4, nothing_to_do=True, ignored=2)
    assert format_summary(done).splitlines() == [
        f"nothing to do: {tmp_path} is complete (4 images)",
        "2 non-image files in the source were ignored (extension not an image type)",
    ]
    assert BuildSummary(tmp_path, failed=[ItemResult("a", "failed")]).exit_code == 1

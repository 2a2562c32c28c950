"""eval-c refuses an unfinished make-c build and cells holding different images (issue 33 items
1 and 2: both were evaluated and averaged without a word)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from PIL import Image  # noqa: E402

from builders.support import run_c  # noqa: E402
from corruptbench.evaluation import EvalError, evaluate_c  # noqa: E402
from evaluation.support import WNIDS, fast_model, quiet, synthetic_imagenet_c  # noqa: E402

CELLS = [("gaussian_noise", 1), ("gaussian_noise", 2), ("fog", 1)]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Three cells of 8 images (4 classes x 2)."""
    root = tmp_path / "inc"
    synthetic_imagenet_c(root, CELLS, WNIDS)
    return root


def _evaluate(data: Path, **kw: object):
    return evaluate_c(fast_model(), data, run=quiet(workers=0), **kw)


def _first(cell: Path) -> Path:
    return sorted(cell.rglob("*.JPEG"))[0]


def test_comparable_cells_are_evaluated(tree: Path) -> None:
    res = _evaluate(tree)
    assert res.c is not None and res.c.counts["fog"][0] == 8


def test_a_file_missing_from_one_cell_is_refused(tree: Path) -> None:
    gone = _first(tree / "fog" / "1")
    gone.unlink()
    key = f"{gone.parent.name}/{gone.name}"
    with pytest.raises(EvalError, match="cells hold different images") as err:
        _evaluate(tree)
    assert f"fog/1 lacks 1 ({key})" in str(err.value)
    assert f"corruptbench verify {tree}" in str(err.value)
    assert "\n" not in str(err.value)


def test_an_extra_file_in_one_cell_is_refused(tree: Path) -> None:
    src = _first(tree / "gaussian_noise" / "2")
    shutil.copy(src, src.with_name("extra.JPEG"))
    with pytest.raises(EvalError, match=r"gaussian_noise/2 holds 1 others \(.*extra\.JPEG\)"):
        _evaluate(tree)


def test_a_truncated_file_in_one_cell_is_refused(tree: Path) -> None:
    f = _first(tree / "gaussian_noise" / "1")
    f.write_bytes(f.read_bytes()[:200])
    with pytest.raises(EvalError, match=r"gaussian_noise/1 1 damaged \(.*: truncated"):
        _evaluate(tree)
    # one cell alone is compared with nothing: its unreadable file is skipped and noted
    res = _evaluate(tree, corruptions=["gaussian_noise"], severities=[1])
    assert res.c is not None and res.c.counts["gaussian_noise"][0] == 7


def test_a_class_missing_from_one_cell_is_refused(tree: Path) -> None:
    shutil.rmtree(tree / "fog" / "1" / WNIDS[2])
    with pytest.raises(EvalError, match=r"fog/1 lacks 2 \("):
        _evaluate(tree)
    # with limit the subsets drawn differ as well
    with pytest.raises(EvalError, match="cells hold different images"):
        _evaluate(tree, limit=4)


def _photos(root: Path, n: int) -> Path:
    rng = np.random.default_rng(0)
    for i in range(n):
        d = root / WNIDS[i % 2]
        d.mkdir(parents=True, exist_ok=True)
        Image.fromarray(rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)).save(d / f"{i}.png")
    return root


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("build")
    out = tmp / "out"
    run_c(_photos(tmp / "src", 4), out, names=["gaussian_noise"], levels=[1, 2], profile="cifar")
    return out


def test_an_unfinished_build_is_refused(build: Path, tmp_path: Path) -> None:
    """Issue 33 item 1: manifest "running", some images written, evaluated without a word."""
    out = tmp_path / "out"
    shutil.copytree(build, out)
    assert _evaluate(out).c is not None  # the finished build
    doc = json.loads((out / "manifest.json").read_text())
    doc["status"] = "running"
    (out / "manifest.json").write_text(json.dumps(doc))
    for f in sorted((out / "gaussian_noise" / "2").rglob("*.jpg"))[1:]:
        f.unlink()
    with pytest.raises(EvalError) as err:
        _evaluate(out)
    assert str(err.value) == (
        f"{out}: the make-c build did not finish (its manifest.json says 'running', not "
        f"'complete'): re-run the same make-c command to finish it; `corruptbench verify {out}` "
        "lists what is missing or damaged"
    )


def test_cells_short_of_the_manifest_count_are_refused(build: Path, tmp_path: Path) -> None:
    """Issue 33 item 2: the same file missing from every cell leaves the cells alike, but not
    what the build wrote."""
    out = tmp_path / "out"
    shutil.copytree(build, out)
    for cell in out.glob("gaussian_noise/*"):
        _first_png(cell).unlink()
    with pytest.raises(EvalError, match="holds 3 images where the make-c manifest.json records 4"):
        _evaluate(out)


def _first_png(cell: Path) -> Path:
    return sorted(cell.rglob("*.jpg"))[0]


def test_shards_whose_cells_differ_are_refused(tree: Path, tmp_path: Path) -> None:
    """convert skips a damaged file: the shards of that cell hold one sample fewer."""
    from corruptbench.builders.convert import convert

    f = _first(tree / "fog" / "1")
    f.write_bytes(f.read_bytes()[:200])
    out = tmp_path / "shards"
    summary = convert(tree, out)
    assert len(summary.skipped) == 1
    with pytest.raises(EvalError, match=r"cells hold different images.*fog/1 lacks 1"):
        _evaluate(out)
    assert _evaluate(out, corruptions=["gaussian_noise"]).c is not None  # its cells agree


def test_the_command_line_says_it_in_one_line(build: Path, tmp_path: Path, capsys) -> None:
    from corruptbench.cli import main

    out = tmp_path / "out"
    shutil.copytree(build, out)
    doc = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({**doc, "status": "interrupted"}))
    args = ["eval-c", "--model", "cifar_resnet20", "--random-weights", "--data", str(out)]
    assert main([*args, "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("corruptbench eval-c: error: ") and "\n" not in err
    assert "'interrupted'" in err and f"corruptbench verify {out}" in err

